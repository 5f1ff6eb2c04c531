"""The LLM client against a real HTTP stub of an OpenAI-compatible endpoint (tests/llm_stub.py)."""

from __future__ import annotations

import json
import random
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from hyperheurist.candidate import Candidate
from hyperheurist.config import DesignConfig, load_design
from hyperheurist.errors import ConfigError, InputError, NoValidCandidate
from hyperheurist.llm.client import LLMClient, LLMUnavailable
from hyperheurist.llm.protocol import LLM
from hyperheurist.llm.providers import LLMChoice, initial_candidates, make_client
from hyperheurist.llm.rules import RuleMemory
from hyperheurist.ppa.metrics import PPAMetrics
from hyperheurist.recipe import load_flow
from hyperheurist.search.moves.llm import LLMMutation, llm_moves
from hyperheurist.search.state import MoveContext, State

sys.path.insert(0, str(Path(__file__).parent))
from llm_stub import LATCHY, VALID, MacResponder, Stub, fenced, role_of, user_text  # noqa: E402

DESIGN = Path(__file__).parent / "data" / "flow" / "design.yaml"
SECRET = "sk-test-SECRET-0123456789abcdef"
METRICS = PPAMetrics(area_um2=1234.5, cells=97, cell_histogram={"FAX1": 20, "NAND2X1": 31, "INVX1": 12, "XOR2X1": 9},
                     critical_path={"start": "a[0]", "end": "y[11]"}, delay_ns=2.345, slack_ns=2.655, fmax_mhz=426.4,
                     met_timing=True, power_mw=0.0421, dynamic_mw=0.04, leakage_mw=0.0021,
                     power_fidelity="vectorless", liberty="osu018", timings={})


@dataclass(frozen=True)
class Failure:
    gate: str
    message: str


