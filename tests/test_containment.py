"""Containment (the trust boundary): one hostile candidate per attack class, each rejected or harmless.

For every attack: no canary file appears outside the stage folder, the canary API key is in no output
and no file, no process is left behind, and hh's own memory stays bounded. The sandbox is also tested
on its own, with trusted Verilog that does what the filter would stop (reads /proc, writes outside):
with ``limits.sandbox: off`` the same bench leaks the key, which shows the test can fail.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any

import pytest
import yaml
from cli_inproc import hh_in_process, hh_process
from test_runner import _processes_with

DATA = Path(__file__).parent / "data"
UNTRUSTED = DATA / "untrusted" / "design.yaml"  # mac_small with tight limits
COUNTER = DATA / "gates" / "counter" / "design.yaml"
TAG = uuid.uuid4().hex[:10]
CANARY_KEY = f"sk-hh-canary-{TAG}"
CANARY_FILE = f"/tmp/hh_canary_{TAG}"
MAC = "module mac_small(input [7:0] a, input [7:0] b, input [7:0] c, input [7:0] d, output [11:0] y);\n"
MAC_BODY = "  assign y = (a << 3) + (a << 1) + b + c + d;\n"
COUNTER_BODY = """module counter(input wire clk, input wire rst_n, input wire en, output reg [7:0] count,
  output wire wrap);
  always @(posedge clk or negedge rst_n)
    if (~rst_n) count <= 8'h00; else if (en) count <= count + 8'd1;
  assign wrap = &count;
