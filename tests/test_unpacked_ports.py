"""Unpacked array ports on the top module (#17 item 6): the canonical text makes each one a packed vector
(``hdl.arrays``: element i from the declared left bound at bits [(i+1)*W-1 : i*W]) that every tool, the
differential bench and a cocotb test see alike; ``hh init`` describes it with its dimensions; what the
rewrite cannot take is one line naming file:line."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml
from cli_inproc import hh_in_process
from pydantic import ValidationError

from hyperheurist.config import Interface
from hyperheurist.hdl.arrays import ArrayPortError, flatten_array_ports
from hyperheurist.hdl.parse import parse
from hyperheurist.hdl.ports import read_module

DATA = Path(__file__).parent / "data" / "unpacked"


def hh(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """cli.main in this process: what init writes and what gate/ppa answer are the point, not a process."""
    return hh_in_process(*args, cwd=cwd)


@pytest.fixture
def design(tmp_path: Path) -> Path:
    shutil.copytree(DATA, tmp_path / "sort4")
    return tmp_path / "sort4"


def _gates(res: subprocess.CompletedProcess[str]) -> dict[str, dict[str, object]]:
    return {r["gate"]: r for r in json.loads(res.stdout)["results"]}


# --- the rewrite itself (pyslang only) ---

def test_ports_become_vectors_and_the_body_reads_the_private_array() -> None:
    text = ("module m #(parameter W = 8) (input [W-1:0] d [0:3], e, input [1:0] s, output reg [3:0] q [2],\n"
            "  output y);\n  sub u (.d(d[0]), .q());\n  always @* begin q[0] = d[s][3:0]; q[1] = e[3:0]; end\n"
            "  assign y = ^d[1];\nendmodule\n")
    out = flatten_array_ports(text)
    assert out.count("\n") == text.count("\n")  # every line keeps its number (`line directives stay right)
    assert "input wire [(4*((W-1)>=(0)?(W-1)-(0)+1:(0)-(W-1)+1))-1:0] d" in out
    assert "output wire [8-1:0] q" in out and ", input [W-1:0] e," in out  # e keeps the header it inherited
    assert ".d(hh_unpacked_d[0])" in out and "hh_unpacked_q[0] = hh_unpacked_d[s][3:0]" in out
    assert "reg [3:0] hh_unpacked_q [2];" in out  # the private copy keeps the element type and dimension
    sub = "module sub (input [7:0] d, output q);\n  assign q = ^d;\nendmodule\n"
    ports = {p.name: p for p in read_module([parse(out + sub)], "m").ports}
    assert (ports["d"].width, ports["e"].width, ports["q"].width, ports["y"].width) == (32, 8, 8, 1)
    assert not any(p.unpacked for p in ports.values())


def test_text_without_array_ports_is_unchanged() -> None:
    text = "module m (input [7:0] a, output [7:0] b);\n  wire [7:0] mem [0:3];\n  assign b = a;\nendmodule\n"
    assert flatten_array_ports(text) == text
    assert flatten_array_ports("module m (input a [0:1]") == "module m (input a [0:1]"  # tools say why


@pytest.mark.parametrize("text, message", [
    ("module m (input [7:0] d [0:1][0:3], output y);\nendmodule\n", r"x\.v:1: port `d`: 2 unpacked dimensions"),
    ("module s (input [7:0] a [2], output y);\nendmodule\nmodule m (input [7:0] d [0:3], output y);\n"
     "  s u (.a(d[0:1]), .y(y));\nendmodule\n",
     r"x\.v:4: `d\[0:1\]` is connected to unpacked array port `a` of s: connect a whole array by name"),
    ("module s (input [7:0] a [2], output y);\nendmodule\nmodule m (input [7:0] d [0:3], output y);\n"
     "  s u (.a(d), .y(y));\nendmodule\n", r"x\.v:4: `d` \(8-bit x 4\) does not match port `a` of s \(8-bit x 2\)"),
    ("module s (input [7:0] a [2], output y);\nendmodule\nmodule m (input [7:0] d, output y);\n"
     "  wire [7:0] w [2];\n  s u [1:0] (.a(w), .y(y));\nendmodule\n", r"x\.v:5: instance arrays of s"),
    ("module s (input [7:0] a [2], output y);\nendmodule\nmodule m (input [7:0] d, output y);\n"
     "  wire [7:0] w [2];\n  s u (.*);\nendmodule\n", r"x\.v:5: `\.\*` on s"),
    ("module s (input [7:0] a [2], output y);\nendmodule\nmodule m (input [7:0] d, output y);\n"
     "  s u (.a(d), .y(y));\nendmodule\n", r"x\.v:4: `d` is not an unpacked array of m"),
    ("typedef struct packed { logic [3:0] a, b; } p_t;\nmodule m (input p_t d [2], output y);\nendmodule\n",
     r"x\.v:2: port `d`: element type `p_t` is not supported"),
    ("module m (d, y);\n  input [7:0] d [0:1];\n  output y;\nendmodule\n", r"x\.v:2: port `d`: .*ANSI port list"),
    ("module m (input [7:0] d [2], output y);\n  task t(input d); endtask\nendmodule\n",
     r"x\.v:2: `d` is an unpacked array port of m and is declared or named again"),
    ("module m (input [7:0] d [$], output y);\nendmodule\n", r"x\.v:1: port `d`: unpacked dimension `\[\$\]`"),
    ("module m (input [7:0] d [2], output logic y [2] = '{0, 1});\nendmodule\n",
     r"x\.v:1: port `y`: an unpacked array port with a default value"),
])
def test_what_the_rewrite_cannot_take_is_one_line_with_file_and_line(text: str, message: str) -> None:
    with pytest.raises(ArrayPortError, match=message) as err:
        flatten_array_ports('`line 1 "/src/x.v" 0\n' + text)
    assert "\n" not in str(err.value)


def test_interface_describes_dimensions_and_gives_tools_the_flat_port() -> None:
    iface = Interface.model_validate({"ports": [{"name": "d", "dir": "input", "width": 8, "unpacked": [7, 0]},
                                                {"name": "q", "dir": "output", "width": 4, "unpacked": [0, 2]}]})
    assert [(p.name, p.width, p.unpacked) for p in iface.all_ports()] == [("d", 64, None), ("q", 12, None)]
    assert iface.data_inputs()[0].width == 64 and iface.outputs()[0].width == 12
    assert iface.ports[0].bits == 64 and iface.ports[0].elements == 8
    assert [p.declaration() for p in iface.declared_ports()] == ["input [7:0] d [7:0]", "output [3:0] q [0:2]"]
    for bad in ({"name": "d", "dir": "inout", "width": 8, "unpacked": [0, 1]},
                {"name": "d", "dir": "input", "width": 8, "unpacked": [0]}):
        with pytest.raises(ValidationError):
            Interface.model_validate({"ports": [bad, {"name": "y", "dir": "output", "width": 1}]})


# --- the real tools ---

MAPPING_TB = """module tb;
  reg [31:0] d; wire [7:0] y, z;
  m dut (.d(d), .y(y));
  r rev (.d(d), .y(z));
  initial begin d = 32'h44332211; #1 $display("y=%h z=%h", y, z); end
