"""Untrusted RTL (tests/data/untrusted/): every attack is rejected or stopped within its limit and recorded
as a gate failure; `hh run` goes on with the other candidates; tools never see API keys and run inside
the candidate folder.
"""

from __future__ import annotations

import functools
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml
from test_bad_inputs import assert_clean, hh, hh_many

from hyperheurist.candidate import Candidate
from hyperheurist.config import Limits, load_design
from hyperheurist.gates.safety import check_safety

DATA = Path(__file__).parent / "data" / "untrusted"
FLOW = Path(__file__).parent / "data" / "flow"
DESIGN = DATA / "design.yaml"
GOOD_RTL = FLOW / "seeds" / "ok_1_naive.v"
CANARIES = "/tmp/hh_pwned"

# file -> the gate that must stop it (full chain, tight limits from design.yaml)
SAFETY = ["dpi_export", "dpi_system", "dumpfile", "fopen_read", "fopen_write", "include_parent", "include_passwd",
          "macro_hidden", "macro_paste", "pli_task", "readmem_parent", "readmem_passwd", "sdf_annotate",
          "system_call", "systemc_block", "verilator_c", "writememh"]
EXPECTED = {
    **{name: "safety" for name in SAFETY},
    "hang_forever": "structure",       # an initial block is not a design
    "hang_oscillator": "structure",    # combinational loop
    "hang_loop": "structure",          # Yosys cannot unroll it
    "huge_generate": "compile",        # Icarus runs out of its 512 MB address space
    "huge_memory": "compile",          # a 1 GiB array
    "recursive_module": "compile",
    "yosys_blowup": "structure",       # Yosys elaboration runs out of its 512 MB
    "parser_bomb": "structure",        # 3000 nested parentheses: the SystemVerilog parser's depth limit
}
FILES = sorted(DATA.glob("*.v"))


def _canaries() -> list[str]:
    return sorted(str(p) for p in Path("/tmp").glob("hh_pwned*"))


def test_corpus_is_complete() -> None:
    assert {p.stem for p in FILES} == set(EXPECTED)


@pytest.mark.parametrize("name", SAFETY)
def test_safety_gate_rejects_text_attacks(name: str) -> None:
    res = check_safety(Candidate.from_paths([DATA / f"{name}.v"], "mac_small"), Limits())
    assert not res.passed and res.message.startswith(f"{name}.v:"), res


@pytest.mark.parametrize("text", [
    'module m(output y); assign y = 1; // $system("x") in a comment\nendmodule',
    'module m(output y); initial $display("$system(\\"x\\") import \\"DPI-C\\""); assign y = 1; endmodule',
    'module m(output y); import pkg::*; assign y = 1; endmodule',
    'module m(output y); reg [7:0] r [0:3]; initial $readmemh("data.hex", r); assign y = r[0][0]; endmodule',
])
def test_safety_gate_allows_harmless_text(text: str) -> None:
    files = [("m.v", text)] + ([("data.hex", "00\n01\n")] if "data.hex" in text else [])
    res = check_safety(Candidate(files=tuple(files), top="m"), Limits())
    assert res.passed, res


@pytest.mark.parametrize("text, why", [
    ('`define F "/etc/passwd"\n`include `F\nmodule m(output y); assign y = 1; endmodule', "`include needs"),
    ('module m(output y); parameter F = "/etc/passwd"; reg [7:0] r [0:3];\n'
     'initial $readmemh(F, r); assign y = r[0][0]; endmodule', "literal file name"),
    ('module m(output y); reg [7:0] r [0:3]; initial $readmemh("./data.hex", r); assign y = 1; endmodule', "only data"),
    ('module m(output y); integer f; initial f = $fopenr("x"); assign y = 1; endmodule', "file I/O"),
    ('module m(output y); export "DPI-C" function f; function int f(); return 0; endfunction assign y = 1; endmodule',
     "DPI"),
])
def test_safety_gate_sees_through_indirection(text: str, why: str) -> None:
    res = check_safety(Candidate(files=(("m.v", text), ("data.hex", "00\n")), top="m"), Limits())
    assert not res.passed and why in res.message, res


@pytest.fixture(scope="module")
def gate_results(tmp_path_factory) -> dict[str, tuple[subprocess.CompletedProcess, float]]:
    """Every file through the whole `hh gate` chain, one child process each (timed)."""
    for c in _canaries():
        os.unlink(c)
    tmp = tmp_path_factory.mktemp("untrusted")
    results = hh_many([["gate", str(DESIGN), str(p), "--workdir", str(tmp / p.stem)] for p in FILES], tmp / "io")
    return {p.stem: (res, res.wall_s) for p, res in zip(FILES, results, strict=True)}  # one at a time, each timed


