"""Prove a rewrite rule by evaluation: instantiate its left side, saturate with it, evaluate every variant.

Instances come from the rule's own pattern (its ``probe`` when the left side holds a helper): every
width variable ranges over the given widths, every constant over all its values up to 4 bits (samples
beyond), and an instance that breaks a width rule is skipped. All instances go into one e-graph, which
the rule (and its companions) saturate through the real engine; every helper-free term each root's
e-class then holds is compared with the root on every input up to ``EXHAUSTIVE_BITS`` input bits, on
samples and corner values beyond.
"""

from __future__ import annotations

import itertools
import random
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from hyperheurist.egraph.encode import HELPERS, SIGNATURES, decode, operand_widths
from hyperheurist.egraph.engine import saturate
from hyperheurist.egraph.graph import variants
from hyperheurist.egraph.ir import Term, TermError, const, evaluator, var, variables
from hyperheurist.egraph.provenance import Pattern, parse
from hyperheurist.egraph.rules import BY_NAME, Rule

EXHAUSTIVE_BITS = 12
SAMPLES = 96
MAX_COMBOS = 2000  # width assignments tried per pattern (a sample beyond)


@dataclass(frozen=True)
class Failure:
    original: Term
    variant: Term
    env: dict[str, int]


@dataclass(frozen=True)
class RuleCheck:
    rule: str
    instances: int
    matches: int  # the rule's matches in the saturation
    rewritten: int  # instances whose e-class holds a term other than the instance
    checked: int  # variants compared
    malformed: int  # e-nodes that break their operator's width rule
    failures: tuple[Failure, ...]


def _slots(p: Pattern, found: dict[str, str]) -> None:
    """Collect the pattern's integer variables and their kinds (w: a width, lo: a bit index, v: a constant)."""
    if isinstance(p, str):
        return
    ctor = str(p[0])
    for kind, arg in zip(SIGNATURES[ctor], p[1:], strict=True):
        if isinstance(arg, list) and kind != "t":  # arithmetic on widths: its symbols are widths
            for sym in re.findall(r"[a-z_]\w*", str(arg)):
                if sym not in _ARITH:
                    found.setdefault(sym, "w")
        elif isinstance(arg, list):
            _slots(arg, found)
        elif kind != "t" and not arg.lstrip("-").isdigit():
            found.setdefault(arg, "v" if kind == "v" and ctor == "Const" else "lo" if kind == "v" else "w")


_ARITH = {
    "+": lambda x, y: x + y,
    "-": lambda x, y: x - y,
    "<<": lambda x, y: x << y,
    ">>": lambda x, y: x >> y,
    "&": lambda x, y: x & y,
}


def _int(p: Pattern, ints: dict[str, int]) -> int:
    """An integer slot's value: a literal, a variable or egglog arithmetic on them."""
    if isinstance(p, list):
        return int(_ARITH[str(p[0])](_int(p[1], ints), _int(p[2], ints)))
    return ints[p] if p in ints else int(p)


def _build(p: Pattern, width: int | None, ints: dict[str, int], widths: dict[str, int]) -> Term:
    if isinstance(p, str):
        if width is None or widths.setdefault(p, width) != width:
            raise TermError(f"{p} used at two widths")
        return var(p, width)
    ctor = str(p[0])
    sig = SIGNATURES[ctor]
    vals = [_int(a, ints) for k, a in zip(sig, p[1:], strict=True) if k != "t"]
    if ctor == "Const":
        if not 0 <= vals[1] < (1 << vals[0]) or vals[0] < 1:
            raise TermError("constant out of range")
        t = const(vals[1], vals[0])
    else:
        if min(vals[:1] + [1]) < 1:
            raise TermError("width below 1")
        kids_w = operand_widths(ctor, vals)
        terms = [a for k, a in zip(sig, p[1:], strict=True) if k == "t"]
        kids = [_build(a, w, ints, widths) for a, w in zip(terms, kids_w, strict=True)]
        t = decode(ctor, vals, kids, (), ())
    if width is not None and t.width != width:
        raise TermError("width disagrees with the operand slot")
    return t


