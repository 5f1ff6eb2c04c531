"""The rewrite engine end to end on the real egglog: what it finds, that it keeps the meaning, its limits."""

from __future__ import annotations

import os
import random
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from hyperheurist.egraph.engine import dag_cost, optimise, saturate
from hyperheurist.egraph.graph import known_zeros
from hyperheurist.egraph.ir import Term, const, evaluate, node, subterms, var, variables

ROOT = Path(__file__).resolve().parents[1]


def cost(t: Term) -> float:
    """A simple explicit cost: adders and muxes cost their width, a multiplier its width squared, a compare
    its operand width (one less against a constant: an AND tree), a shift by a variable one mux per amount bit
    and result bit; wiring (var, const, slice, zext, concat, shift by a constant) is free."""
    if t.op in ("add", "sub", "neg", "mux"):
        return t.width
    if t.op == "mul":
        return t.width * t.width
    if t.op in ("and", "or", "xor", "not"):
        return t.width / 2
    if t.op in ("eq", "ne", "lt", "le", "gt", "ge"):
        n = t.args[0].width
        return n - 1 if t.op in ("eq", "ne") and any(a.op == "const" for a in t.args) else n
    if t.op in ("shl", "shr"):
        return 0 if t.args[1].op == "const" else t.width * t.args[1].width
    return 0


def same(before: dict[str, Term], after: dict[str, Term], samples: int = 300) -> None:
    """The optimised roots equal the input roots on corner and random inputs."""
    assert set(before) == set(after)
    vs: dict[str, int] = {}
    for t in before.values():
        vs |= variables(t)
    rng = random.Random(7)
    envs = [{n: 0 for n in vs}, {n: (1 << w) - 1 for n, w in vs.items()}]
    envs += [{n: rng.getrandbits(w) for n, w in vs.items()} for _ in range(samples)]
    for name, t in before.items():
        assert after[name].width == t.width
        assert set(variables(after[name])) <= set(vs)
        for env in envs:
            assert evaluate(after[name], env) == evaluate(t, env), (name, env)


def ops(t: Term) -> list[str]:
    return sorted({id(x): x.op for x in subterms(t)}.values())


a, b, c, d = (var(n, 8) for n in "abcd")
sel = var("sel", 1)


def test_mux_sharing() -> None:
    roots = {"y": node("mux", 8, sel, node("add", 8, a, b), node("add", 8, a, c))}
    out = optimise(roots, cost)
    same(roots, out.terms)
    assert (out.cost_before, out.cost_after) == (24, 16)
    assert ops(out.terms["y"]).count("add") == 1 and "mux" in ops(out.terms["y"])
    assert out.rules_fired == ("share-add-left",)  # credited: the rule whose right side the result shows


def test_factoring() -> None:
    roots = {"y": node("add", 8, node("mul", 8, a, b), node("mul", 8, a, c))}
    out = optimise(roots, cost)
    same(roots, out.terms)
    assert out.terms["y"].op == "mul" and ops(out.terms["y"]).count("mul") == 1
    assert out.cost_after == 64 + 8


def test_constant_multiplication_by_shift_and_add() -> None:
    roots = {"y": node("mul", 8, a, const(10, 8))}
    out = optimise(roots, cost)
    same(roots, out.terms)
    assert "mul" not in ops(out.terms["y"]) and "add" in ops(out.terms["y"])
    assert out.cost_after < out.cost_before
    assert "mul-even" in out.rules_fired and not any(r.startswith("share") for r in out.rules_fired)


def test_partial_sum_shared_between_roots() -> None:
    """a+(b+c) and (a+d)+b: reassociated so both are built on one a+b."""
    roots = {"y": node("add", 8, a, node("add", 8, b, c)), "z": node("add", 8, node("add", 8, a, d), b)}
    out = optimise(roots, cost)
    same(roots, out.terms)
    assert (out.cost_before, out.cost_after) == (32, 24)