endmodule
"""


@pytest.mark.tools
def test_the_mapping_counts_from_the_declared_left_bound(tmp_path: Path) -> None:
    """Element i from the left bound is bits [8i+7:8i]: d[1] of [0:3] is byte 1, d[1] of [3:0] is byte 2."""
    asc = flatten_array_ports("module m (input [7:0] d [0:3], output [7:0] y);\n  assign y = d[1];\nendmodule\n")
    desc = flatten_array_ports("module r (input [7:0] d [3:0], output [7:0] y);\n  assign y = d[1];\nendmodule\n")
    (tmp_path / "x.v").write_text(asc + desc + MAPPING_TB)
    subprocess.run(["iverilog", "-g2012", "-o", str(tmp_path / "x.vvp"), str(tmp_path / "x.v")], check=True)
    out = subprocess.run(["vvp", "-n", str(tmp_path / "x.vvp")], capture_output=True, text=True, check=True).stdout
    assert "y=22 z=33" in out


@pytest.mark.tools
def test_gate_passes_a_different_structure_with_a_proof(design: Path) -> None:
    res = hh("gate", "design.yaml", "good.sv", "--json", "--set", "verification.cocotb=test_sort4", cwd=design)
    assert res.returncode == 0, res.stdout + res.stderr
    gates = _gates(res)
    assert gates["simulation"]["details"]["checks"] == ["differential", "cocotb"]
    assert gates["equivalence"]["details"]["verdict"] == "proven", gates["equivalence"]["message"]


@pytest.mark.tools
@pytest.mark.parametrize("wrong", ["swapped.sv", "reversed.sv"])
def test_element_order_wrong_fails_the_simulation_gate(design: Path, wrong: str) -> None:
    """Two output elements swapped in the body, or both arrays declared [3:0] (the same body: the mapping
    then puts element 0 last): the differential bench sees the flat ports differ, and the miter too."""
    res = hh("gate", "design.yaml", wrong, "--json", cwd=design)
    assert res.returncode == 1, res.stdout + res.stderr
    sim = _gates(res)["simulation"]
    assert not sim["passed"] and "output `q` expected 32'h" in str(sim["message"]), sim
    # the proof refutes it too, with a counterexample replayed on the flat ports
    res = hh("gate", "design.yaml", wrong, "--only", "equivalence", cwd=design)
    assert res.returncode == 1 and "equivalence gate: not equivalent: inputs sel=" in res.stderr, res.stderr


@pytest.mark.tools
def test_a_cocotb_test_on_the_flat_ports_fails_the_reversed_declaration(design: Path) -> None:
    res = hh("gate", "design.yaml", "reversed.sv", "--only", "simulation", "--set", "verification.cocotb=test_sort4",
             "--set", "verification.differential.enabled=false", cwd=design)
    assert res.returncode == 1 and "cocotb test_sort4: 1/1 cocotb tests failed" in res.stderr, res.stderr


@pytest.mark.tools
def test_ppa_netlist_has_the_flat_port_bits(design: Path) -> None:
    res = hh("ppa", "design.yaml", "good.sv", "--json", "--power", "activity", "--workdir", "ppa", cwd=design)
    assert res.returncode == 0, res.stderr
    assert json.loads(res.stdout)["area_um2"] > 0
    netlist = json.loads(next((design / "ppa").glob("*-synthesis/netlist.json")).read_text())
    ports = {k: (v["direction"], len(v["bits"])) for k, v in netlist["modules"]["sort4"]["ports"].items()}
    assert ports == {"sel": ("input", 2), "d": ("input", 32), "q": ("output", 32), "pick": ("output", 8)}


@pytest.mark.tools
def test_parameterized_sequential_arrays_pass_every_gate_with_a_sequential_proof(tmp_path: Path) -> None:
    shutil.copy(DATA / "taps.sv", tmp_path)
    res = hh("init", "--top", "taps", "taps.sv", "--golden", "golden", cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    ports = {p["name"]: p for p in yaml.safe_load((tmp_path / "design.yaml").read_text())["interface"]["ports"]}
    assert ports["coef"] == {"name": "coef", "dir": "input", "width": 8, "unpacked": [0, 3]}
    assert ports["tap"] == {"name": "tap", "dir": "output", "width": 8, "unpacked": [3, 0]}
    res = hh("gate", "design.yaml", "--equivalence", "--json", cwd=tmp_path)
    assert res.returncode == 0, res.stdout + res.stderr
    assert _gates(res)["equivalence"]["details"]["verdict"] == "proven"


@pytest.mark.tools
def test_init_writes_an_interface_that_gates_and_runs(tmp_path: Path) -> None:
    shutil.copy(DATA / "ref.sv", tmp_path)
    res = hh("init", "--top", "sort4", "ref.sv", "--golden", "golden", cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    data = yaml.safe_load((tmp_path / "design.yaml").read_text())
    assert data["interface"]["ports"] == [
        {"name": "sel", "dir": "input", "width": 2}, {"name": "d", "dir": "input", "width": 8, "unpacked": [0, 3]},
        {"name": "q", "dir": "output", "width": 8, "unpacked": [0, 3]}, {"name": "pick", "dir": "output", "width": 8}]
    assert "| `d` | input | 8 x [0:3] |" in (tmp_path / "spec.md").read_text()
    res = hh("gate", "design.yaml", cwd=tmp_path)
    assert res.returncode == 0, res.stdout + res.stderr
    res = hh("run", "design.yaml", "--iterations", "2", "--set", "anneal.polish=0", "--out", "runs", "--quiet",
             "--jobs", "1", cwd=tmp_path)  # a complete run is the point, not the finish's descents
    assert res.returncode == 0, res.stdout + res.stderr
    run = next((tmp_path / "runs" / "sort4").iterdir())
    summary = json.loads((run / "summary.json").read_text())
    assert summary["status"] == "complete" and summary["best"]["area_um2"] > 0
    assert "input wire [32-1:0] d" in next(run.rglob("canonical.v")).read_text()


@pytest.mark.tools
@pytest.mark.parametrize("text, where", [
    ("module leaf (input logic [7:0] x [2], output logic [7:0] y);\n  assign y = x[0];\nendmodule\n"
     "module sort4 (input logic [1:0] sel, input logic [7:0] d [0:3], output logic [7:0] q [0:3],\n"
     "  output logic [7:0] pick);\n  leaf u (.x(d[0:1]), .y(pick));\n"
     "  for (genvar i = 0; i < 4; i++) assign q[i] = d[i];\nendmodule\n",
     "bad.sv:6: `d[0:1]` is connected to unpacked array port `x` of leaf"),
    ("module sort4 (input logic [1:0] sel, input logic [7:0] d [0:3][0:1], output logic [7:0] q [0:3],\n"
     "  output logic [7:0] pick);\nendmodule\n", "bad.sv:1: port `d`: 2 unpacked dimensions"),
])
def test_unsupported_arrays_are_one_line_in_gate_and_init(design: Path, text: str, where: str) -> None:
    (design / "bad.sv").write_text(text)
    res = hh("gate", "design.yaml", "bad.sv", cwd=design)
    assert res.returncode == 1 and f"safety gate: preprocessing: {where}" in res.stderr, res.stderr
    res = hh("init", "--top", "sort4", "bad.sv", "-o", "bad.yaml", cwd=design)
    assert res.returncode != 0 and where in res.stderr and "Traceback" not in res.stderr, res.stderr
    assert not (design / "bad.yaml").exists()


# --- unpacked array ports below the top (tests/data/unpacked2: rot4 instances rot_core from another file) ---

DATA2 = Path(__file__).parent / "data" / "unpacked2"


def _rot4(core: str = "core.sv", top: str | None = None) -> str:
    return (top or (DATA2 / "top.sv").read_text()) + (DATA2 / core).read_text()


def test_a_submodule_port_is_flattened_and_each_instance_packs_its_arrays() -> None:
    out = flatten_array_ports(_rot4())
    assert out.count("\n") == _rot4().count("\n")
    assert "input wire [32-1:0] a," in out and "output wire [32-1:0] z\n" in out  # rot_core's ports
    line = next(x for x in out.splitlines() if "rot_core u" in x)
    # the vectors are declared before the instance names them; d is read through rot4's private copy
    assert line.index("wire [32-1:0] hh_conn_u_a;") < line.index("rot_core u (.s(sel), .a(hh_conn_u_a), "
                                                                 ".z(hh_conn_u_z));")
    assert "assign hh_conn_u_a[hh_conn_u_a_i*8 +: 8] = hh_unpacked_d[hh_conn_u_a_i];" in line
    assert "assign r[hh_conn_u_z_i] = hh_conn_u_z[hh_conn_u_z_i*8 +: 8];" in line
    ordered = flatten_array_ports(_rot4(top=(DATA2 / "top.sv").read_text().replace(".s(sel), .a(d), .z(r)",
                                                                                  "sel, d, r")))
    assert "rot_core u (sel, hh_conn_u_a, hh_conn_u_z);" in ordered
    assert read_module([parse(out)], "rot4").ports[1].width == 32


@pytest.mark.tools
@pytest.mark.parametrize("top", ["top.sv", "top_generate.sv"])
def test_gate_and_ppa_pass_a_submodule_with_array_ports_in_another_file(tmp_path: Path, top: str) -> None:
    design = shutil.copytree(DATA2, tmp_path / "rot4")
    res = hh("gate", "design.yaml", top, "core.sv", "--json", "--set", "verification.cocotb=test_rot4", cwd=design)
    assert res.returncode == 0, res.stdout + res.stderr
    gates = _gates(res)
    assert gates["simulation"]["details"]["checks"] == ["differential", "cocotb"]
    assert gates["equivalence"]["details"]["verdict"] == "proven", gates["equivalence"]["message"]
    res = hh("ppa", "design.yaml", top, "core.sv", "--json", "--workdir", "ppa", cwd=design)
    assert res.returncode == 0, res.stderr
    assert json.loads(res.stdout)["area_um2"] > 0
    netlist = json.loads(next((design / "ppa").glob("*-synthesis/netlist.json")).read_text())
    ports = {k: (v["direction"], len(v["bits"])) for k, v in netlist["modules"]["rot4"]["ports"].items()}
    assert ports == {"sel": ("input", 2), "d": ("input", 32), "q": ("output", 32), "pick": ("output", 8)}


@pytest.mark.tools
def test_a_submodule_array_declared_the_other_way_fails_the_simulation_gate(tmp_path: Path) -> None:
    """core_reversed.sv declares ``a [0:3]`` with the same body: the parent's d[0] is now a[0], not a[3]."""
    design = shutil.copytree(DATA2, tmp_path / "rot4")
    res = hh("gate", "design.yaml", "top.sv", "core_reversed.sv", "--json", cwd=design)
    assert res.returncode == 1, res.stdout + res.stderr
    sim = _gates(res)["simulation"]
    assert not sim["passed"] and "output `q` expected 32'h" in str(sim["message"]), sim
    res = hh("gate", "design.yaml", "top.sv", "core_reversed.sv", "--only", "simulation", "--set",
             "verification.cocotb=test_rot4", "--set", "verification.differential.enabled=false", cwd=design)
    assert res.returncode == 1 and "cocotb test_rot4: 1/1 cocotb tests failed" in res.stderr, res.stderr