"""

pytestmark = pytest.mark.tools


# hh's environment holds the canary key. A command whose point is its verdict and the promises below runs as
# cli.main in this process (hh_in_process): the key is in os.environ for the call, where hh and the environment
# it builds for its tools read it. Real processes (hh_process) where the point is a process: a /proc/self/environ
# that holds the key (a process's own is the one it started with; this one started without it), HOME, the sys.path
# of `python -m hyperheurist` started in /tmp.
ENV = {"OPENAI_API_KEY": CANARY_KEY, "PYTHONWARNINGS": "ignore"}


def assert_contained(res: subprocess.CompletedProcess[str], workdir: Path) -> None:
    """The containment promises, whatever the verdict."""
    assert "Traceback" not in res.stdout + res.stderr, res.stderr
    assert not list(Path("/tmp").glob(f"hh_canary_{TAG}*")), "a canary file escaped the sandbox"
    assert not list(Path.cwd().glob(f"hh_canary_{TAG}*"))
    assert CANARY_KEY not in res.stdout + res.stderr
    for f in workdir.rglob("*"):
        if f.is_file() and not f.is_symlink():
            assert CANARY_KEY.encode() not in f.read_bytes(), f"{f} holds the API key"
    assert not _processes_with(str(workdir)), "a tool outlived the command"


def gate(tmp_path: Path, rtl: str, *extra: str,
         design: Path = UNTRUSTED) -> tuple[subprocess.CompletedProcess[str], dict[str, Any]]:
    src = tmp_path / "cand.v"
    src.write_text(rtl)
    wd = tmp_path / "wd"
    res = hh_in_process("gate", str(design), str(src), "--workdir", str(wd), "--json", *extra, env=ENV)
    assert_contained(res, wd)
    assert res.returncode in (0, 1), res.stderr
    return res, json.loads(res.stdout)


# ---- 1. DPI assembled by macros, hidden from every tool but Verilator --------------------------------------

DPI_HIDDEN = f"""`define KIND "DPI-C"
`ifdef VERILATOR
import `KIND function int system(input string cmd);
`endif
{COUNTER_BODY}`ifdef VERILATOR
  always @(posedge clk) if (count == 8'd3) void'(system("touch {CANARY_FILE}_dpi"));
`endif
endmodule
"""


@pytest.mark.slow
def test_macro_built_dpi_under_ifdef_verilator_is_harmless_on_verilator(tmp_path: Path) -> None:
    """The canonical design resolves `ifdef VERILATOR once, for every tool: the DPI call is not in it,
    the Verilator-built cocotb simulation runs the design everyone else saw."""
    # the Verilator C++ build alone takes ~17 s on a loaded 2-core machine: give it room (the point is harmlessness)
    res, verdict = gate(tmp_path, DPI_HIDDEN, "--set", "verification.simulator=verilator",
                        "--set", "verification.timeout_s=180", design=COUNTER)
    safety = verdict["results"][0]
    assert safety["passed"] and any("VERILATOR" in w for w in safety["details"]["warnings"]), safety
    assert "import" not in (tmp_path / "wd" / "canonical" / "canonical.v").read_text()
    sim = next(r for r in verdict["results"] if r["gate"] == "simulation")
    assert sim["passed"] and sim["details"]["cocotb"]["simulator"] == "verilator", sim


def test_macro_built_dpi_in_plain_sight_is_rejected_after_preprocessing(tmp_path: Path) -> None:
    rtl = DPI_HIDDEN.replace("`ifdef VERILATOR\n", "").replace("`endif\n", "")
    res, verdict = gate(tmp_path, rtl, design=COUNTER)
    assert verdict["failed_gate"] == "safety" and 'import "DPI-C"' in verdict["message"], verdict
    assert "cand.v:2:" in verdict["message"]  # the line the author wrote, not the canonical text's


# ---- 2. file I/O by escaped identifiers and macro arguments, in final blocks and tool branches ------------

FILE_IO = {
    "escaped": f'  final begin : f integer fd; fd = \\$fopen ("{CANARY_FILE}_esc", "w"); end\n',
    "macro_arg": f'`define M(x) x\n  final begin : f integer fd; fd = `M($)fopen("{CANARY_FILE}_mac", "w"); end\n',
    "icarus_branch": (f'`define M(x) x\n`ifdef __ICARUS__\n  final begin : f integer fd; '
                      f'fd = `M($)fopen("{CANARY_FILE}_ica", "w"); end\n`endif\n'),  # the raw filter cannot see it
}


@pytest.mark.parametrize("kind", sorted(FILE_IO))
def test_file_io_in_final_blocks_and_tool_branches(tmp_path: Path, kind: str) -> None:
    res, verdict = gate(tmp_path, MAC + MAC_BODY + FILE_IO[kind] + "endmodule\n")
    if kind == "icarus_branch":  # resolved away for every tool: harmless, and the design is valid
        assert verdict["passed"], verdict
        assert "fopen" not in (tmp_path / "wd" / "canonical" / "canonical.v").read_text()
    else:
        assert verdict["failed_gate"] == "safety" and "fopen" in verdict["message"], verdict


# ---- 3. the parent's environment through /proc --------------------------------------------------------------

PROC_READER = r"""
module tb;
  integer fd, pid, ppid, c, n; reg [8*64-1:0] comm, state; reg [8*64-1:0] path;
  initial begin
    fd = $fopen("/proc/self/stat", "r");
    n = $fscanf(fd, "%d %s %s %d", pid, comm, state, ppid);
    $fclose(fd);
    $sformat(path, "/proc/%0d/environ", ppid);
    fd = $fopen(path, "r");
    if (fd == 0) $display("HH_NO_PARENT_ENV %0d", ppid);
    else begin
      c = $fgetc(fd);
      while (c != -1) begin $write("%c", c == 0 ? 8'h0a : c[7:0]); c = $fgetc(fd); end
    end
    fd = $fopen("CANARY", "w"); $fdisplay(fd, "x"); $fclose(fd);
    $finish;
  end
endmodule
"""
PROC_DRIVER = """
import sys
from pathlib import Path
from hyperheurist.runner import run_tool
stage, mode = Path(sys.argv[1]), sys.argv[2]
run_tool(["iverilog", "-o", "tb.vvp", "tb.v"], name="iverilog", log_dir=stage, timeout_s=60, sandbox=mode)
res = run_tool(["vvp", "-n", "tb.vvp"], name="vvp", log_dir=stage, timeout_s=60, sandbox=mode)
sys.stdout.write(res.stdout)
"""


@pytest.mark.parametrize("mode", ["required", "off"])
def test_the_sandbox_hides_the_parent_environment_from_trusted_bench(tmp_path: Path, mode: str) -> None:
    """Bypass the filter on purpose: a bench that reads its parent's /proc environ and writes outside.
    Sandboxed, it sees bwrap's empty environment; unsandboxed it finds the key (the test can fail)."""
    stage = tmp_path / "stage"
    stage.mkdir()
    (stage / "tb.v").write_text(PROC_READER.replace("CANARY", f"{CANARY_FILE}_proc"))
    res = subprocess.run([sys.executable, "-c", PROC_DRIVER, str(stage), mode], capture_output=True, text=True,
                         timeout=120, env={**os.environ, "OPENAI_API_KEY": CANARY_KEY}, stdin=subprocess.DEVNULL)
    assert res.returncode == 0, res.stderr
    leaked = CANARY_KEY in res.stdout
    escaped = Path(f"{CANARY_FILE}_proc").exists()
    Path(f"{CANARY_FILE}_proc").unlink(missing_ok=True)
    if mode == "off":
        assert leaked and escaped, "unsandboxed, the bench should reach the parent's environment and /tmp"
    else:
        assert not leaked and not escaped, res.stdout[-500:]
        assert "PATH=" in res.stdout or "HH_NO_PARENT_ENV" in res.stdout  # it did read something: bwrap's own


def test_proc_reading_candidate_is_rejected(tmp_path: Path) -> None:
    rtl = MAC + MAC_BODY + '  final begin : f integer fd; fd = $fopen("/proc/self/stat", "r"); end\n' + "endmodule\n"
    res, verdict = gate(tmp_path, rtl)
    assert verdict["failed_gate"] == "safety" and "$fopen" in verdict["message"]


# ---- 4. `ifdef SYNTHESIS: a different design for the synthesizer --------------------------------------------

