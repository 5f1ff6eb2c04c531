"""hdl.tokens: pyslang's lexer tells calls from comments and strings; the safety scan reads its tokens."""

from __future__ import annotations

from hyperheurist.gates.safety import scan_text
from hyperheurist.hdl.tokens import Kind, conditionals, scan

TEXT = r"""// $fopen in a comment, `include "x" too
/* ünïcödé before */ module automatic hh_x; import "DPI-C" function int f();
  initial $display("$fopen(\"y\")"); \$fwrite z; $readmemh ( ("m.hex"), mem);
`ifdef SYNTHESIS
`include "h.vh"
`endif
package p; endpackage
`define CAT(a) a``b
"""


def test_tokens_by_kind_with_their_arguments_and_lines() -> None:
    sc = scan(TEXT, comments=True)
    got = [(t.kind, t.text, t.arg, sc.line_of(t.offset)) for t in sc.tokens]
    assert got == [
        (Kind.DECLARED, "module", "hh_x", 2),
        (Kind.FOREIGN, "import", "DPI-C", 2),
        (Kind.SYSTEM, "$display", '$fopen("y")', 3),
        (Kind.ESCAPED, "\\$fwrite", None, 3),
        (Kind.SYSTEM, "$readmemh", "m.hex", 3),
        (Kind.DIRECTIVE, "`ifdef", "SYNTHESIS", 4),
        (Kind.DIRECTIVE, "`include", "h.vh", 5),
        (Kind.DIRECTIVE, "`endif", None, 6),
        (Kind.DECLARED, "package", "p", 7),
        (Kind.DIRECTIVE, "`define", "CAT", 8),
        (Kind.PASTE, "``", None, 8),
    ]
    assert [sc.line_of(off) for off, _ in sc.comments] == [1, 2]
    assert not sc.unterminated and scan('x = "open').unterminated and scan("/* open").unterminated
    assert conditionals(TEXT) == [(4, "ifdef", "SYNTHESIS")]


def test_safety_scan_ignores_comments_and_strings_and_names_the_line() -> None:
    ok = 'module m; initial $display("$fopen(f) `include \\"x\\""); // $system("rm")\nendmodule\n'
    assert scan_text("m.v", ok, set(), set()) is None
    bad = "module m;\n  /* é */ initial begin $fwrite(1, \"x\"); end\nendmodule\n"
    want = "m.v:2: system task $fwrite is not allowed in a design (writes a file)"
    assert scan_text("m.v", bad, set(), set()) == want
    assert scan_text("m.v", "module m; \\$fopen x; endmodule", set(), set()).startswith("m.v:1: escaped identifier")
    assert "reserved" in (scan_text("m.v", "package hhref_p; endpackage", set(), set()) or "")
    assert scan_text("m.v", 'module m; initial $readmemh("d.hex", r); endmodule', {"d.hex"}, set()) is None
    assert "data files" in (scan_text("m.v", 'module m; initial $readmemh("e.hex", r); endmodule', {"d.hex"}, set())
                            or "")
