"""hdl.literals: every value it accepts reaches the same number in iverilog -P, verilator -G and yosys
(hierarchy -chparam and chparam -set); every value it refuses is refused at config load, field named."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
import yaml

from hyperheurist.config import load_design
from hyperheurist.errors import ConfigError
from hyperheurist.hdl.literals import LiteralError, define, identifier, param_override, param_value
from hyperheurist.runner import run_tool

ACCEPTED = {"0": 0, "1000": 1000, "2147483647": 2**31 - 1, "8'hFF": 255, "8'HfF": 255, "'hFF": 255, "12'o17": 15,
            "'d10": 10, "4'b1010": 10, "32'd5": 5, "40'h123456789A": 0x123456789A, "'hFFFFFFFF": 2**32 - 1}
REFUSED = ["1_000", "8'hF_F", "-3", '"str"', "3.5", "1e3", "4'sb1111", "-8'sd5", "4'b1x0z", "16'h?", "'1",
           "8'd256", "'h1FFFFFFFF", "2147483648", "8'b102", "", " ", "W", "1 ; $finish"]

TOP = """module top #(parameter W = 8) (output [63:0] y);
  assign y = W;
`ifdef VERILATOR  // an elaboration-time print: verilator --lint-only shows the value it elaborated with
  if (1) begin : g
    $info("W=%0d", W);
  end
`endif
  initial #1 $display("W=%0d", W);
endmodule
"""


@pytest.mark.parametrize("text", REFUSED)
def test_refused_values_raise_a_one_line_value_error_naming_the_thing(text: str) -> None:
    with pytest.raises(LiteralError) as exc:
        param_override("W", text)
    assert isinstance(exc.value, ValueError) and isinstance(exc.value, ConfigError)
    msg = str(exc.value)
    assert msg.startswith("parameter W value") and "\n" not in msg


def test_integers_bools_and_names() -> None:
    assert param_value(7) == "7"
    for bad in (-1, 2**31, True, 1.5):
        with pytest.raises(LiteralError):
            param_value(bad)  # type: ignore[arg-type]  # the wrong types are the point
    assert identifier("a$b_1") == "a$b_1"
    for bad in ("1a", "module", "logic", "do", "a b", "\\esc", "$display", "", "a-b"):
        with pytest.raises(LiteralError, match="name"):
            identifier(bad)
    assert define("FAST") == ("FAST", "") and define("W", "8'hFF") == ("W", "8'hFF")
    for name, value in (("W", "a b"), ("W", '"x"'), ("1W", "1"), ("W", "`x")):
        with pytest.raises(LiteralError, match="define"):
            define(name, value)


def _value(res_text: str, tool: str) -> int:
    m = re.search(r"W=(-?\d+)", res_text)
    assert m, (tool, res_text)
    return int(m.group(1))


@pytest.mark.tools
@pytest.mark.parametrize("text", list(ACCEPTED))
def test_accepted_values_mean_the_same_number_to_every_tool(tmp_path: Path, text: str) -> None:
    name, value = param_override("W", text)
    (tmp_path / "top.v").write_text(TOP)
    want = ACCEPTED[text]

    def run(tool: str, *argv: str) -> str:
        res = run_tool([tool, *argv], name=tool, log_dir=tmp_path / "logs", timeout_s=60, cwd=tmp_path, sandbox="off")
        assert res.ok, (tool, text, res.tail())
        return res.stdout + res.stderr

    iv = run("iverilog", "-g2012", f"-Ptop.{name}={value}", "-o", "a.out", "top.v")
    assert "error" not in iv, iv  # iverilog reports a bad -P on stderr, exits 0 and keeps the default
    assert _value(run("vvp", "-n", "a.out"), "vvp") == want
    assert _value(run("verilator", "--lint-only", "-Wno-fatal", f"-G{name}={value}", "top.v"), "verilator") == want
    synth = f"hierarchy -top top -chparam {name} {value}"  # what ppa/synth.py runs
    for setting in (synth, f"chparam -set {name} {value} top; hierarchy -top top"):
        run("yosys", "-q", "-p", f"read_verilog -sv top.v; {setting}; proc; opt; sat -verify -prove y 64'd{want}")


@pytest.mark.parametrize("text", ["1_000", "3.5", "-3", '"str"', "4'sb1111"])
def test_a_refused_value_is_refused_at_config_load_with_the_field_named(tmp_path: Path, text: str) -> None:
    d = tmp_path / "design"
    shutil.copytree(Path(__file__).parent / "data" / "flow", d)
    data = yaml.safe_load((d / "design.yaml").read_text())
    data["tunables"] = [{"name": "W", "values": [8, text]}]
    (d / "design.yaml").write_text(yaml.safe_dump(data, sort_keys=False))
    with pytest.raises(ConfigError, match=r"tunables\[0\]\.values"):
        load_design(d / "design.yaml")


@pytest.mark.tools
@pytest.mark.parametrize(("value", "want"), [("8'hFF", 255), ("-3", -3), ("1+2", 3), ("'d7", 7), ("a_b", 5)])
def test_accepted_defines_reach_every_tool_as_the_same_text(tmp_path: Path, value: str, want: int) -> None:
    name, text = define("VAL", value)
    (tmp_path / "top.v").write_text("module top(output [63:0] y);\n  localparam a_b = 5;\n  assign y = `VAL;\n"
                                    "`ifndef SYNTHESIS\n  initial #1 $display(\"V=%0d\", $signed(y));\n`endif\n"
                                    "endmodule\n")

    def run(tool: str, *argv: str) -> str:
        res = run_tool([tool, *argv], name=tool, log_dir=tmp_path / "logs", timeout_s=60, cwd=tmp_path, sandbox="off")
        assert res.ok, (tool, value, res.tail())
        return res.stdout + res.stderr

    run("iverilog", "-g2012", f"-D{name}={text}", "-o", "a.out", "top.v")
    assert run("vvp", "-n", "a.out").strip().endswith(f"V={want}")
    run("verilator", "--lint-only", "-Wno-fatal", f"-D{name}={text}", "top.v")
    prove = f"sat -verify -prove y 64'd{want % 2**64}"
    run("yosys", "-q", "-p", f"read_verilog -sv -D{name}={text} top.v; proc; opt; {prove}")
