"""Bad input corpus (tests/data/bad_inputs/) through `hh run`, `hh gate` and `hh ppa` as subprocesses.

Every case must end with one clear line on stderr and the documented exit code (1 invalid design,
2 bad usage/config, 3 infrastructure); "Traceback" never appears and a bad config leaves no run directory.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from cli_inproc import hh_in_process, hh_process
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hyperheurist.config import load_design
from hyperheurist.errors import ConfigError

DATA = Path(__file__).parent / "data" / "bad_inputs"
FLOW = Path(__file__).parent / "data" / "flow"
GOOD = DATA / "good.yaml"
GOOD_RTL = FLOW / "seeds" / "ok_1_naive.v"
CONFIGS = sorted((DATA / "config").glob("*.yaml"))
RTL = sorted((DATA / "rtl").glob("*.v"))


def hh(*args: str, cwd: Path | None = None, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """`python -m hyperheurist` in a child process: for the real entry point, and for runs whose pool workers'
    output is part of what is checked (no traceback anywhere)."""
    return hh_process(*args, cwd=cwd, timeout=timeout, env={"PYTHONWARNINGS": "ignore"})


def hh_here(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """cli.main in this process, for single-process commands (gate, ppa) whose answer is the point."""
    return hh_in_process(*args, cwd=cwd)


# Many cases, one import: a driver imports hh once, then forks one child process per command line; each
# child runs the real entry point (cli.main) with its own stdin/stdout/stderr and exit code.
DRIVER = r"""
import json, os, sys
import hyperheurist.cli, hyperheurist.flow_cli, hyperheurist.gate_cli, hyperheurist.ppa_cli, hyperheurist.flow
cases, outdir = json.loads(sys.argv[1]), sys.argv[2]
import time
for i, argv in enumerate(cases):
    t0 = time.monotonic()
    pid = os.fork()
    if pid == 0:
        try:
            os.setsid()
            for fd, name in ((1, "out"), (2, "err")):
                f = os.open(os.path.join(outdir, f"{i}.{name}"), os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
                os.dup2(f, fd)
            os.dup2(os.open(os.devnull, os.O_RDONLY), 0)
            sys.argv = ["hh", *argv]
            hyperheurist.cli.main(argv)
        except SystemExit as e:
            sys.stdout.flush(); sys.stderr.flush()
            os._exit(e.code if isinstance(e.code, int) else 1)
        except BaseException:
            import traceback; traceback.print_exc(); sys.stderr.flush(); os._exit(99)
        os._exit(0)
    _, status = os.waitpid(pid, 0)
    with open(os.path.join(outdir, f"{i}.rc"), "w") as fh:
        fh.write(str(os.waitstatus_to_exitcode(status)))
    with open(os.path.join(outdir, f"{i}.wall"), "w") as fh:
        fh.write(str(time.monotonic() - t0))
"""


def hh_many(cases: list[list[str]], tmp: Path, timeout: float = 300) -> list[subprocess.CompletedProcess]:
    tmp.mkdir(parents=True, exist_ok=True)
    done = subprocess.run([sys.executable, "-c", DRIVER, json.dumps(cases), str(tmp)], capture_output=True,
                          text=True, timeout=timeout, stdin=subprocess.DEVNULL)
    assert done.returncode == 0, done.stderr
    out = []
    for i, argv in enumerate(cases):
        read = lambda ext, i=i: (tmp / f"{i}.{ext}").read_text(errors="replace")  # noqa: E731
        res = subprocess.CompletedProcess(argv, int(read("rc")), read("out"), read("err"))
        res.wall_s = float(read("wall"))  # type: ignore[attr-defined]
        out.append(res)
    return out


def assert_clean(res: subprocess.CompletedProcess, code: int | set[int], *, name: str, one_line: bool = True) -> str:
    """The exit code is the documented one, stderr holds one clear `hh...:` line, never a traceback."""
    codes = {code} if isinstance(code, int) else code
    err = res.stderr.strip()
    where = f"{name}: rc={res.returncode}\nstderr: {res.stderr[-2000:]}\nstdout: {res.stdout[-800:]}"
    assert "Traceback" not in res.stderr + res.stdout, where
    assert res.returncode in codes, where
    if res.returncode != 0:
        lines = err.splitlines()
        assert lines, where
        if one_line:
            assert len(lines) == 1, where
        assert lines[-1].startswith(("hh: error:", "hh gate: INVALID:", "hh ppa: INVALID:", "Error:",
                                     "hh: interrupted")), where
    return err


# ---- design.yaml corpus ---------------------------------------------------------------------------

# the field (or the problem) each bad file's message must name
EXPECTED = {
    "bad_indent": "YAML syntax error", "malformed": "YAML syntax error", "empty": "file is empty",
    "comment_only": "file is empty", "list_top": "must be a mapping", "scalar_top": "must be a mapping",
    "not_utf8": "not UTF-8", "binary": "not UTF-8", "unknown_key": "colour: unknown key",
    "unknown_nested_key": "ppa.clock_perod_ns: unknown key", "wrong_type_width": "interface.ports[0].width",
    "wrong_type_ports": "interface.ports", "wrong_type_iterations": "anneal.iterations",
    "negative_period": "ppa.clock_period_ns", "missing_name": "name: required field is missing",
    "missing_interface": "interface: required field is missing", "missing_spec_file": "spec: file not found",
    "missing_reference_file": "verification.reference: file not found", "missing_liberty": "liberty",
    "unknown_flow": "flow preset not found",
    "bad_top_ident": "top: module name 'mac small; rm -rf /': not a Verilog identifier",
    "bad_port_ident": "interface.ports[0].name", "duplicate_port": "duplicate port",
    "no_output": "no output port", "bad_regex": "pass_regex: bad regular expression",
    "no_seeds_match": "generation.seeds: no file matches", "bad_move": "anneal.moves: unknown move",
    "huge_width": "interface.ports[0].width", "infinite_timeout": "limits.tool_timeout_s: Input should be a finite",
    "nan_weight": "ppa.weights.area: Input should be a finite", "tunable_injection": "tunables[0].values",
    "huge_memory_limit": "limits.tool_mem_mb",
    # hdl.literals' one rule, the same the gates and synthesis apply
    "tunable_underscore": "tunables[0].values: value '1_000': no '_' separators",
    "keyword_port": "interface.ports[0].name: port 'reg': a (System)Verilog keyword",
    "bad_define": "defines: define WIDTH='8 + 1': use letters, digits",
}
# problems only `hh run` looks at (gate and ppa never read seeds or moves)
RUN_ONLY = {"no_seeds_match", "bad_move"}


def test_corpus_is_complete() -> None:
    assert {p.stem for p in CONFIGS} == set(EXPECTED), "every bad config needs an expected message"


def test_bad_configs_one_line_exit_2(tmp_path: Path) -> None:
    """Every bad design.yaml through hh run, hh gate and hh ppa: exit 2, one line naming the file and field."""
    out = tmp_path / "runs"
    cases, names = [], []
    for path in CONFIGS:
        commands = {
            "run": ["run", str(path), "--out", str(out), "--quiet", "--no-report"],
            "gate": ["gate", str(path), str(GOOD_RTL), "--workdir", str(tmp_path / "gate")],
            "ppa": ["ppa", str(path), str(GOOD_RTL), "--no-cache", "--workdir", str(tmp_path / "ppa")],
        }
        for cmd, argv in commands.items():
            if path.stem in RUN_ONLY and cmd != "run":
                continue
            cases.append(argv)
            names.append((cmd, path))
    results = hh_many(cases, tmp_path / "io")
    for (cmd, path), res in zip(names, results, strict=True):
        err = assert_clean(res, 2, name=f"hh {cmd} {path.name}")
        assert str(path) in err, f"hh {cmd}: the message must name the file: {err}"
        assert EXPECTED[path.stem] in err, f"hh {cmd}: {err}"
    assert len(results) >= 3 * len(CONFIGS) - 2 * len(RUN_ONLY)
    assert not out.exists(), "a bad config must not leave a run directory"


@pytest.mark.parametrize("path", [DATA / "config" / "malformed.yaml", DATA / "config" / "unknown_key.yaml"],
                         ids=lambda p: p.stem)
def test_bad_config_real_entry_point(path: Path, tmp_path: Path) -> None:
    """The same through `python -m hyperheurist` (no fork driver)."""
    res = hh("run", str(path), "--out", str(tmp_path / "runs"), "--quiet")
    err = assert_clean(res, 2, name=path.name)
    assert str(path) in err and EXPECTED[path.stem] in err


def test_missing_and_unusable_paths(tmp_path: Path) -> None:
    """Files that are not there, folders where a file is expected, an unreadable file, a bad run dir."""
    unreadable = tmp_path / "locked.v"
    unreadable.write_text(GOOD_RTL.read_text())
    unreadable.chmod(0)
    cases = [
        ("run", str(tmp_path / "nope.yaml")),
        ("run", str(tmp_path)),  # a folder, not a file
        ("gate", str(tmp_path / "nope.yaml"), str(GOOD_RTL)),
        ("gate", str(GOOD), str(tmp_path / "nope.v")),
        ("gate", str(GOOD), str(tmp_path)),
        ("ppa", str(GOOD), str(tmp_path / "nope.v")),
        ("ppa", str(tmp_path / "nope.yaml"), str(GOOD_RTL)),
        ("run", "--resume", str(tmp_path)),  # not a run directory
        ("run", "--resume", str(tmp_path / "missing-run")),
        ("run", str(GOOD), "--resume", str(tmp_path)),
        ("run", str(GOOD), "--set", "nonsense"),
        ("run", str(GOOD), "--set", "anneal.iterations=many"),
        ("run", str(GOOD), "--set", "colour=red"),
        ("run", str(GOOD), "--out", "/proc/hh-cannot-write-here"),
        ("run", str(GOOD), "--replay", str(tmp_path / "no-recording")),
        ("run", str(GOOD), "--out", str(GOOD_RTL) + "/sub"),  # a file on the way
        ("gate", str(GOOD), str(GOOD_RTL), "--only", "teleport"),
        ("run",),  # no design at all
    ]
    if os.geteuid() != 0:  # root reads anything
        cases.append(("gate", str(GOOD), str(unreadable)))
    cases = [[*a, "--out", str(tmp_path / "runs")] if a[0] == "run" and len(a) > 1 and "--resume" not in a
             and "--out" not in a else list(a) for a in cases]
    results = hh_many(cases, tmp_path / "io")
    for args, res in zip(cases, results, strict=True):
        assert_clean(res, 2, name="hh " + " ".join(args))
    assert not (tmp_path / "runs").exists()


# ---- RTL corpus -------------------------------------------------------------------------------------

# the gate each bad RTL file must be stopped by under `hh gate` (None: the file is fine)
RTL_GATE = {
    "binary": "safety", "not_utf8": "safety", "empty": "compile", "no_module": "compile", "wrong_top": "compile",
    "two_tops": "compile", "duplicate_module": "compile", "truncated": "compile", "unterminated_comment": "compile",
    "weird_unicode": "compile", "port_missing": "structure", "port_extra": "structure", "port_width": "structure",
    "port_direction": "structure", "port_renamed": "structure", "two_tops_one_right": None,
}
# files Yosys cannot read: `hh ppa` should call them invalid (exit 1), not an infrastructure fault
PPA_UNREADABLE = {"binary", "empty", "no_module", "wrong_top", "two_tops", "duplicate_module", "truncated",
                  "unterminated_comment", "weird_unicode"}

def test_rtl_corpus_is_complete() -> None:
    assert {p.stem for p in RTL} == set(RTL_GATE)


@pytest.fixture(scope="module")
def rtl_results(tmp_path_factory) -> dict[tuple[str, str], subprocess.CompletedProcess]:
    """Every bad RTL file through hh gate and hh ppa, once."""
    tmp = tmp_path_factory.mktemp("rtl")
    cases, names = [], []
    for p in RTL:
        cases.append(["gate", str(GOOD), str(p), "--workdir", str(tmp / "gate" / p.stem)])
        names.append(("gate", p.stem))
        cases.append(["ppa", str(GOOD), str(p), "--no-cache", "--workdir", str(tmp / "ppa" / p.stem)])
        names.append(("ppa", p.stem))
    return dict(zip(names, hh_many(cases, tmp / "io"), strict=True))


@pytest.mark.slow
@pytest.mark.tools
def test_bad_rtl_through_hh_gate(rtl_results) -> None:
    for p in RTL:
        res = rtl_results[("gate", p.stem)]
        gate = RTL_GATE[p.stem]
        if gate is None:
            assert_clean(res, 0, name=p.name)
            continue
        err = assert_clean(res, 1, name=p.name)
        assert err.startswith(f"hh gate: INVALID: {gate} gate: "), (p.name, err)
        fails = [ln.split()[1] for ln in res.stdout.splitlines() if ln.startswith("FAIL")]
        assert fails == [gate], (p.name, res.stdout)


@pytest.mark.tools
def test_bad_rtl_through_hh_ppa_one_line(rtl_results) -> None:
    """The exit code hh ppa gives each file (measured), and a failure is one line, never a traceback."""
    for p in RTL:
        res = rtl_results[("ppa", p.stem)]
        # the netlist simulation's bench is built from `interface`: a port the design lacks, renamed or turned
        # around cannot be connected, so the design does not fit its interface (netlist_sim, exit 1)
        unfit = {"port_direction", "port_missing", "port_renamed"}
        assert_clean(res, 1 if p.stem in PPA_UNREADABLE | {"not_utf8"} | unfit else 0, name=p.name)


@pytest.mark.tools
def test_unreadable_rtl_through_hh_ppa_is_invalid_not_infra(rtl_results) -> None:
    for stem in sorted(PPA_UNREADABLE):
        assert_clean(rtl_results[("ppa", stem)], 1, name=stem)


@pytest.mark.slow
@pytest.mark.tools
def test_hh_run_rejects_bad_seeds_and_continues(tmp_path: Path) -> None:
    """All bad RTL files as seeds beside one good one: each is rejected by its gate, the run completes."""
    seeds = tmp_path / "seeds"
    seeds.mkdir()
    for p in RTL:
        (seeds / p.name).write_bytes(p.read_bytes())
    (seeds / "zz_good.v").write_bytes(GOOD_RTL.read_bytes())
    d = yaml.safe_load(GOOD.read_text())
    d["spec"] = str(FLOW / "spec.md")
    d["verification"]["reference"] = str(FLOW / "reference.v")
    d["generation"]["seeds"] = str(seeds / "*.v")
    d["anneal"] = {"iterations": 0, "chains": 1, "seed": 1}  # Phase 1's verdicts are the point: no search
    y = tmp_path / "d.yaml"
    y.write_text(yaml.safe_dump(d))
    res = hh("run", str(y), "--out", str(tmp_path / "runs"), "--quiet", "--no-report", "--jobs", "2", timeout=300)
    assert_clean(res, 0, name="hh run with bad seeds")
    run = next((tmp_path / "runs").glob("*/*"))
    summary = json.loads((run / "summary.json").read_text())
    by_label = {e["label"]: e for e in summary["phase1"]["entries"]}
    for p in RTL:
        e = by_label[p.stem]
        want = RTL_GATE[p.stem]
        if want is None:
            assert e["verdict"] == "valid", e
        else:
            assert e["verdict"] == "invalid" and e["gate"] == want, e
    assert by_label["zz_good"]["verdict"] == "valid"


@pytest.mark.tools
def test_fifty_megabyte_rtl(tmp_path: Path) -> None:
    big = tmp_path / "big.v"
    line = "// " + "x" * 76 + "\n"
    with open(big, "w") as fh:
        fh.write(GOOD_RTL.read_text())
        fh.write(line * (50 * 1024 * 1024 // len(line)))
    assert big.stat().st_size >= 50 * 1024 * 1024 - 100
    res = hh_here("gate", str(GOOD), str(big), "--workdir", str(tmp_path / "wd"))
    err = assert_clean(res, 1, name="50 MB gate")
    assert "safety" in err and "max_file_bytes" in err
    # as a seed: rejected by the safety gate, the run goes on with the good seed
    seeds = tmp_path / "seeds"
    seeds.mkdir()
    big.rename(seeds / "big.v")
    (seeds / "good.v").write_bytes(GOOD_RTL.read_bytes())
    d = yaml.safe_load(GOOD.read_text())
    d.update(spec=str(FLOW / "spec.md"), anneal={"iterations": 0, "chains": 1, "seed": 1})
    d["verification"]["reference"] = str(FLOW / "reference.v")
    d["generation"]["seeds"] = str(seeds / "*.v")
    y = tmp_path / "d.yaml"
    y.write_text(yaml.safe_dump(d))
    res = hh("run", str(y), "--out", str(tmp_path / "runs"), "--quiet", "--no-report", timeout=300)
    assert_clean(res, 0, name="50 MB seed")
    run = next((tmp_path / "runs").glob("*/*"))
    entries = {e["label"]: e for e in json.loads((run / "summary.json").read_text())["phase1"]["entries"]}
    assert entries["big"]["gate"] == "safety" and entries["good"]["verdict"] == "valid"
    assert sum(f.stat().st_size for f in run.rglob("*") if f.is_file()) < 10 * 1024 * 1024, \
        "the rejected 50 MB file must not be copied around the run directory"


@pytest.mark.tools
def test_fifty_megabyte_rtl_hh_ppa(tmp_path: Path) -> None:
    big = tmp_path / "big.v"
    with open(big, "w") as fh:
        fh.write(GOOD_RTL.read_text())
        fh.write(("// " + "x" * 76 + "\n") * (50 * 1024 * 1024 // 80))
    res = hh_here("ppa", str(GOOD), str(big), "--no-cache", "--workdir", str(tmp_path / "wd"))
    assert_clean(res, {1, 2}, name="50 MB ppa")


# ---- property: the loader never crashes ------------------------------------------------------------

_leaf = st.none() | st.booleans() | st.integers(-10**12, 10**12) | st.floats(allow_nan=True) | st.text(max_size=12) \
    | st.sampled_from(["osu018", "../x", "/etc/passwd", "*.v", "", "0x10", "1e999", "~", "input", "low"])
_values = st.recursive(_leaf, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(
    st.text(max_size=8) | st.sampled_from(["name", "width", "dir", "ports", "reset", "clock", "values"]), inner,
    max_size=3), max_leaves=10)


def _paths(node, prefix=()):
    yield prefix
    if isinstance(node, dict):
        for k, v in node.items():
            yield from _paths(v, (*prefix, k))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from _paths(v, (*prefix, i))


BASE = yaml.safe_load(GOOD.read_text())
BASE["spec"] = str(FLOW / "spec.md")
BASE["verification"]["reference"] = str(FLOW / "reference.v")
BASE["generation"]["seeds"] = str(FLOW / "seeds" / "ok_*.v")
ALL_PATHS = [p for p in _paths(BASE) if p]


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(where=st.sampled_from(ALL_PATHS), value=_values, delete=st.booleans(), extra=st.booleans())
def test_loader_nested_mutations_never_crash(tmp_path: Path, where: tuple, value, delete: bool, extra: bool) -> None:
    """Any value at any depth (or a deleted key, or an extra key beside it) loads or gives one ConfigError line."""
    data = json.loads(json.dumps(BASE))
    node = data
    for k in where[:-1]:
        node = node[k]
    if extra and isinstance(node, dict):
        node["zz_extra"] = value
    elif delete:
        del node[where[-1]]
    else:
        node[where[-1]] = value
    p = tmp_path / "d.yaml"
    try:
        p.write_text(yaml.safe_dump(data, allow_unicode=True))
    except (yaml.YAMLError, UnicodeEncodeError):
        return
    try:
        load_design(p)
    except ConfigError as exc:
        msg = str(exc)
        assert "\n" not in msg and msg.startswith(str(p)), msg


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(blob=st.binary(max_size=300) | st.text(max_size=300).map(lambda t: t.encode("utf-8", "surrogatepass")))
def test_loader_random_bytes_never_crash(tmp_path: Path, blob: bytes) -> None:
    p = tmp_path / "d.yaml"
    p.write_bytes(blob)
    try:
        load_design(p)
    except ConfigError as exc:
        assert "\n" not in str(exc) and str(exc).startswith(str(p))


@pytest.mark.tools
def test_paths_with_spaces_and_unicode(tmp_path: Path) -> None:
    """Odd but legal folder names (space, unicode, shell metacharacters) for the design, the RTL and the work."""
    import shutil

    odd = tmp_path / "dé sign; $(x) 'q'"
    shutil.copytree(FLOW, odd)
    res = hh_here("gate", str(odd / "design.yaml"), str(odd / "seeds" / "ok_1_naive.v"),
                  "--workdir", str(odd / "w d"))
    assert_clean(res, 0, name="gate in an odd folder")


@pytest.mark.tools
def test_relative_workdir(tmp_path: Path) -> None:
    res = hh_here("gate", str(GOOD), str(GOOD_RTL), "--workdir", "wd", cwd=tmp_path)
    assert_clean(res, 0, name="relative --workdir")
