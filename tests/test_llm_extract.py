"""Verilog extraction from chat responses (pure, no endpoint)."""

from __future__ import annotations

from hyperheurist.llm.extract import extract_verilog

ADD = "module add(input [3:0] a, b, output [4:0] y);\n  assign y = a + b;\nendmodule"
TOP = "module top(input [3:0] a, b, output [4:0] y);\n  add u(.a(a), .b(b), .y(y));\nendmodule"


def test_fenced_block_with_prose_around() -> None:
    ex = extract_verilog(f"Sure! Here it is:\n\n```verilog\n{TOP}\n\n{ADD}\n```\nThis uses an adder.", "top")
    assert ex.ok and ex.modules == ("top", "add")
    assert ex.code is not None and "Sure" not in ex.code and "```" not in ex.code and "adder." not in ex.code


def test_modules_spread_over_several_fences_and_other_languages_ignored() -> None:
    text = f"```python\nprint('hi')\n```\nFirst:\n```systemverilog\n{ADD}\n```\nthen\n```\n{TOP}\n```"
    ex = extract_verilog(text, "top")
    assert ex.ok and set(ex.modules) == {"top", "add"} and "print" not in (ex.code or "")


def test_bare_code_with_prose() -> None:
    ex = extract_verilog(f"The answer is below.\n{ADD}\nHope this helps.", "add")
    assert ex.ok and ex.code is not None and ex.code.startswith("module add") and "Hope" not in ex.code


def test_think_block_is_ignored() -> None:
    fake = "module top(input x, output y); assign y = ~x; endmodule"  # in the reasoning only
    ex = extract_verilog(f"<think>maybe\n{fake}\nno, wrong</think>\n```verilog\n{TOP}\n{ADD}\n```", "top")
    assert ex.ok and "~x" not in (ex.code or "")


def test_last_definition_of_a_module_wins() -> None:
    fixed = ADD.replace("a + b", "b + a")
    ex = extract_verilog(f"```verilog\n{ADD}\n```\nOops, corrected:\n```verilog\n{fixed}\n```", "add")
    assert ex.ok and "b + a" in (ex.code or "") and (ex.code or "").count("module add") == 1


def test_directives_before_a_module_are_kept() -> None:
    ex = extract_verilog(f"```verilog\n`timescale 1ns/1ps\n{ADD}\n```", "add")
    assert ex.ok and (ex.code or "").startswith("`timescale 1ns/1ps\nmodule add")


def test_no_code_is_a_reason_not_an_exception() -> None:
    for text, why in (("", "empty"), ("I cannot help with that.", "no Verilog module"),
                      ("```verilog\nmodule add(input a);\n  assign", "truncated")):
        ex = extract_verilog(text, "add")
        assert not ex.ok and ex.code is None and why in ex.reason, (text, ex.reason)


def test_top_module_must_be_present() -> None:
    ex = extract_verilog(f"```verilog\n{ADD}\n```", "top")
    assert not ex.ok and "no module named `top`" in ex.reason and ex.modules == ("add",)


def test_unterminated_think_falls_back_to_its_code() -> None:
    ex = extract_verilog(f"<think>let me write it\n{ADD}\n", "add")
    assert ex.ok and ex.modules == ("add",)


def test_header_comments_stay_prose_goes() -> None:
    ex = extract_verilog(f"Here you go:\n// adder, 4 bits\n{ADD}\n", "add")
    assert ex.ok and (ex.code or "").startswith("// adder, 4 bits\nmodule add") and "Here" not in (ex.code or "")


def test_endmodule_in_a_comment_does_not_end_the_module() -> None:
    code = "module add(input a, output y);\n  // the result, then endmodule\n  assign y = a;\nendmodule : add"
    ex = extract_verilog(f"```verilog\n{code}\n```", "add")
    assert ex.ok and "assign y = a;" in (ex.code or "") and (ex.code or "").rstrip().endswith("endmodule")


def test_the_parser_decides_where_a_module_ends() -> None:
    code = ('(* keep *) module add(input a, output y);\n  initial $display("endmodule");\n'
            "  /* endmodule */ assign y = a;\nendmodule")
    ex = extract_verilog(f"This module adds one bit:\n{code}\nEnd of the module.", "add")
    assert ex.ok and ex.code == code + "\n" and ex.modules == ("add",)


def test_a_module_opened_inside_another_is_dropped_and_the_next_kept() -> None:
    ex = extract_verilog(f"```verilog\nmodule broken(input a);\n  assign\n{ADD}\n```", "add")
    assert ex.ok and ex.modules == ("add",) and "broken" not in (ex.code or "")


def test_an_include_in_the_response_is_not_read() -> None:
    # the parser would otherwise open any path: /dev/zero never ends
    ex = extract_verilog(f'```verilog\n`include "/dev/zero"\n{ADD}\n```', "add")
    assert ex.ok and (ex.code or "").startswith('`include "/dev/zero"\nmodule add')
