"""design.yaml: the typed, validated description of one benchmark.

Validated once here (pydantic, unknown keys rejected, paths resolved relative to the YAML file);
everything inward receives a ``DesignConfig``. Errors become one ``ConfigError`` line naming the
file and the field.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, ValidationInfo, field_validator, model_validator

from .errors import ConfigError
from .inputs import input_problem
from .project.filelist import check_define, expand, is_filelist

BUNDLED_LIBERTIES = {
    "osu018": "/usr/share/qflow/tech/osu018/osu018_stdcells.lib",
    "osu035": "/usr/share/qflow/tech/osu035/osu035_stdcells.lib",
    "osu050": "/usr/share/qflow/tech/osu050/osu050_stdcells.lib",
}
IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_$]*$")
# a tunable value ends up in Yosys' -chparam and generated Verilog: the constants synthesis accepts
# (ppa.synth's rule: a decimal integer, a based literal or a string; no `1_000`, no bare identifier),
# checked here so a value that cannot work is a config error at load, never a fault in every synthesis
PARAM_LITERAL = re.compile(r"^(-?\d+|\d*'[sS]?[bBoOdDhH][0-9a-fA-F_xXzZ?]+|\"[^\"\\\n]*\")$")
MAX_YAML_DEPTH = 32  # design.yaml nests four levels; anything this deep is a mistake (or an attack on the parser)
MAX_TIMEOUT_S = 7 * 86400.0
FLOWS_DIR = Path(__file__).resolve().parent / "flows"  # package data: works from a wheel too


class Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)  # inf/nan is never a setting


def _base(info: ValidationInfo) -> Path:
    ctx = info.context or {}
    return Path(ctx.get("base_dir", "."))


def _is_file(p: Path) -> bool:
    """``p.is_file()``, False where the name itself is unusable (too long, NUL byte, ...)."""
    try:
        return p.is_file()
    except (OSError, ValueError):
        return False


def _path_text(value: Any) -> str:
    if not isinstance(value, (str, Path)):
        raise ValueError(f"expected a file path, got {type(value).__name__}")
    return str(value)


def _resolve_file(value: Any, info: ValidationInfo, must_exist: bool = True) -> Path | None:
    if value is None:
        return None
    p = Path(_path_text(value)).expanduser()
    if not p.is_absolute():
        p = _base(info) / p
    given, p = p, p.resolve()
    if must_exist and not _is_file(p):
        raise ValueError(f"file not found: {p}")
    if _is_file(p):
        problem = input_problem(given, _base(info))  # no /proc, devices, or links out of the design folder
        if problem:
            raise ValueError(problem)
    return p


class Reset(Model):
    name: str
    active: Literal["low", "high"] = "low"
    sync: bool = True

    @field_validator("name")
    @classmethod
    def _ident(cls, v: str) -> str:
        if not IDENT.match(v):
            raise ValueError(f"not a Verilog identifier: {v!r}")
        return v


class Port(Model):
    name: str
    dir: Literal["input", "output", "inout"]
    width: int = Field(ge=1, le=4096)
    signed: bool = False

    @field_validator("name")
    @classmethod
    def _ident(cls, v: str) -> str:
        if not IDENT.match(v):
            raise ValueError(f"not a Verilog identifier: {v!r}")
        return v


class Interface(Model):
    clock: str | None = None
    reset: Reset | None = None
    ports: list[Port] = Field(min_length=1)

    @model_validator(mode="after")
    def _consistent(self) -> Interface:
        names = [p.name for p in self.ports]
        dupes = {n for n in names if names.count(n) > 1}
        if dupes:
            raise ValueError(f"duplicate port names: {', '.join(sorted(dupes))}")
        for special in (self.clock, self.reset.name if self.reset else None):
            if special is None:
                continue
            listed = [p for p in self.ports if p.name == special]
            if listed and (listed[0].dir != "input" or listed[0].width != 1):
                raise ValueError(f"{special} must be a 1-bit input")
        if not any(p.dir == "output" for p in self.ports):
            raise ValueError("the interface has no output port")
        return self

    def all_ports(self) -> list[Port]:
        """Clock and reset (as 1-bit inputs) followed by the listed ports, without repeats."""
        out: list[Port] = []
        listed = {p.name for p in self.ports}
        if self.clock and self.clock not in listed:
            out.append(Port(name=self.clock, dir="input", width=1))
        if self.reset and self.reset.name not in listed:
            out.append(Port(name=self.reset.name, dir="input", width=1))
        return out + list(self.ports)

    def data_inputs(self) -> list[Port]:
        special = {self.clock, self.reset.name if self.reset else None}
        return [p for p in self.ports if p.dir == "input" and p.name not in special]

    def outputs(self) -> list[Port]:
        return [p for p in self.ports if p.dir == "output"]

    @property
    def sequential(self) -> bool:
        return self.clock is not None


class Differential(Model):
    enabled: bool = True
    cycles: int = Field(default=400, ge=1, le=1_000_000)
    seed: int = 1


class Equivalence(Model):
    enabled: bool = False
    depth: int = Field(default=12, ge=1, le=1000)  # bounded search: cycles after the reset sequence
    timeout_s: float = Field(default=120, gt=0, le=MAX_TIMEOUT_S)  # time cap of one check (then inconclusive)
    engine: Literal["auto", "yosys-sat"] = "auto"  # auto: ABC unless a side can produce X
    policy: Literal["proven", "proven_or_bounded"] = "proven_or_bounded"
    reset_cycles: int = Field(default=2, ge=1, le=64)  # the declared reset sequence: reset held this long
    reset_inputs: dict[str, int] = {}  # data input values during the reset sequence (others 0)
    compare_when: dict[str, str] = {}  # output -> 1-bit output: compared only while the reference's is 1
    against: Literal["all", "parent"] = "all"  # parent: only Phase-2 changes against their parent


class Verification(Model):
    cocotb: str | None = None
    test_dir: Path | None = Field(default=None, validate_default=True)  # folder holding the cocotb module; defaults to the YAML's folder
    testbench: Path | None = None
    pass_regex: str = "PASSED"
    fail_regex: str | None = r"\bFAIL|\bERROR\b|\bMISMATCH"
    reference: Path | None = None
    simulator: Literal["icarus", "verilator"] = "icarus"
    timeout_s: float = Field(default=60, gt=0, le=86400)
    differential: Differential = Differential()
    equivalence: Equivalence = Equivalence()

    @field_validator("testbench", mode="before")
    @classmethod
    def _files(cls, v: Any, info: ValidationInfo) -> Path | None:
        return _resolve_file(v, info)

    @field_validator("reference", mode="before")
    @classmethod
    def _reference(cls, v: Any, info: ValidationInfo) -> Path | None:
        """A file, a folder (its .v/.sv files are one design) or a filelist."""
        if v is None:
            return None
        given = Path(_path_text(v)).expanduser()
        given = given if given.is_absolute() else _base(info) / given
        p = given.resolve()
        problem = input_problem(given, _base(info)) if p.exists() and not p.is_dir() else None
        if problem:  # /proc/self/environ, a device, a link out of the design folder
            raise ValueError(problem)
        _check_sources([str(p)], p.parent)
        return p

    @field_validator("test_dir", mode="before")
    @classmethod
    def _test_dir(cls, v: Any, info: ValidationInfo) -> Path:
        p = Path(_path_text(v)).expanduser() if v is not None else _base(info)
        return (p if p.is_absolute() else _base(info) / p).resolve()

    @model_validator(mode="after")
    def _cocotb_module(self) -> Verification:
        v = self.cocotb
        if v is None:
            return self
        if not re.match(r"^[A-Za-z_][A-Za-z0-9_]*$", v):
            raise ValueError(f"cocotb: not a Python module name: {v!r}")
        assert self.test_dir is not None
        if not _is_file(self.test_dir / f"{v}.py"):
            raise ValueError(f"cocotb: test module not found: {self.test_dir / (v + '.py')}")
        return self

    @field_validator("pass_regex", "fail_regex")
    @classmethod
    def _regex(cls, v: str | None) -> str | None:
        if v is not None:
            try:
                re.compile(v)
            except re.error as exc:
                raise ValueError(f"bad regular expression: {exc}") from exc
        return v

    @model_validator(mode="after")
    def _some_check(self) -> Verification:
        if not (self.cocotb or self.testbench or self.reference):
            raise ValueError("give at least one of cocotb, testbench or reference")
        return self


class Weights(Model):
    area: float = Field(default=1.0, ge=0)
    delay: float = Field(default=1.0, ge=0)
    power: float = Field(default=1.0, ge=0)

    @model_validator(mode="after")
    def _nonzero(self) -> Weights:
        if self.area + self.delay + self.power <= 0:
            raise ValueError("at least one weight must be positive")
        return self


class PPA(Model):
    liberty: str = "osu018"
    clock_period_ns: float = Field(default=10.0, gt=0, le=1e6)
    weights: Weights = Weights()
    input_activity: float = Field(default=0.1, ge=0, le=1)
    power: Literal["vectorless", "activity"] = "vectorless"
    timing_penalty: float = Field(default=2.0, ge=0)
    # weighted: mean of area/delay/power ratios; constrained: meet the clock, then minimise area and power
    objective: Literal["weighted", "constrained"] = "weighted"
    flow: str = "default"
    liberty_path: Path | None = None  # filled in by the validator

    @model_validator(mode="before")
    @classmethod
    def _liberty(cls, data: Any, info: ValidationInfo) -> Any:
        if not isinstance(data, dict):
            return data
        data = dict(data)
        if "liberty_path" in data:
            return data
        lib = _path_text(data.get("liberty", "osu018"))
        if lib in BUNDLED_LIBERTIES:
            data["liberty_path"] = Path(BUNDLED_LIBERTIES[lib])
        else:
            p = Path(lib).expanduser()
            if not p.is_absolute():
                p = (_base(info) / p).resolve()
            if not _is_file(p):
                raise ValueError(f"liberty: not a bundled name ({', '.join(BUNDLED_LIBERTIES)}) nor a file: {p}")
            data["liberty_path"] = p
        return data

    @model_validator(mode="after")
    def _objective(self) -> PPA:
        if self.objective == "constrained" and self.weights.area + self.weights.power <= 0:
            raise ValueError("objective constrained: weights.area or weights.power must be positive")
        return self

    @field_validator("flow")
    @classmethod
    def _flow(cls, v: str, info: ValidationInfo) -> str:
        if _is_file(FLOWS_DIR / f"{v}.yaml"):
            return v
        p = Path(v)
        if not p.is_absolute():
            p = _base(info) / p
        if _is_file(p):
            return str(p.resolve())
        raise ValueError(f"flow preset not found: {v} (bundled: {', '.join(sorted(f.stem for f in FLOWS_DIR.glob('*.yaml')))})")


class RunBudget(Model):
    """What one run may spend on the LLM in all (not a per-request cap: that is ``profile.output_tokens``)."""

    requests: int = Field(default=200, ge=0)
    tokens: int = Field(default=2_000_000, ge=0)
    cost: float | None = Field(default=None, ge=0)  # with price_per_mtok_in/out


class ModelProfile(Model):
    """Overrides of what hh learns about an endpoint's model (``RUN_DIR/llm_profile.json``); null = learn it."""

    token_param: Literal["max_tokens", "max_completion_tokens"] | None = None
    temperature: Literal["send", "omit"] | None = None  # reasoning models take only their default
    seed: Literal["send", "omit"] | None = None
    reasoning_effort: Literal["minimal", "low", "medium", "high"] | None = None  # sent only when set
    output_tokens: int | None = Field(default=None, ge=16)  # per-request output cap (default 4096)
    context_length: int | None = Field(default=None, ge=256)


