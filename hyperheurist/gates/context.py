"""What every gate needs: the candidate on disk, the design, the golden side, limits and timeouts."""

from __future__ import annotations

import re
import shutil
from dataclasses import dataclass
from pathlib import Path

from ..candidate import Candidate
from ..config import PARAM_LITERAL, DesignConfig
from ..errors import ConfigError
from ..hdl.canonical import Canonical

VERILOG_EXT = (".v", ".sv", ".vh", ".svh")
DATA_EXT = (".hex", ".mem", ".txt", ".bin", ".dat")
SAFE_NAME = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$")
# parameter values end up in command lines and generated Verilog: the one rule config and synthesis use
PARAM_VALUE = PARAM_LITERAL
IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_$]*$")


def design_inputs(design: DesignConfig) -> list[Path]:
    """The user's files a tool may read (read-only in the sandbox): the design folder, the
    testbench and the cocotb test folder, wherever they are."""
    v = design.verification
    out = [p for p in (design.base_dir, v.testbench, v.test_dir) if p is not None]
    return [Path(p) for p in out]


def is_verilog(name: str) -> bool:
    return name.lower().endswith(VERILOG_EXT)


def is_header(name: str) -> bool:
    return name.lower().endswith((".vh", ".svh"))


def checked_params(cand: Candidate) -> dict[str, str]:
    """Candidate.params as a dict, validated so they cannot smuggle text into argv or Verilog."""
    out: dict[str, str] = {}
    for k, v in cand.params:
        v = str(v).strip()
        if not IDENT.match(k) or not PARAM_VALUE.match(v):
            raise ConfigError(f"parameter override {k}={v!r}: not a Verilog identifier and literal")
        out[k] = v
    return out


@dataclass
class GateContext:
    cand: Candidate
    design: DesignConfig
    workdir: Path
    golden: Candidate | None  # canonical text once the safety gate has run (gates/preprocess.py)
    equivalence: bool
    canonical: Canonical | None = None  # set by the safety gate: what every later tool reads

    @property
    def src_dir(self) -> Path:
        return self.workdir / "src"

    @property
    def top(self) -> str:
        return self.design.top

    @property
    def params(self) -> dict[str, str]:
        return checked_params(self.cand)

    @property
    def tool_timeout(self) -> float:
        return self.design.limits.tool_timeout_s

    @property
    def sim_timeout(self) -> float:
        return self.design.verification.timeout_s

    @property
    def mem_mb(self) -> int:
        return self.design.limits.tool_mem_mb

    @property
    def sandbox(self) -> str:
        return self.design.limits.sandbox

    def readable(self) -> list[Path]:
        """What a sandboxed gate tool may read besides the system: this candidate's folder and the
        design's own verification inputs (testbench, cocotb tests)."""
        return [self.workdir, *design_inputs(self.design)]

    def write_sources(self) -> None:
        """Write the candidate into ``workdir/src`` (after the safety gate vetted names and sizes)."""
        self.cand.write(self.workdir)

    def sources(self) -> list[Path]:
        """Verilog files to compile: the canonical text once the safety gate made it (one file, every
        include inlined, every macro expanded), else the candidate's own sources."""
        if self.canonical is not None:
            return [self.canonical.path]
        return [self.src_dir / Path(n).name for n, _ in self.cand.files if is_verilog(n) and not is_header(n)]

    def data_files(self) -> list[Path]:
        return [self.src_dir / Path(n).name for n, _ in self.cand.files if not is_verilog(n)]

    def stage_inputs(self, folder: Path) -> None:
        """Copy data files ($readmem targets) beside a tool's working directory, where it resolves them."""
        for p in self.data_files():
            shutil.copyfile(p, Path(folder) / p.name)
