"""Every move proposes the same states in any process, whatever ran before it: a resumed run is a fresh process,
and a run's proposals must not follow the hash seed, a set's order or what an earlier call left in a cache.

Two processes with different hash seeds ask every offline move (``default_moves``: RTL rewrites, the tunable,
every recipe knob) for all its neighbours of traffic_fsm's seeds and reference, and of the states one RTL move
away from the first seed (where a second move looks at a first one's output), in opposite orders. This is the
every-move half of what test_repro_jobs.py once checked with two every-move runs (its --jobs 1 half: test_faults)
(~60 evaluations each): the proposals are what those runs compared; gating them is the FEW_MOVES runs' part.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.tools  # bit_invariant and sequential_invariant prove with Yosys and ABC

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "benchmarks" / "traffic_fsm"

SCRIPT = r"""
import json, random, sys
from pathlib import Path
from hyperheurist.candidate import Candidate
from hyperheurist.config.loader import load_design
from hyperheurist.recipe import load_flow
from hyperheurist.search.moves import default_moves
from hyperheurist.search.polish import options
from hyperheurist.search.state import MoveContext, State

bench, order = Path(sys.argv[1]), sys.argv[2]
design = load_design(bench / "design.yaml")
flow = load_flow(design.ppa.flow)
ctx = MoveContext(design=design, flow=flow)
moves = default_moves(design, flow, llm_available=False)

def proposals(state):  # what the finish asks each move (search/polish.py), with a generator per move and state
    return {move.name: options(move, state, ctx, random.Random(f"{move.name}:{state.key}")) for move in moves}

files = [*sorted((bench / "seeds").glob("ok_*.v")), bench / "reference.v"]
states = [State(Candidate.from_paths([f], design.top), flow.recipe) for f in files]
if order == "reversed":
    states.reverse()
found = {state.key: proposals(state) for state in states}
first = states[-1 if order == "reversed" else 0]
seen = {}  # one child per RTL move of the first seed, by its key
for move in moves:
    if move.kind == "rtl":
        kid = next((s for s in found[first.key][move.name] if s.key != first.key), None)
        if kid is not None:
            seen.setdefault(kid.key, kid)
children = sorted(seen.values(), key=lambda s: s.key, reverse=order == "reversed")
for child in children:
    found["child:" + child.key] = proposals(child)
table = {state: {name: [s.key for s in kids] for name, kids in moves_of.items()} for state, moves_of in found.items()}
print(json.dumps(table, sort_keys=True))
"""


def _table(order: str, hash_seed: str) -> dict[str, dict[str, list[str]]]:
    env = {**os.environ, "PYTHONHASHSEED": hash_seed}
    run = subprocess.run([sys.executable, "-c", SCRIPT, str(BENCH), order], cwd=ROOT, env=env, capture_output=True,
                         text=True, timeout=600, stdin=subprocess.DEVNULL, check=False)
    assert run.returncode == 0, run.stderr
    table: dict[str, dict[str, list[str]]] = json.loads(run.stdout.splitlines()[-1])
    return table


@pytest.mark.timeout(900)
def test_every_moves_proposals_repeat_across_processes_and_orders() -> None:
    forward, backward = _table("forward", "1"), _table("reversed", "3")
    assert forward.keys() == backward.keys()
    for state, moves in forward.items():
        for move, keys in moves.items():
            assert keys == backward[state][move], f"{move} on {state}: {keys} in one process, " \
                                                  f"{backward[state][move]} in the other"
    # the check has something to compare: RTL moves of several kinds propose, on seeds and on their children
    proposing = {m for moves in forward.values() for m, keys in moves.items() if keys and not m.startswith("recipe_")}
    assert {"egraph_rewrite", "fsm_encoding", "truth_table", "bit_invariant", "tunable_param"} <= proposing
    children = [s for s in forward if s.startswith("child:")]
    assert len(children) >= 4, children
    assert any(keys for s in children for m, keys in forward[s].items() if not m.startswith("recipe_"))
