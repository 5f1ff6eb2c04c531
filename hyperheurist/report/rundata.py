"""Everything the run report reads from a run directory, loaded tolerantly.

A missing or unreadable file is recorded in ``problems`` (shown on the page) instead of raising,
so a report can be rendered for an interrupted run or an older layout.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from ..config import yamlsafe
from ..errors import InputError
from ..jsonio import as_dict, read_jsonl
from ..record.chain import proof_kind
from ..record.entries import EndRecord, EvalRecord, JournalRecord, Phase1Record, StepRecord, parse_record
from ..record.summary import Phase1Entry, Phase1Stats, RunSummary

MAX_TEXT_BYTES = 2_000_000  # RTL/COMMANDS beyond this are cut: the page must stay openable


Json = dict[str, object]  # a JSON or YAML file of the run as read (manifest, resolved.yaml, ppa.json): read defensively


@dataclass
class RunData:
    path: Path
    summary: RunSummary = field(default_factory=RunSummary)
    has_summary: bool = False  # summary.json was read (the run finished, or found no valid candidate)
    manifest: Json = field(default_factory=dict)
    resolved: Json = field(default_factory=dict)
    records: list[JournalRecord] = field(default_factory=list)  # the journal, typed (``record.entries``)
    phase1: list[Phase1Record] = field(default_factory=list)  # the same records by type
    evals: list[EvalRecord] = field(default_factory=list)
    steps: list[StepRecord] = field(default_factory=list)
    end: EndRecord | None = None
    commands: str | None = None
    best_rtl: str | None = None
    initial_rtl: str | None = None
    best_recipe: str | None = None
    initial_recipe: str | None = None
    best_ppa: Json = field(default_factory=dict)
    initial_ppa: Json = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    status_note: str = ""  # why the run record is partial (interrupted, no valid candidate), shown first

    @property
    def design_name(self) -> str:
        return (self.summary.design or str(self.manifest.get("design") or "") or str(self.resolved.get("name") or "")
                or self.path.name)

    @property
    def phase1_stats(self) -> Phase1Stats:
        """Phase 1 from summary.json, else rebuilt from the journal's phase1 records (an unfinished run)."""
        if self.summary.phase1.entries or not self.phase1:
            return self.summary.phase1
        return Phase1Stats.of([phase1_entry(r) for r in self.phase1])


def phase1_entry(r: Phase1Record) -> Phase1Entry:
    """A journal Phase-1 record as the summary lists it (``proof`` its verdict's name)."""
    return Phase1Entry(label=r.label, digest=r.digest, origin=r.origin or None, verdict=r.verdict.value,
                       gate=r.gate.value if r.gate is not None else None, message=r.message,
                       repaired_from=r.repaired_from, proof=proof_kind(r.proof) if r.proof is not None else None)


def _read_text(path: Path, problems: list[str], required: bool = False) -> str | None:
    if not path.is_file():
        if required:
            problems.append(f"{path.name}: not found")
        return None
    try:
        data = path.read_bytes()
    except OSError as exc:
        problems.append(f"{path.name}: cannot read ({exc.strerror})")
        return None
    cut = len(data) > MAX_TEXT_BYTES
    text = data[:MAX_TEXT_BYTES].decode("utf-8", errors="replace")
    if cut:
        problems.append(f"{path.name}: {len(data)} bytes, only the first {MAX_TEXT_BYTES} shown")
    return text


def _read_json_dict(path: Path, problems: list[str], required: bool = False) -> Json:
    text = _read_text(path, problems, required)
    if text is None:
        return {}
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        problems.append(f"{path.name}: not valid JSON (line {exc.lineno}: {exc.msg})")
        return {}
    except RecursionError:
        problems.append(f"{path.name}: nested too deeply to read")
        return {}
    if not isinstance(data, dict):
        problems.append(f"{path.name}: expected a JSON object")
        return {}
    return data


def _read_yaml_dict(path: Path, problems: list[str]) -> Json:
    text = _read_text(path, problems)
    if text is None:
        return {}
    try:
        data = yamlsafe.load(text)
    except (yaml.YAMLError, ValueError):  # YamlLimitError is a ValueError
        problems.append(f"{path.name}: not valid YAML")
        return {}
    return as_dict(data)


