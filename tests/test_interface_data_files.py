"""verification.data_files: the files a self-checking testbench $readmemh's travel into its simulation folder."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml

from hyperheurist.candidate import Candidate
from hyperheurist.config import load_design
from hyperheurist.errors import ConfigError
from hyperheurist.gating import run_gates

ALU = Path(__file__).parent / "data" / "gates" / "alu"

BENCH = """module tb;
  reg [7:0] a, b; reg [1:0] op; wire [7:0] y;
  reg [25:0] vec [0:3];  // {a, b, op, expected y}
  integer i, bad;
  alu dut (.a(a), .b(b), .op(op), .y(y));
  initial begin
    bad = 0;
    for (i = 0; i < 4; i = i + 1) vec[i] = 26'bx;
    $readmemh("vectors/alu.hex", vec);
    for (i = 0; i < 4; i = i + 1) begin
      {a, b, op} = vec[i][25:8];
      #1;
      if (^vec[i] === 1'bx || y !== vec[i][7:0]) begin
        $display("FAIL vector %0d: got %h", i, y);
        bad = bad + 1;
      end
    end
    if (bad == 0) $display("PASSED");
    $finish;
  end
endmodule
"""
# {a, b, op, y}: 3+4, 9-2, 0xF0&0x3C, 0xF0^0x3C
VECTORS = "".join(f"{(a << 18) | (b << 10) | (op << 8) | y:07x}\n"
                  for a, b, op, y in [(3, 4, 0, 7), (9, 2, 1, 7), (0xF0, 0x3C, 2, 0x30), (0xF0, 0x3C, 3, 0xCC)])


def _design(tmp_path: Path, data_files: object) -> Path:
    d = tmp_path / "alu"
    shutil.copytree(ALU, d)
    (d / "vectors").mkdir()
    (d / "vectors" / "alu.hex").write_text(VECTORS)
    (d / "tb.v").write_text(BENCH)
    data = yaml.safe_load((d / "design.yaml").read_text())
    data["verification"] = {"testbench": "tb.v", "timeout_s": 20}
    if data_files is not None:
        data["verification"]["data_files"] = data_files
    (d / "design.yaml").write_text(yaml.safe_dump(data))
    return d / "design.yaml"


def _simulate(tmp_path: Path, design_yaml: Path, rtl: str = "good.v"):
    d = load_design(design_yaml)
    cand = Candidate.from_paths([design_yaml.parent / rtl], top=d.top)
    return run_gates(cand, d, tmp_path / "cand", only=["safety", "compile", "simulation"])


@pytest.mark.tools
def test_testbench_reads_its_declared_hex_file(tmp_path: Path) -> None:
    p = _design(tmp_path, ["vectors/alu.hex"])
    assert load_design(p).verification.data_files == {"vectors/alu.hex": (p.parent / "vectors/alu.hex").resolve()}
    rep = _simulate(tmp_path, p)
    assert rep.passed, rep.to_dict()
    assert list((tmp_path / "cand").glob("*-simulation/testbench/vectors/alu.hex"))


@pytest.mark.tools
def test_the_vectors_are_really_checked(tmp_path: Path) -> None:
    """A wrong design fails the same bench: the vectors were read, not skipped."""
    p = _design(tmp_path, ["vectors/alu.hex"])
    rep = _simulate(tmp_path, p, "op3bug.v")
    assert not rep.passed and rep.failed is not None and rep.failed.gate == "simulation", rep.to_dict()
    assert "FAIL vector" in rep.failed.message


@pytest.mark.tools
def test_without_the_declaration_the_bench_cannot_read_it(tmp_path: Path) -> None:
    rep = _simulate(tmp_path, _design(tmp_path, None))
    assert not rep.passed and rep.failed is not None and rep.failed.gate == "simulation", rep.to_dict()
    assert "Unable to open vectors/alu.hex" in rep.failed.message, rep.failed.message
    assert "declare it in verification.data_files" in rep.failed.message


@pytest.mark.parametrize(("entry", "words"), [
    ("../outside.hex", "not inside the design folder"),
    ("/etc/hostname", "not inside the design folder"),
    ("vectors/missing.hex", "No such file"),
    ("vectors", "not a regular file"),
    ({"../x.hex": "vectors/alu.hex"}, "relative path inside the simulation folder"),
    ({"k.hex": "/proc/self/environ"}, "kernel or device file"),
])
def test_bad_data_files_are_one_line_naming_the_field(tmp_path: Path, entry: object, words: str) -> None:
    (tmp_path / "outside.hex").write_text("00\n")
    p = _design(tmp_path, entry if isinstance(entry, dict) else [entry])
    with pytest.raises(ConfigError, match=r"verification(\.data_files)?: .*") as exc:
        load_design(p)
    assert words in str(exc.value) and "\n" not in str(exc.value), exc.value


def test_a_link_out_of_the_design_folder_is_refused(tmp_path: Path) -> None:
    (tmp_path / "secret.hex").write_text("00\n")
    p = _design(tmp_path, ["vectors/link.hex"])
    (p.parent / "vectors" / "link.hex").symlink_to(tmp_path / "secret.hex")
    with pytest.raises(ConfigError, match="is a link to"):
        load_design(p)


def test_mapping_form_places_a_file_under_the_given_name(tmp_path: Path) -> None:
    p = _design(tmp_path, {"vectors/alu.hex": str(tmp_path / "alu" / "vectors" / "alu.hex")})
    d = load_design(p)
    assert list(d.verification.data_files) == ["vectors/alu.hex"]
    again = yaml.safe_load(d.resolved_yaml())["verification"]["data_files"]  # reloadable as written
    assert again == {"vectors/alu.hex": str((p.parent / "vectors" / "alu.hex").resolve())}
