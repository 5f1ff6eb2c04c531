"""Write docs/design-yaml.md, the reference of every design.yaml key, from the pydantic models.

Keys, types, defaults and bounds come from the models themselves; the one-line meanings come from
each model's docstring and the comment on the field's line in hyperheurist/config/. So the page
cannot drift: ``tests/test_project_docs.py`` fails when it differs from what this script writes.

    python tools/gen_config_docs.py           # rewrite the page
    python tools/gen_config_docs.py --check   # exit 1 when the page is out of date
"""

from __future__ import annotations

import inspect
import re
import sys
import types
import typing
from pathlib import Path

from pydantic import BaseModel
from pydantic.fields import FieldInfo
from pydantic_core import PydanticUndefined

from hyperheurist import config

OUT = Path(__file__).resolve().parent.parent / "docs" / "design-yaml.md"
INTERNAL = {("DesignConfig", "source"), ("DesignConfig", "base_dir"), ("PPA", "liberty_path")}  # filled by the loader
BOUND = {"Ge": ">=", "Gt": ">", "Le": "<=", "Lt": "<", "MinLen": "min length"}
# meanings of fields whose line in hyperheurist/config/ carries no comment (a comment there wins)
MEANINGS = {
    "DesignConfig.name": "design name: run folders are runs/<name>/...; letters, digits, _ . -",
    "DesignConfig.top": "top module every candidate must define",
    "DesignConfig.spec": "natural-language specification (Markdown) given to the generator and the LLM moves",
    "DesignConfig.description": "one line shown in reports",
    "Interface.clock": "clock input; omit for combinational designs",
    "Reset.name": "reset input",
    "Reset.active": "level that resets",
    "Reset.sync": "true: sampled on the clock edge; false: asynchronous",
    "Port.name": "port name, as in the RTL",
    "Port.dir": "direction",
    "Port.width": "width in bits after default parameters",
    "Port.signed": "signed port (stimulus and comparisons treat it as two's complement)",
    "Verification.cocotb": "cocotb test module (without .py) in test_dir",
    "Verification.testbench": "a self-checking Verilog testbench",
    "Verification.pass_regex": "the testbench passed when a line matches",
    "Verification.fail_regex": "the testbench failed when a line matches (null: never)",
    "Verification.reference": "golden RTL (a file, a folder or a filelist) for the differential simulation and "
                              "equivalence",
    "Verification.simulator": "simulator for cocotb and testbenches",
    "Verification.timeout_s": "wall-time limit of one simulation",
    "Differential.enabled": "compare the candidate with the reference cycle by cycle under random and corner stimulus",
    "Differential.cycles": "cycles simulated",
    "Differential.seed": "stimulus seed",
    "Equivalence.enabled": "run the formal gate (also --equivalence)",
    "Equivalence.depth": "steps from reset proven for sequential designs",
    "Equivalence.timeout_s": "solver time limit; a timeout fails the gate",
    "PPA.liberty": "osu018 | osu035 | osu050 (bundled) or a path to any .lib",
    "PPA.clock_period_ns": "target clock period: SDC, slack and the timing penalty",
    "Weights.area": "weight of the area ratio in the cost",
    "Weights.delay": "weight of the delay ratio in the cost",
    "Weights.power": "weight of the power ratio in the cost",
    "PPA.input_activity": "toggle rate of every input for vectorless power",
    "PPA.power": "power fidelity: OpenSTA vectorless, or gate-level simulation activity",
    "PPA.timing_penalty": "cost multiplier per unit of negative slack relative to the period",
    "PPA.flow": "flow preset (hyperheurist/flows/<name>.yaml) or a path to one",
    "Generation.provider": "where Phase-1 candidates come from: seeds only (offline/files) or an OpenAI-compatible "
                           "endpoint",
    "Generation.seeds": "seed designs: a glob (one seed per match), a filelist (one multi-file seed) or a folder",
    "Generation.model": "model name sent to the endpoint",
    "Generation.base_url": "OpenAI-compatible endpoint (OPENAI_BASE_URL and --base-url override it)",
    "Generation.temperature": "sampling temperature of generation requests",
    "Generation.candidates": "Phase-1 candidates to generate",
    "Generation.repair_attempts": "repair requests per failed candidate",
    "Generation.retries": "retries of a failed request (429, 5xx, timeouts) with backoff",
    "Generation.rules_file": "failure-rule memory kept across runs (created when missing)",
    "Generation.price_per_mtok_in": "price per million input tokens, for budget.cost",
    "Generation.price_per_mtok_out": "price per million output tokens, for budget.cost",
    "RunBudget.requests": "LLM requests the whole run may make",
    "RunBudget.tokens": "LLM tokens the whole run may use",
    "ModelProfile.token_param": "which output-cap parameter the endpoint takes",
    "ModelProfile.seed": "send or omit the seed parameter",
    "ModelProfile.context_length": "the model's context window in tokens",
    "Anneal.iterations": "annealing iterations per chain",
    "Anneal.seed": "seed of the search (a run is replayable from it)",
    "Anneal.chains": "parallel annealing chains",
    "Anneal.t0": "initial temperature (null: from the first uphill moves)",
    "Anneal.cooling": "geometric cooling factor per iteration",
    "Anneal.t_min": "temperature floor",
    "Anneal.reheat_after": "iterations without improvement before reheating",
    "Anneal.polish": "rounds of greedy descent over every single change of the best state, after annealing (0: none)",
    "Anneal.moves": "allowed move names (null: all)",
    "Anneal.jobs": "parallel evaluations (also --jobs)",
    "Tunable.name": "Verilog parameter of the top module",
    "Tunable.values": "values the annealer may give it",
    "Limits.max_file_bytes": "largest candidate file accepted",
    "Limits.max_files": "most files in one candidate",
    "Limits.tool_mem_mb": "memory limit of every tool process",
    "Limits.tool_timeout_s": "wall-time limit of every tool call",
}


