"""What a stage plan may read: the candidate, the design, the golden side, the recipe, earlier stages' outputs.

Paths a stage gives a tool are relative: every artifact has a run-folder-relative name (the canonical
design is ``canonical/canonical.v``, a stage's own files ``NN-<id>/<file>``) and ``rel`` makes it
relative to the tool's working directory, so a command line is the same in every run folder.
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from ..candidate import Candidate
from ..config import DesignConfig
from ..hdl.canonical import HEADER_EXT, SOURCE_EXT
from ..hdl.literals import param_override
from ..recipe import Recipe
from .model import StageId, StageResult

if TYPE_CHECKING:
    from ..ppa.liberty import Liberty

CANONICAL = "canonical/canonical.v"  # the one text every tool reads (hdl/canonical.py)
SRC = "src"  # the candidate's own files: the record, headers, $readmem data
GOLDEN = "golden"  # the golden side's own files and canonical text
T = TypeVar("T")


def checked_params(cand: Candidate) -> dict[str, str]:
    """Candidate.params as a dict, each checked by the one literal rule (``hdl.literals``)."""
    return dict(param_override(k, v) for k, v in cand.params)


@dataclass
class StageContext:
    cand: Candidate
    design: DesignConfig
    golden: Candidate | None = None  # the differential/formal target as given (its canonical text: golden_canonical)
    equivalence: bool = False
    recipe: Recipe | None = None  # the PPA stages': what to synthesize with, onto which library, which power
    liberty: Liberty | None = None
    power: str = "vectorless"
    root: Path = Path(".")  # the run folder, for in-process readers of what is in it (set by the runner)
    here: str = ""  # the running stage's folder, run-folder-relative (set by the runner)
    folders: dict[StageId, str] = field(default_factory=dict)
    results: dict[StageId, StageResult] = field(default_factory=dict)

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

    def rel(self, path: str, cwd: str = ".") -> str:
        """``path`` (run-folder-relative) as seen from ``cwd`` inside the running stage's folder."""
        return posixpath.relpath(path, posixpath.normpath(posixpath.join(self.here, cwd)))

    def own(self, name: str) -> str:
        """A file of the running stage, run-folder-relative."""
        return posixpath.join(self.here, name)

    def artifact(self, stage: StageId, name: str) -> str:
        """A file an earlier stage made, run-folder-relative."""
        return posixpath.join(self.folders[stage], name)

    def sources(self, cwd: str = ".") -> list[str]:
        """What a tool compiles: the canonical text (one file, includes inlined, macros expanded)."""
        return [self.rel(CANONICAL, cwd)]

    def src_dir(self, cwd: str = ".") -> str:
        return self.rel(SRC, cwd)

    def data_files(self) -> dict[str, str]:
        """Data files ($readmem targets), to be placed beside a tool's working directory."""
        return {Path(n).name: t for n, t in self.cand.files if not n.lower().endswith(SOURCE_EXT + HEADER_EXT)}

    def value(self, stage: StageId, kind: type[T]) -> T:
        """The typed output of an earlier stage (its ``StageResult.value``)."""
        v = self.results[stage].value
        if not isinstance(v, kind):
            raise TypeError(f"stage {stage} produced {type(v).__name__}, not {kind.__name__}")
        return v
