"""The data that used to be ``dict[str, Any]`` has types that name its fields (issue #31): every key the code
writes is one its TypedDict declares, and the JSON forms keep their keys and order."""

from __future__ import annotations

import json
import sys
from dataclasses import asdict, fields
from pathlib import Path

import pytest

from hyperheurist.candidate import Candidate
from hyperheurist.config import load_design
from hyperheurist.gates.compile import CompileDetails
from hyperheurist.gates.junit import cocotb_cases, junit_xml
from hyperheurist.gates.netlist_sim import NetlistCocotb, NetlistInfo
from hyperheurist.gates.result import GateReport
from hyperheurist.gates.simulation import CocotbInfo, DiffInfo, Mismatch
from hyperheurist.gating import run_gates
from hyperheurist.llm.chat import Attempt, Record, ReplyUsage
from hyperheurist.llm.providers import make_client
from hyperheurist.ppa.metrics import PPADetails, PPAJson, PPAMetrics, librelane_metrics
from hyperheurist.sim.cocotb_run import CocotbCase, parse_cases
from hyperheurist.stages.model import StageId, StageResult

sys.path.insert(0, str(Path(__file__).parent))
from llm_stub import MacResponder, Stub  # noqa: E402

DATA = Path(__file__).parent / "data"
METRICS = PPAMetrics(area_um2=1234.5, cells=97, cell_histogram={"FAX1": 20}, delay_ns=2.345, slack_ns=-0.5,
                     fmax_mhz=426.4, met_timing=False, critical_path={"start": "a[0]", "end": "y[11]"},
                     power_mw=0.0421, dynamic_mw=0.04, leakage_mw=0.0021, power_fidelity="vectorless",
                     liberty="osu018", timings={"synth_s": 0.1}, clock_period_ns=5.0,
                     power_split={"internal_mw": 0.03, "switching_mw": 0.01, "leakage_mw": 0.0021},
                     details=PPADetails(yosys_warnings=2, candidate="abc", netlist_reused=True))


def keys(td: type) -> set[str]:
    return set(td.__annotations__)


def test_ppa_json_is_every_field_but_cached_in_order() -> None:
    d = METRICS.to_dict()
    assert list(PPAJson.__annotations__) == [f.name for f in fields(PPAMetrics) if f.name != "cached"]
    expected = asdict(METRICS)
    del expected["cached"]
    assert json.dumps(d) == json.dumps(expected)  # the same keys, order and values as before
    d["details"]["candidate"] = "changed"
    d["cell_histogram"]["FAX1"] = 0
    assert METRICS.details["candidate"] == "abc" and METRICS.cell_histogram["FAX1"] == 20, "a copy"
    assert PPAMetrics.from_dict({**METRICS.to_dict(), "unknown": 1}) == METRICS


def test_librelane_names() -> None:
    flat = librelane_metrics(METRICS)
    assert flat["design__instance__count"] == 97 and isinstance(flat["design__instance__count"], int)
    assert flat["timing__setup__wns"] == flat["timing__setup__tns"] == -0.5
    assert flat["power__internal__total"] == pytest.approx(3e-5)
    assert flat["power__total"] == pytest.approx(0.0421e-3)
    assert librelane_metrics(None) == {}


def test_cocotb_cases_of_a_results_xml(tmp_path: Path) -> None:
    xml = tmp_path / "results.xml"
    xml.write_text('<testsuites><testsuite name="t"><testcase name="a" time="0.12345"/>'
                   '<testcase name="b" time="x"><failure message="boom"/></testcase>'
                   '<testcase name="c"><skipped/></testcase></testsuite></testsuites>')
    cases = parse_cases(xml)
    assert [list(c) for c in cases] == [list(CocotbCase.__annotations__)] * 3
    assert [(c["name"], c["result"], c["time_s"], c["message"]) for c in cases] == [
        ("a", "passed", 0.123, ""), ("b", "failed", 0.0, "boom"), ("c", "skipped", 0.0, "")]


def test_junit_reads_the_cases_a_gate_recorded() -> None:
    info: CocotbInfo = {"tests": 2, "failures": 1, "simulator": "icarus", "timed_out": False,
                        "cases": [CocotbCase(name="t1", result="passed", time_s=0.5, message=""),
                                  CocotbCase(name="t2", result="failed", time_s=1.0, message="x != y")]}
    bad = {"cases": [{"result": "passed"}, "junk"]}  # no name, not a dict: left out
    r = StageResult(StageId.SIMULATION, False, "cocotb failed", {"checks": ["cocotb"], "cocotb": info})
    assert cocotb_cases(r) == info["cases"]
    assert cocotb_cases(StageResult(StageId.SIMULATION, True, "ok", {"cocotb": bad})) == []
    xml = junit_xml(GateReport((r,)), "alu")
    assert 'name="t2" time="1.000"' in xml and 'message="x != y"' in xml and 'failures="2"' in xml


@pytest.mark.tools
@pytest.mark.slow
@pytest.mark.parametrize("rtl", ["good.v", "op3bug.v"])
def test_gate_details_hold_only_declared_keys(tmp_path: Path, rtl: str) -> None:
    design = load_design(DATA / "gates" / "alu" / "design.yaml")
    cand = Candidate.from_text((DATA / "gates" / "alu" / rtl).read_text(), design.top, name=rtl)
    report = run_gates(cand, design, tmp_path / "w")
    by = {r.stage: r.details for r in report.results}
    assert set(by[StageId.COMPILE]) == keys(CompileDetails)
    sim = by[StageId.SIMULATION]
    assert set(sim) <= {"failed_check", "checks", "differential", "testbench", "cocotb"}
    assert keys(DiffInfo) - {"mismatch"} <= set(sim["differential"]) <= keys(DiffInfo)
    if rtl == "op3bug.v":
        assert set(sim["differential"]["mismatch"]) == keys(Mismatch) and "cocotb" not in sim
        return
    assert set(sim["cocotb"]) == keys(CocotbInfo)
    assert all(list(c) == list(CocotbCase.__annotations__) for c in sim["cocotb"]["cases"]) and sim["cocotb"]["cases"]
    net = by[StageId.NETLIST_SIM]
    assert keys(NetlistInfo) - {"cocotb"} <= set(net) <= keys(NetlistInfo)
    if isinstance(net.get("cocotb"), dict):
        assert set(net["cocotb"]) == keys(NetlistCocotb)


def test_llm_records_hold_only_declared_keys(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HH_LLM_BACKOFF_S", "0.01")
    monkeypatch.setenv("HH_LLM_CONCURRENCY", "1")
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    design = load_design(DATA / "flow" / "design.yaml", {"generation.provider": "openai", "generation.retries": 3})
    with Stub() as stub:
        stub.default = MacResponder()
        stub.script = [{"status": 503}, {"status": 429}]
        made, note = make_client(design, tmp_path, base_url=stub.url)
        assert note is None and made is not None
        assert len(made.generate(design, 1, None)) == 1
    (rec,) = [json.loads(p.read_text()) for p in sorted((tmp_path / "llm").glob("*.json"))]
    assert set(rec) <= keys(Record) and {"index", "time", "phase", "key", "response", "attempts"} <= set(rec)
    assert set(rec["usage"]) == keys(ReplyUsage)
    assert [a["status"] for a in rec["attempts"]] == [503, 429, 200]
    for a in rec["attempts"]:
        assert {"attempt", "sent", "status", "latency_s"} <= set(a) <= keys(Attempt)
