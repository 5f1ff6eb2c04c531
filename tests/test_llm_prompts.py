"""Prompt templates and the budget (pure, no endpoint)."""

from __future__ import annotations

from pathlib import Path

import pytest

from hyperheurist.candidate import Candidate
from hyperheurist.config import load_design
from hyperheurist.llm import prompts
from hyperheurist.llm.budget import Budget
from hyperheurist.llm.chat import ChatMessage
from hyperheurist.llm.errors import LLMUnavailable
from hyperheurist.llm.rules import RuleMemory

DESIGN = Path(__file__).parent / "data" / "flow" / "design.yaml"
CODE = "module mac_small(input [7:0] a, b, c, d, output [11:0] y);\n  assign y = {a, 3'b0} + b + c + d;\nendmodule"


@pytest.fixture
def rules(tmp_path: Path) -> RuleMemory:
    """A rule memory holding twelve rules from a shared file (more than a prompt may show)."""
    shared = tmp_path / "rules.yaml"
    shared.write_text("".join(f"- rule {i:02d}\n" for i in range(12)))
    return RuleMemory(tmp_path / "run" / "rules.json", shared)


def all_messages(rules: RuleMemory) -> list[list[ChatMessage]]:
    d = load_design(DESIGN)
    cand = Candidate.from_text(CODE, "mac_small")
    return [prompts.generate_messages(d, rules, 0, 4),
            prompts.repair_messages(d, cand, "compile", "x.v:1: $bad", None),
            prompts.mutate_messages(d, cand, {"area_um2": 1.0}, "power", "rewrite", rules),
            prompts.critique_messages(d, cand, cand, None, "area")]


def test_every_template_renders_completely(rules: RuleMemory) -> None:
    for msgs in all_messages(rules):
        assert [m["role"] for m in msgs] == ["system", "user"]
        for m in msgs:
            assert "{{" not in m["content"] and "}}" not in m["content"].replace("3'b0}", "")
    gen, repair, mutate, critique = (m[1]["content"] for m in all_messages(rules))
    assert "- rule 07" in gen and "- rule 08" not in gen, "at most MAX_RULES rules"
    assert "(none yet)" in repair and "x.v:1: $bad" in repair and "{a, 3'b0}" in repair
    assert "Goal: **power**" in mutate and "area: 1.0 um2" in mutate and "(no measurements)" in critique


def test_templates_can_be_overridden(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, rules: RuleMemory) -> None:
    (tmp_path / "repair.md").write_text("FIX {{gate}}: {{message}}")
    monkeypatch.setenv("HH_PROMPTS_DIR", str(tmp_path))
    msgs = all_messages(rules)
    assert msgs[1][1]["content"] == "FIX compile: x.v:1: $bad\n"
    assert "Write the Verilog" in msgs[0][1]["content"], "templates not overridden stay bundled"
    (tmp_path / "repair.md").write_text("FIX {{nonsense}}")
    with pytest.raises(KeyError, match="nonsense"):
        all_messages(rules)


def test_budget_counts_and_refuses() -> None:
    b = Budget(limit_requests=3, limit_tokens=1000, limit_cost=0.002, price_in=1.0, price_out=4.0)
    b.charge("generate", 300, 100)
    b.charge("repair", 0, 0)
    assert b.exhausted() is None
    u = b.usage()
    assert u["requests"] == 2 and u["tokens"] == 400 and u["tokens_by_phase"] == {
        "generate": 400, "repair": 0, "mutate": 0, "critique": 0}
    assert u["cost"] == pytest.approx(0.0007)
    b.charge("mutate", 500, 200)
    with pytest.raises(LLMUnavailable, match="budget.requests"):
        b.check()
    assert "budget.tokens" in (Budget(10, 100, requests=1, tokens_in=100).exhausted() or "")
    assert "budget.cost" in (Budget(10, 10**9, 0.001, 1.0, 1.0, tokens_in=1000).exhausted() or "")
    assert Budget(10, 10**9, None, None, None).usage().get("cost") is None
