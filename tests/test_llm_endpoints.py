"""LLM endpoints as they really behave (stubs on 127.0.0.1 speaking each server's documented errors):
a reasoning model, vLLM with a small context, Ollama, a slow llama.cpp server, rate limits."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from cli_inproc import hh_in_process

from hyperheurist.candidate import Candidate
from hyperheurist.config import DesignConfig, load_design
from hyperheurist.errors import ConfigError
from hyperheurist.llm.client import LLMClient, local_endpoint
from hyperheurist.llm.profile import context_error
from hyperheurist.llm.providers import make_client

sys.path.insert(0, str(Path(__file__).parent))
from llm_stub import LATCHY, LlamaCppSlow, MacResponder, Ollama, ReasoningModel, Stub, VLLMContext, user_text  # noqa: E402

DESIGN = Path(__file__).parent / "data" / "flow" / "design.yaml"
LONG_LOG = "\n".join(f"cycle {i}: y expected {i} got {i + 1} (a={i} b=0 c=0 d=0)" for i in range(400))


@dataclass(frozen=True)
class Failure:
    gate: str
    message: str


@pytest.fixture(autouse=True)
def _env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HH_LLM_BACKOFF_S", "0.01")
    monkeypatch.setenv("HH_LLM_CONCURRENCY", "4")
    for k in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "HH_LLM_CRITIQUE"):
        monkeypatch.delenv(k, raising=False)


def design(**over: object) -> DesignConfig:
    return load_design(DESIGN, {"generation.provider": "openai", **{f"generation.{k}": v for k, v in over.items()}})


def client(stub: Stub, run_dir: Path, d: DesignConfig | None = None) -> LLMClient:
    made, note = make_client(d or design(), run_dir, base_url=stub.url)
    assert made is not None and note is None
    return made


def records(run_dir: Path) -> list[dict]:
    return [json.loads(p.read_text()) for p in sorted((run_dir / "llm").glob("*.json"))]


# ---- a reasoning model (o-series, gpt-5) ---------------------------------------------------------------
def test_reasoning_model_profile_is_learned_once_by_concurrent_requests(tmp_path: Path) -> None:
    with Stub() as stub:
        model = ReasoningModel(MacResponder())
        stub.default = model
        c = client(stub, tmp_path)
        cands = c.generate(design(), 6, None)
        sent = list(stub.requests)
    assert [x.label for x in cands] == [f"llm{i}" for i in range(1, 7)], "no request lost to the race"
    assert model.rejected == {"max_tokens": 1, "temperature": 1}, "one rejected request per unsupported parameter"
    assert model.cut_off == 1, "the output cap grew once and every later request used it"
    assert len(sent) == 6 + 3
    assert all("max_tokens" not in r and "temperature" not in r and r["max_completion_tokens"] == 16384
               for r in sent[3:])
    profile = json.loads((tmp_path / "llm_profile.json").read_text())
    assert profile["token_param"] == "max_completion_tokens" and profile["temperature"] == "omit"
    assert profile["output_tokens"] == 16384 and profile["probed"]
    assert "Use 'max_completion_tokens' instead" in profile["learned"][0]["server"]
    adapted = [[a.get("adapted") for a in r["attempts"]] for r in records(tmp_path)]
    assert adapted[1:] == [[None]] * 5, "one request, the first job (the probe), learned for all"
    assert adapted[0] == ["max_tokens -> max_completion_tokens", "temperature omitted", "output cap 4096 -> 16384",
                          None]
    assert sent[0]["temperature"] == 0.6, "the probe is job 0 whatever the scheduling"


def test_the_probe_is_the_first_job_even_when_a_later_job_would_teach_less(tmp_path: Path) -> None:
    """Job 2 of 3 samples at temperature 1.0, which a reasoning model accepts: were it the probe, the
    profile would keep sending temperature and the later jobs would each be refused (a CI flake)."""
    for late in (0.0, 0.3):
        with Stub() as stub:
            model = ReasoningModel(MacResponder())
            stub.default = model
            run = tmp_path / f"late{late}"
            c = client(stub, run)
            fetch = c._fetch

            def job2_first(phase: str, build: Any, params: Any, fetch: Any = fetch, late: float = late) -> Any:
                if params["temperature"] != 1.0:
                    time.sleep(late)  # the thread scheduler's worst case (job 2 first), made certain
                return fetch(phase, build, params)

            c._fetch = job2_first  # type: ignore[method-assign]
            cands = c.generate(design(), 3, None)
        assert [r["params"]["temperature"] for r in records(run)] == [0.6, 0.8, 1.0]
        assert len(cands) == 3 and model.rejected == {"max_tokens": 1, "temperature": 1}
    assert c.usage()["profile"]["token_param"] == "max_completion_tokens" and "failures" not in c.usage()


def test_empty_reply_at_the_output_ceiling_fails_that_request_with_the_reason(tmp_path: Path) -> None:
    with Stub() as stub:
        stub.default = ReasoningModel(MacResponder(), reasoning_tokens=50_000)
        c = client(stub, tmp_path, design(max_output_tokens=8000))
        assert c.generate(design(max_output_tokens=8000), 2, None) == []
    assert c.available, "an empty reply fails the request, not the endpoint"
    err = c.usage()["failures"][0]["error"]
    assert "spent all 8000 output tokens" in err and "finish_reason length" in err and "max_output_tokens" in err
    assert "2 request(s) failed" in c.usage()["note"]


def test_profile_given_in_design_yaml_is_used_from_the_first_request(tmp_path: Path) -> None:
    d = design(**{"profile.token_param": "max_completion_tokens", "profile.temperature": "omit",
                  "profile.output_tokens": 8000, "profile.reasoning_effort": "low"})
    with Stub() as stub:
        model = ReasoningModel(MacResponder(), reasoning_tokens=7000)
        stub.default = model
        assert len(client(stub, tmp_path, d).generate(d, 3, None)) == 3
        assert model.rejected == {} and model.cut_off == 0 and len(stub.requests) == 3
        assert all(r["reasoning_effort"] == "low" and r["max_completion_tokens"] == 8000 for r in stub.requests)


def test_reasoning_effort_a_server_refuses_is_dropped(tmp_path: Path) -> None:
    d = design(**{"profile.reasoning_effort": "high"})
    with Stub() as stub:
        stub.default = MacResponder()
        stub.script = [{"status": 400, "message": "Unrecognized request argument supplied: reasoning_effort"}]
        c = client(stub, tmp_path, d)
        assert len(c.generate(d, 2, None)) == 2
        assert "reasoning_effort" in stub.requests[0] and all("reasoning_effort" not in r for r in stub.requests[1:])
    assert c.usage()["profile"]["reasoning_effort"] is None


# ---- vLLM with a small --max-model-len --------------------------------------------------------------------
def test_vllm_context_length_lowers_the_output_cap(tmp_path: Path) -> None:
    with Stub() as stub:
        server = VLLMContext(MacResponder(), max_model_len=2048)
        stub.default = server
        c = client(stub, tmp_path)
        assert len(c.generate(design(), 4, None)) == 4
        caps = [r["max_tokens"] for r in stub.requests]
    assert server.rejected == 1 and caps[0] == 4096 and all(cap < 2048 for cap in caps[1:]), caps
    assert c.usage()["profile"]["context_length"] == 2048


def test_vllm_context_length_shortens_a_long_prompt(tmp_path: Path) -> None:
    bad = Candidate.from_text(LATCHY, "mac_small")
    with Stub() as stub:
        server = VLLMContext(MacResponder(), max_model_len=2048)
        stub.default = server
        c = client(stub, tmp_path)
        fixed = c.repair(design(), bad, Failure("simulation", LONG_LOG), None)
        sent = user_text(stub.requests[-1])
    assert fixed is not None and server.rejected == 1 and len(stub.requests) == 2
    assert "characters cut" in sent and "cycle 0:" in sent and "cycle 399:" in sent and "cycle 200:" not in sent
    (rec,) = records(tmp_path)
    assert rec["trim"] == 2 and "cycle 200:" in rec["messages"][1]["content"], "the record keeps the full prompt"
    assert rec["attempts"][0]["status"] == 400 and "maximum context length is 2048" in rec["attempts"][0]["error"]


def test_vllm_context_too_small_fails_quoting_the_server(tmp_path: Path) -> None:
    with Stub() as stub:
        stub.default = VLLMContext(MacResponder(), max_model_len=300)
        c = client(stub, tmp_path)
        assert c.generate(design(), 3, None) == []
        assert len(stub.requests) == 1, "once the context is known, prompts that cannot fit are not sent"
    err = c.usage()["failures"][0]["error"]
    assert "does not fit the model's context of 300 tokens" in err and "maximum context length is 300 tokens" in err
    assert c.available


def test_context_error_wordings() -> None:
    assert context_error("This model's maximum context length is 2048 tokens. However, you requested 4457 tokens "
                         "(361 in the messages, 4096 in the completion).") == (2048, 361)
    assert context_error("This model's maximum context length is 128000 tokens. However, your messages resulted in "
                         "130001 tokens. Please reduce the length of the messages.") == (128000, 130001)
    assert context_error("context_length_exceeded") == (None, None)
    assert context_error("the request exceeds the available context size, try increasing it") == (None, None)
    assert context_error("Unsupported parameter: 'max_tokens'") is None


# ---- Ollama ---------------------------------------------------------------------------------------------
def test_ollama_think_blocks_no_usage_and_server_options(tmp_path: Path) -> None:
    d = design(extra_body={"options": {"num_ctx": 16384}})
    with Stub() as stub:
        stub.default = Ollama(MacResponder())
        c = client(stub, tmp_path, d)
        cands = c.generate(d, 2, None)
        bodies = list(stub.requests)
    assert len(cands) == 2 and all("<think>" not in x.text for x in cands)
    assert all(b["options"] == {"num_ctx": 16384} and b["stream"] is True for b in bodies)
    recs = records(tmp_path)
    assert all(r["usage"]["estimated"] and r["usage"]["total_tokens"] > 0 for r in recs)
    assert c.usage()["tokens"] > 0


# ---- llama.cpp on a CPU: streaming ----------------------------------------------------------------------
def test_slow_streaming_server_outlasts_the_request_timeout(tmp_path: Path) -> None:
    d = design(request_timeout_s=1, idle_timeout_s=2)
    with Stub() as stub:
        stub.default = LlamaCppSlow(MacResponder(), chunks=8, chunk_delay=0.3)
        t0 = time.monotonic()
        cands = client(stub, tmp_path, d).generate(d, 1, None)
    assert len(cands) == 1 and time.monotonic() - t0 > 2.0, "2.1 s of streaming, 0.3 s silences: no timeout"


def test_stalled_stream_is_retried_and_its_partial_reply_recorded(tmp_path: Path) -> None:
    d = design(idle_timeout_s=0.5, retries=1)
    with Stub() as stub:
        stub.default = LlamaCppSlow(MacResponder(), chunks=8, chunk_delay=0.01, stall_after=3, stall_s=2)
        c = client(stub, tmp_path, d)
        assert c.generate(d, 1, None) == []
    (rec,) = records(tmp_path)
    assert "stream stalled: no data for 0.5 s after 3 chunk(s)" in rec["error"]
    assert [a["partial"].startswith("Here is the design.") for a in rec["attempts"]] == [True, True]
    assert "stream stalled" in (c.dead or "")


def test_streaming_is_the_default_for_local_servers_only() -> None:
    assert local_endpoint("http://127.0.0.1:8000/v1") and local_endpoint("http://localhost:11434/v1")
    assert local_endpoint("http://192.168.1.20:8080/v1") and local_endpoint("http://gpu-box.local:8000/v1")
    assert not local_endpoint("https://api.openai.com/v1") and not local_endpoint(None)


# ---- rate limits ------------------------------------------------------------------------------------------
def test_429_waits_what_retry_after_says(tmp_path: Path) -> None:
    with Stub() as stub:
        stub.default = MacResponder()
        stub.script = [{"status": 429, "headers": {"Retry-After": "1"},
                        "message": "Rate limit reached for requests per min (RPM): Limit 3. Please try again in 1s."}]
        t0 = time.monotonic()
        assert len(client(stub, tmp_path, design(stream=False)).generate(design(), 1, None)) == 1
    assert time.monotonic() - t0 >= 1.0
    (rec,) = records(tmp_path)
    assert rec["attempts"][0]["retry_after_s"] == 1.0 and rec["attempts"][0]["wait_s"] == 1.0
    assert "Rate limit reached" in rec["attempts"][0]["error"]


# ---- configuration --------------------------------------------------------------------------------------
@pytest.mark.parametrize("old,new", [("max_requests", "budget.requests"), ("max_tokens", "budget.tokens"),
                                     ("max_cost", "budget.cost")])
def test_old_budget_keys_are_rejected_with_the_new_name(old: str, new: str) -> None:
    with pytest.raises(ConfigError, match=f"generation: {old} was renamed: use generation.{new}"):
        design(**{old: 10})


# ---- hh doctor --llm ------------------------------------------------------------------------------------
def doctor(*args: str) -> subprocess.CompletedProcess[str]:
    """cli.main in this process: what doctor prints and its exit code are the point."""
    return hh_in_process("doctor", "--llm", *args, env={"HH_LLM_BACKOFF_S": "0.01",
                                                        "OPENAI_API_KEY": "sk-doctor-SECRET-123456"},
                         without=("OPENAI_",))


def test_doctor_llm_prints_the_profile_and_the_first_error_in_full() -> None:
    with Stub() as stub:
        stub.default = ReasoningModel(lambda _b: {"text": "OK"})
        res = doctor("--base-url", stub.url, "--model", "o4-mini")
        n = len(stub.requests)
    assert res.returncode == 0, res.stderr
    assert "token_param=max_completion_tokens temperature=omit" in res.stdout and "model: o4-mini" in res.stdout
    assert ("first error (attempt 1): HTTP 400: Unsupported parameter: 'max_tokens' is not supported with this model. "
            "Use 'max_completion_tokens' instead.") in res.stdout
    assert "reply: 'OK'" in res.stdout and n == 4 and "SECRET" not in res.stdout


def test_doctor_llm_exit_3_when_the_endpoint_refuses() -> None:
    with Stub() as stub:
        stub.default = {"status": 404, "message": "The model `nope` does not exist or you do not have access to it."}
        res = doctor("--base-url", stub.url, "--model", "nope")
    assert res.returncode == 3
    assert "FAILED" in res.stdout and "The model `nope` does not exist or you do not have access to it." in res.stdout


def test_a_resumed_run_keeps_its_profile_for_the_same_endpoint_only(tmp_path: Path) -> None:
    with Stub() as stub:
        model = ReasoningModel(MacResponder())
        stub.default = model
        client(stub, tmp_path).generate(design(), 1, None)
        again = client(stub, tmp_path)
        assert again.usage()["profile"]["token_param"] == "max_completion_tokens"
        assert len(again.generate(design(), 3, None)) == 3 and model.rejected == {"max_tokens": 1, "temperature": 1}
    with Stub() as other:  # another server under the same model name: learned afresh
        other.default = MacResponder()
        assert client(other, tmp_path).usage()["profile"]["token_param"] == "max_tokens"


def test_doctor_llm_without_an_endpoint_is_a_usage_error() -> None:
    res = hh_in_process("doctor", "--llm", without=("OPENAI_",))
    assert res.returncode == 2 and res.stderr.startswith("hh: error: doctor --llm: no endpoint") and not res.stdout


def test_a_key_echoed_in_a_refusal_stays_out_of_the_profile(tmp_path: Path) -> None:
    key = "sk-echo-SECRET-abcdef012345"
    with Stub() as stub:
        stub.default = MacResponder()
        stub.script = [{"status": 400, "message": f"Unsupported parameter: 'seed' is not supported (key {key})"}]
        made, _ = make_client(design(), tmp_path, base_url=stub.url, api_key=key)
        assert len(made.generate(design(), 1, None)) == 1 and "seed" not in stub.requests[1]
    text = (tmp_path / "llm_profile.json").read_text()
    assert "seed omitted" in text and key not in text and key not in json.dumps(made.usage())
