"""Which journal record speaks for an RTL's equivalence in the summary, best/ and the Pareto points."""

from __future__ import annotations

from hyperheurist.flow.summary import proofs_by_rtl


def _eval(seq: int, digest: str, verdict: str) -> dict[str, object]:
    return {"type": "eval", "seq": seq, "digest": digest, "proof": {"verdict": verdict, "wall_s": 1.0}}


def test_a_proof_against_one_parent_is_not_hidden_by_an_earlier_timeout_against_another() -> None:
    records = [_eval(1, "d1", "inconclusive"), _eval(2, "d1", "proven"), _eval(3, "d1", "proven"),
               _eval(4, "d2", "bounded"), _eval(5, "d2", "inconclusive"), {"type": "step", "digest": "d3"}]
    held = proofs_by_rtl(records)
    assert held["d1"]["seq"] == 2  # the first proven record
    assert held["d2"]["seq"] == 4  # bounded beats inconclusive
    assert "d3" not in held  # a step is no check
