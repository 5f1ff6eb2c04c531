"""Every rewrite rule proven by evaluation through the real egglog engine (no mocks).

For each rule, ``rulecheck.check`` instantiates its left side at widths 1..4 (every constant value),
saturates the instances with that rule (and the companions that make or expand its helpers), and
compares every term each instance's e-class then holds with the instance on all inputs (up to 12
input bits; corners and samples beyond). A second pass does the same at wide widths on samples.
"""

from __future__ import annotations

from functools import cache

import pytest

from hyperheurist.egraph.ir import evaluate
from hyperheurist.egraph.rulecheck import RuleCheck, check
from hyperheurist.egraph.rules import BY_NAME, RULES, Rule

# its only product is the Dec helper: proven through dec-join and dec-shl-one, which need it
HELPER_ONLY = {"eq-dec-bit"}


@pytest.mark.parametrize("rule", RULES, ids=lambda r: r.name)
def test_rule_sound_at_small_widths(rule: Rule) -> None:
    result = check(rule)
    assert result.instances > 0
    assert result.matches > 0, f"{rule.name} never fired at widths 1..4"
    assert result.malformed == 0
    assert not result.failures, result.failures[:3]
    if rule.name not in HELPER_ONLY:
        assert result.checked > 0 and result.rewritten > 0


@cache
def wide_check(rule: Rule) -> RuleCheck:
    """The wide pass of one rule, run once for the two tests that read it."""
    return check(rule, (5, 8, 16, 33), cap=16, seed=1)


@pytest.mark.parametrize("rule", RULES, ids=lambda r: r.name)
def test_rule_sound_at_wide_widths(rule: Rule) -> None:
    result = wide_check(rule)
    assert result.malformed == 0
    assert not result.failures, result.failures[:3]


def test_wide_widths_exercise_the_rules() -> None:
    """The wide pass is not vacuous: most rules fire there too (the rest need equal random constants)."""
    fired = [r.name for r in RULES if wide_check(r).matches > 0]
    assert len(fired) >= 0.9 * len(RULES)


WRONG = [
    Rule("wrong-sub-comm", "test", "(Sub w a b)", "(Sub w b a)"),
    # the sum of two n-bit values needs n+1 bits: n is one too few
    Rule("wrong-narrow-add", "test", "(Add w (Zext w n a) (Zext w n b))", "(Zext w n (Add n a b))", ("(< n w)",)),
    Rule("wrong-shl-const", "test", "(Shl w n a (Const n k))", "(Concat w (- w k) (Slice (- w k) 1 w a) (Const k 0))",
         ("(> k 0)", "(< k w)")),
    Rule("wrong-share-sub", "test", "(Mux w c (Sub w a b) (Sub w d a))", "(Sub w a (Mux w c b d))"),
    Rule("wrong-csd", "test", "(Mul w x (Const w c))", "(Sub w (Mul w x (Const w (- c 1))) x)",
         ("(<= w 62)", "(> c 1)", "(= (& c 3) 3)")),
    Rule("wrong-narrow-lt-const", "test", "(Lt n (Zext n m a) (Const n k))", "(Lt m a (Const m (& k 1)))"),
    # a signed sum of n-bit values needs n+1 bits; a sign extension is no zero extension
    Rule("wrong-narrow-sadd", "test", "(Add w (Sext w n a) (Sext w n b))", "(Sext w n (Add n a b))", ("(< n w)",)),
    Rule("wrong-sext-zext", "test", "(Sext w n a)", "(Zext w n a)", ("(< n w)",)),
    Rule("wrong-mux-inc-else", "test", "(Mux w c x (Add w x (Const w 1)))", "(Add w x (Zext w 1 c))"),
]


@pytest.mark.parametrize("rule", WRONG, ids=lambda r: r.name)
def test_wrong_rule_is_caught(rule: Rule) -> None:
    result = check(rule)
    assert result.matches > 0
    assert result.failures
    f = result.failures[0]
    assert evaluate(f.original, f.env) != evaluate(f.variant, f.env)


def test_wrong_width_is_caught() -> None:
    """A rule that makes a node breaking its operator's width rule is reported, not silently skipped."""
    bad = Rule("wrong-fold-add", "test", "(Add w (Const w x) (Const w y))", "(Const w (+ x y))", ("(<= w 62)",))
    result = check(bad)
    assert result.malformed > 0


def test_companions_exist() -> None:
    assert all(c in BY_NAME for r in RULES for c in r.companions)
