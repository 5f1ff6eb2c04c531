"""The typed run record (``hyperheurist.record``): every journal line parses into its model and is written
back byte for byte, the writer writes the bytes the dict writer wrote, and what the union does not know
(an unknown verdict, a missing key) is refused even when a forger rechains the hashes."""

from __future__ import annotations

import ast
import json
import shutil
from pathlib import Path

import pytest

from hyperheurist.errors import InputError
from hyperheurist.journal import CHAIN, Journal, record_hash, verify
from hyperheurist.record.entries import EndRecord, EvalRecord, Phase1Record, StartRecord, StepRecord, parse_record
from hyperheurist.record.enums import FailedGate, StepVerdict
from hyperheurist.record.proof import Proof
from hyperheurist.stages.model import StageId

DATA = Path(__file__).parent / "data"
# a real `hh run` of tests/data/flow/design.yaml (seed 1), written by the dict-based journal (commit 9af872b):
# phase1, eval (with proofs), annealing and polish steps, end
RUN = DATA / "record" / "journal.jsonl"
OLD = DATA / "report" / "run1" / "journal.jsonl"  # an older layout: no hash chain, no proof, no parent


def _lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines(keepends=True)


@pytest.mark.parametrize("path", [RUN, OLD], ids=["chained", "older"])
def test_every_line_round_trips_byte_for_byte(path: Path) -> None:
    for i, line in enumerate(_lines(path), 1):
        rec = parse_record(json.loads(line))
        assert json.dumps(rec.to_json()) + "\n" == line, f"record {i} ({rec.type}) changed"


def test_a_real_journal_verifies_into_typed_records() -> None:
    run_id = json.loads(_lines(RUN)[0])["run"]
    records, offsets = verify(RUN, run_id)
    kinds = [type(r) for r in records]
    assert kinds[0] is StartRecord and kinds[-1] is EndRecord and len(records) == len(offsets) == 218
    assert {StartRecord, Phase1Record, EvalRecord, StepRecord, EndRecord} == set(kinds)
    steps = [r for r in records if isinstance(r, StepRecord)]
    assert {s.verdict for s in steps} <= set(StepVerdict) and any(s.phase == "polish" for s in steps)
    proofs = [r.proof for r in records if isinstance(r, EvalRecord) and r.proof is not None]
    assert proofs and all(isinstance(p, Proof) for p in proofs) and {p.verdict for p in proofs} == {"proven"}
    evaluation = next(r for r in records if isinstance(r, EvalRecord) and r.proof is not None).evaluation()
    assert isinstance(evaluation.proof, Proof) and evaluation.metrics is not None


def test_the_writer_writes_the_bytes_the_dict_writer_wrote(tmp_path: Path) -> None:
    """Each record rebuilt in code (no key order from disk) and appended by ``Journal`` gives the same file."""
    lines = _lines(RUN)
    first = json.loads(lines[0])
    path = tmp_path / "journal.jsonl"
    header = StartRecord(design=first["design"], seed=first["seed"], resolved_sha256=first["resolved_sha256"])
    journal = Journal(path, first["run"], header=header)
    for line in lines[1:]:
        data = {k: v for k, v in json.loads(line).items() if k not in CHAIN}
        rec = parse_record(data)
        rebuilt = type(rec).model_validate(rec.to_json())  # validated without the on-disk order
        assert rebuilt._order is None
        journal._emit(rebuilt)
    assert path.read_bytes() == RUN.read_bytes()


def test_a_rechained_record_the_union_does_not_know_is_refused(tmp_path: Path) -> None:
    lines = _lines(RUN)
    run_id = json.loads(lines[0])["run"]
    i = next(n for n, ln in enumerate(lines) if json.loads(ln)["type"] == "step")
    out, prev = [], None
    for n, ln in enumerate(lines):
        rec = json.loads(ln)
        if n == i:
            rec["verdict"] = "accepted:trust-me"
        if prev is not None:
            rec["prev"] = prev
        rec["hash"] = prev = record_hash(rec)
        out.append(json.dumps(rec) + "\n")
    bad = tmp_path / "journal.jsonl"
    bad.write_text("".join(out), encoding="utf-8")
    with pytest.raises(InputError, match=f"record {i + 1}: not a journal entry"):
        verify(bad, run_id)
    shutil.copy(RUN, bad)
    assert len(verify(bad, run_id)[0]) == len(lines)  # the untouched journal verifies