@pytest.mark.tools
def test_every_attack_is_rejected_by_its_gate(gate_results) -> None:
    design = load_design(DESIGN)
    budget = 3 * design.limits.tool_timeout_s + design.verification.timeout_s + 10
    contained = 0
    for name, want in EXPECTED.items():
        res, wall = gate_results[name]
        assert wall < budget, f"{name}: {wall:.1f} s, limits allow {budget} s"
        err = assert_clean(res, 1, name=name)
        assert err.startswith(f"hh gate: INVALID: {want} gate: "), (name, err)
        contained += 1
    assert contained == len(EXPECTED)
    assert _canaries() == [], "an attack wrote its canary file"


@pytest.mark.tools
def test_memory_blowup_is_a_gate_failure(tmp_path: Path) -> None:
    """Yosys exhausting its 512 MB is stopped by the limit: the structure gate fails and says why.

    Its own run with a tool timeout far above what the 512 MB cap needs (design.yaml's 8 s was reached first at
    load 8+): the memory cap always comes first, whatever the machine's load."""
    res = hh("gate", str(DESIGN), str(DATA / "yosys_blowup.v"), "--only", "structure", "--workdir",
             str(tmp_path / "wd"), "--set", "limits.tool_timeout_s=3600", timeout=3700)
    err = assert_clean(res, 1, name="yosys_blowup")
    assert err.startswith("hh gate: INVALID: structure gate:") and "memory limit" in err, err


@pytest.mark.tools
def test_hh_ppa_refuses_what_the_safety_gate_refuses(tmp_path: Path) -> None:
    cases = [["ppa", str(DESIGN), str(DATA / f"{n}.v"), "--no-cache", "--workdir", str(tmp_path / n)]
             for n in ("readmem_passwd", "include_passwd")]
    for res in hh_many(cases, tmp_path / "io"):
        err = assert_clean(res, {1, 2}, name=res.args[2])
        assert "only" in err and "passwd" in err, err


@pytest.mark.tools
def test_simulation_hang_is_killed_at_the_timeout(tmp_path: Path) -> None:
    """With the structure gate out of the way, the zero-delay loop hangs the simulator: killed at timeout_s (1 s
    here, not design.yaml's 3: the hung simulator spins a core until it is killed)."""
    res = hh("gate", str(DESIGN), str(DATA / "hang_loop.v"), "--only", "compile", "--only", "simulation",
             "--workdir", str(tmp_path / "wd"), "--set", "verification.timeout_s=1")
    err = assert_clean(res, 1, name="hang_loop")
    assert "simulation gate" in err and "killed at the 1 s wall-clock timeout" in err, err  # (the gate names it)
    leftovers = subprocess.run(["pgrep", "-f", str(tmp_path / "wd")], capture_output=True, text=True).stdout.split()
    assert leftovers == [], "the simulator outlived its timeout"


@pytest.mark.tools
def test_hh_run_rejects_attacks_and_goes_on(tmp_path: Path) -> None:
    seeds = tmp_path / "seeds"
    seeds.mkdir()
    for p in FILES:
        (seeds / p.name).write_bytes(p.read_bytes())
    (seeds / "zz_good.v").write_bytes(GOOD_RTL.read_bytes())
    d = yaml.safe_load(DESIGN.read_text())
    d["spec"] = str(FLOW / "spec.md")
    d["verification"]["reference"] = str(FLOW / "reference.v")
    d["generation"]["seeds"] = str(seeds / "*.v")
    y = tmp_path / "d.yaml"
    y.write_text(yaml.safe_dump(d))
    res = hh("run", str(y), "--out", str(tmp_path / "runs"), "--quiet", "--no-report", "--jobs", "2", timeout=300)
    err = assert_clean(res, 0, name="hh run with attacks")
    run = next((tmp_path / "runs").glob("*/*"))
    entries = {e["label"]: e for e in json.loads((run / "summary.json").read_text())["phase1"]["entries"]}
    assert entries["zz_good"]["verdict"] == "valid"
    for name, want in EXPECTED.items():
        e = entries[name]
        assert e["verdict"] == "invalid", e
        assert e["gate"] == want, e
    assert "tool fault" not in err, "a design stopped by a limit is not a tool fault"
    assert _canaries() == []


# ---- the tools' environment and working directory --------------------------------------------------