def instances(text: str, widths: Sequence[int], rng: random.Random, cap: int) -> list[Term]:
    """Up to ``cap`` well-formed instances of a helper-free pattern (a deterministic sample)."""
    p = parse(text)
    slots: dict[str, str] = {}
    _slots(p, slots)
    names = sorted(slots)
    top = max(widths)
    domains = [list(widths) if slots[n] == "w" else list(range(top)) if slots[n] == "lo" else [-1] for n in names]
    combos: list[tuple[int, ...]] = list(itertools.product(*domains))
    if len(combos) > MAX_COMBOS:
        combos = rng.sample(combos, MAX_COMBOS)
    out: dict[Term, None] = {}
    for combo in combos:
        ints = dict(zip(names, combo, strict=True))
        for valued in _values(p, ints, [n for n in names if slots[n] == "v"], rng):
            try:
                out.setdefault(_build(p, None, valued, {}))
            except TermError:
                continue
    found = list(out)
    return found if len(found) <= cap else rng.sample(found, cap)


def _values(p: Pattern, ints: dict[str, int], consts: list[str], rng: random.Random) -> Iterator[dict[str, int]]:
    """Assignments of the constants: every value up to 4 bits, corners and samples beyond."""
    cwidth: dict[str, int] = {}

    def walk(q: Pattern) -> None:
        if isinstance(q, list):
            if q[0] == "Const" and isinstance(q[2], str) and q[2] in consts:
                cwidth[q[2]] = _int(q[1], ints)
            for x in q[1:]:
                walk(x)

    walk(p)
    choices = []
    for n in consts:
        w = cwidth.get(n, 1)
        m = (1 << w) - 1
        choices.append(list(range(m + 1)) if w <= 4 else sorted({0, 1, 2, 3, m, m - 1, *rng.sample(range(m), 3)}))
    for combo in itertools.product(*choices):
        yield {**ints, **dict(zip(consts, combo, strict=True))}


def envs(vs: dict[str, int], rng: random.Random) -> Iterator[dict[str, int]]:
    names = sorted(vs)
    if sum(vs.values()) <= EXHAUSTIVE_BITS:
        for combo in itertools.product(*(range(1 << vs[n]) for n in names)):
            yield dict(zip(names, combo, strict=True))
        return
    for v in (0, -1):
        yield {n: v & ((1 << vs[n]) - 1) for n in names}
    for _ in range(SAMPLES):
        yield {n: rng.getrandbits(vs[n]) for n in names}


def check(rule: Rule, widths: Sequence[int] = (1, 2, 3, 4), *, cap: int = 48, seed: int = 0) -> RuleCheck:
    """Saturate instances of the rule's left side with it (and its companions) and compare every variant."""
    rng = random.Random(seed)
    terms = instances(rule.probe or rule.lhs, widths, rng, cap)
    roots = {f"i{j}": t for j, t in enumerate(terms)}
    used = [rule, *(BY_NAME[c] for c in rule.companions)]
    sat = saturate(roots, used, iterations=4 * max(widths) + 8, node_limit=200_000)
    failures: list[Failure] = []
    rewritten = checked = 0
    for name in sorted(roots):
        original = roots[name]
        found = variants(sat.graph, sat.roots[name], 24)
        rewritten += any(v != original for v in found)
        vs = variables(original)
        before = evaluator(original)
        for v in found:
            if v == original:
                continue
            checked += 1
            extra = set(variables(v)) - set(vs)
            after = evaluator(v)
            for env in envs(vs, rng) if not extra else iter([{}]):
                if extra or before(env) != after(env):
                    failures.append(Failure(original, v, env))
                    break
    malformed = sum(1 for c in sat.graph.node_costs(lambda t: 0.0) if c == float("inf"))
    malformed -= sum(1 for n in sat.graph.nodes if n.ctor in HELPERS)
    matches = sat.matches.get(rule.name, 0)
    return RuleCheck(rule.name, len(terms), matches, rewritten, checked, malformed, tuple(failures))