# generation keys renamed so a run budget cannot be read as a per-request cap
RENAMED_GENERATION = {"max_requests": "budget.requests", "max_tokens": "budget.tokens", "max_cost": "budget.cost"}


class Generation(Model):
    provider: Literal["offline", "openai", "files"] = "offline"
    seeds: str | None = None
    model: str = "gpt-4o-mini"
    base_url: str | None = None
    temperature: float = Field(default=0.8, ge=0, le=2)
    candidates: int = Field(default=8, ge=1, le=256)
    repair_attempts: int = Field(default=2, ge=0, le=20)
    budget: RunBudget = RunBudget()
    profile: ModelProfile = ModelProfile()
    max_output_tokens: int = Field(default=16384, ge=16)  # ceiling when an empty reply was cut off (length)
    extra_body: dict[str, Any] = {}  # sent as is with every request (Ollama: {options: {num_ctx: 16384}})
    stream: bool | Literal["auto"] = "auto"  # auto: stream from servers on this machine or a private network
    idle_timeout_s: float = Field(default=120, gt=0, le=MAX_TIMEOUT_S)  # streamed: longest silence
    request_timeout_s: float = Field(default=120, gt=0, le=MAX_TIMEOUT_S)  # not streamed: whole reply
    retries: int = Field(default=4, ge=0, le=20)
    rules_file: Path | None = None
    critique: bool = False  # ask the LLM to vet each LLM move's proposal before tools run on it
    price_per_mtok_in: float | None = None
    price_per_mtok_out: float | None = None

    @model_validator(mode="before")
    @classmethod
    def _renamed(cls, data: Any) -> Any:
        if isinstance(data, dict):
            for old, new in RENAMED_GENERATION.items():
                if old in data:
                    raise ValueError(f"{old} was renamed: use generation.{new} (a whole-run budget; the "
                                     f"per-request output cap is generation.profile.output_tokens)")
        return data

    @field_validator("seeds", mode="before")
    @classmethod
    def _glob(cls, v: Any, info: ValidationInfo) -> str | None:
        if v is None:
            return None
        p = Path(str(v)).expanduser()
        if not p.is_absolute():
            p = _base(info) / p
        return str(p)

    @field_validator("rules_file", mode="before")
    @classmethod
    def _rules(cls, v: Any, info: ValidationInfo) -> Path | None:
        return _resolve_file(v, info, must_exist=False)

    def seed_files(self) -> list[Path]:
        """One path per seed design: a Verilog file, a filelist, or a folder holding one multi-file design."""
        if not self.seeds:
            return []
        pattern = Path(self.seeds)
        if _is_file(pattern) and is_filelist(pattern.name):
            return [pattern]
        if pattern.is_dir():
            return sorted(p for p in pattern.iterdir()
                          if (p.is_file() and p.suffix.lower() in (".v", ".sv") or is_filelist(p.name))
                          or (p.is_dir() and any(p.glob("*.*v"))))
        return sorted(Path(pattern.anchor).glob(str(pattern.relative_to(pattern.anchor))))