SECRETS = {"OPENAI_API_KEY": "sk-canary-openai", "ANTHROPIC_API_KEY": "sk-canary-anthropic",
           "AWS_SECRET_ACCESS_KEY": "canary-aws", "GITHUB_TOKEN": "canary-gh", "HF_TOKEN": "canary-hf",
           "MY_DB_PASSWORD": "canary-db", "OPENAI_BASE_URL": "http://canary.invalid/v1"}


VERSION_PROBES = {"-V", "-version", "--version"}


def _wrappers(tmp: Path, tools: tuple[str, ...]) -> dict[str, str]:
    """HH_<TOOL> overrides: a script that records its environment and working directory, then runs the tool."""
    from hyperheurist.tools import tool_path

    dump = tmp / "dumps"
    dump.mkdir()
    env = {}
    for t in tools:
        real = tool_path(t)
        w = tmp / f"wrap-{t}"
        # sandboxed, a tool can write only its own folder: the record lands there (.hhdump-*); version
        # probes run outside the sandbox and write into HH_DUMP_DIR
        w.write_text(f"#!/bin/sh\nf=${{HH_DUMP_DIR:-$PWD}}/.hhdump-{t}.$$\nenv > \"$f.env\"\npwd > \"$f.cwd\"\n"
                     f"echo \"$@\" > \"$f.args\"\nexec {real} \"$@\"\n")
        w.chmod(0o755)
        env[f"HH_{t.upper()}"] = str(w)
    env["HH_DUMP_DIR"] = str(dump)
    return env


def _check_dumps(dump: Path, root: Path) -> int:
    n = 0
    for f in [*dump.glob("*.env"), *root.rglob(".hhdump-*.env")]:
        text = f.read_text()
        for k, v in SECRETS.items():
            assert f"{k}=" not in text and v not in text, f"{f.name} saw {k}"
        n += 1
        if f.with_suffix(".args").read_text().strip() in VERSION_PROBES:
            continue  # `tool -V` for the manifest: no design input, any folder will do
        cwd = Path(f.with_suffix(".cwd").read_text().strip())
        assert cwd.is_relative_to(root.resolve()), f"{f.name} ran in {cwd}, outside {root}"
    return n


@pytest.mark.tools
def test_gate_tools_get_no_secrets_and_run_in_the_candidate_folder(tmp_path: Path) -> None:
    env = {**_wrappers(tmp_path, ("iverilog", "vvp", "yosys")), **SECRETS}
    wd = tmp_path / "wd"
    res = subprocess.run([sys.executable, "-m", "hyperheurist", "gate", str(DESIGN), str(GOOD_RTL), "--workdir",
                          str(wd)], capture_output=True, text=True, timeout=120, env={**os.environ, **env},
                         stdin=subprocess.DEVNULL)
    assert res.returncode == 0, res.stdout + res.stderr
    assert _check_dumps(tmp_path / "dumps", wd) >= 3  # iverilog, vvp and yosys all ran through the wrappers


@pytest.mark.slow
@pytest.mark.tools
def test_run_tools_get_no_secrets_and_the_key_is_never_written(tmp_path: Path) -> None:
    env = {**_wrappers(tmp_path, ("iverilog", "vvp", "yosys", "sta")), **SECRETS}
    out = tmp_path / "runs"
    # one annealing step and no finishing descents (anneal.polish, 3 by default: more of the same tool calls)
    res = subprocess.run([sys.executable, "-m", "hyperheurist", "run", str(DESIGN), "--out", str(out), "--quiet",
                          "--set", "anneal.iterations=1", "--set", "anneal.polish=0"], capture_output=True, text=True,
                         timeout=300, env={**os.environ, **env}, stdin=subprocess.DEVNULL)
    assert res.returncode == 0, res.stderr
    run = next(out.glob("*/*"))
    assert _check_dumps(tmp_path / "dumps", run / "candidates") >= 4
    dumps = [*run.rglob(".hhdump-*.env"), *(tmp_path / "dumps").glob(".hhdump-*.env")]  # tool calls, version probes
    seen = {f.name.split(".")[1].removeprefix("hhdump-") for f in dumps}  # (sta's call: the PPA may be cached)
    assert seen >= {"iverilog", "vvp", "yosys", "sta"}
    for f in run.rglob("*"):
        if f.is_file():
            data = f.read_bytes()
            for v in SECRETS.values():
                assert v.encode() not in data, f"{f} holds {v}"


# ---- the runner's limits, whatever the caller passes ------------------------------------------------------

