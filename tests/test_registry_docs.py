"""Stages and moves are declared once: the pipelines in ``pipelines.py``, the moves in
``search/moves``; the gate order, the move lists and docs/registry.md are derived from them."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

from hyperheurist.gates.result import GATES
from hyperheurist.pipelines import GATE_PIPELINE
from hyperheurist.search.moves import TunableParamMove, recipe_moves, rtl_moves

ROOT = Path(__file__).resolve().parent.parent
MOVES = ROOT / "hyperheurist" / "search" / "moves"


def test_the_registry_page_is_what_the_code_declares() -> None:
    res = subprocess.run([sys.executable, str(ROOT / "tools" / "gen_registry_docs.py"), "--check"],
                         capture_output=True, text=True, timeout=120, check=False)
    assert res.returncode == 0, res.stderr


def test_the_gate_order_is_the_gate_pipeline() -> None:
    assert GATES == tuple(s.id for s in GATE_PIPELINE)


def test_move_names_are_unique() -> None:
    names = [m.name for m in (*rtl_moves(), *recipe_moves())]
    assert len(names) == len(set(names)), sorted(n for n in names if names.count(n) > 1)


def test_every_move_class_is_registered() -> None:
    """A class in search/moves that names itself (``name = "..."``) but that ``rtl_moves`` does not list is a
    move declared and never run, nor documented. ``RtlMove`` is the base of the text-edit moves."""
    registered = {type(m).__name__ for m in (*rtl_moves(), TunableParamMove())} | {"RtlMove"}
    declared: set[str] = set()
    for path in MOVES.glob("*.py"):
        for node in ast.parse(path.read_text()).body:
            if isinstance(node, ast.ClassDef) and any(
                    isinstance(s, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "name" for t in s.targets)
                    and isinstance(s.value, ast.Constant) and isinstance(s.value.value, str) for s in node.body):
                declared.add(node.name)
    assert "SharedAbsDiff" in declared, "the scan finds no move class: it is broken"
    assert declared - registered == set(), f"declared but not in rtl_moves(): {sorted(declared - registered)}"