class Anneal(Model):
    iterations: int = Field(default=100, ge=0, le=1_000_000)
    seed: int = 1
    chains: int = Field(default=2, ge=1, le=64)
    t0: float | None = Field(default=None, gt=0)
    cooling: float = Field(default=0.95, gt=0, lt=1)
    t_min: float = Field(default=1e-4, gt=0)
    reheat_after: int = Field(default=15, ge=1)
    moves: list[str] | None = None
    jobs: int | None = Field(default=None, ge=1, le=256)


class Tunable(Model):
    name: str
    values: list[int | str] = Field(min_length=1)

    @field_validator("name")
    @classmethod
    def _ident(cls, v: str) -> str:
        if not IDENT.match(v):
            raise ValueError(f"not a Verilog identifier: {v!r}")
        return v

    @field_validator("values")
    @classmethod
    def _literals(cls, v: list[int | str]) -> list[int | str]:
        for x in v:
            if isinstance(x, str) and not PARAM_LITERAL.match(x.strip()):
                raise ValueError(f"not a Verilog constant synthesis accepts (decimal, based literal or string): {x!r}")
        return v


class Limits(Model):
    max_file_bytes: int = Field(default=1_000_000, ge=1)
    max_files: int = Field(default=32, ge=1)
    tool_mem_mb: int = Field(default=4096, ge=64, le=4 * 1024 * 1024)
    tool_timeout_s: float = Field(default=120, gt=0, le=MAX_TIMEOUT_S)
    # every external tool in the bubblewrap sandbox (sandbox.py); "off" is an explicit, warned-about choice
    sandbox: Literal["required", "off"] = "required"

    @field_validator("sandbox", mode="before")
    @classmethod
    def _sandbox(cls, v: Any) -> Any:
        return {False: "off", True: "required"}.get(v, v) if isinstance(v, bool) else v  # YAML reads `off` as false