def test_failed_gates_are_the_stages_and_a_tool_fault() -> None:
    assert {str(g) for g in FailedGate} == {str(s) for s in StageId} | {"infrastructure"}
    assert all(StepVerdict.invalid(g) for g in [*FailedGate, "unscored", "unknown"])
    with pytest.raises(ValueError):
        StepVerdict.invalid("made-up")


def test_the_greedy_finish_does_not_import_the_annealer() -> None:
    src = (Path(__file__).resolve().parent.parent / "hyperheurist" / "search" / "polish.py").read_text()
    imported = {n.module for n in ast.walk(ast.parse(src)) if isinstance(n, ast.ImportFrom)}
    assert "annealer" not in imported and "search_state" in imported


def test_an_unfinished_runs_report_counts_phase1_from_the_typed_records(tmp_path: Path) -> None:
    """No summary.json yet: the report rebuilds Phase 1 from the journal's records (typed since rundata
    parses them once), with each design's proof verdict."""
    from hyperheurist.report.rundata import load_run

    run = tmp_path / "run"
    run.mkdir()
    shutil.copy(RUN, run / "journal.jsonl")
    rd = load_run(run)
    stats = rd.phase1_stats
    assert (stats.candidates, stats.valid, len(rd.evals), len(rd.steps)) == (2, 1, 106, 108)
    assert [e.proof for e in stats.entries if e.verdict == "valid"] == ["proven"]
    assert stats.rejected_by_gate == {"simulation": 1}


def test_resume_reads_the_memo_through_the_typed_records(tmp_path: Path) -> None:
    """A resumed journal's memo: every evaluation back as an ``Evaluation`` with a ``Proof`` and a ``FailedGate``."""
    path = tmp_path / "journal.jsonl"
    shutil.copy(RUN, path)
    run_id = json.loads(_lines(RUN)[0])["run"]
    journal = Journal(path, run_id, resume=True)
    assert len(journal.prefix) == 218 and journal.cut_at is None and path.read_bytes() == RUN.read_bytes()
    assert len(journal.phase1) == 2 and len(journal.evals) == 106
    rejected = next(r for r in journal.phase1.values() if r.verdict == "invalid")
    assert rejected.gate is FailedGate.SIMULATION
    assert rejected.evaluation.evaluation().failed_gate is FailedGate.SIMULATION
    proven = [ev for ev in journal.evals.values() if ev.proof is not None]
    assert proven and all(isinstance(ev.proof, Proof) and ev.proof.verdict == "proven" for ev in proven)


def test_annealing_and_the_greedy_finish_write_the_step_lines_the_dict_writer_wrote() -> None:
    """tests/data/record/steps.jsonl: the step records the dict-literal annealer and polish (commit 9af872b)
    wrote for test_search_annealer's fake evaluator (accepted, rejected, rejected:unchecked, invalid:simulation,
    not-applicable and polish steps); the StepRecord builder writes the same bytes. Re-recorded at 942fa63, whose
    selection (validity-aware, 0149753-942fa63) takes another path through the same landscape; every verdict
    kind is still in it."""
    import test_search_annealer as t

    from hyperheurist.config import Anneal

    lines: list[str] = []
    for moves in (t.MOVES, [t.Never(), t.Step("inc", 1)]):
        fake = t.FakeEvaluator()
        cfg = Anneal(seed=1, chains=2, iterations=12, reheat_after=6, polish=2)
        t.anneal(t.starts(fake), list(moves), t.ctx_factory, fake, cfg, lambda r: lines.append(json.dumps(r.to_json())))
    assert "\n".join(lines) + "\n" == (DATA / "record" / "steps.jsonl").read_text(encoding="utf-8")
