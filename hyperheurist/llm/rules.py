"""Failure-rule memory: recurring gate failures become short validity rules added to later prompts.

Rules live in the run directory (``rules.json``) and, when ``generation.rules_file`` is set, in a
YAML file shared across runs that the user can read and edit.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import yaml

from ..config import yamlsafe
from ..errors import ConfigError
from ..jsonio import read_json, write_json, write_text_atomic

NO_INITIAL = "Synthesizable RTL only: no initial blocks and no # delays in the design."
# (gate, pattern in the gate message) -> the rule a generator should follow. First match wins.
PATTERNS: tuple[tuple[str, str, str], ...] = (
    ("structure", r"latch", "Every combinational always block assigns every output on every path: give defaults "
                             "at the top of always @(*) or use a complete case with default; never infer latches."),
    ("structure", r"loop", "No combinational loops: a signal computed in always @(*) must not feed back into itself."),
    ("structure", r"driv",
     "Drive every net from exactly one always block or assign; never assign a reg in two blocks."),
    ("structure", r"port|width",
     "Declare exactly the ports of the interface, with the names, directions and widths given."),
    ("structure", r"initial|delay", NO_INITIAL),
    ("structure", r"top module|not found", "Name the top module exactly as the interface says."),
    ("compile", r"l-value|procedural assignment", "A signal assigned inside an always block is declared reg "
                                                  "(output reg for outputs); a signal driven by assign is a wire."),
    ("compile", r"unable to bind|undeclared|not declared|unknown identifier",
     "Declare every wire and reg before it is used (no implicit nets, no typos in names)."),
    ("compile", r"syntax|expect", "Plain Verilog-2005/2012 that Icarus Verilog accepts: no SystemVerilog-only "
                                   "constructs (interfaces, classes, unique case), declare before use."),
    ("compile", r"width|WIDTH", "Size every constant and match operand widths explicitly (e.g. {8'd0, a})."),
    ("compile", r".", "The code must compile with iverilog -g2012 and verilator --lint-only."),
    ("safety", r".", "No system tasks with side effects ($system, $fopen, $fwrite, $readmem*, $dumpfile) and no "
                      "`include of files outside the design."),
    ("simulation", r"reset", "Apply the reset exactly as specified (polarity, sync/async) to every state register."),
    ("simulation", r"timeout|hang|time limit", "No loops without a bound; every state machine must leave every state."),
    ("simulation", r".", "Match the spec exactly: intermediate results wide enough for every carry and product, "
                          "the latency, when outputs update, and the reset values."),
    ("equivalence", r".", "Keep the exact behaviour of the reference, including corner cases (overflow, zero, reset)."),
)


# under ``verification.initial: power_on_values`` initial blocks of constants are legal: say so instead
POWER_ON_INITIAL = ("Synthesizable RTL only: no # delays; an initial block may only give registers constant "
                    "power-on values.")


@dataclass
class Rule:
    text: str
    gate: str
    count: int = 0
    source: str = "observed"  # "observed" in this run, "file" from the shared rules file

    def to_dict(self) -> dict[str, str | int]:
        return {"text": self.text, "gate": self.gate, "count": self.count, "source": self.source}


def rule_for(gate: str, message: str, power_on_values: bool = False) -> str | None:
    """The rule a failure of ``gate`` with ``message`` teaches (``power_on_values``: the design's
    ``verification.initial`` policy accepts initial blocks of constants)."""
    for g, pattern, text in PATTERNS:
        if g == gate and re.search(pattern, message or "", re.IGNORECASE):
            return POWER_ON_INITIAL if power_on_values and text == NO_INITIAL else text
    return None


class RuleMemory:
    """Counts failures per rule; a rule seen ``threshold`` times (or loaded from the file) is active.

    A run starts from the shared file's rules *as they were when the run began* (kept in the run's
    ``rules.json`` as ``initial``): a resumed run sees the same rules as the original, so it renders
    the same prompts and its recorded LLM responses still answer them. Observed counts are not
    reloaded: the flow observes the journal-memoised Phase-1 failures again on resume.
    """

    def __init__(self, run_file: Path, shared_file: Path | None = None, threshold: int = 1,
                 start_from: Path | None = None, power_on_values: bool = False) -> None:
        """``start_from``: another run's ``rules.json`` whose starting rules to use (``hh run --replay``);
        ``power_on_values``: the design accepts initial blocks of constant power-on values."""
        self.power_on_values = power_on_values
        self.run_file = Path(run_file)
        self.shared_file = Path(shared_file) if shared_file else None
        self.threshold = threshold
        self.rules: dict[str, Rule] = {}
        origin = self.run_file if self.run_file.is_file() else Path(start_from) if start_from else None
        self.write_shared = start_from is None  # a replay reproduces a run: it teaches the shared file nothing
        saved = read_json(origin) if origin is not None and origin.is_file() else None
        if isinstance(saved, dict) and isinstance(saved.get("initial"), list):  # a resumed run
            initial = [Rule(d["text"], d.get("gate", ""), int(d.get("count", 0)), "file") for d in saved["initial"]]
        elif self.shared_file is not None and self.shared_file.is_file():
            initial = self.read_shared(self.shared_file)
        else:
            initial = []
        self.initial = [r.to_dict() for r in initial]
        for r in initial:
            self.rules[r.text] = r

    @staticmethod
    def read_shared(path: Path) -> list[Rule]:
        """The rules of a shared rules file; ConfigError naming the file and the entry when it is not one."""
        try:
            data = yamlsafe.load(path.read_text(encoding="utf-8")) or []
        except (OSError, UnicodeDecodeError, yaml.YAMLError, yamlsafe.YamlLimitError) as exc:
            raise ConfigError(f"{path}: cannot read rules file: {str(exc).splitlines()[0]}") from None
        if not isinstance(data, list):
            raise ConfigError(f"{path}: rules file must be a YAML list of rules")
        out = []
        for i, item in enumerate(data):
            if isinstance(item, str):
                out.append(Rule(item, "", 0, "file"))
            elif isinstance(item, dict) and isinstance(item.get("text"), str):
                out.append(Rule(item["text"], str(item.get("gate", "")), int(item.get("count", 0)), "file"))
            else:
                raise ConfigError(f"{path}: rules[{i}]: expected a string or a mapping with 'text'")
        return out

    def observe(self, gate: str, message: str) -> str | None:
        text = rule_for(gate, message, self.power_on_values)
        if text is None:
            return None
        # the plain value: a FailedGate (a str enum) would reach the YAML rules file, which cannot hold it
        rule = self.rules.setdefault(text, Rule(text, str(gate)))
        rule.count += 1
        return text

    def active(self, limit: int | None = None) -> list[str]:
        """Rules to put into prompts: from the shared file, or observed often enough; most frequent first
        (at most ``limit``: a prompt is not a rule book)."""
        live = [r for r in self.rules.values() if r.source == "file" or r.count >= self.threshold]
        ranked = [r.text for r in sorted(live, key=lambda r: (-r.count, r.text))]
        return ranked if limit is None else ranked[:limit]

    def to_dict(self) -> dict[str, object]:
        return {"threshold": self.threshold, "initial": self.initial,
                "rules": [r.to_dict() for r in self.rules.values()]}

    def save(self) -> None:
        write_json(self.run_file, self.to_dict())
        if self.shared_file is not None and self.write_shared:
            items = [{"text": r.text, "gate": r.gate, "count": r.count} for r in self.rules.values()
                     if r.source == "file" or r.count >= self.threshold]
            write_text_atomic(self.shared_file, "# hh failure rules: edit freely; each is added to generation prompts\n"
                              + yaml.safe_dump(items, sort_keys=False, width=100))