def _absolute_entry(entry: str, base: Path) -> str:
    flag, rest = ("-f ", entry.strip()[3:].strip()) if entry.strip().startswith(("-f ", "-F ")) else ("", entry.strip())
    p = Path(rest).expanduser()
    return flag + str(p if p.is_absolute() else base / p)


def _check_sources(entries: list[str], base: Path) -> None:
    """Every entry must resolve (files exist, filelists parse); the ConfigError's text becomes the field's error."""
    try:
        expand(entries, base, "@")
    except ConfigError as exc:  # the field's location is added by the loader: no second name here
        raise ValueError(re.sub(r"^@(\[\d+\])?: ", lambda m: f"entry {m.group(1)}: " if m.group(1) else "",
                                str(exc))) from None


class DesignConfig(Model):
    name: str
    top: str
    spec: Path
    description: str | None = None
    # the design's RTL: files, globs, folders, filelists ("-f x.f" or "x.f"); what hh gate/ppa use without files
    sources: list[str] = []
    include_dirs: list[Path] = []  # folders `include "x.vh" is looked up in; the headers travel with the design
    defines: dict[str, str] = {}  # preprocessor macros every tool sees (+define+ / -D)
    interface: Interface
    verification: Verification
    ppa: PPA = PPA()
    generation: Generation = Generation()
    anneal: Anneal = Anneal()
    tunables: list[Tunable] = []
    limits: Limits = Limits()
    source: Path | None = None  # the YAML this came from; filled in by the loader
    base_dir: Path | None = None

    @field_validator("spec", mode="before")
    @classmethod
    def _spec(cls, v: Any, info: ValidationInfo) -> Path | None:
        return _resolve_file(v, info)

    @field_validator("sources", mode="before")
    @classmethod
    def _sources(cls, v: Any, info: ValidationInfo) -> list[str]:
        entries = [v] if isinstance(v, str) else v
        if not isinstance(entries, list) or not all(isinstance(e, str) for e in entries):
            raise ValueError("expected a path or a list of paths (files, globs, folders, filelists)")
        _check_sources(entries, _base(info))
        return [_absolute_entry(e, _base(info)) for e in entries]  # resolved.yaml holds absolute paths

    @field_validator("include_dirs", mode="before")
    @classmethod
    def _include_dirs(cls, v: Any, info: ValidationInfo) -> list[Path]:
        out = []
        for e in [v] if isinstance(v, str) else (v or []):
            p = Path(_path_text(e)).expanduser()
            p = (p if p.is_absolute() else _base(info) / p).resolve()
            if not p.is_dir():
                raise ValueError(f"folder not found: {p}")
            out.append(p)
        return out

    @field_validator("defines", mode="before")
    @classmethod
    def _defines(cls, v: Any) -> dict[str, str]:
        if isinstance(v, list):  # ["A", "B=2"] as on a command line
            v = dict((str(x).partition("=")[0], str(x).partition("=")[2]) for x in v)
        if not isinstance(v, dict):
            raise ValueError("expected a mapping NAME: value (or a list of NAME=value)")
        out = {}
        for k, val in v.items():
            text = "" if val is None else ("1" if val is True else "0" if val is False else str(val))
            try:
                check_define(str(k), text, "defines")
            except ConfigError as exc:
                raise ValueError(str(exc).removeprefix("defines: ")) from None
            out[str(k)] = text
        return out

    @field_validator("top")
    @classmethod
    def _top(cls, v: str) -> str:
        if not IDENT.match(v):
            raise ValueError(f"not a Verilog module name: {v!r}")
        return v

    @field_validator("name")
    @classmethod
    def _name(cls, v: str) -> str:
        if not re.match(r"^[A-Za-z0-9_.-]+$", v):
            raise ValueError(f"use letters, digits, _ . - only: {v!r}")
        if v.startswith("."):  # "." and ".." would put the run outside --out; ".x" hides it
            raise ValueError(f"must not start with a dot: {v!r}")
        return v

    @model_validator(mode="after")
    def _seed_inputs(self, info: ValidationInfo) -> DesignConfig:
        """Seeds are copied into the run and shown to the LLM: Verilog files, filelists or folders only,
        never a kernel file or a link out of the design folder."""
        for p in self.generation.seed_files():
            if p.is_dir():
                continue
            if not (p.suffix.lower() in (".v", ".sv") or is_filelist(p.name)):
                raise ValueError(f"generation.seeds: {p}: not a Verilog file (.v/.sv), filelist or folder")
            problem = input_problem(p, _base(info))
            if problem:
                raise ValueError(f"generation.seeds: {problem}")
        return self

    def spec_text(self) -> str:
        return self.spec.read_text(encoding="utf-8", errors="replace")

    def resolved_yaml(self) -> str:
        data = self.model_dump(mode="json", exclude={"source", "base_dir"})
        return yaml.safe_dump(data, sort_keys=False)


