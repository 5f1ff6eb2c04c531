"""Golden tests of the commands and scripts of the PPA stages (synthesis, STA, power), with fake tools.

What ``estimate`` and ``hh ppa`` ask of Yosys, OpenSTA and Icarus is compared with
``tests/golden/ppa-*.txt`` (``HH_REGEN_GOLDEN=1`` rewrites them); test_ppa.py keeps the real tools.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner
from fake_tools import FakeTools, check_golden, install, render

from hyperheurist.candidate import Candidate
from hyperheurist.cli import cli
from hyperheurist.config import load_design
from hyperheurist.errors import ToolError
from hyperheurist.estimate import estimate
from hyperheurist.ppa.synth import SynthesisRejected
from hyperheurist.recipe import Recipe

DATA = Path(__file__).parent / "data" / "ppa"
LIBERTY = Path("/usr/share/qflow/tech/osu018/osu018_stdcells.lib")
pytestmark = pytest.mark.skipif(not LIBERTY.is_file(), reason="the OSU018 liberty (apt-get install qflow-tech-osu018)")


@pytest.fixture
def fakes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> FakeTools:
    return install(tmp_path, monkeypatch)


@pytest.mark.parametrize("power, recipe, golden", [
    ("vectorless", Recipe(), "ppa-acc-vectorless.txt"),
    ("activity", Recipe().with_(abc_script="delay", abc_delay_target_ps=700, flatten=False), "ppa-acc-activity.txt"),
])
def test_synthesis_sta_and_power_run_the_golden_commands(fakes: FakeTools, tmp_path: Path, power: str,
                                                         recipe: Recipe, golden: str) -> None:
    design = load_design(DATA / "acc" / "design.yaml")
    cand = Candidate.from_paths([DATA / "acc" / "acc.v"], top=design.top)
    work = tmp_path / "work"
    m = estimate(cand, design, recipe, work, power=power)
    assert m.cells == 1 and m.cell_histogram == {"INVX1": 1}  # the fake netlist: one inverter
    assert m.slack_ns == pytest.approx(4.0) and m.power_fidelity == power
    check_golden(golden, render(fakes.records(work), work, tmp_path))


def test_hh_ppa_runs_the_golden_commands(fakes: FakeTools, tmp_path: Path) -> None:
    work = tmp_path / "work"
    res = CliRunner().invoke(cli, ["ppa", str(DATA / "chain" / "design.yaml"), str(DATA / "chain" / "piped.v"),
                                   "--json", "--workdir", str(work)], standalone_mode=False, catch_exceptions=False)
    assert res.return_value == 0, res.output
    check_golden("ppa-cli-chain.txt", render(fakes.records(work), work, tmp_path))


# ---- error paths: a tool that fails, hangs or writes nothing -----------------------------------------------

def _estimate(tmp_path: Path, **overrides: object) -> None:
    design = load_design(DATA / "acc" / "design.yaml", overrides or None)
    estimate(Candidate.from_paths([DATA / "acc" / "acc.v"], top=design.top), design, Recipe(), tmp_path / "work")


def test_synthesis_without_netlist_is_a_tool_fault(fakes: FakeTools, tmp_path: Path) -> None:
    fakes.rule("yosys", outputs=False)
    with pytest.raises(ToolError, match=r"^yosys synthesis failed: yosys ok in .* \(log: .*yosys.log\)$") as exc:
        _estimate(tmp_path)
    assert not isinstance(exc.value, SynthesisRejected)


def test_yosys_error_rejects_the_design_naming_the_line(fakes: FakeTools, tmp_path: Path) -> None:
    fakes.rule("yosys", exit=1, outputs=False, stderr="src/canonical.v:9: ERROR: syntax error, unexpected ';'\n")
    with pytest.raises(SynthesisRejected,
                       match=r"^synthesis stage: yosys rejected the design: canonical.v:9: ERROR: syntax error"):
        _estimate(tmp_path)


def test_yosys_hang_rejects_the_design(fakes: FakeTools, tmp_path: Path) -> None:
    fakes.rule("yosys", sleep=60)
    with pytest.raises(SynthesisRejected, match=r"^synthesis stage: yosys rejected the design: yosys timed out after"):
        _estimate(tmp_path, **{"limits.tool_timeout_s": 1})


def test_sta_output_without_end_marker(fakes: FakeTools, tmp_path: Path) -> None:
    fakes.rule("sta", outputs=False)
    with pytest.raises(ToolError, match=r"^OpenSTA output ended early \(no end marker\)$"):
        _estimate(tmp_path)


def test_sta_error_names_the_first_error(fakes: FakeTools, tmp_path: Path) -> None:
    fakes.rule("sta", exit=1, outputs=False, stderr="Error: netlist.v line 3, syntax error\nError: later\n")
    with pytest.raises(ToolError, match=r"^OpenSTA rejected the netlist: Error: netlist.v line 3, syntax error "):
        _estimate(tmp_path)


def test_sta_unmappable_latch_rejects_the_design(fakes: FakeTools, tmp_path: Path) -> None:
    fakes.rule("sta", outputs=False, stderr="Error: netlist.v, line 4 module $_DLATCH_P_ not found.\n")
    with pytest.raises(SynthesisRejected,
                       match=r"^sta stage: the netlist keeps cells the liberty cannot map \(a latch\?\): Error: "):
        _estimate(tmp_path)


def test_sta_hang_rejects_the_design(fakes: FakeTools, tmp_path: Path) -> None:
    fakes.rule("sta", sleep=60)
    with pytest.raises(SynthesisRejected, match=r"^sta stage: OpenSTA stopped on this design: sta timed out after"):
        _estimate(tmp_path, **{"limits.tool_timeout_s": 1})


def test_activity_simulation_that_never_finishes(fakes: FakeTools, tmp_path: Path) -> None:
    fakes.rule("vvp", match="activity.vvp", outputs=False)
    design = load_design(DATA / "acc" / "design.yaml")
    cand = Candidate.from_paths([DATA / "acc" / "acc.v"], top=design.top)
    with pytest.raises(ToolError, match=r"^gate-level simulation for activity power failed: vvp-activity ok in"):
        estimate(cand, design, Recipe(), tmp_path / "work", power="activity")