def _comments(model: type[BaseModel]) -> dict[str, str]:
    """``field: ... # comment`` lines of the class body, and ``# comment`` lines right above a field."""
    out: dict[str, str] = {}
    above: list[str] = []
    for line in inspect.getsource(model).splitlines():
        m = re.match(r"^    ([a-z_][a-z0-9_]*)\s*:\s*[^#]*?(?:#\s*(.*))?$", line)
        comment = re.match(r"^    #\s*(.*)$", line)
        if m:
            text = m.group(2) or " ".join(above)
            if text:
                out[m.group(1)] = text.strip()
            above = []
        elif comment:
            above.append(comment.group(1))
        else:
            above = []
    return out


def _models(ann: object) -> list[type[BaseModel]]:
    if isinstance(ann, type) and issubclass(ann, BaseModel):
        return [ann]
    return [m for a in typing.get_args(ann) for m in _models(a)]


def _type(ann: object) -> str:
    if isinstance(ann, type) and issubclass(ann, BaseModel):
        return "mapping"
    if ann is type(None):
        return "null"
    origin = typing.get_origin(ann)
    args = typing.get_args(ann)
    if origin is typing.Literal:
        return " \\| ".join(repr(a).replace("'", "") for a in args)
    if origin in (typing.Union, types.UnionType):
        return " \\| ".join(_type(a) for a in args)
    if origin is list:
        return f"list of {_type(args[0])}" if args else "list"
    if origin is dict:
        return f"mapping {_type(args[0])} → {_type(args[1])}" if args else "mapping"
    names: dict[object, str] = {str: "string", int: "integer", float: "number", bool: "boolean", Path: "path"}
    return names.get(ann) or str(getattr(ann, "__name__", ann))


def _default(field: FieldInfo) -> str:
    if field.is_required():
        return "**required**"
    d = field.default
    if isinstance(d, BaseModel):
        return "(section)"
    if d is PydanticUndefined or d is None:
        return "null"
    if isinstance(d, bool):
        return str(d).lower()
    if d in ([], {}):
        return "[]" if d == [] else "{}"
    return f"`{d}`".replace("|", "\\|")


def _bounds(field: FieldInfo) -> str:
    out = []
    for meta in field.metadata:
        kind = type(meta).__name__
        if kind in BOUND:
            value = getattr(meta, kind.lower().replace("minlen", "min_length"))
            out.append(f"{BOUND[kind]} {value:g}" if isinstance(value, float) else f"{BOUND[kind]} {value}")
    return ", ".join(out)


def _section(model: type[BaseModel], path: str, seen: list[tuple[str, type[BaseModel]]]) -> list[str]:
    notes = _comments(model)
    doc = inspect.cleandoc(model.__doc__ or "") if model.__doc__ and model.__doc__ != BaseModel.__doc__ else ""
    lines = [f"## `{path}`" if path else "## top level", ""]
    if doc:
        lines += [doc.split("\n\n")[0].replace("\n", " "), ""]
    lines += ["| key | type | default | bounds | meaning |", "|---|---|---|---|---|"]
    for name, field in model.model_fields.items():
        if (model.__name__, name) in INTERNAL:
            continue
        sub = _models(field.annotation)
        key = f"{path}.{name}" if path else name
        if sub and typing.get_origin(field.annotation) is list:
            key += "[]"
        meaning = notes.get(name) or MEANINGS.get(f"{model.__name__}.{name}", "")
        if sub:
            meaning = (meaning + " " if meaning else "") + f"see [`{key}`](#{re.sub(r'[^a-z0-9_-]', '', key.lower())})"
            seen.append((key, sub[0]))
        cell = meaning.replace("|", "\\|")
        lines.append(f"| `{name}` | {_type(field.annotation)} | {_default(field)} | {_bounds(field)} | {cell} |")
    return lines + [""]


def render() -> str:
    head = ["# design.yaml reference", "",
            "Generated by `tools/gen_config_docs.py` from the pydantic models in `hyperheurist/config/`;",
            "do not edit by hand (`tests/test_project_docs.py` checks it is current). Unknown keys are",
            "rejected (named first in the error); relative paths are relative to the YAML file; `hh init`",
            "writes a starting file from existing RTL.", ""]
    body: list[str] = []
    todo: list[tuple[str, type[BaseModel]]] = []
    body += _section(config.DesignConfig, "", todo)
    done: set[str] = set()
    while todo:
        key, model = todo.pop(0)
        if key in done:
            continue
        done.add(key)
        body += _section(model, key, todo)
    return "\n".join(head + body).rstrip() + "\n"


def main(argv: list[str]) -> int:
    text = render()
    if "--check" in argv:
        if not OUT.is_file() or OUT.read_text(encoding="utf-8") != text:
            print(f"{OUT} is out of date: run python tools/gen_config_docs.py", file=sys.stderr)
            return 1
        return 0
    OUT.write_text(text, encoding="utf-8")
    print(f"wrote {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