@pytest.fixture(autouse=True)
def _fast_backoff(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HH_LLM_BACKOFF_S", "0.01")
    monkeypatch.setenv("HH_LLM_CONCURRENCY", "1")  # scripted answers go to requests in order
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    monkeypatch.delenv("HH_LLM_CRITIQUE", raising=False)


@pytest.fixture
def stub():
    with Stub() as s:
        s.default = MacResponder()
        yield s


def design(**over: object) -> DesignConfig:
    return load_design(DESIGN, {"generation.provider": "openai", **{f"generation.{k}": v for k, v in over.items()}})


def client(stub: Stub, run_dir: Path, d: DesignConfig | None = None, key: str | None = None) -> LLMClient:
    made, note = make_client(d or design(), run_dir, base_url=stub.url, api_key=key)
    assert note is None and isinstance(made, LLMClient)
    return made


def records(run_dir: Path) -> list[dict]:
    return [json.loads(p.read_text()) for p in sorted((run_dir / "llm").glob("*.json"))]


def test_generate_asks_for_diverse_candidates(stub: Stub, tmp_path: Path) -> None:
    c = client(stub, tmp_path)
    cands = c.generate(design(), 3, None)
    assert [x.label for x in cands] == ["llm1", "llm2", "llm3"]
    assert all(x.origin == "llm" and x.top == "mac_small" and "module mac_small" in x.text for x in cands)
    assert len(stub.requests) == 3
    params = {(r["temperature"], r["seed"]) for r in stub.requests}
    assert len(params) == 3, "each request varies temperature and seed"
    styles = {user_text(r).split("Style for this variant:")[1] for r in stub.requests}
    assert len(styles) == 3
    assert "y = 10*a + b + c + d" in user_text(stub.requests[0]) and "- output [11:0] y" in user_text(stub.requests[0])
    recs = records(tmp_path)
    assert [r["phase"] for r in recs] == ["generate"] * 3
    assert all(r["extracted"]["ok"] and r["usage"]["total_tokens"] > 0 and r["latency_s"] >= 0 for r in recs)
    u = c.usage()
    assert u["requests"] == 3 and u["tokens"] == sum(r["usage"]["total_tokens"] for r in recs)
    assert u["tokens_by_phase"]["generate"] == u["tokens"] and u["tokens_by_phase"]["repair"] == 0


def test_initial_candidates_puts_seeds_first_then_llm(stub: Stub, tmp_path: Path) -> None:
    d = design(candidates=2)
    cands = initial_candidates(d, client(stub, tmp_path, d), None)
    assert [x.origin for x in cands] == ["seed", "seed", "llm", "llm"]


class ScriptedLLM:
    """A test stub for the LLM protocol: no endpoint, answers scripted in the test."""

    def __init__(self, generated: list[Candidate], available: bool = True, note: str | None = None) -> None:
        self.generated = generated
        self.available = available
        self.critique_enabled = False
        self.note = note
        self.asked: list[str] = []

    def attach(self, rules: RuleMemory | None = None, say: Callable[[str], None] | None = None) -> None:
        self.asked.append("attach")

    def generate(self, design: DesignConfig, n: int, rules: RuleMemory | None) -> list[Candidate]:
        self.asked.append("generate")
        return self.generated[:n]

    def repair(self, design: DesignConfig, candidate: Candidate, failure: Failure,
               rules: RuleMemory | None) -> Candidate | None:
        return None

    def mutate(self, design: DesignConfig, candidate: Candidate, metrics: dict[str, Any] | None, goal: str,
               scope: str, seed: int, move: str, rules: RuleMemory | None = None) -> Candidate | None:
        self.asked.append(f"mutate {goal} {scope} area {(metrics or {}).get('area_um2')}")
        return candidate.with_sources(((f"{design.top}.v", VALID[1]),), move=move, origin="llm")

    def critique(self, design: DesignConfig, parent: Candidate, proposal: Candidate,
                 metrics: dict[str, Any] | None, goal: str) -> bool:
        return True

    def usage(self) -> dict[str, Any]:
        return {"requests": 0, "failed_requests": 2, "failures": [{"phase": "generate", "error": "HTTP 400: no"}],
                **({"note": self.note} if self.note else {})}


def test_the_client_and_a_stub_satisfy_one_protocol(stub: Stub, tmp_path: Path) -> None:
    choice = make_client(design(), tmp_path, base_url=stub.url)
    assert isinstance(choice, LLMChoice) and isinstance(choice.client, LLMClient) and isinstance(choice.client, LLM)
    scripted = ScriptedLLM([Candidate.from_text(VALID[0], "mac_small", origin="llm")])
    assert isinstance(scripted, LLM)
    d = load_design(DESIGN)  # offline with seed files: make_client says so with one value, not a client
    assert make_client(d, tmp_path) == LLMChoice(None, None)
    assert [c.origin for c in initial_candidates(d, scripted, None)] == ["seed", "seed", "llm"]
    # the moves drive any LLM through the protocol
    start = State(Candidate.from_text(VALID[0], "mac_small"), load_flow(d.ppa.flow).recipe)
    ctx = MoveContext(design=d, flow=load_flow(d.ppa.flow), metrics=METRICS, llm=scripted)
    new = LLMMutation("llm_area_local", "area", "local").propose(start, ctx, random.Random(1))
    assert new is not None and new.candidate.move == "llm_area_local"
    assert scripted.asked == ["generate", "mutate area local area 1234.5"], "the metrics' JSON form"


def test_no_candidates_says_why_from_the_llm_usage(tmp_path: Path) -> None:
    d = design(seeds=str(tmp_path / "none" / "*.v"))
    with pytest.raises(ConfigError, match="no file matches"):
        initial_candidates(d, None, None)
    d = design()
    d = d.model_copy(update={"generation": d.generation.model_copy(update={"seeds": None})})
    with pytest.raises(ConfigError, match="no candidates: set generation.seeds or configure an endpoint"):
        initial_candidates(d, None, None)
    with pytest.raises(LLMUnavailable, match=r"the LLM is unavailable \(budget.requests spent\)"):
        initial_candidates(d, ScriptedLLM([], available=False, note="budget.requests spent"), None)
    with pytest.raises(NoValidCandidate, match="2 failed, first: HTTP 400: no"):
        initial_candidates(d, ScriptedLLM([]), None)


def test_repair_prompt_holds_the_failure_and_the_rules(stub: Stub, tmp_path: Path) -> None:
    rules = RuleMemory(tmp_path / "rules.json")
    msg = ("design.v:2: inferred latch for `y` (assign it on every path of the combinational block, "
           "or make it a flip-flop)")
    rules.observe("structure", msg)
    bad = Candidate.from_text(LATCHY, "mac_small", label="llm2", origin="llm")
    fixed = client(stub, tmp_path).repair(design(), bad, Failure("structure", msg), rules)
    text = user_text(stub.requests[-1])
    assert role_of(stub.requests[-1]) == "repair"
    assert "if (a != 8'd255)" in text and "inferred latch for `y`" in text and "`structure`" in text
    assert "never infer latches" in text, "the active latch rule is in the repair prompt"
    assert fixed is not None and fixed.parent == bad.digest and fixed.origin == "repair" and fixed.label == "llm2+fix"
    assert "always" not in fixed.text and "think" not in fixed.text


def test_mutation_prompt_holds_the_ppa_report(stub: Stub, tmp_path: Path) -> None:
    d = design()
    c = client(stub, tmp_path, d)
    moves = {m.name: m for m in llm_moves(d, load_flow(d.ppa.flow))}
    assert set(moves) == {f"llm_{g}_{s}" for g in ("area", "timing", "power") for s in ("local", "rewrite")}
    start = State(Candidate.from_text(VALID[0], "mac_small"), load_flow(d.ppa.flow).recipe)
    ctx = MoveContext(design=d, flow=load_flow(d.ppa.flow), metrics=METRICS, llm=c)
    new = moves["llm_timing_local"].propose(start, ctx, random.Random(1))
    assert new is not None and new.candidate.move == "llm_timing_local"
    assert new.candidate.parent == start.candidate.digest
    assert new.recipe == start.recipe and new.candidate.text != start.candidate.text
    text = user_text(stub.requests[-1])
    for want in ("Goal: **timing**", "1234.5 um2 in 97 cells", "NAND2X1 x31, FAX1 x20", "a[0] -> y[11]",
                 "delay: 2.345 ns", "slack 2.655 ns", "power: 0.0421 mW", "clock period 5 ns", "ONE small, local edit",
                 "a * 12'd10"):
        assert want in text, want
    moves["llm_area_rewrite"].propose(start, ctx, random.Random(2))
    text = user_text(stub.requests[-1])
    assert "Goal: **area**" in text and "restructure" in text
    assert c.usage()["tokens_by_phase"]["mutate"] > 0 and c.usage()["requests_by_phase"]["mutate"] == 2


def test_retries_after_503s(stub: Stub, tmp_path: Path) -> None:
    stub.script = [{"status": 503}, {"status": 429}]
    cands = client(stub, tmp_path, design(retries=3)).generate(design(), 1, None)
    assert len(cands) == 1 and len(stub.requests) == 3
    (rec,) = records(tmp_path)
    assert [a.get("status") for a in rec["attempts"]] == [503, 429, 200]
    assert rec["attempts"][0]["wait_s"] == pytest.approx(0.01) and rec["attempts"][1]["wait_s"] == pytest.approx(0.02)


def test_lost_endpoint_disables_the_client(stub: Stub, tmp_path: Path) -> None:
    d = design(retries=2)
    c = client(stub, tmp_path, d)
    assert len(c.generate(d, 1, None)) == 1
    stub.script = [{"status": 503}] * 3
    with pytest.raises(LLMUnavailable, match="3 time"):
        c.repair(d, Candidate.from_text(LATCHY, "mac_small"), Failure("structure", "latch"), None)
    sent = len(stub.requests)
    assert sent == 4
    with pytest.raises(LLMUnavailable):
        c.repair(d, Candidate.from_text(LATCHY, "mac_small"), Failure("structure", "latch"), None)
    ctx = MoveContext(design=d, flow=load_flow(d.ppa.flow), metrics=METRICS, llm=c)
    st = State(Candidate.from_text(VALID[0], "mac_small"), load_flow(d.ppa.flow).recipe)
    assert LLMMutation("llm_area_local", "area", "local").propose(st, ctx, random.Random(0)) is None
    assert len(stub.requests) == sent, "a dead client sends nothing"
    assert "503" in c.usage()["note"] and not c.available


def test_request_timeout(stub: Stub, tmp_path: Path) -> None:
    stub.script = [{"hang": 3}, {"hang": 3}]
    d = design(request_timeout_s=0.3, retries=1, stream=False)  # not streamed: the whole reply
    # no wall-clock bound: the recorded 'timeout' (not the reply the stub sends after 3 s) shows the client gave up
    assert client(stub, tmp_path, d).generate(d, 2, None) == []
    assert len(stub.requests) == 2, "one try, one retry, then the client gives up (no second generate request)"
    (rec,) = records(tmp_path)
    assert "timeout" in rec["error"] and rec["response"] is None


def test_response_without_code_or_garbage_is_a_recorded_failure(stub: Stub, tmp_path: Path) -> None:
    stub.script = [{"text": "I am sorry, I cannot write hardware."}, {"garbage": True},
                   {"text": fenced(VALID[0].replace("mac_small", "other"))},
                   {"text": fenced(VALID[2]), "no_usage": True}]
    c = client(stub, tmp_path)
    cands = c.generate(design(), 4, None)
    assert len(cands) == 1 and cands[0].label == "llm4"
    recs = records(tmp_path)
    assert recs[0]["extracted"] == {"ok": False, "modules": [], "reason": "no Verilog module in the response"}
    assert recs[1]["response"] is None and "malformed" in recs[1]["error"]
    assert "no module named `mac_small`" in recs[2]["extracted"]["reason"]
    assert recs[3]["usage"]["estimated"] is True and recs[3]["usage"]["total_tokens"] > 0
    u = c.usage()
    assert u["no_code"] == 2 and u["failed_requests"] == 1 and c.available


def test_request_budget_stops_requests(stub: Stub, tmp_path: Path) -> None:
    d = design(**{"budget.requests": 2})
    c = client(stub, tmp_path, d)
    assert len(c.generate(d, 5, None)) == 2
    assert len(stub.requests) == 2 and "budget.requests" in c.usage()["note"]
    assert records(tmp_path)[-1]["source"] == "not sent" and len(records(tmp_path)) == 3
    with pytest.raises(LLMUnavailable, match="budget"):
        c.repair(d, Candidate.from_text(LATCHY, "mac_small"), Failure("structure", "latch"), None)
    assert len(stub.requests) == 2


def test_token_and_cost_budgets(stub: Stub, tmp_path: Path) -> None:
    d = design(**{"budget.tokens": 10})
    c = client(stub, tmp_path / "a", d)
    assert len(c.generate(d, 3, None)) == 1 and "budget.tokens" in c.usage()["note"]
    d = design(price_per_mtok_in=1000.0, price_per_mtok_out=1000.0, **{"budget.cost": 0.1})
    c = client(stub, tmp_path / "b", d)
    assert len(c.generate(d, 3, None)) == 1 and "budget.cost" in c.usage()["note"] and c.usage()["cost"] > 0.1
    assert len(stub.requests) == 2


def test_replay_sends_zero_requests(stub: Stub, tmp_path: Path) -> None:
    d = design(candidates=2)
    first = client(stub, tmp_path / "run1", d)
    cands = first.generate(d, 2, None)
    bad = Candidate.from_text(LATCHY, "mac_small")
    fixed = first.repair(d, bad, Failure("structure", "latch"), None)
    sent = len(stub.requests)
    replay, note = make_client(d, tmp_path / "run2", replay_dir=tmp_path / "run1")  # no endpoint, no key
    assert replay is not None and "replaying" in (note or "")
    assert [x.digest for x in replay.generate(d, 2, None)] == [x.digest for x in cands]
    again = replay.repair(d, bad, Failure("structure", "latch"), None)
    assert again is not None and fixed is not None and again.digest == fixed.digest
    assert len(stub.requests) == sent
    u = replay.usage()
    assert u["requests"] == 0 and u["tokens"] == 0 and u["replayed"] == 3 and u["mode"] == "replay"
    with pytest.raises(LLMUnavailable, match=r"the recording in \S+run1/llm has no response"):
        replay.repair(d, bad, Failure("simulation", "mismatch"), None)
    assert len(stub.requests) == sent, "a replay miss is an error, never a request"
    assert replay.usage()["replay_misses"] == 1
    assert len(records(tmp_path / "run2")) == 4, "the replayed run is recorded too (so it replays in turn)"
    with pytest.raises(InputError):
        make_client(d, tmp_path / "run3", replay_dir=tmp_path / "nothing")


def test_resumed_run_answers_repeats_from_its_own_records(stub: Stub, tmp_path: Path) -> None:
    d = design(**{"budget.requests": 3})
    client(stub, tmp_path, d).generate(d, 2, None)
    again = client(stub, tmp_path, d)
    assert again.usage()["requests"] == 2, "the budget counts what the run sent before it was resumed"
    assert len(again.generate(d, 2, None)) == 2, "the same requests again: answered from the records"
    assert len(stub.requests) == 2 and again.usage()["cache_hits"] == 2 and again.usage()["requests"] == 2
    assert len(again.generate(d, 3, None)) == 1, "new requests: one left in the budget"
    assert len(stub.requests) == 3 and "budget.requests" in (again.dead or "")
    assert [r["index"] for r in records(tmp_path)] == [1, 2, 3, 4, 5, 6]


def test_api_key_is_sent_but_never_recorded(stub: Stub, tmp_path: Path) -> None:
    stub.script = [{"status": 500}, {"text": f"your key is {SECRET}\n" + fenced(VALID[0])}]
    c = client(stub, tmp_path, key=SECRET)
    c.generate(design(), 1, None)
    assert stub.auth[-1] == f"Bearer {SECRET}"
    for p in (tmp_path / "llm").rglob("*"):
        assert SECRET not in p.read_text(), p
    assert SECRET not in json.dumps(c.usage())


def test_local_endpoint_without_a_key(stub: Stub, tmp_path: Path) -> None:
    made, note = make_client(design(), tmp_path, base_url=stub.url)
    assert made is not None and note is None
    assert made.generate(design(), 1, None) and stub.auth[-1] == "Bearer not-needed"
    none, why = make_client(design(), tmp_path / "elsewhere")
    assert none is None and "no endpoint" in (why or "")


def test_refused_key_is_not_retried_nor_echoed(stub: Stub, tmp_path: Path) -> None:
    stub.script = [{"status": 401, "message": f"Incorrect API key provided: {SECRET}"}]
    c = client(stub, tmp_path, design(retries=4), key=SECRET)
    assert c.generate(design(), 3, None) == []
    assert len(stub.requests) == 1 and "401" in (c.dead or "") and "Incorrect API key" in (c.dead or "")
    assert SECRET not in json.dumps(c.usage())
    assert all(SECRET not in p.read_text() for p in (tmp_path / "llm").glob("*.json"))


@pytest.mark.parametrize("how", ["env", "config"])
def test_critique_can_veto_a_mutation(stub: Stub, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, how: str) -> None:
    if how == "env":
        monkeypatch.setenv("HH_LLM_CRITIQUE", "1")
    d = design(critique=True) if how == "config" else design()
    c = client(stub, tmp_path, d)
    ctx = MoveContext(design=d, flow=load_flow(d.ppa.flow), metrics=METRICS, llm=c)
    st = State(Candidate.from_text(VALID[0], "mac_small"), load_flow(d.ppa.flow).recipe)
    stub.script = [{"text": fenced(VALID[1])}, {"text": "<think>hmm</think>REJECT\nit changes widths"}]
    assert LLMMutation("llm_area_local", "area", "local").propose(st, ctx, random.Random(0)) is None
    assert role_of(stub.requests[-1]) == "critique" and "Proposed design" in user_text(stub.requests[-1])
    stub.script = [{"text": fenced(VALID[2])}, {"text": "ACCEPT\nsame function"}]
    assert LLMMutation("llm_area_local", "area", "local").propose(st, ctx, random.Random(1)) is not None
    u = c.usage()
    assert u["critique_rejected"] == 1 and u["requests_by_phase"]["critique"] == 2
    assert u["tokens_by_phase"]["critique"] > 0


def test_parameters_a_model_rejects_are_adapted_once(stub: Stub, tmp_path: Path) -> None:
    stub.script = [{"status": 400, "message": "Unsupported parameter: 'max_tokens' is not supported with this model. "
                                              "Use 'max_completion_tokens' instead."},
                   {"status": 400, "message": "Unsupported value: 'temperature' does not support 0.6 with this model."}]
    c = client(stub, tmp_path, design(retries=0))
    assert len(c.generate(design(), 2, None)) == 2
    first, second, third, fourth = stub.requests
    assert "max_tokens" in first and "max_completion_tokens" in second and "temperature" in second
    assert "temperature" not in third and "max_tokens" not in third and "temperature" not in fourth
    (rec, _) = records(tmp_path)
    assert [a.get("adapted") for a in rec["attempts"]] == [
        "max_tokens -> max_completion_tokens", "temperature omitted", None]


def test_endpoint_not_listening(tmp_path: Path) -> None:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # closed again: nothing listens there
    made, _ = make_client(design(retries=2), tmp_path, base_url=f"http://127.0.0.1:{port}/v1")
    assert made.generate(design(), 3, None) == []
    assert "connection error" in (made.dead or "") and "3 time" in (made.dead or "")


def test_generate_requests_run_concurrently_within_the_budget(stub: Stub, tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HH_LLM_CONCURRENCY", "4")
    responder = MacResponder()
    together = threading.Barrier(4, timeout=60)  # each answer waits for the other three: only parallel requests pass
    stub.default = lambda body: {**responder(body), "meet": together}
    d = design(**{"budget.requests": 6})
    c = client(stub, tmp_path, d)
    assert [x.label for x in c.generate(d, 4, None)] == ["llm1", "llm2", "llm3", "llm4"], "four requests in flight"
    stub.default = responder
    assert [r["params"]["seed"] for r in records(tmp_path)] == [1000, 1001, 1002, 1003], "records in request order"
    assert len(c.generate(d, 5, None)) == 2 and len(stub.requests) == 6, "the request limit is exact in parallel too"
    assert c.usage()["requests"] == 6 and "budget.requests" in (c.dead or "")


def test_resumed_run_without_endpoint_answers_from_its_records(stub: Stub, tmp_path: Path) -> None:
    d = design()
    first = client(stub, tmp_path, d).generate(d, 2, None)
    resumed, note = make_client(d, tmp_path)  # no base URL, no key: only the run's records
    assert resumed is not None and "records only" in (note or "")
    assert [x.digest for x in resumed.generate(d, 2, None)] == [x.digest for x in first]
    assert len(stub.requests) == 2 and resumed.usage()["mode"] == "records"
    with pytest.raises(LLMUnavailable, match="no endpoint configured"):
        resumed.repair(d, Candidate.from_text(LATCHY, "mac_small"), Failure("structure", "latch"), None)
    assert resumed.available and len(stub.requests) == 2


def test_endpoint_and_model_overrides(stub: Stub, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    d = design(base_url="http://127.0.0.1:9/v1", model="from-yaml")
    monkeypatch.setenv("OPENAI_BASE_URL", stub.url)  # the environment beats design.yaml
    made, _ = make_client(d, tmp_path / "env")
    assert made.generate(d, 1, None) and stub.requests[-1]["model"] == "from-yaml"
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")  # and the CLI beats the environment
    made, _ = make_client(d, tmp_path / "cli", base_url=stub.url, model="from-cli")
    assert made.generate(d, 1, None) and stub.requests[-1]["model"] == "from-cli"
    assert records(tmp_path / "cli")[0]["model"] == "from-cli" and len(stub.requests) == 2


def test_content_sent_as_a_list_of_parts() -> None:
    from hyperheurist.llm.transport import _text

    assert _text([{"type": "text", "text": "```verilog\n"}, {"type": "text", "text": "x```"}]) == "```verilog\nx```"
    assert _text(None) == ""
