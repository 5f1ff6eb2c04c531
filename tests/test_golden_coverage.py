"""Every gate and every faked tool has golden coverage (tests/golden), so no stage's commands go unpinned."""

from __future__ import annotations

from fake_tools import GOLDEN, TOOLS

from hyperheurist.gates import GATES


def _goldens() -> str:
    return "\n".join(p.read_text(encoding="utf-8") for p in sorted(GOLDEN.glob("*.txt")))


def test_every_gate_passes_in_some_golden_run() -> None:
    text = _goldens()
    assert [g for g in GATES if f"\n{g}: passed\n" not in f"\n{text}"] == []


def test_every_tool_is_called_in_some_golden_run() -> None:
    text = _goldens()
    assert [t for t in TOOLS if f"== {t}  (in " not in text] == []
