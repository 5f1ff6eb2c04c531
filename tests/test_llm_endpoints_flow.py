"""``hh run`` end to end against each server personality of tests/llm_stub.py: every run completes, or
ends in one line that quotes the server (and summary.json keeps the server's words)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from cli_inproc import hh_in_process, hh_process

sys.path.insert(0, str(Path(__file__).parent))
from llm_stub import LlamaCppSlow, MacResponder, Ollama, ReasoningModel, Stub, VLLMContext, role_of  # noqa: E402

DATA = Path(__file__).parent / "data" / "flow"
SECRET = "sk-test-SECRET-endpoints-4242"
LLM_MOVES = "anneal.moves=[llm_area_local, llm_timing_rewrite, llm_power_local]"
pytestmark = pytest.mark.tools


def hh(out: Path, *args: str, jobs: str = "2", process: bool = False) -> subprocess.CompletedProcess[str]:
    """``hh run`` by cli.main in this process (the run's records and exit code are the point), or in a child process
    (``process``) where the test reads the process's whole stderr (one line, from every process of the run)."""
    call = hh_process if process else hh_in_process
    return call("run", str(DATA / "design.yaml"), "--quiet", "--jobs", jobs, "--no-report", "--out", str(out),
                "--set", "generation.candidates=3", *args, env={"HH_LLM_BACKOFF_S": "0.01", "OPENAI_API_KEY": SECRET},
                without=("OPENAI_", "HH_LLM"))


def live(stub: Stub, out: Path, *args: str, process: bool = False) -> subprocess.CompletedProcess[str]:
    return hh(out, "--provider", "openai", "--base-url", stub.url, *args, process=process)


def only_run(root: Path) -> Path:
    (run,) = [p for p in root.glob("*/*") if p.is_dir()]
    return run


def summary(root: Path) -> dict[str, Any]:
    return json.loads((only_run(root) / "summary.json").read_text())


def one_line_error(res: subprocess.CompletedProcess) -> str:
    lines = [ln for ln in res.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("hh: error: ") and "Traceback" not in res.stderr, res.stderr
    return lines[0]


@pytest.fixture(scope="module")
def reasoning_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, ReasoningModel, int]:
    out = tmp_path_factory.mktemp("reasoning")
    with Stub() as stub:
        model = ReasoningModel(MacResponder())
        stub.default = model
        # one iteration: both chains send an LLM move (mutate) request under the learned profile, at two jobs, and
        # the replay has them to replay (3 iterations added 9 more such requests and ~5 s per run at load 6)
        res = live(stub, out, "--set", LLM_MOVES, "--set", "anneal.iterations=1")
        sent = len(stub.requests)
    assert res.returncode == 0, res.stderr
    return only_run(out), model, sent


@pytest.mark.slow
def test_reasoning_model_at_two_jobs(reasoning_run: tuple[Path, ReasoningModel, int]) -> None:
    run, model, sent = reasoning_run
    s = json.loads((run / "summary.json").read_text())
    assert s["status"] == "complete"
    llm_valid = [e for e in s["phase1"]["entries"] if e["origin"] == "llm" and e["verdict"] == "valid"]
    assert len(llm_valid) == 3, "every generate request gave a valid candidate (none lost to the probe race)"
    assert model.rejected == {"max_tokens": 1, "temperature": 1} and model.cut_off == 1
    assert s["llm"]["requests"] == sent and s["llm"]["failed_requests"] == 0
    profile = s["llm"]["profile"]
    assert profile["token_param"] == "max_completion_tokens" and profile["temperature"] == "omit"
    assert json.loads((run / "llm_profile.json").read_text())["output_tokens"] == 16384
    for p in run.rglob("*"):
        if p.is_file():
            assert SECRET not in p.read_text(errors="replace"), f"API key leaked into {p}"


@pytest.mark.slow
def test_replay_of_the_reasoning_run_sends_nothing(reasoning_run: tuple[Path, ReasoningModel, int],
                                                   tmp_path: Path) -> None:
    run, _, _ = reasoning_run
    with Stub() as stub:
        stub.default = ReasoningModel(MacResponder())
        res = hh(tmp_path, "--replay", str(run), "--base-url", stub.url, "--set", LLM_MOVES,
                 "--set", "anneal.iterations=1")
        assert res.returncode == 0, res.stderr
        assert stub.requests == []
    again, first = summary(tmp_path), json.loads((run / "summary.json").read_text())
    assert again["llm"]["requests"] == 0 and again["llm"]["mode"] == "replay"
    recorded = [json.loads(p.read_text()) for p in (run / "llm").glob("0*.json")]
    answered = [r for r in recorded if r["response"] is not None]
    assert again["llm"]["replayed"] == len(answered)
    assert len(answered) < first["llm"]["requests"], "fewer: 400s and an empty reply"
    assert again["llm"]["profile"]["token_param"] == "max_completion_tokens", "the recorded profile is replayed"
    assert again["best"] == first["best"]


@pytest.mark.slow
def test_vllm_small_context_completes(tmp_path: Path) -> None:
    with Stub() as stub:
        server = VLLMContext(MacResponder(), max_model_len=2048)
        stub.default = server
        # one iteration: its two mutate requests are sent within the learned context (server.rejected stays 1)
        res = live(stub, tmp_path, "--set", LLM_MOVES, "--set", "anneal.iterations=1")
    assert res.returncode == 0, res.stderr
    s = summary(tmp_path)
    assert s["status"] == "complete" and s["llm"]["profile"]["context_length"] == 2048
    assert server.rejected == 1
    assert any(e["origin"] == "llm" and e["verdict"] == "valid" for e in s["phase1"]["entries"])


def test_vllm_context_too_small_is_one_line_quoting_the_server(tmp_path: Path) -> None:
    with Stub() as stub:
        stub.default = VLLMContext(MacResponder(), max_model_len=300)
        res = live(stub, tmp_path, "--set", "generation.seeds=null", "--set", "anneal.iterations=0", process=True)
    assert res.returncode == 1
    line = one_line_error(res)
    assert "This model's maximum context length is 300 tokens" in line and "the LLM returned no usable Verilog" in line
    s = summary(tmp_path)
    assert s["status"] == "no-valid-candidate"
    assert "maximum context length is 300 tokens" in s["llm"]["failures"][0]["error"]


def test_ollama_completes_with_server_options(tmp_path: Path) -> None:
    with Stub() as stub:
        stub.default = Ollama(MacResponder())
        res = live(stub, tmp_path, "--set", "generation.extra_body={options: {num_ctx: 8192}}",
                   "--set", "anneal.iterations=0")
        bodies = list(stub.requests)
    assert res.returncode == 0, res.stderr
    assert bodies and all(b["options"] == {"num_ctx": 8192} for b in bodies)
    s = summary(tmp_path)
    assert s["status"] == "complete" and s["llm"]["tokens"] > 0
    assert sum(e["origin"] == "llm" and e["verdict"] == "valid" for e in s["phase1"]["entries"]) == 3


def test_slow_llama_cpp_stream_completes(tmp_path: Path) -> None:
    with Stub() as stub:
        # 1.2 s a reply (the last chunk 4 x 0.3 s after the first): longer than request_timeout_s, every silence
        # far shorter than idle_timeout_s
        stub.default = LlamaCppSlow(MacResponder(), chunks=5, chunk_delay=0.3)
        # no seeds: no faulty one to repair, so the run waits for two slow replies in turn (the probe, then the three
        # generate requests together), not three
        res = live(stub, tmp_path, "--set", "generation.request_timeout_s=1", "--set", "generation.idle_timeout_s=2",
                   "--set", "generation.seeds=null", "--set", "anneal.iterations=0")
    assert res.returncode == 0, res.stderr
    s = summary(tmp_path)
    assert s["status"] == "complete" and s["llm"]["failed_requests"] == 0 and s["llm"]["profile"]["stream"] is True


def test_stalled_llama_cpp_stream_is_one_line(tmp_path: Path) -> None:
    with Stub() as stub:
        stub.default = LlamaCppSlow(MacResponder(), chunks=6, chunk_delay=0.01, stall_after=2, stall_s=3)
        res = live(stub, tmp_path, "--set", "generation.idle_timeout_s=0.5", "--set", "generation.retries=1",
                   "--set", "generation.seeds=null", "--set", "anneal.iterations=0", process=True)
    assert res.returncode == 3
    line = one_line_error(res)
    assert "stream stalled: no data for 0.5 s after 2 chunk(s)" in line
    s = summary(tmp_path)
    assert "stream stalled" in s["llm"]["note"]
    # requests run concurrently: whichever reached the server first is the sent one, the others
    # were never sent once the endpoint was lost (which index that is depends on scheduling)
    recs = [json.loads(p.read_text()) for p in sorted((only_run(tmp_path) / "llm").glob("0*.json"))]
    sent = [r for r in recs if r["source"] == "network"]
    assert len(sent) == 1 and all(r["source"] == "not sent" and r["attempts"] is None for r in recs if r not in sent)
    assert sent[0]["attempts"][0]["partial"].startswith("Here is the design."), "the partial reply is recorded"


def test_rate_limited_run_completes(tmp_path: Path) -> None:
    with Stub() as stub:
        responder = MacResponder()
        stub.script = [{"status": 429, "headers": {"Retry-After": "1"}, "message": "Rate limit reached for requests"}]
        stub.default = responder
        res = live(stub, tmp_path, "--set", "generation.seeds=null", "--set", "anneal.iterations=0")  # no repair
        roles = [role_of(b) for b in stub.requests]
    assert res.returncode == 0, res.stderr
    s = summary(tmp_path)
    assert s["status"] == "complete" and roles.count("generate") == 4
    waits = [a.get("retry_after_s") for p in sorted((only_run(tmp_path) / "llm").glob("0*.json"))
             for a in json.loads(p.read_text())["attempts"]]
    assert waits.count(1.0) == 1


def test_a_failing_request_is_quoted_in_the_warning_and_the_summary(tmp_path: Path) -> None:
    with Stub() as stub:
        responder = MacResponder()
        msg = "Invalid 'messages[1].content': string too long. Expected a string with maximum length 1048576."
        stub.default = lambda b: responder(b) if role_of(b) == "generate" else {"status": 400, "message": msg}
        res = live(stub, tmp_path, "--set", "anneal.iterations=0")
    assert res.returncode == 0, res.stderr
    warning = [ln for ln in res.stderr.splitlines() if ln.startswith("hh: warning: LLM:")]
    assert len(warning) == 1 and msg in warning[0]
    s = summary(tmp_path)
    assert s["llm"]["failures"][0] == {"phase": "repair", "error": f"HTTP 400: {msg}"}
    from html import escape

    from hyperheurist.report import render_run

    page = render_run(only_run(tmp_path)).read_text()
    assert "LLM failures (server messages)" in page and escape(msg) in page and "LLM model profile" in page