def test_decoder_becomes_comparisons_and_back() -> None:
    """Run in a process of its own. In two full `make test` runs of 2026-12-07 this check failed in a pytest worker
    (the second optimise kept the comparisons), after whatever that worker had run before. It has not failed
    since, in any process: 400 hash seeds; under load; after the test modules pytest worker gw1 ran, and after
    all 1,273 tool-free tests, in one process; after 150 random optimise calls and ~90,000 egglog bindings; at
    1-8 rayon threads (which renumber e-classes; the engine now pins one). In a fresh process the second
    saturation finds the shift at iteration 9 of 12 and extraction cannot miss it, so a failure means egglog
    stopped early or lost it. Until the cause is found this checks the rewrite, not the unknown."""
    run = subprocess.run([sys.executable, "-c", "import test_egraph_engine as t; t.decoder_round_trip()"],
                         cwd=ROOT / "tests", capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr


_GRAPH_PRINT = """
import hashlib
from hyperheurist.egraph.engine import saturate
from hyperheurist.egraph.ir import const, node, var
sat = saturate({"y": node("shl", 8, const(1, 8), var("s", 3))})
print(hashlib.sha256(repr((sat.graph.nodes, sat.roots)).encode()).hexdigest())
"""


def test_the_saturated_graph_does_not_depend_on_rayon_threads() -> None:
    """egglog numbers e-classes differently on more than one rayon thread (before the pin in
    hyperheurist/egraph/__init__.py, RAYON_NUM_THREADS=4 gave another graph than 1), and extraction's choice
    between equal costs follows the numbering: the user's environment must not change a run's proposals."""
    prints = {subprocess.run([sys.executable, "-c", _GRAPH_PRINT], capture_output=True, text=True, timeout=300,
                             env={**os.environ, "RAYON_NUM_THREADS": n}, check=True).stdout for n in ("1", "4")}
    assert len(prints) == 1


def decoder_round_trip() -> None:
    s = var("s", 3)
    roots = {"y": node("shl", 8, const(1, 8), s)}
    out = optimise(roots, cost)
    same(roots, out.terms)
    y = out.terms["y"]
    assert y.op == "concat" and [x.op for x in y.args] == ["eq"] * 8
    assert [x.args[1].value for x in y.args] == list(range(7, -1, -1))  # MSB first
    assert "decode-shl-one" in out.rules_fired
    # and the bank of comparisons is a shift where comparisons cost more
    expensive = optimise(out.terms, lambda t: 10 * t.width if t.op == "eq" else cost(t))
    same(roots, expensive.terms)
    assert expensive.terms["y"].op == "shl"


def test_a_second_thread_gets_the_same_answer() -> None:
    """An egglog e-graph may only be used by the thread that made it (pyo3 raises otherwise): the kept e-graph
    was one per process, so every call from a thread other than the first caller's raised."""
    roots = {"y": node("mux", 8, sel, node("add", 8, a, b), node("add", 8, a, c))}
    here = repr(optimise(roots, cost))
    there: list[str] = []
    worker = threading.Thread(target=lambda: there.append(repr(optimise(roots, cost))))
    worker.start()
    worker.join()
    assert there == [here]
    assert repr(optimise(roots, cost)) == here


def test_width_reduction_and_folding() -> None:
    p, q = var("p", 4), var("q", 4)
    roots = {
        "lt": node("lt", 1, node("zext", 8, p), node("zext", 8, q)),
        "sum": node("mul", 8, node("add", 8, a, const(0, 8)), const(1, 8)),
    }
    out = optimise(roots, cost)
    same(roots, out.terms)
    assert out.terms["lt"] in (node("lt", 1, p, q), node("gt", 1, q, p))
    assert out.terms["sum"] == a


def test_nothing_cheaper_returns_the_input() -> None:
    roots = {"y": node("add", 8, a, b), "z": node("mul", 8, c, d)}
    out = optimise(roots, cost)
    assert out.terms["y"] is roots["y"] and out.terms["z"] is roots["z"] and out.rules_fired == ()
    assert out.cost_after == out.cost_before == dag_cost(roots, cost)


def test_dag_cost_counts_a_shared_node_once() -> None:
    ab = node("add", 8, a, b)
    assert dag_cost({"y": node("add", 8, ab, c), "z": node("add", 8, node("add", 8, a, b), d)}, cost) == 24


def test_wide_constants_survive() -> None:
    x, k = var("x", 100), const((1 << 99) + 5, 100)
    roots = {"y": node("mux", 100, sel, node("add", 100, x, k), node("add", 100, x, k))}
    out = optimise(roots, cost)
    same(roots, out.terms)
    assert out.terms["y"] == node("add", 100, x, k)


def _sum(n: int) -> Term:
    t = var("x0", 8)
    for i in range(1, n):
        t = node("add", 8, t, var(f"x{i}", 8))
    return t


def test_limits_bound_a_blow_up() -> None:
    """A 40-term sum under associativity and commutativity: every limit stops saturation, meaning kept."""
    roots = {"y": _sum(40)}
    by_iterations = saturate(roots, iterations=3)
    assert (by_iterations.stop, by_iterations.iterations) == ("iterations", 3)
    by_nodes = saturate(roots, node_limit=300)
    assert by_nodes.stop == "node-limit" and by_nodes.iterations < 12
    assert 0 < by_nodes.graph.size <= 300  # the iteration that went over the limit was undone
    assert saturate(roots).graph.size <= 20_000
    few = optimise(roots, cost, trials=0)  # no local search: the greedy extraction alone
    same(roots, few.terms, samples=50)
    out = optimise(roots, cost)
    same(roots, out.terms, samples=50)
    assert out.cost_after == out.cost_before == 39 * 8


SCRIPT = """
import sys
sys.path.insert(0, {tests!r})
from test_egraph_engine import a, b, c, d, sel, cost
from hyperheurist.egraph.engine import optimise
from hyperheurist.egraph.ir import const, node, var
roots = {{
    "y": node("mux", 8, sel, node("add", 8, node("mul", 8, a, b), c), node("add", 8, node("mul", 8, a, d), c)),
    "z": node("add", 8, node("mul", 8, a, const(10, 8)), node("add", 8, b, d)),
    "w": node("shl", 8, const(1, 8), var("s", 3)),
}}
first = repr(optimise(roots, cost))
optimise({{"q": node("mul", 8, node("add", 8, a, b), const(6, 8))}}, cost)  # another e-graph in between
print(first == repr(optimise(roots, cost)), first)
"""


def test_deterministic_across_hash_seeds_and_calls() -> None:
    outs = set()
    for seed in ("0", "1", "12345"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        code = SCRIPT.format(tests=str(ROOT / "tests"))
        argv = [sys.executable, "-c", code]
        run = subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
        assert run.returncode == 0, run.stderr
        assert run.stdout.startswith("True ")  # the same within a process, whatever ran before
        outs.add(run.stdout)
    assert len(outs) == 1


def test_operands_are_priced_with_their_known_zero_bits() -> None:
    """A node is priced with stand-ins for its operands that show the bits any node of their class shows
    zero, so a cost reading its operands' form (a zero-extension, a shift by a constant) sees them."""
    p, q = var("p", 4), var("q", 5)
    low = node("shl", 8, node("zext", 8, q), const(2, 2))  # bits 7..2 may be set, 1..0 are zero
    sat = saturate({"y": node("add", 8, node("zext", 8, p), low)}, ())
    g = sat.graph
    bits = known_zeros(g)
    top = next(g.nodes[i] for i in g.classes[sat.roots["y"]])
    stand = [g.stand_in(k, bits) for k in top.kids]
    hi_a, hi_b = (bits[0][k] for k in top.kids)
    assert (hi_a, hi_b) == (4, 7) and [bits[1][k] for k in top.kids] == [0, 2]
    assert stand[0] == node("zext", 8, var(f"_{top.kids[0]}", 4))
    assert stand[1] == node("zext", 8, node("shl", 7, node("zext", 7, var(f"_{top.kids[1]}", 5)), const(2, 2)))


def test_deep_and_shared_terms() -> None:
    """A DAG shared 60 levels deep (a tree of 2**60 nodes) is handled as a DAG: a+a is a shift, 60 of them
    shift everything out of 8 bits; a 1500-deep chain is beyond MAX_DEPTH and comes back as it is."""
    t = a
    for _ in range(60):
        t = node("add", 8, t, t)
    out = optimise({"y": t}, cost)
    assert (out.cost_before, out.cost_after) == (60 * 8, 0)
    assert "add" not in ops(out.terms["y"])
    assert evaluate(out.terms["y"], {"a": 255}) == 0
    deep = _sum(1500)
    kept = optimise({"y": deep}, cost)
    assert kept.terms["y"] is deep and kept.cost_after == kept.cost_before == 1499 * 8


def adder_depth(t: Term) -> int:
    return (t.op == "add") + max((adder_depth(x) for x in t.args), default=0)


def test_an_equally_cheap_balanced_tree_is_preferred() -> None:
    """Once something is cheaper (x*0 gone), the sum's equally cheap reassociations tie on cost and the
    shallowest wins: a 4-term chain becomes (a+b)+(c+d)."""
    chain = node("add", 8, node("add", 8, node("add", 8, a, b), c), d)
    roots = {"y": node("add", 8, chain, node("mul", 8, var("e", 8), const(0, 8)))}
    out = optimise(roots, cost)
    same(roots, out.terms)
    assert out.cost_after == 3 * 8 and adder_depth(out.terms["y"]) == 2


@pytest.mark.slow
def test_wide_words() -> None:
    """Rules reach 100-bit words: a 100-way decoder (split in halves, so a few iterations), a difference of
    70-bit values at 71 bits with the borrow repeated, and the compare of the same values narrowed to that
    subtractor's borrow (one 71-bit subtractor serves both)."""
    x, y, s = var("x", 70), var("y", 70), var("s", 7)
    roots = {
        "dec": node("shl", 100, const(1, 100), s),
        "sub": node("sub", 100, node("zext", 100, x), node("zext", 100, y)),
        "lt": node("lt", 1, node("zext", 100, x), node("zext", 100, y)),
    }
    out = optimise(roots, cost)
    same(roots, out.terms, samples=100)
    assert [t.op for t in out.terms["dec"].args] == ["eq"] * 100
    assert "sub" in ops(out.terms["sub"]) and cost(next(t for t in subterms(out.terms["sub"]) if t.op == "sub")) == 71
    lt = out.terms["lt"]
    assert (lt.op, lt.value, lt.args[0].op, lt.args[0].width) == ("slice", 70, "sub", 71)
    assert len({t for r in out.terms.values() for t in subterms(r) if t.op == "sub"}) == 1
    assert {"decode-shl-one", "narrow-sub"} <= set(out.rules_fired)


def test_terms_hash_and_compare_in_linear_time_on_shared_dags() -> None:
    """A 40-stage counter chain (each stage reads the previous one twice) is a DAG of 120 nodes but a
    tree of 2**40: hashing or comparing it as a tree would never finish."""

    def chain(step: int) -> Term:
        cnt, x = var("c", 8), var("x", 64)
        for i in range(40):
            cnt = node("mux", 8, node("slice", 1, x, value=i), node("add", 8, cnt, const(step, 8)), cnt)
        return cnt

    one, again, two = chain(1), chain(1), chain(2)
    assert one == again and hash(one) == hash(again) and one is not again
    assert one != two and len({one, again, two}) == 2
    assert len(repr(one)) < 2000  # an assertion message printing it must not unfold the tree
    assert variables(one) == {"c": 8, "x": 64}
    assert len(list(subterms(one))) == 3 + 40 * 3  # c, x, the constant; a slice, an add and a mux per stage
    assert evaluate(one, {"c": 5, "x": (1 << 40) - 1}) == 45 and evaluate(two, {"c": 5, "x": 3}) == 9


def test_a_comparison_and_two_differences_share_one_wider_subtractor() -> None:
    """|a - b| written as ``a > b ? a - b : b - a``: the comparison is the borrow of b - a computed one bit
    wider, and a - b its negation; no single change of the extraction shows the saving (adopt does). Under
    the calibrated cost, where a negation is cheaper than a subtractor (under the test cost they tie)."""
    from hyperheurist.egraph.cost import area_cost

    a16, b16 = var("a", 16), var("b", 16)
    roots = {"y": node("mux", 16, node("gt", 1, a16, b16), node("sub", 16, a16, b16), node("sub", 16, b16, a16))}
    out = optimise(roots, area_cost)
    same(roots, out.terms, samples=200)
    assert sorted(x.width for x in subterms(out.terms["y"]) if x.op == "sub") == [17]
    assert not any(x.op == "gt" or x.op == "lt" for x in subterms(out.terms["y"]))