CHEAT = MAC + "`ifdef SYNTHESIS\n  assign y = 12'd0;\n`else\n" + MAC_BODY + "`endif\nendmodule\n"


def test_ifdef_synthesis_cheat_is_scored_on_the_simulated_text(tmp_path: Path) -> None:
    res, verdict = gate(tmp_path, CHEAT)
    assert verdict["passed"], verdict  # it is a correct design: the one every tool now sees
    assert any("SYNTHESIS" in w for w in verdict["results"][0]["details"]["warnings"])
    honest = tmp_path / "honest.v"
    honest.write_text(MAC + MAC_BODY + "endmodule\n")
    ppa = {}
    for name, path in (("cheat", tmp_path / "cand.v"), ("honest", honest)):
        wd = tmp_path / f"ppa-{name}"
        r = hh_in_process("ppa", str(UNTRUSTED), str(path), "--json", "--no-cache", "--workdir", str(wd), env=ENV)
        assert r.returncode == 0, r.stderr
        assert_contained(r, wd)
        ppa[name] = json.loads(r.stdout)
    assert ppa["cheat"]["area_um2"] == ppa["honest"]["area_um2"] > 0


# ---- 5. a huge message, 6. a generate bomb: hh's own work stays bounded --------------------------------------

def test_huge_message_is_bounded(tmp_path: Path) -> None:
    rtl = MAC + MAC_BODY + '  always @* if (a == 8\'d1) $warning("' + "W" * 900_000 + '");\nendmodule\n'
    res, verdict = gate(tmp_path, rtl)
    assert len(verdict["message"]) <= 300
    assert all(len(r["message"]) <= 300 for r in verdict["results"])


