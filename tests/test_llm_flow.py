"""``hh run`` with generation.provider: openai against the stub endpoint: both phases, replay, a lost endpoint."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from cli_inproc import hh_in_process

from hyperheurist.jsonio import read_jsonl

sys.path.insert(0, str(Path(__file__).parent))
from llm_stub import MacResponder, Stub, role_of  # noqa: E402
from runrecord import check_run_record  # noqa: E402

DATA = Path(__file__).parent / "data" / "flow"
SECRET = "sk-test-SECRET-e2e-9876543210"
pytestmark = pytest.mark.tools
LLM_MOVES = "anneal.moves=[llm_area_local, llm_timing_rewrite, llm_power_local]"


def hh(*args: str, env: dict[str, str | None] | None = None) -> subprocess.CompletedProcess[str]:
    """``hh run`` by cli.main in this process (what the run records and answers is the point, not a process),
    with no OPENAI_ variable but those in ``env``."""
    return hh_in_process("run", str(DATA / "design.yaml"), "--quiet", "--jobs", "2", "--no-report",
                         "--set", "generation.candidates=3", "--set", "anneal.iterations=2", *args,
                         env={"HH_LLM_BACKOFF_S": "0.01", **(env or {})}, without=("OPENAI_",))


def only_run(root: Path) -> Path:
    (run,) = [p for p in root.glob("*/*") if p.is_dir()]
    return run


@pytest.fixture(scope="module")
def live_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[dict]]:
    out = tmp_path_factory.mktemp("llm-live")
    with Stub() as stub:
        stub.default = MacResponder(latch_rate=0.5)
        res = hh("--out", str(out), "--provider", "openai", "--base-url", stub.url, "--set", LLM_MOVES,
                 "--set", f"generation.rules_file={out / 'rules.yaml'}", env={"OPENAI_API_KEY": SECRET})
        requests = list(stub.requests)
        auth = set(stub.auth)
    assert res.returncode == 0, res.stderr
    assert auth == {f"Bearer {SECRET}"}
    return only_run(out), requests


@pytest.mark.slow
def test_both_phases_use_the_endpoint(live_run: tuple[Path, list[dict]]) -> None:
    run, requests = live_run
    summary = json.loads((run / "summary.json").read_text())
    assert summary["status"] == "complete"
    roles = [role_of(r) for r in requests]
    assert roles.count("generate") == 3 and "repair" in roles and "mutate" in roles
    llm = summary["llm"]
    assert llm["requests"] == len(requests) and llm["mode"] == "live"
    assert llm["requests_by_phase"]["generate"] == 3
    assert all(llm["tokens_by_phase"][phase] > 0 for phase in ("generate", "repair", "mutate"))
    assert llm["tokens"] == sum(llm["tokens_by_phase"][p] for p in ("generate", "repair", "mutate", "critique"))
    recs = sorted((run / "llm").glob("*.json"))
    assert len(recs) == len(requests)
    origins = {e["origin"] for e in summary["phase1"]["entries"]}
    assert {"seed", "llm", "repair"} <= origins
    assert any(e["origin"] == "repair" and e["verdict"] == "valid" for e in summary["phase1"]["entries"])
    steps = [r for r in read_jsonl(run / "journal.jsonl") if r.get("type") == "step"]
    assert steps and all(s["move"] is None or s["move"].startswith("llm_") for s in steps)
    assert sum(m["proposals"] for name, m in summary["moves"].items() if name.startswith("llm_")) > 0
    for p in run.rglob("*"):
        if p.is_file():
            assert SECRET not in p.read_text(errors="replace"), f"API key leaked into {p}"


def test_replay_reproduces_the_run_with_zero_requests(live_run: tuple[Path, list[dict]], tmp_path: Path) -> None:
    run, _ = live_run
    with Stub() as stub:  # an endpoint that would answer, to prove nothing is asked of it
        stub.default = MacResponder()
        rules = run.parent.parent / "rules.yaml"  # learned by the recorded run: the replay must not see it
        assert "latch" in rules.read_text()
        res = hh("--out", str(tmp_path), "--replay", str(run), "--base-url", stub.url, "--set", LLM_MOVES,
                 "--set", f"generation.rules_file={rules}")
        assert res.returncode == 0, res.stderr
        assert stub.requests == []
    again = json.loads((only_run(tmp_path) / "summary.json").read_text())
    first = json.loads((run / "summary.json").read_text())
    assert again["llm"]["requests"] == 0 and again["llm"]["tokens"] == 0 and again["llm"]["mode"] == "replay"
    assert again["llm"]["replayed"] == first["llm"]["requests"]
    for key in ("best", "initial", "evaluations", "moves"):
        assert again[key] == first[key], key


def test_replay_alone_uses_the_recorded_configuration(live_run: tuple[Path, list[dict]], tmp_path: Path) -> None:
    run, _ = live_run
    res = hh_in_process("run", "--replay", str(run), "--out", str(tmp_path), "--quiet", "--no-report",
                        without=("OPENAI_",))
    assert res.returncode == 0, res.stderr
    again = json.loads((only_run(tmp_path) / "summary.json").read_text())
    first = json.loads((run / "summary.json").read_text())
    assert again["llm"]["requests"] == 0 and again["llm"]["replayed"] == first["llm"]["requests"]
    assert again["best"] == first["best"]


@pytest.mark.slow
def test_endpoint_lost_during_the_search(tmp_path: Path) -> None:
    with Stub() as stub:
        responder = MacResponder()
        stub.default = lambda body: responder(body) if role_of(body) == "generate" else {"status": 503}
        res = hh("--out", str(tmp_path), "--provider", "openai", "--base-url", stub.url, "--set", LLM_MOVES,
                 "--set", "generation.seeds=seeds/ok_1_naive.v", "--set", "generation.retries=1",
                 "--set", "anneal.iterations=3")
        sent = len(stub.requests)
    assert res.returncode == 0, res.stderr
    summary = json.loads((only_run(tmp_path) / "summary.json").read_text())
    assert summary["status"] == "complete" and summary["phase1"]["valid"] == 4
    assert sent == 3 + 2, "three generate requests, one mutation tried twice, then the client is off"
    assert "503" in summary["llm"]["note"] and summary["llm"]["requests"] == 5
    check_run_record(only_run(tmp_path))  # the best is the journal's cheapest; evaluations match its records


def test_endpoint_lost_during_repair_keeps_the_run_and_its_usage(tmp_path: Path) -> None:
    with Stub() as stub:
        responder = MacResponder()
        stub.default = lambda body: responder(body) if role_of(body) == "generate" else {"status": 502}
        res = hh("--out", str(tmp_path), "--provider", "openai", "--base-url", stub.url, "--set", LLM_MOVES,
                 "--set", "generation.retries=0")
        sent = len(stub.requests)
    assert res.returncode == 0, res.stderr
    summary = json.loads((only_run(tmp_path) / "summary.json").read_text())
    assert summary["status"] == "complete" and summary["phase1"]["valid"] == 4  # the faulty seed stays unrepaired
    assert sent == 4 and summary["llm"]["requests"] == 4, "usage survives the client being dropped"
    assert "LLM unavailable during repair" in summary["llm"]["note"] and "502" in summary["llm"]["note"]
    assert all(m["proposals"] == 0 for m in summary["moves"].values()), \
        "LLM moves do not apply once the endpoint is gone"


def test_tool_subprocesses_never_see_the_key(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from hyperheurist.runner import run_tool

    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    res = run_tool([sys.executable, "-c", "import os; print(sorted(os.environ))"], name="env", log_dir=tmp_path,
                   timeout_s=30)
    assert res.ok and "OPENAI_API_KEY" not in res.stdout and SECRET not in res.stdout


def test_resume_without_the_endpoint_keeps_the_llm_candidates(live_run: tuple[Path, list[dict]],
                                                              tmp_path: Path) -> None:
    import shutil

    run, _ = live_run
    copy = tmp_path / "run"
    shutil.copytree(run, copy)
    res = hh_in_process("run", "--resume", str(copy), "--quiet", "--no-report", without=("OPENAI_",))
    assert res.returncode == 0, res.stderr
    first = json.loads((run / "summary.json").read_text())
    again = json.loads((copy / "summary.json").read_text())
    assert again["phase1"]["candidates"] == first["phase1"]["candidates"] == 5
    assert again["best"]["digest"] == first["best"]["digest"]
    assert again["llm"]["mode"] == "records" and again["llm"]["requests"] == first["llm"]["requests"]
    assert again["llm"]["cache_hits"] >= 3
