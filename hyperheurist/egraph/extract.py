"""DAG-aware extraction: a shared e-class is paid once, across every root.

Two steps. A greedy pass (as extraction-gym's greedy-dag) gives each class the node whose sub-DAG,
with shared classes counted once, is cheapest. Then a local search over the roots together tries
every other node of every class in use and keeps a change when the total DAG cost of all roots drops:
that is what finds sharing between outputs (``a+b+c`` and ``a+b+d`` both built on ``a+b``), which a
per-root choice cannot see. Both steps are deterministic; the search is bounded by a number of trials
(not by wall time, so the result does not depend on the machine's load).
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Sequence

from hyperheurist.egraph.graph import Graph
from hyperheurist.egraph.ir import Term

EPS = 1e-9


def greedy(g: Graph, costs: Sequence[float]) -> list[int]:
    """Per class the node of the cheapest sub-DAG found (-1 where no finite choice exists)."""
    parents: list[list[int]] = [[] for _ in g.classes]
    for i, n in enumerate(g.nodes):
        for k in sorted(set(n.kids)):
            parents[k].append(i)
    best: list[dict[int, float] | None] = [None] * len(g.classes)
    total = [math.inf] * len(g.classes)
    choice = [-1] * len(g.classes)
    queue = deque(i for i, n in enumerate(g.nodes) if not n.kids)
    queued = set(queue)
    while queue:
        i = queue.popleft()
        queued.discard(i)
        n = g.nodes[i]
        if math.isinf(costs[i]):
            continue
        merged: dict[int, float] = {}
        for k in n.kids:
            sub = best[k]
            if sub is None or n.eclass in sub:
                break
            merged.update(sub)
        else:
            merged[n.eclass] = costs[i]
            t = sum(merged.values())
            if t < total[n.eclass] - EPS:
                total[n.eclass], best[n.eclass], choice[n.eclass] = t, merged, i
                for p in parents[n.eclass]:
                    if p not in queued:
                        queued.add(p)
                        queue.append(p)
    return choice


def amortised(g: Graph, costs: Sequence[float], roots: Sequence[int]) -> list[float]:
    """Node costs divided by how many roots can reach the node's class: a greedy pass on these leans,
    among equally cheap choices, towards the ones several outputs can share."""
    reach = [0] * len(g.classes)
    for r in sorted(set(roots)):
        seen, todo = {r}, [r]
        while todo:
            for i in g.classes[todo.pop()]:
                for k in g.nodes[i].kids:
                    if k not in seen:
                        seen.add(k)
                        todo.append(k)
        for c in seen:
            reach[c] += 1
    return [cost / max(reach[n.eclass], 1) for n, cost in zip(g.nodes, costs, strict=True)]


def measure(g: Graph, costs: Sequence[float], choice: Sequence[int], roots: Sequence[int]) -> tuple[float, int]:
    """The choice's DAG cost and its depth in priced nodes (the longest path through nodes that cost)."""
    depth: dict[int, int] = {}
    on_path: set[int] = set()
    out = 0.0
    for r in roots:
        stack: list[tuple[int, int]] = [(r, 0)]
        while stack:
            c, j = stack.pop()
            if j == 0:
                if c in depth:
                    continue
                if c in on_path or choice[c] < 0:
                    return math.inf, 0
                on_path.add(c)
                out += costs[choice[c]]
            kids = g.nodes[choice[c]].kids
            if j < len(kids):
                stack.append((c, j + 1))
                stack.append((kids[j], 0))
            else:
                on_path.discard(c)
                depth[c] = (costs[choice[c]] > 0) + max((depth[k] for k in kids), default=0)
    return out, max((depth[r] for r in roots), default=0)


def reachable(g: Graph, choice: Sequence[int], roots: Sequence[int]) -> list[int]:
    seen: set[int] = set()
    order: list[int] = []
    todo = list(roots)
    while todo:
        c = todo.pop()
        if c in seen or choice[c] < 0:
            continue
        seen.add(c)
        order.append(c)
        todo.extend(g.nodes[choice[c]].kids)
    return sorted(order)


def better(a: tuple[float, int], b: tuple[float, int]) -> bool:
    """Cheaper, or as cheap and shallower."""
    return a[0] < b[0] - EPS or (a[0] < b[0] + EPS and a[1] < b[1])


def improve(
    g: Graph, costs: Sequence[float], choice: list[int], roots: Sequence[int], trials: int
) -> tuple[float, int]:
    """Change one class's node at a time while the total cost of all roots drops, or stays and the depth
    drops (so among equally cheap sums the balanced tree wins), for at most ``trials`` measured changes;
    returns that total. A change that alone costs more is kept when, with it, other classes in use can
    switch to nodes built only on what is then paid for (``adopt``) and the whole is cheaper: how one wider
    subtractor comes to serve a comparison and two differences, which no single change shows."""
    current = measure(g, costs, choice, roots)
    budget = [trials]
    changed = True
    while changed and budget[0] > 0:
        changed = False
        for c in reachable(g, choice, roots):
            for i in g.classes[c]:
                if i == choice[c] or math.isinf(costs[i]) or any(choice[k] < 0 for k in g.nodes[i].kids):
                    continue
                saved = list(choice)
                choice[c] = i
                budget[0] -= 1
                t = measure(g, costs, choice, roots)
                if not better(t, current):
                    t = adopt(g, costs, choice, roots, t, budget)
                if better(t, current):
                    current, changed = t, True
                else:
                    choice[:] = saved
            if budget[0] <= 0:
                break
    return current


def adopt(g: Graph, costs: Sequence[float], choice: list[int], roots: Sequence[int], start: tuple[float, int],
          budget: list[int]) -> tuple[float, int]:
    """Switch classes in use to nodes whose operands are all in use already, each switch kept when it lowers
    the total; returns the total reached (``choice`` changed in place)."""
    current = start
    used = set(reachable(g, choice, roots))
    for c in sorted(used):
        for i in g.classes[c]:
            if budget[0] <= 0:
                return current
            kids = g.nodes[i].kids
            if i == choice[c] or math.isinf(costs[i]) or not kids or any(k not in used or k == c for k in kids):
                continue
            old, choice[c] = choice[c], i
            budget[0] -= 1
            t = measure(g, costs, choice, roots)
            if better(t, current):
                current = t
            else:
                choice[c] = old
    return current


def best_choice(g: Graph, costs: Sequence[float], roots: Sequence[int], trials: int) -> list[int]:
    """The better of two local searches of ``trials // 2`` changes each: from the greedy choice, and from
    the greedy choice on amortised costs."""
    plain = greedy(g, costs)
    plain_total = improve(g, costs, plain, roots, trials // 2)
    shared = greedy(g, amortised(g, costs, roots))
    shared_total = improve(g, costs, shared, roots, trials - trials // 2)
    return shared if better(shared_total, plain_total) else plain


def build(g: Graph, choice: Sequence[int], eclass: int, memo: dict[int, Term]) -> Term:
    """The term the choice makes for a class (one Term object per class, so sharing is kept)."""
    if eclass not in memo:
        n = g.nodes[choice[eclass]]
        memo[eclass] = g.term(n, [build(g, choice, k, memo) for k in n.kids])
    return memo[eclass]