def test_generate_bomb_leaves_hh_memory_bounded(tmp_path: Path) -> None:
    from hyperheurist.candidate import Candidate
    from hyperheurist.config import load_design
    from hyperheurist.gating import run_gates

    bomb = MAC + MAC_BODY + ("  genvar i, j;\n  for (i = 0; i < 100000; i = i + 1) begin : ga\n"
                             "    for (j = 0; j < 100000; j = j + 1) begin : gb\n      wire [255:0] w;\n"
                             "    end\n  end\nendmodule\n")
    design = load_design(UNTRUSTED)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    rep = run_gates(Candidate.from_text(bomb, "mac_small", name="bomb.v"), design, tmp_path / "wd",
                    only=["structure"])
    grown_mb = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
    assert not rep.passed and rep.failed is not None and rep.failed.gate == "structure", rep.to_dict()
    assert grown_mb < 200, f"hh grew by {grown_mb:.0f} MB elaborating a generate bomb"
    assert not _processes_with(str(tmp_path / "wd"))


# ---- inputs are the files the user meant ---------------------------------------------------------------------

def _design_folder(tmp_path: Path) -> Path:
    d = tmp_path / "design"
    (d / "seeds").mkdir(parents=True)
    for f in ("spec.md", "reference.v"):
        (d / f).write_bytes((DATA / "flow" / f).read_bytes())
    (d / "seeds" / "ok.v").write_bytes((DATA / "flow" / "reference.v").read_bytes())
    cfg = yaml.safe_load(UNTRUSTED.read_text())
    cfg.update(spec="spec.md", verification={"reference": "reference.v", "differential": {"cycles": 20}},
               generation={"provider": "offline", "seeds": "seeds/*.v"})
    (d / "design.yaml").write_text(yaml.safe_dump(cfg))
    return d


@pytest.mark.parametrize("attack", ["link_to_private", "etc_shadow", "proc_environ", "dotdot_name"])
def test_inputs_outside_the_design_are_refused(tmp_path: Path, attack: str) -> None:
    d = _design_folder(tmp_path)
    secret = tmp_path / "private.v"
    secret.write_text(f"// {CANARY_KEY}\n")
    secret.chmod(0o600)
    extra: list[str] = []
    if attack == "link_to_private":
        (d / "seeds" / "evil.v").symlink_to(secret)
    elif attack == "etc_shadow":
        extra = ["--set", "generation.seeds=/etc/shadow"]
    elif attack == "proc_environ":
        extra = ["--set", "verification.reference=/proc/self/environ"]
    else:
        extra = ["--set", "name=.."]
    out = tmp_path / "runs"
    # /proc/self/environ holds the key only in a process started with it: that attack is refused by a real process
    call = hh_process if attack == "proc_environ" else hh_in_process
    res = call("run", str(d / "design.yaml"), "--out", str(out), "--quiet", *extra, env=ENV)
    assert res.returncode == 2, res.stderr
    assert len(res.stderr.strip().splitlines()) == 1 and "design.yaml" in res.stderr
    assert not out.exists() or not any(out.rglob("*.v")), "nothing may be copied into a run directory"
    assert CANARY_KEY not in res.stdout + res.stderr


@pytest.mark.parametrize("mode", ["required", "off"])
def test_tools_get_a_private_home(tmp_path: Path, mode: str) -> None:
    home = tmp_path / "home"
    home.mkdir()
    honest = tmp_path / "honest.v"
    honest.write_text(MAC + MAC_BODY + "endmodule\n")
    res = hh_process("ppa", str(UNTRUSTED), str(honest), "--no-cache", "--workdir", str(tmp_path / "wd"),  # HOME
                     "--set", f"limits.sandbox={mode}", env={**ENV, "HOME": str(home)}, timeout=300)
    assert res.returncode == 0, res.stderr
    assert not list(home.iterdir()), f"a tool wrote into HOME: {list(home.iterdir())}"


PROBE = r"""
import os, socket, json
out = {"caps": [l.split()[1] for l in open("/proc/self/status") if l.startswith("CapEff")][0],
       "pids": sorted(int(p) for p in os.listdir("/proc") if p.isdigit()),
       "home": os.environ.get("HOME"), "env": sorted(os.environ)}
try:
    socket.create_connection(("127.0.0.1", 9), timeout=2); out["net"] = "connected"
except OSError as exc:
    out["net"] = type(exc).__name__
for where in ("TMPFILE", os.path.expanduser("~/x"), "OUTSIDE/x", "STAGE/x"):
    try:
        open(where, "w").write("x"); out[where] = "written"
    except OSError as exc:
        out[where] = type(exc).__name__
print(json.dumps(out))
"""


