"""What a user meets with a real-world endpoint: a server that ignores ``stream``, a refused key, an error
that points at the run's records, identical answers (stub server on 127.0.0.1; the gates are the real tools)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from cli_inproc import hh_in_process, hh_process

from hyperheurist.config import DesignConfig, load_design
from hyperheurist.jsonio import read_jsonl
from hyperheurist.llm.client import LLMClient
from hyperheurist.llm.providers import make_client

sys.path.insert(0, str(Path(__file__).parent))
from llm_stub import VALID, MacResponder, Stub, fenced, role_of  # noqa: E402

DATA = Path(__file__).parent / "data" / "flow"
SECRET = "sk-test-SECRET-refused-31337"


@pytest.fixture(autouse=True)
def _env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HH_LLM_BACKOFF_S", "0.01")
    for k in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "HH_LLM_CRITIQUE"):
        monkeypatch.delenv(k, raising=False)


def design(**over: object) -> DesignConfig:
    return load_design(DATA / "design.yaml",
                       {"generation.provider": "openai", **{f"generation.{k}": v for k, v in over.items()}})


def client(stub: Stub, run_dir: Path, d: DesignConfig) -> LLMClient:
    made, _ = make_client(d, run_dir, base_url=stub.url)
    assert isinstance(made, LLMClient)
    return made


def records(run_dir: Path) -> list[dict[str, Any]]:
    return [json.loads(p.read_text()) for p in sorted((run_dir / "llm").glob("*.json"))]


# ---- a server that ignores stream ------------------------------------------------------------------------
@pytest.mark.parametrize("label", [True, "sse"], ids=["json", "json-labelled-as-event-stream"])
def test_a_server_that_ignores_stream_is_read_and_streaming_turned_off(tmp_path: Path, label: object) -> None:
    d = design(stream=True)
    responder = MacResponder()
    with Stub() as stub:
        stub.default = lambda body: {**responder(body), "ignore_stream": label}
        cands = client(stub, tmp_path, d).generate(d, 4, None)
        streamed = [bool(b.get("stream")) for b in stub.requests]
    assert [c.label for c in cands] == ["llm1", "llm2", "llm3", "llm4"], "every answer is a candidate"
    # a JSON body is read at once; one labelled as an event stream is resent once unstreamed
    assert streamed == ([True] if label is True else [True, False]) + [False] * 3, "remembered for the rest"
    profile = json.loads((tmp_path / "llm_profile.json").read_text())
    assert profile["stream"] is False and profile["learned"][0]["what"] == "stream off"
    first = records(tmp_path)[0]["attempts"]
    assert first[0]["adapted"] == "stream off" and first[-1]["status"] == 200


# ---- hh run / hh doctor --llm end to end --------------------------------------------------------------------
def hh(*args: str, key: str | None = SECRET, process: bool = False) -> subprocess.CompletedProcess[str]:
    """cli.main in this process (the answer and the run's records are the point), or a child process (``process``)
    where the test reads everything the run's processes print."""
    call = hh_process if process else hh_in_process
    return call(*args, env={"HH_LLM_BACKOFF_S": "0.01", "OPENAI_API_KEY": key}, without=("OPENAI_", "HH_LLM"))


def run(stub: Stub, out: Path, *args: str, key: str | None = SECRET,
        process: bool = False) -> subprocess.CompletedProcess[str]:
    return hh("run", str(DATA / "design.yaml"), "--quiet", "--jobs", "2", "--no-report", "--out", str(out),
              "--provider", "openai", "--base-url", stub.url, "--set", "generation.candidates=3",
              "--set", "anneal.iterations=0", *args, key=key, process=process)


def only_run(root: Path) -> Path:
    (found,) = [p for p in root.glob("*/*") if p.is_dir()]
    return found


REFUSED = {"status": 401, "body": {"error": {"message": f"Incorrect API key provided: {SECRET}.",
                                             "type": "invalid_request_error", "code": "invalid_api_key"}}}


@pytest.mark.slow
@pytest.mark.tools
def test_a_refused_key_is_a_configuration_error_naming_the_variable_and_endpoint(tmp_path: Path) -> None:
    with Stub() as stub:
        stub.default = REFUSED
        res = run(stub, tmp_path, process=True)  # seed files too: a bad key is still a configuration error; and
        # nothing any process of the run prints holds the key
        doctor = hh("doctor", "--llm", "--base-url", stub.url, "--model", "gpt-x")
        stub.default = {"status": 403, "message": "forbidden"}
        keyless = run(stub, tmp_path / "keyless", "--set", "generation.seeds=null", key=None)
    assert res.returncode == 2, res.stderr
    line = res.stderr.strip().splitlines()[-1]
    assert line.startswith("hh: error: ") and "OPENAI_API_KEY" in line and stub.url in line and "HTTP 401" in line
    assert SECRET not in res.stderr + doctor.stdout + doctor.stderr, "the key's value is never printed"
    assert doctor.returncode == 2 and "OPENAI_API_KEY" in doctor.stdout
    assert keyless.returncode == 2 and "HTTP 403" in keyless.stderr and "OPENAI_API_KEY is not set" in keyless.stderr


@pytest.mark.tools
def test_no_usable_verilog_names_the_runs_llm_folder(tmp_path: Path) -> None:
    with Stub() as stub:
        stub.default = {"text": "I cannot write Verilog today."}
        res = run(stub, tmp_path, "--set", "generation.seeds=null")
    assert res.returncode == 1, res.stderr
    folder = only_run(tmp_path) / "llm"
    assert "the LLM returned no usable Verilog" in res.stderr and f"see {folder}" in res.stderr, res.stderr
    assert len(list(folder.glob("*.json"))) == 3


@pytest.mark.tools
def test_identical_answers_are_counted_and_named(tmp_path: Path) -> None:
    responder = MacResponder()
    with Stub() as stub:
        stub.default = lambda body: ({"text": fenced(VALID[0])} if role_of(body) == "generate" else responder(body))
        res = hh("run", str(DATA / "design.yaml"), "--jobs", "2", "--no-report", "--out", str(tmp_path),
                 "--provider", "openai", "--base-url", stub.url, "--set", "generation.candidates=3",
                 "--set", "generation.seeds=null", "--set", "anneal.iterations=0")
    assert res.returncode == 0, res.stderr
    assert "2 identical answer(s) merged: llm2 = llm1, llm3 = llm1" in res.stdout + res.stderr
    rd = only_run(tmp_path)
    summary = json.loads((rd / "summary.json").read_text())
    assert summary["llm"]["duplicate_answers"] == 2
    (p1,) = [r for r in read_jsonl(rd / "journal.jsonl") if r.get("type") == "phase1"]
    assert p1["label"] == "llm1" and p1["duplicates"] == ["llm2", "llm3"]