AGREE_TB = """module tb;
  reg [1:0] sel; reg [31:0] d; wire [31:0] q, gq; wire [7:0] pick, gpick; integer i;
  rot4 rtl (.sel(sel), .d(d), .q(q), .pick(pick));
  gate_rot4 net (.sel(sel), .d(d), .q(gq), .pick(gpick));
  initial begin
    for (i = 0; i < 64; i = i + 1) begin
      sel = $random; d = $random; #1;
      $display("%h %h %h %h %h %h", sel, d, q, pick, gq, gpick);
    end
  end
endmodule
"""


@pytest.mark.tools
@pytest.mark.parametrize("connections", [".s(sel), .a(d), .z(r)", "sel, d, r"])
def test_iverilog_and_yosys_read_the_rewrite_alike(tmp_path: Path, connections: str) -> None:
    """The flattened text under Icarus against Yosys' netlist of it (renamed gate_rot4) under Icarus, and both
    against the rotation the reference computes, element i of d being bits [8i+7:8i]."""
    text = flatten_array_ports(_rot4(top=(DATA2 / "top.sv").read_text().replace(".s(sel), .a(d), .z(r)",
                                                                                connections)))
    (tmp_path / "rtl.sv").write_text(text)
    subprocess.run(["yosys", "-q", "-p", "read_verilog -sv rtl.sv; synth -flatten -top rot4; rename rot4 gate_rot4; "
                    "write_verilog -noattr net.v"], cwd=tmp_path, check=True, capture_output=True, timeout=300)
    (tmp_path / "tb.v").write_text(AGREE_TB)
    subprocess.run(["iverilog", "-g2012", "-o", "x.vvp", "rtl.sv", "net.v", "tb.v"], cwd=tmp_path, check=True,
                   timeout=300)
    out = subprocess.run(["vvp", "-n", "x.vvp"], cwd=tmp_path, capture_output=True, text=True, check=True,
                         timeout=300).stdout.split("\n")
    rows = [r.split() for r in out if len(r.split()) == 6]
    assert len(rows) == 64
    for sel, d, q, pick, gq, gpick in rows:
        assert (q, pick) == (gq, gpick)
        e = [(int(d, 16) >> (8 * k)) & 0xFF for k in range(4)]
        want = sum(((e[(k + int(sel, 16)) % 4] + k) & 0xFF) << (8 * k) for k in range(4))
        assert (int(q, 16), int(pick, 16)) == (want, e[int(sel, 16)])