def test_every_tool_call_gets_a_memory_cap(tmp_path: Path) -> None:
    """A caller that passes no mem_mb (ppa/sta.py today) still runs under DEFAULT_MEM_MB."""
    from hyperheurist.runner import DEFAULT_MEM_MB, run_tool

    res = run_tool([sys.executable, "-c", f"x = bytearray({(DEFAULT_MEM_MB + 512) * 1024 * 1024})"], name="hog",
                   log_dir=tmp_path, timeout_s=60)
    assert not res.ok and res.memory_limited and "memory limit" in res.describe(), res.describe()
    res = run_tool([sys.executable, "-c", "x = bytearray(400 * 1024 * 1024)"], name="hog2", log_dir=tmp_path,
                   timeout_s=60, mem_mb=200)
    assert res.memory_limited and res.limited and "200 MB" in res.describe()


def test_cpu_limit_is_reported_as_a_limit(tmp_path: Path) -> None:
    from hyperheurist.runner import run_tool

    res = run_tool([sys.executable, "-c", "while True: pass"], name="spin", log_dir=tmp_path, timeout_s=30, cpu_s=1)
    assert res.cpu_limited and not res.timed_out and res.wall_s < 20, res.describe()
    assert "CPU-time limit" in res.describe()


def test_tools_die_with_a_killed_parent(tmp_path: Path) -> None:
    """kill -9 of hh must not leave its tools running (they live in their own sessions and, sandboxed,
    their own PID namespace: found here by a marker in their command line)."""
    from test_runner import _processes_with

    marker = f"hh-orphan-{os.getpid()}"
    started = tmp_path / "started"
    tool_py = tmp_path / "tool.py"
    tool_py.write_text(f"import time\nopen({str(started)!r}, 'w').write('1')\ntime.sleep(600)\n")
    parent_py = tmp_path / "parent.py"
    parent_py.write_text("import sys\nfrom pathlib import Path\nfrom hyperheurist.runner import run_tool\n"
                         f"run_tool([sys.executable, {str(tool_py)!r}, {marker!r}], name='sleeper',"
                         f" log_dir=Path({str(tmp_path)!r}), timeout_s=600)\n")
    parent = subprocess.Popen([sys.executable, str(parent_py)])
    deadline = time.monotonic() + 30
    while not started.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _processes_with(marker), "the tool never started: the test proves nothing"
    parent.kill()
    parent.wait()
    deadline = time.monotonic() + 10
    while _processes_with(marker) and time.monotonic() < deadline:
        time.sleep(0.05)
    left = _processes_with(marker)
    for pid in left:
        os.kill(pid, 9)
    assert not left, "the tool outlived its killed parent"


@functools.cache
def _run_tool_calls() -> tuple[tuple[str, frozenset[str | None]], ...]:
    """``file:line`` and keyword names of every ``run_tool`` call in the package (runner.py aside), parsed once for
    the tests that read them."""
    import ast

    pkg = Path(__file__).resolve().parent.parent / "hyperheurist"
    calls = []
    for f in sorted(pkg.rglob("*.py")):
        if f.name == "runner.py":
            continue
        for node in ast.walk(ast.parse(f.read_text(), str(f))):
            if isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", None)) == "run_tool":
                calls.append((f"{f.relative_to(pkg.parent)}:{node.lineno}", frozenset(k.arg for k in node.keywords)))
    return tuple(calls)


def _run_tool_calls_without(keyword: str) -> list[str]:
    assert _run_tool_calls(), "the scan finds the package's run_tool calls"
    return [where for where, keywords in _run_tool_calls() if keyword not in keywords]


def test_every_tool_call_has_a_timeout() -> None:
    assert _run_tool_calls_without("timeout_s") == []


def test_every_tool_call_passes_the_design_memory_limit() -> None:
    assert _run_tool_calls_without("mem_mb") == []


def test_a_tool_that_cannot_start_is_a_tool_error(tmp_path: Path) -> None:
    from hyperheurist.errors import ToolError
    from hyperheurist.runner import run_tool

    script = tmp_path / "no-shebang"  # ENOEXEC for a direct exec (in the sandbox, execvp hands it to sh)
    script.write_text("echo hi\n")
    script.chmod(0o755)
    with pytest.raises(ToolError, match="cannot start"):
        run_tool([str(script)], name="x", log_dir=tmp_path, timeout_s=10, sandbox="off")
    script.chmod(0o644)  # not executable: bwrap itself cannot start it
    with pytest.raises(ToolError, match="cannot start .* in the sandbox"):
        run_tool([str(script)], name="y", log_dir=tmp_path, timeout_s=10)