def _format_loc(loc: tuple) -> str:
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            text = str(part)
            if not re.fullmatch(r"[A-Za-z0-9_$-]+", text):  # a key with blanks, newlines, dots...: quoted
                text = repr(text)
            out += ("." if out else "") + text
    return out or "(top level)"


def format_validation_error(path: Path, exc: ValidationError) -> str:
    errs = exc.errors()
    # a misspelt key explains the "missing" error it causes: name it first
    first = next((e for e in errs if e["type"] == "extra_forbidden"), errs[0])
    loc = _format_loc(tuple(p for p in first["loc"] if not str(p).startswith("function-")))
    msg = first["msg"].removeprefix("Value error, ")
    if first["type"] == "extra_forbidden":
        msg = "unknown key"
    elif first["type"] == "missing":
        msg = "required field is missing"
    more = f" (+{len(errs) - 1} more)" if len(errs) > 1 else ""
    msg = " ".join(str(msg).split())  # one line, whatever the offending value held
    return f"{path}: {loc}: {msg}{more}"


def _set_dotted(data: dict, dotted: str, value: Any) -> None:
    keys = dotted.split(".")
    node = data
    for k in keys[:-1]:
        nxt = node.get(k)
        if not isinstance(nxt, dict):
            nxt = {}
            node[k] = nxt
        node = nxt
    node[keys[-1]] = value