def test_inside_the_sandbox(tmp_path: Path) -> None:
    """No capabilities, no network, no other processes, a private HOME and /tmp, one writable folder."""
    from hyperheurist.runner import run_tool

    stage, outside = tmp_path / "stage", tmp_path / "outside"
    stage.mkdir()
    outside.mkdir()
    code = PROBE.replace("OUTSIDE", str(outside)).replace("STAGE", str(stage)).replace("TMPFILE", f"{CANARY_FILE}_tmp")
    res = run_tool([sys.executable, "-c", code], name="probe", log_dir=stage, timeout_s=60)
    got = json.loads(res.stdout)
    assert int(got["caps"], 16) == 0
    assert got["net"] != "connected"
    assert max(got["pids"]) < 10, got["pids"]  # bwrap's init and this process: nothing of the host
    assert got["home"] == "/tmp/home" and "OPENAI_API_KEY" not in got["env"]
    assert got[f"{stage}/x"] == "written" and (stage / "x").is_file()
    assert got[f"{outside}/x"] != "written" and not (outside / "x").exists()
    assert got[f"{CANARY_FILE}_tmp"] == "written" and not Path(f"{CANARY_FILE}_tmp").exists()  # private tmpfs


def test_run_from_tmp_keeps_the_private_tmp(tmp_path: Path) -> None:
    """`python -m hyperheurist` from /tmp puts /tmp on sys.path; binding it would hide the tools' own /tmp
    (iverilog: "Error opening temporary file") and show them the host's."""
    honest = tmp_path / "honest.v"
    honest.write_text(MAC + MAC_BODY + "endmodule\n")
    res = hh_process("gate", str(UNTRUSTED), str(honest), "--only", "compile", cwd=Path("/tmp"), timeout=120)
    assert res.returncode == 0, res.stdout + res.stderr


def test_an_input_covering_tmp_is_a_config_error(tmp_path: Path) -> None:
    from hyperheurist.errors import ConfigError
    from hyperheurist.sandbox import Sandbox, tool_env

    with pytest.raises(ConfigError, match="private /tmp"):
        Sandbox(writable=(tmp_path,), readable=(Path("/tmp"),)).wrap(["true"], tool_env(), tmp_path)


def test_hh_ppa_refuses_what_the_canonical_scan_refuses(tmp_path: Path) -> None:
    src = tmp_path / "cand.v"
    src.write_text(MAC + MAC_BODY + FILE_IO["macro_arg"] + "endmodule\n")
    res = hh_in_process("ppa", str(UNTRUSTED), str(src), "--no-cache", "--workdir", str(tmp_path / "wd"), env=ENV)
    assert res.returncode == 1 and "after preprocessing" in res.stderr and "$fopen" in res.stderr, res.stderr
    assert_contained(res, tmp_path / "wd")


# ---- hh's own reads and writes never follow what a tool left in its stage folder (issue 29, item 1) ---------

PLANTING_TEST = '''
"""A cocotb test module that, inside the sandbox, replaces hh's files in its build folder with links to host
files and a FIFO: hh, outside the sandbox, must neither write through them nor read them."""
import os
import cocotb
from cocotb.triggers import Timer


@cocotb.test()
async def plants_links(dut):
    await Timer(1, unit="ns")
    for name in ("COMMANDS", "sim.log", "build.log", "cocotb-build.stdout"):
        if os.path.lexists(name):
            os.unlink(name)
        os.symlink("VICTIM", name)
    os.mkfifo("dump.vcd")
'''


