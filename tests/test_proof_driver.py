"""One proof driver (``formal.driver``): a rewrite proof runs under the design's limits, as the gate does (issue 31).

``rewrite.prove`` had its own sandbox mode ("required"), tool timeout (60 s) and memory cap (4096 MB) whatever the
design said. The runs are the real tools; a spy on the site's ``run_tool`` records what each was given.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from hyperheurist.config import Equivalence, Limits, load_design
from hyperheurist.rewrite.interface import module_interface
from hyperheurist.rewrite.prove import ProofTask, prove_rewrite
from hyperheurist.stages import serve

ADDER = "module t(input [3:0] a, b, output [4:0] y);\n  assign y = a + b;\nendmodule\n"
SWAPPED = "module t(input [3:0] a, b, output [4:0] y);\n  assign y = b + a;\nendmodule\n"
GATES = Path(__file__).parent / "data" / "gates"


@pytest.fixture
def runs(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    seen: list[dict[str, Any]] = []
    real = serve.run_tool

    def spy(argv: list[str], **kw: Any) -> Any:
        seen.append({"name": kw["name"], **kw})
        return real(argv, **kw)

    monkeypatch.setattr(serve, "run_tool", spy)
    return seen


@pytest.mark.tools
def test_a_rewrite_proof_runs_under_the_designs_limits(tmp_path: Path, runs: list[dict[str, Any]]) -> None:
    limits = Limits(tool_mem_mb=3000, tool_timeout_s=77, sandbox="off")
    task = ProofTask(ADDER, SWAPPED, "t", module_interface(ADDER, "t"), limits=limits)
    assert prove_rewrite(task, tmp_path).kind == "proven"
    assert runs and {(r["mem_mb"], r["sandbox"]) for r in runs} == {(3000, "off")}, runs
    miter = next(r for r in runs if r["name"] == "yosys-miter")
    assert miter["timeout_s"] == 77  # the miter's wall clock is limits.tool_timeout_s, as in the gate


def test_a_proof_task_for_a_design_takes_its_equivalence_settings_and_limits() -> None:
    d = load_design(GATES / "alu" / "design.yaml")
    task = ProofTask.for_design(ADDER, SWAPPED, d, depth=30)
    bounds = task.bounds()
    assert task.limits == d.limits and task.sim_timeout_s == d.verification.timeout_s
    assert bounds.equivalence.depth == 30  # the override
    assert bounds.equivalence.timeout_s == d.verification.equivalence.timeout_s
    assert bounds.equivalence.engine == d.verification.equivalence.engine
    default = ProofTask(ADDER, SWAPPED, "t", module_interface(ADDER, "t")).bounds()
    assert default.equivalence == Equivalence() and default.limits == Limits()