def read_yaml_mapping(path: Path) -> dict:
    """Read a YAML file that must hold a mapping; errors name the file and line."""
    path = Path(path)
    if not path.is_file():
        raise ConfigError(f"{path}: file not found")
    try:
        text = path.read_bytes().decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}: not UTF-8 text (byte {exc.start})") from None
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read: {exc.strerror}") from None
    try:
        data = yaml.safe_load(text)
    except RecursionError:
        raise ConfigError(f"{path}: nested too deeply (more than {MAX_YAML_DEPTH} levels)") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f":{mark.line + 1}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise ConfigError(f"{path}{where}: YAML syntax error: {problem}") from None
    if data is None:
        raise ConfigError(f"{path}: file is empty")
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: top level must be a mapping, got {type(data).__name__}")
    if _nesting(data) > MAX_YAML_DEPTH:
        raise ConfigError(f"{path}: nested too deeply (more than {MAX_YAML_DEPTH} levels)")
    return data


def load_design(path: str | Path, overrides: dict[str, Any] | None = None) -> DesignConfig:
    """Load and validate a design.yaml; ``overrides`` maps dotted keys to values."""
    path = Path(path).expanduser().resolve()
    data = read_yaml_mapping(path)
    for k, v in (overrides or {}).items():
        _set_dotted(data, k, v)
    data.pop("source", None)
    data.pop("base_dir", None)
    gen = data.get("generation")
    if isinstance(gen, dict) and isinstance(gen.get("seeds"), str):  # before validation: it globs the pattern
        seeds = Path(gen["seeds"]).expanduser()
        _check_seed_glob(path, str(seeds if seeds.is_absolute() else path.parent / seeds))
    try:
        cfg = DesignConfig.model_validate(data, context={"base_dir": path.parent})
    except ValidationError as exc:
        raise ConfigError(format_validation_error(path, exc)) from None
    return cfg.model_copy(update={"source": path, "base_dir": path.parent})


def _nesting(data: Any) -> int:
    """Depth of nested mappings/lists (iterative: a deep document must not exhaust the stack)."""
    deepest, stack = 0, [(data, 1)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, (dict, list)):
            deepest = max(deepest, depth)
            if depth <= MAX_YAML_DEPTH:
                stack.extend((v, depth + 1) for v in (node.values() if isinstance(node, dict) else node))
    return deepest


def _check_seed_glob(path: Path, seeds: str | None) -> None:
    """A wildcard in a folder part of ``generation.seeds`` walks a tree: only inside the design folder
    (``seeds: /**/*.v`` would read the whole file system as candidates)."""
    if not seeds:
        return
    parts = Path(seeds).parts
    wild = next((i for i, p in enumerate(parts) if any(c in p for c in "*?[")), len(parts))
    if wild >= len(parts) - 1:
        return  # a plain folder, or wildcards in the file name only
    root = Path(*parts[:wild]).resolve()
    if not root.is_relative_to(path.parent):
        raise ConfigError(f"{path}: generation.seeds: {seeds}: a folder wildcard outside the design folder "
                          f"({root} is not inside {path.parent})")


def parse_override(text: str) -> tuple[str, Any]:
    """``key.sub=value`` from the CLI; the value is parsed as YAML (numbers, booleans, lists)."""
    if "=" not in text:
        raise ConfigError(f"--set {text}: expected KEY=VALUE")
    key, raw = text.split("=", 1)
    try:
        value = yaml.safe_load(raw)
    except yaml.YAMLError:
        value = raw
    return key.strip(), value
