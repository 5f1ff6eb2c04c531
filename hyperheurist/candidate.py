"""A candidate design: immutable Verilog sources plus the top module and parameter overrides."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path


@dataclass(frozen=True)
class Candidate:
    """Sources are ``(filename, text)`` pairs; the digest names it everywhere (folders, journal).

    Headers reached through `` `include`` travel as files too (every tool finds them beside the
    sources); ``defines`` are the project's preprocessor macros (``+define+``/``defines:``), part of
    what the candidate means, so part of its digest.
    """

    files: tuple[tuple[str, str], ...]
    top: str
    params: tuple[tuple[str, str], ...] = ()
    defines: tuple[tuple[str, str], ...] = ()
    parent: str | None = None
    move: str | None = None
    origin: str = "seed"
    label: str = ""
    meta: tuple[tuple[str, str], ...] = field(default=(), compare=False)

    @property
    def digest(self) -> str:
        h = hashlib.sha256()
        h.update(f"top={self.top}\n".encode())
        for k, v in sorted(self.params):
            h.update(f"param {k}={v}\n".encode())
        for k, v in sorted(self.defines):  # none: the digest of a design without defines is unchanged
            h.update(f"define {k}={v}\n".encode())
        for name, text in sorted(self.files):
            h.update(f"file {name} {len(text)}\n".encode())
            h.update(text.encode("utf-8", errors="surrogateescape"))
        return h.hexdigest()

    @property
    def short(self) -> str:
        return self.digest[:12]

    @property
    def text(self) -> str:
        """All sources concatenated (for prompts and diffs)."""
        return "\n".join(t for _, t in self.files)

    def write(self, folder: Path) -> list[Path]:
        """Write the sources into ``folder/src`` and return their paths."""
        src = Path(folder) / "src"
        src.mkdir(parents=True, exist_ok=True)
        out = []
        for name, text in self.files:
            p = src / Path(name).name
            p.write_text(text, encoding="utf-8", errors="surrogateescape")
            out.append(p)
        return out

    def with_sources(self, files: Iterable[tuple[str, str]], *, move: str, origin: str = "mutation") -> Candidate:
        return replace(self, files=tuple(files), parent=self.digest, move=move, origin=origin, label="")

    def with_params(self, params: dict[str, str], *, move: str) -> Candidate:
        return replace(self, params=tuple(sorted(params.items())), parent=self.digest, move=move,
                       origin="mutation", label="")

    def to_dict(self) -> dict[str, object]:
        return {
            "digest": self.digest, "top": self.top, "params": dict(self.params), "parent": self.parent,
            "move": self.move, "origin": self.origin, "label": self.label,
            "files": [name for name, _ in self.files], "defines": dict(self.defines),
        }

    @classmethod
    def from_paths(cls, paths: Iterable[Path], top: str, *, origin: str = "seed", label: str = "",
                   defines: dict[str, str] | None = None) -> Candidate:
        files = []
        for p in paths:
            data = Path(p).read_bytes()
            files.append((Path(p).name, data.decode("utf-8", errors="surrogateescape")))
        return cls(files=tuple(files), top=top, origin=origin, label=label,
                   defines=tuple(sorted((defines or {}).items())))

    @classmethod
    def from_text(cls, text: str, top: str, *, name: str = "design.v", origin: str = "seed", label: str = "",
                  move: str | None = None) -> Candidate:
        return cls(files=((name, text),), top=top, origin=origin, label=label, move=move)