def _read_journal(rd: RunData) -> None:
    path = rd.path / "journal.jsonl"
    if not path.is_file():
        rd.problems.append("journal.jsonl: not found")
        return
    try:
        for i, obj in enumerate(read_jsonl(path), 1):
            try:
                rec = parse_record(obj)
            except ValidationError:
                rd.problems.append(f"journal.jsonl: record {i} is not a journal record; skipped")
                continue
            rd.records.append(rec)
            match rec:
                case Phase1Record():
                    rd.phase1.append(rec)
                case EvalRecord():
                    rd.evals.append(rec)
                case StepRecord():
                    rd.steps.append(rec)
                case EndRecord():
                    rd.end = rec
    except json.JSONDecodeError as exc:
        # a corrupt line in the middle: keep what came before it
        rd.problems.append(f"journal.jsonl: unreadable line ({exc.msg}); later records skipped")
    except (ValueError, RecursionError) as exc:  # bytes that are not UTF-8, absurd nesting
        rd.problems.append(f"journal.jsonl: unreadable ({type(exc).__name__}); later records skipped")
    except OSError as exc:
        rd.problems.append(f"journal.jsonl: cannot read ({exc.strerror})")


RUN_MARKERS = ("summary.json", "manifest.json", "journal.jsonl", "resolved.yaml")


def is_run_dir(path: Path) -> bool:
    """True when ``path`` holds at least one file every run directory starts with."""
    return any((Path(path) / m).is_file() for m in RUN_MARKERS)


def _ppa_record(data: Json) -> Json:
    """``ppa.json`` is ``{metrics, cost, candidate}``: flatten it to one metrics dict with ``cost``."""
    metrics = as_dict(data.get("metrics"))
    if not metrics:
        return data
    return {**metrics, "cost": data.get("cost")}


def load_run(path: Path) -> RunData:
    """Read a run directory; a missing directory or one with no run file at all is an ``InputError``."""
    path = Path(path)
    if not path.is_dir():
        raise InputError(f"{path}: not a directory")
    if not is_run_dir(path):
        raise InputError(f"{path}: not a run directory (none of {', '.join(RUN_MARKERS)})")
    rd = RunData(path=path.resolve())
    p = rd.problems
    raw = _read_json_dict(path / "summary.json", p, required=True)
    rd.summary, rd.has_summary = RunSummary.read(raw), bool(raw)
    rd.manifest = _read_json_dict(path / "manifest.json", p, required=True)
    rd.resolved = _read_yaml_dict(path / "resolved.yaml", p)
    _read_journal(rd)
    rd.commands = _read_text(path / "COMMANDS", p)
    for which in ("best", "initial"):
        folder = path / which
        setattr(rd, f"{which}_rtl", _read_rtl(folder, p))
        setattr(rd, f"{which}_recipe", _read_text(folder / "recipe.yaml", p))
        setattr(rd, f"{which}_ppa", _ppa_record(_read_json_dict(folder / "ppa.json", p)))
    _note_status(rd)
    return rd


def _note_status(rd: RunData) -> None:
    """Explain a run that did not finish normally at the top of the problems list."""
    status = rd.summary.status
    if not rd.has_summary and rd.end is None:
        rd.status_note = ("The run did not finish (no summary.json, no end record): it was interrupted or is still "
                          "running. This page shows what the journal holds; resume with: "
                          f"hh run --resume {rd.path}")
    elif status == "interrupted":
        why = rd.summary.interrupted_by
        rd.status_note = ("The run was interrupted" + (f" ({why})" if why else "") + "; the figures cover the "
                          f"iterations done. Resume with: hh run --resume {rd.path}")
    elif status == "no-valid-candidate":
        rd.status_note = ("No candidate passed every Phase-1 gate, so there is no initial or best design and Phase 2 "
                          "did not run. The rejection messages below say what to fix.")


def _read_rtl(folder: Path, problems: list[str]) -> str | None:
    """``design.v``; a multi-file design falls back to every ``*.v``/``*.sv`` in name order."""
    main = folder / "design.v"
    if main.is_file():
        return _read_text(main, problems)
    files = sorted(list(folder.glob("*.v")) + list(folder.glob("*.sv"))) if folder.is_dir() else []
    if not files:
        return None
    parts = [f"// ---- {f.name} ----\n{_read_text(f, problems) or ''}" for f in files]
    return "\n".join(parts)


def spec_excerpt(rd: RunData, max_lines: int = 40) -> tuple[str | None, str]:
    """(first lines of the spec, where it came from); the spec path is absolute in resolved.yaml."""
    spec: Any = rd.resolved.get("spec")
    if not isinstance(spec, str) or not spec:
        return None, "spec path not recorded"
    p = Path(spec)
    if not p.is_file():
        return None, f"spec file not found: {spec}"
    try:
        lines = p.read_bytes()[:200_000].decode("utf-8", errors="replace").splitlines()
    except OSError as exc:
        return None, f"spec file unreadable: {exc.strerror}"
    more = f" (first {max_lines} of {len(lines)} lines)" if len(lines) > max_lines else ""
    return "\n".join(lines[:max_lines]), spec + more
