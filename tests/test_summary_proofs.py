"""Which journal record speaks for an RTL's equivalence in the summary, best/ and the Pareto points."""

from __future__ import annotations

from recordlib import typed

from hyperheurist.record.chain import proofs_by_rtl


def _eval(seq: int, digest: str, verdict: str) -> dict[str, object]:
    return {"type": "eval", "seq": seq, "digest": digest, "proof": {"verdict": verdict, "wall_s": 1.0}}


def test_a_proof_against_one_parent_is_not_hidden_by_an_earlier_timeout_against_another() -> None:
    records = [_eval(1, "d1", "inconclusive"), _eval(2, "d1", "proven"), _eval(3, "d1", "proven"),
               _eval(4, "d2", "bounded"), _eval(5, "d2", "inconclusive"), {"type": "step", "digest": "d3"}]
    held = proofs_by_rtl(typed(records))
    assert held["d1"].seq == 2  # the first proven record
    assert held["d2"].seq == 4  # bounded beats inconclusive
    assert "d3" not in held  # a step is no check


def test_a_composed_step_takes_the_verdict_of_its_own_rtl_pair_not_the_rtls_strongest() -> None:
    """An RTL change reused from a check of the same (RTL, parent RTL) pair under another recipe speaks
    with that pair's verdict; a proof of the same RTL against another parent does not stand for it."""
    from hyperheurist.record.summary import ProofStats

    def ev(seq: int, key: str, parent: str, verdict: str) -> dict[str, object]:
        return {"type": "eval", "seq": seq, "digest": key.split("-")[0] + "full", "key": key, "parent": parent,
                "proof": {"verdict": verdict, "wall_s": 1.0}}

    records = [ev(1, "c-r1", "p-r1", "inconclusive"), ev(2, "c-r2", "q-r2", "proven"),
               {"type": "step", "accepted": True, "proposal": "c-r3", "parent": "p-r3",
                "proposal_digest": "cfull", "parent_digest": "pfull", "move": "m", "composed": True}]
    (change,) = ProofStats.from_journal(typed(records)).accepted
    assert (change.verdict, change.proof_seq) == ("inconclusive", 1)


def test_the_report_gives_each_accepted_design_its_evidence_against_the_reference(tmp_path) -> None:
    """Phase 2 proves a change against its parent; the report's evidence column follows the chain back to a
    Phase-1 design, so a proof against a parent only simulated against the reference reads 'simulated only'."""
    from hyperheurist.record.summary import Point, ProofStats, RunSummary
    from hyperheurist.report.detail_sections import ppa_table
    from hyperheurist.report.run_sections import proofs
    from hyperheurist.report.rundata import RunData

    records = [{"type": "phase1", "verdict": "valid", "digest": "s1", "proof": None},
               {"type": "eval", "seq": 1, "digest": "a", "key": "a-r", "parent": "s1-r",
                "proof": {"verdict": "proven", "wall_s": 1.0}},
               {"type": "step", "accepted": True, "proposal": "a-r", "parent": "s1-r", "proposal_digest": "a",
                "parent_digest": "s1", "move": "m"}]
    ps = ProofStats.from_journal(typed(records))
    rd = RunData(path=tmp_path, summary=RunSummary(initial=Point(digest="s1", key="s1-r"),
                                                   best=Point(digest="a", key="a-r", proof="proven"), proofs=ps))
    section = proofs(rd)
    assert "evidence vs reference" in section and ">simulated only ⚠</span>" in section
    table = ppa_table(rd)
    row = table[table.index("evidence vs reference"):]
    assert row.count("simulated only ⚠") == 2, row[:300]
