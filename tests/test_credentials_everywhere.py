"""Credentials in an endpoint URL are masked everywhere hh records or prints it (issue 29, item 5): with
``--base-url http://user:PASSWORD@127.0.0.1:PORT/v1`` no file of the run folder (manifest.json, resolved.yaml,
the LLM exchange records, the journal, summary.json, the HTML report) and neither stdout nor stderr holds the
password or the user name, whether the run completes, every request fails, or the endpoint cannot be reached.
(tests/test_input_paths.py checks manifest argv and resolved.yaml at function level.)"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from llm_stub import MacResponder, Stub  # noqa: E402

DATA = Path(__file__).parent / "data" / "flow"
PASSWORD = "pw-SECRET-b7f3e1"
USER = "usr-SECRET-a91c"
KEY = "sk-test-SECRET-creds-5151"
pytestmark = pytest.mark.tools


def run(out: Path, url: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "HH_LLM"))}
    env.update(HH_LLM_BACKOFF_S="0.01", OPENAI_API_KEY=KEY)
    return subprocess.run([sys.executable, "-m", "hyperheurist", "run", str(DATA / "design.yaml"), "--quiet",
                           "--jobs", "1", "--out", str(out), "--set", "generation.candidates=2",
                           "--set", "anneal.iterations=0", "--provider", "openai", "--base-url", url,
                           f"--base-url={url}", *args],
                          capture_output=True, text=True, timeout=900, stdin=subprocess.DEVNULL, env=env)


def with_credentials(url: str) -> str:
    scheme, rest = url.split("://", 1)
    return f"{scheme}://{USER}:{PASSWORD}@{rest}"


def assert_masked(res: subprocess.CompletedProcess[str], out: Path) -> list[Path]:
    for word in (PASSWORD, USER, KEY):
        assert word not in res.stdout + res.stderr, (word, res.stdout[-2000:], res.stderr[-2000:])
    files = [p for p in out.rglob("*") if p.is_file() and not p.is_symlink()]
    for p in files:
        data = p.read_bytes()
        for word in (PASSWORD, USER, KEY):
            assert word.encode() not in data, f"{p} holds {word}"
    return files


def test_a_completed_run_records_the_endpoint_without_its_credentials(tmp_path: Path) -> None:
    with Stub() as stub:
        stub.default = MacResponder()
        res = run(tmp_path, with_credentials(stub.url))
        sent = len(stub.requests)
    assert res.returncode == 0 and sent, res.stderr
    files = assert_masked(res, tmp_path)
    names = {p.name for p in files}
    assert {"manifest.json", "resolved.yaml", "summary.json", "report.html"} <= names, sorted(names)
    records = [p for p in files if p.parent.name == "llm" and p.suffix == ".json"]
    assert records, "no LLM exchange record: the test would not look at them"
    host = stub.url.split("://", 1)[1]
    assert any(host in p.read_text() for p in records + [p for p in files if p.name == "manifest.json"])


def test_failed_requests_and_an_unreachable_endpoint_print_no_credentials(tmp_path: Path) -> None:
    """Every request refused (the server's words are quoted in warnings, summary.json and the report), and an
    https URL to a plain-HTTP server (the TLS error names the endpoint)."""
    with Stub() as stub:
        stub.default = {"status": 401, "message": f"bad key for {with_credentials(stub.url)}"}  # a server echoing it
        res = run(tmp_path / "refused", with_credentials(stub.url))
        assert stub.requests, res.stderr
        assert res.returncode in (0, 1, 2, 3) and "Traceback" not in res.stderr, res.stderr
        assert_masked(res, tmp_path / "refused")
        res = run(tmp_path / "tls", with_credentials(stub.url.replace("http://", "https://")))
    assert "Traceback" not in res.stderr, res.stderr
    assert_masked(res, tmp_path / "tls")
