"""The equivalence gate with real Yosys, ABC and Icarus on small designs in tests/data/formal.

Each verdict kind, the soundness traps (a stuck carry, an enable-gated reset, X on either side),
counterexamples replayed in Icarus and kept in the stage folder, qualifiers, policy, config errors.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fake_tools import sleeping_on

from hyperheurist.candidate import Candidate
from hyperheurist.config import load_design
from hyperheurist.errors import ConfigError, ToolError
from hyperheurist.formal.miter import MiterSpec
from hyperheurist.formal.replay import Replay, replay
from hyperheurist.gating import run_gates
from hyperheurist.stages.context import StageContext
from hyperheurist.stages.model import StageId, StageResult
from hyperheurist.stages.runner import StageRunner

DATA = Path(__file__).parent / "data" / "formal"
pytestmark = pytest.mark.tools


def equiv(tmp_path: Path, yaml: str, rtl: str, overrides: dict | None = None, gates=("equivalence",)) -> StageResult:
    d = load_design(DATA / yaml, overrides)
    cand = Candidate.from_paths([DATA / rtl], top=d.top)
    rep = run_gates(cand, d, tmp_path / "cand", only=list(gates))
    return next(r for r in rep.results if r.gate == "equivalence")


def stage(tmp_path: Path) -> Path:
    return next((tmp_path / "cand").glob("*-equivalence"))


def test_stuck_carry_adder_is_refuted_and_replayed(tmp_path: Path) -> None:
    """The unsound miter (-ignore_gold_x without -enable_undef) called this adder equivalent."""
    r = equiv(tmp_path, "adder8.yaml", "adder8_stuck_carry.v")
    assert not r.passed and r.details["verdict"] == "refuted" and r.details["engine"] == "abc &cec"
    assert "output `cout` reference 1'h0, candidate 1'h1" in r.message
    doc = json.loads((stage(tmp_path) / "counterexample.json").read_text())
    assert doc["difference"]["port"] == "cout" and len(doc["cycles"]) == 1
    # the replay bench stays in the stage folder and Icarus saw the difference there
    assert "HH_MISMATCH" in (stage(tmp_path) / "replay" / "vvp-replay.stdout").read_text()
    assert r.details["counterexample"][0]["inputs"].keys() == {"a", "b", "cin"}


def test_adder_proven_equal_to_itself(tmp_path: Path) -> None:
    r = equiv(tmp_path, "adder8.yaml", "adder8.v")
    assert r.passed and r.details["verdict"] == "proven" and r.details["mode"] == "combinational"
    assert "full proof" in r.message and "abc &cec" in r.message


def test_enable_gated_reset_reference_proven_equal_to_itself(tmp_path: Path) -> None:
    """Both sides start from the state of the declared reset sequence (en held 1 while reset)."""
    r = equiv(tmp_path, "gated.yaml", "gated.v")
    assert r.passed and r.details["verdict"] == "proven" and r.details["engine"] == "abc scorr+pdr"


def test_undeclared_reset_sequence_never_refutes_a_design_against_itself(tmp_path: Path) -> None:
    """Without en=1 in the reset sequence acc stays X in Icarus on both sides: the same register on
    both sides gets one shared start value, so the design is still proven equal to itself."""
    r = equiv(tmp_path, "gated.yaml", "gated.v", {"verification.equivalence.reset_inputs": {}})
    assert r.passed and r.details["verdict"] == "proven", r.message


def test_solver_and_simulator_disagree_falls_back_to_the_4_state_engine(tmp_path: Path) -> None:
    """A renamed register gets its own free start value: ABC's counterexample starts the two sides
    differently, Icarus (both X, a golden X is a don't-care) shows no difference, so the verdict comes
    from the 4-state engine (bounded), never 'refuted'."""
    r = equiv(tmp_path, "gated.yaml", "gated_renamed.v", {"verification.equivalence.reset_inputs": {}})
    assert r.passed and r.details["verdict"] == "bounded", r.message
    assert "solver and simulator disagree" in r.details["engine"]


def test_sequential_counterexample_is_replayed_and_complete(tmp_path: Path) -> None:
    r = equiv(tmp_path, "gated.yaml", "gated_parity.v")
    assert not r.passed and r.details["verdict"] == "refuted" and r.details["engine"] == "abc bmc3"
    assert "after the 2-cycle reset: output `odd`" in r.message
    # a shallow difference is found by the conflict-bounded bmc3 before any unbounded proof spends its budget
    assert (stage(tmp_path) / "abc-bmc3-quick.stdout").exists() and not (stage(tmp_path) / "abc-pdr.stdout").exists()
    doc = json.loads((stage(tmp_path) / "counterexample.json").read_text())
    phases = [c["phase"] for c in doc["cycles"]]
    assert phases[:2] == ["reset", "reset"] and set(phases[2:]) == {"run"}
    assert doc["difference"]["port"] == "odd" and doc["difference"]["cycle"] == len(doc["cycles"]) - 1
    assert all(c["inputs"]["en"] == "1" and c["inputs"]["rst_n"] == "0" for c in doc["cycles"][:2])
    hexes = sorted(p.name for p in (stage(tmp_path) / "replay").glob("stim_*.hex"))
    assert hexes == ["stim_d.hex", "stim_en.hex", "stim_reset.hex"]


def test_a_counterexample_icarus_does_not_reproduce_is_not_a_refutation(tmp_path: Path) -> None:
    """The replay itself: a fabricated 'counterexample' of two equal designs shows no difference."""
    d = load_design(DATA / "gated.yaml")
    spec = MiterSpec(iface=d.interface, gold_top="hhref_gated", gate_top="gated", reset_inputs={"en": 1})
    frames = [{"rst_n": 0, "en": 1, "d": 0}] * 2 + [{"rst_n": 1, "en": 1, "d": k} for k in range(5)]

    class ReplayStage:  # the replay plan alone, served by the stage runner
        id, inputs, outputs, config = StageId.EQUIVALENCE, (), (), ()

        def skip_reason(self, ctx: StageContext) -> None:
            return None

        def plan(self, ctx: StageContext):
            rep = yield from replay(".", spec, frames, ["ref.v"], ".", ["cand.v"], ".", 30)
            return StageResult(self.id, True, "replayed", value=rep)

    def replayed(name: str, cand: str) -> Replay:
        stage = tmp_path / name / "01-equivalence"  # tools see the run folder (sandbox): sources go there
        stage.mkdir(parents=True)
        (stage / "ref.v").write_text((DATA / "gated.v").read_text().replace("module gated", "module hhref_gated"))
        (stage / "cand.v").write_text((DATA / cand).read_text())
        ctx = StageContext(cand=Candidate.from_paths([DATA / cand], top=d.top), design=d)
        StageRunner(tmp_path / name, ctx).run([ReplayStage()])
        return ctx.value(StageId.EQUIVALENCE, Replay)

    same = replayed("r1", "gated.v")
    assert not same.reproduced and not same.error
    bad = replayed("r2", "gated_parity.v")
    assert bad.reproduced and bad.port == "odd"


def test_bounded_verdict_and_the_proven_policy(tmp_path: Path) -> None:
    ov = {"verification.equivalence.engine": "yosys-sat"}
    r = equiv(tmp_path / "a", "gated.yaml", "gated.v", ov)
    assert r.passed and r.details["verdict"] == "bounded" and r.details["depth"] == 8
    assert "within 8 cycles after reset" in r.message
    strict = equiv(tmp_path / "b", "gated.yaml", "gated.v", {**ov, "verification.equivalence.policy": "proven"})
    assert not strict.passed and strict.details["verdict"] == "bounded" and "proven required" in strict.message


def test_inconclusive_when_the_cpu_budget_is_spent_array_vs_behavioural_multiplier(tmp_path: Path) -> None:
    r = equiv(tmp_path, "mul12.yaml", "mul12_array.v")  # a budget of 2 CPU seconds
    assert not r.passed and r.details["verdict"] == "inconclusive"
    assert r.details["reason"] == "CPU budget of 2 s spent" and r.details["inconclusive"] is True
    assert "cut" not in r.details
    assert r.wall_s < 30


def test_a_check_the_wall_clock_stopped_is_a_tool_fault_never_a_verdict(tmp_path: Path, monkeypatch) -> None:
    # an ABC that sleeps on every miter: no CPU spent (a machine so busy that the engine never got the CPU)
    monkeypatch.setenv("HH_YOSYS_ABC", str(sleeping_on(tmp_path, "yosys-abc", "*read_aiger*")))
    with pytest.raises(ToolError, match=r"stopped by the wall clock \(abc &cec\) before its CPU budget of 1 s"):
        equiv(tmp_path, "mul12.yaml", "mul12_array.v", {"verification.equivalence.timeout_s": 1})
    # the stage folder keeps what ran: the engine's command and its (empty) log
    assert (next((tmp_path / "cand").glob("*-equivalence")) / "abc-cec.sandbox").exists()


def test_golden_x_is_a_dont_care_candidate_x_is_a_difference(tmp_path: Path) -> None:
    fill = equiv(tmp_path / "a", "dec.yaml", "dec_fill.v")
    assert fill.passed and fill.details["verdict"] == "proven", fill.message
    xcand = equiv(tmp_path / "b", "dec.yaml", "dec_xcand.v")
    assert not xcand.passed and xcand.details["verdict"] == "refuted"
    assert "s=0x2" in xcand.message and "candidate 4'hx" in xcand.message


def test_output_qualifier_in_the_miter_and_the_differential_bench(tmp_path: Path) -> None:
    qual = {"verification.equivalence.compare_when": {"data_out": "valid_out"}}
    both = ("simulation", "equivalence")
    d = load_design(DATA / "stream.yaml", qual)
    rep = run_gates(Candidate.from_paths([DATA / "stream_hold.v"], top="stream"), d, tmp_path / "q",
                    only=list(both))
    assert rep.passed, rep.to_dict()
    assert rep.results[-1].details["verdict"] == "proven"
    plain = run_gates(Candidate.from_paths([DATA / "stream_hold.v"], top="stream"), load_design(DATA / "stream.yaml"),
                      tmp_path / "p", only=list(both))
    assert not plain.passed and plain.failed is not None and plain.failed.gate == "simulation"
    formal_only = equiv(tmp_path / "f", "stream.yaml", "stream_hold.v")
    assert formal_only.details["verdict"] == "refuted" and "`data_out`" in formal_only.message


def test_qualifier_must_name_a_one_bit_output(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="compare_when.data_out"):
        equiv(tmp_path, "stream.yaml", "stream.v", {"verification.equivalence.compare_when": {"data_out": "data_in"}})


def test_unreadable_reference_is_a_configuration_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="Yosys cannot read the reference design: broken_ref.v:4: syntax error"):
        equiv(tmp_path, "adder8.yaml", "adder8.v", {"verification.reference": str(DATA / "broken_ref.v")})


def test_mutation_battery_operators_make_real_mutants(tmp_path: Path) -> None:
    """tools/mutants.py (make formal): each kind yields mutants, and a stuck-at mutant is refuted."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("hh_mutants", Path(__file__).parent.parent / "tools" / "mutants.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    d = load_design(DATA / "gated.yaml")
    found = mod.mutants((DATA / "gated.v").read_text(), d, 2, 1)
    kinds = {label.split(":")[0] for label, _ in found}
    assert {"stuck", "operator", "reset", "condition"} <= kinds
    assert sum(label.startswith("stuck") for label, _ in found) == 2 * (4 + 1)  # every output bit, 0 and 1
    text = dict(found)["stuck: odd[0]=1"]
    rep = run_gates(Candidate.from_text(text, top="gated", name="m.v"), d, tmp_path / "m", only=["equivalence"])
    r = rep.results[-1]
    assert r.details["verdict"] == "refuted" and "`odd`" in r.message
