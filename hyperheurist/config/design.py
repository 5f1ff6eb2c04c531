"""The root of design.yaml: the design's name, top, spec and sources, and every section."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError, ValidationInfo, field_validator, model_validator

from ..hdl.filelist import is_filelist
from ..hdl.literals import define, identifier
from ..inputs import input_problem
from ..secrets import is_secret_name, without_credentials
from .generation import Generation
from .interface import Interface
from .limits import Limits
from .model import Model, base_of
from .paths import absolute_entry, check_sources, path_text, resolve_file
from .ppa import PPA
from .search import Anneal, Tunable
from .verification import Verification

DESIGN_NAME = re.compile(r"^[A-Za-z0-9_.-]+$")


class DesignConfig(Model):
    name: str
    top: str
    spec: Path
    description: str | None = None
    # environment variables a filelist may expand ($VAR, ${VAR}); none by default, never a secret's name
    filelist_env: list[str] = []
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
    def _spec(cls, v: object, info: ValidationInfo) -> Path | None:
        return resolve_file(v, info)

    @field_validator("filelist_env")
    @classmethod
    def _filelist_env(cls, v: list[str]) -> list[str]:
        for name in v:
            if not re.fullmatch(r"[A-Za-z_]\w*", name):
                raise ValueError(f"{name!r} is not an environment variable name")
            if is_secret_name(name):
                raise ValueError(f"{name} looks like a secret (key, token, password...): never expanded")
        return v

    @field_validator("sources", mode="before")
    @classmethod
    def _sources(cls, v: object, info: ValidationInfo) -> list[str]:
        entries = [v] if isinstance(v, str) else v
        if not isinstance(entries, list) or not all(isinstance(e, str) for e in entries):
            raise ValueError("expected a path or a list of paths (files, globs, folders, filelists)")
        check_sources(entries, base_of(info), info.data.get("filelist_env", ()))
        return [absolute_entry(e, base_of(info)) for e in entries]  # resolved.yaml holds absolute paths

    @field_validator("include_dirs", mode="before")
    @classmethod
    def _include_dirs(cls, v: object, info: ValidationInfo) -> list[Path]:
        entries = [v] if isinstance(v, str) else v or []
        if not isinstance(entries, list):
            raise ValueError("expected a folder or a list of folders")
        out = []
        for e in entries:
            given = Path(path_text(e)).expanduser()
            given = given if given.is_absolute() else base_of(info) / given
            p = given.resolve()
            if not p.is_dir():
                raise ValueError(f"folder not found: {p}")
            problem = input_problem(given, base_of(info), folder=True)  # the headers are read and sent on
            if problem:
                raise ValueError(problem)
            out.append(p)
        return out

    @field_validator("defines", mode="before")
    @classmethod
    def _defines(cls, v: object) -> dict[str, str]:
        if isinstance(v, list):  # ["A", "B=2"] as on a command line
            v = dict((str(x).partition("=")[0], str(x).partition("=")[2]) for x in v)
        if not isinstance(v, dict):
            raise ValueError("expected a mapping NAME: value (or a list of NAME=value)")
        out = {}
        for k, val in v.items():
            text = "" if val is None else ("1" if val is True else "0" if val is False else str(val))
            define(str(k), text)  # a LiteralError is a ValueError: pydantic names the field
            out[str(k)] = text
        return out

    @field_validator("top")
    @classmethod
    def _top(cls, v: str) -> str:
        return identifier(v, "module name")

    @field_validator("name")
    @classmethod
    def _name(cls, v: str) -> str:
        if not DESIGN_NAME.match(v):
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
            problem = input_problem(p, base_of(info))
            if problem:
                raise ValueError(f"generation.seeds: {problem}")
        return self

    @model_validator(mode="before")
    @classmethod
    def _equivalence_default(cls, data: Any, info: ValidationInfo) -> Any:
        """``verification.equivalence.enabled`` left out: on, except for clocks the check cannot step in lockstep
        (several domains), where it is off and every accepted change is reported "not checked"."""
        if not isinstance(data, dict) or not isinstance(data.get("verification"), dict):
            return data
        ver = data["verification"]
        eq = ver.get("equivalence")
        eq = {} if eq is None else eq
        if not isinstance(eq, dict) or "enabled" in eq:
            return data
        try:
            lockstep = Interface.model_validate(data.get("interface"), context=info.context).lockstep_clocks
        except ValidationError:
            return data  # the interface's own error is reported by the validation proper
        return {**data, "verification": {**ver, "equivalence": {**eq, "enabled": lockstep}}}

    @model_validator(mode="after")
    def _formal_clocks(self) -> DesignConfig:
        if self.verification.equivalence.enabled and not self.interface.lockstep_clocks:
            raise ValueError("verification.equivalence.enabled: several clock domains and the equivalence check "
                             "steps one clock: declare interface.synchronous_clocks: true if the clocks share every "
                             "edge (one period_ns for all), or leave equivalence off")
        return self

    def spec_text(self) -> str:
        return self.spec.read_text(encoding="utf-8", errors="replace")

    def resolved_yaml(self) -> str:
        data = self.model_dump(mode="json", exclude={"source", "base_dir"})
        if data["generation"]["base_url"]:  # credentials in the URL stay out of the run directory
            data["generation"]["base_url"] = without_credentials(data["generation"]["base_url"])
        data["interface"] = _one_clock_spelling(data["interface"])
        return yaml.safe_dump(data, sort_keys=False)


def _one_clock_spelling(iface: dict[str, Any]) -> dict[str, Any]:
    """A single-clock interface written as ``clock:``/``reset:``, as most design.yaml files are (and as
    readers of resolved.yaml written before the lists expect)."""
    out = dict(iface)
    clocks, resets = iface["clocks"], iface["resets"]
    if len(clocks) == 1 and clocks[0]["domain"] is None and clocks[0]["period_ns"] is None:
        del out["clocks"]
        out["clock"] = clocks[0]["name"]
    if "clock" in out and len(resets) == 1 and resets[0]["domain"] is None:
        del out["resets"]
        out["reset"] = {k: v for k, v in resets[0].items() if k != "domain"}
    if "clock" in out:
        del out["synchronous_clocks"]
    return {k: out[k] for k in ("clock", "reset", "clocks", "resets", "synchronous_clocks", "ports") if k in out}