def test_links_planted_in_a_stage_folder_are_never_followed(tmp_path: Path) -> None:
    """The test module replaces COMMANDS, sim.log and build.log with links to a host file, and plants a FIFO:
    after the stage, hh appended its command line and wrote the simulator's output through the links (an
    arbitrary host file, written as root). Now the host file is untouched and the links are gone."""
    victim = tmp_path / "victim.txt"
    victim.write_text("host file\n")
    d = tmp_path / "design"
    d.mkdir()
    for name in ("design.yaml", "ref.v", "spec.md"):
        (d / name).write_bytes((COUNTER.parent / name).read_bytes())
    (d / "test_counter.py").write_text(PLANTING_TEST.replace("VICTIM", str(victim)))
    src = tmp_path / "cand.v"
    src.write_text(COUNTER_BODY + "endmodule\n")
    wd = tmp_path / "wd"
    res = hh_in_process("gate", str(d / "design.yaml"), str(src), "--workdir", str(wd), "--json", "--set",
                        "verification.equivalence.enabled=false", "--set", "verification.differential.enabled=false",
                        env=ENV)
    assert_contained(res, wd)
    assert res.returncode == 0, res.stderr
    assert victim.read_text() == "host file\n", "hh wrote a host file through a link planted in a stage folder"
    assert [p for p in wd.rglob("*") if p.is_symlink() or not (p.is_file() or p.is_dir())] == []
    commands = next(wd.rglob("cocotb/COMMANDS")).read_text()
    assert "removed what it left that is not a file or folder: " in commands, commands


def test_run_tool_reads_its_logs_through_its_own_descriptors(tmp_path: Path) -> None:
    """A tool that swaps its own stdout log for a link to a host file: what hh reads back is what the tool wrote,
    never the host file's text (a link to /proc/self/environ would have been hh's own environment)."""
    from hyperheurist.runner import run_tool

    secret = tmp_path / "secret.txt"
    secret.write_text(f"{CANARY_KEY}\n")
    stage = tmp_path / "stage"
    script = f"echo tool-output; rm t.stdout; ln -s {secret} t.stdout; ln -s {secret} COMMANDS"
    res = run_tool(["/bin/sh", "-c", script], name="t", log_dir=stage, timeout_s=60)
    assert res.ok, res.describe()
    assert res.stdout.strip() == "tool-output" and CANARY_KEY not in res.stdout
    assert secret.read_text() == f"{CANARY_KEY}\n"
    assert not (stage / "t.stdout").is_symlink() and not (stage / "COMMANDS").is_symlink()


def test_a_link_planted_at_out_name_is_not_followed(tmp_path: Path) -> None:
    """``--out/<design name>`` is hh's own folder: a link planted there would take the run (and every file hh
    writes) elsewhere. Refused, exit 2, one line naming it; nothing is made at the link's target."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    out = tmp_path / "runs"
    out.mkdir()
    (out / "mac_small").symlink_to(elsewhere)
    res = hh_in_process("run", str(DATA / "flow" / "design.yaml"), "--out", str(out), "--quiet", "--no-report",
                        env=ENV)
    assert res.returncode == 2, res.stderr
    assert len(res.stderr.strip().splitlines()) == 1 and str(out / "mac_small") in res.stderr, res.stderr
    assert not list(elsewhere.iterdir())


def test_resume_sweeps_what_a_killed_tool_left(tmp_path: Path) -> None:
    """A kill can come between a tool and hh's sweep of its folder: resuming the run removes the links and FIFOs
    left in it (their targets untouched) before anything there is read or written."""
    from hyperheurist.rundir import RunDir

    victim = tmp_path / "victim.txt"
    victim.write_text("host file\n")
    stage = tmp_path / "run" / "candidates" / "abc" / "eval-1" / "04-simulation"
    stage.mkdir(parents=True)
    (stage / "COMMANDS").symlink_to(victim)
    os.mkfifo(stage / "results.xml")
    (stage / "sim.log").write_text("kept\n")
    assert RunDir(tmp_path / "run").remove_stale_temp_files() == 2
    assert sorted(p.name for p in stage.iterdir()) == ["sim.log"] and victim.read_text() == "host file\n"
