"""The one rule for names and values that reach a tool's command line or generated Verilog.

Config (at load), the gates (-P / -G) and synthesis (hierarchy -chparam) all call these, so a value
accepted here is accepted by every tool. What the tools accept was measured (iverilog 11, verilator 5.048,
yosys 0.23; tests/test_hdl_literals.py re-checks it against the real tools):
- `1_000`, `8'hF_F`, `4'b1x0z`, `16'h?`, `'1`: iverilog -P prints "invalid ... for defparam", exits 0 and
  keeps the default: a silent no-op override.
- `-3`, `3.5`, `1e3`, `-8'sd5`: yosys "Can't decode value".
- `"str"`: yosys `chparam` takes it, `hierarchy -chparam` (what synthesis runs) does not.
- `4'sb1111`: iverilog gives -1, yosys 15: the tools disagree on signed based literals.
- `8'd256`: truncated with a warning; an unsized value over 32 bits is tool-defined (verilator WIDTH).
So a value is an unsigned decimal below 2**31, or a based literal `[size]'[bodh]digits` with no sign flag,
no `_`, no x/z/?, whose value fits its size (32 bits when unsized).
"""

from __future__ import annotations

import re

from pyslang.parsing import TokenKind

from ..errors import ConfigError
from .tokens import TokenStream

_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_$]{0,1023}")
_DECIMAL = re.compile(r"[0-9]{1,10}")
_BASED = re.compile(r"(?P<size>[1-9][0-9]{0,4})?'(?P<base>[bodhBODH])(?P<digits>[0-9a-fA-F]+)")
_RADIX = {"b": 2, "o": 8, "d": 10, "h": 16}
MAX_SIZE = 1024  # bits of a sized literal: far beyond any knob, far below verilator's width limit
_DEFINE_VALUE = re.compile(r"[A-Za-z0-9_.'+-]{0,1024}")  # what reaches a tool's -D option: no blanks, no quotes


class LiteralError(ConfigError, ValueError):
    """A name or value no tool would take as given (a ValueError, so pydantic names the field)."""


def _keyword_free(name: str) -> bool:
    """True when pyslang lexes `name` as one plain identifier (not a Verilog or SystemVerilog keyword)."""
    kinds = [kind for _tok, kind in TokenStream(name.encode())]
    return kinds == [TokenKind.Identifier, TokenKind.EndOfFile]


def identifier(name: str, what: str = "name") -> str:
    """`name` if it is a simple Verilog identifier that no tool reads as a keyword."""
    if not isinstance(name, str) or not _IDENT.fullmatch(name):
        raise LiteralError(f"{what} {name!r}: not a Verilog identifier (letters, digits, _ and $, not first)")
    if not _keyword_free(name):
        raise LiteralError(f"{what} {name!r}: a (System)Verilog keyword, not usable as a name")
    return name


def param_value(value: str | int, what: str = "parameter value") -> str:
    """The text of a parameter override every tool reads alike (see the module docstring), else LiteralError."""
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise LiteralError(f"{what} {value!r}: expected an integer or a based literal such as 8'hFF")
    text = str(value).strip()
    if _DECIMAL.fullmatch(text):
        if int(text) >= 2**31:
            raise LiteralError(f"{what} {text}: a decimal must be below 2**31 (use a sized literal, e.g. 40'd{text})")
        return text
    m = _BASED.fullmatch(text)
    if m is None:
        raise LiteralError(f"{what} {text!r}: {_why_not(text)}")
    radix = _RADIX[m["base"].lower()]
    try:
        number = int(m["digits"], radix)
    except ValueError:
        raise LiteralError(f"{what} {text!r}: digit out of range for base '{m['base']}") from None
    size = int(m["size"]) if m["size"] else 32
    if size > MAX_SIZE:
        raise LiteralError(f"{what} {text!r}: wider than {MAX_SIZE} bits")
    if number >= 2**size:
        raise LiteralError(f"{what} {text!r}: value does not fit in {size} bits (tools would truncate it)")
    return text


def _why_not(text: str) -> str:
    """The specific reason a value is refused (the message a user needs to fix it)."""
    if "_" in text:
        return "no '_' separators (iverilog -P ignores such an override)"
    if text.startswith("-"):
        return "no negative values (yosys cannot decode them)"
    if text.startswith('"'):
        return "no strings (yosys hierarchy -chparam cannot decode them)"
    if re.search(r"'[sS]", text):
        return "no signed based literals (iverilog and yosys read them differently)"
    if re.search(r"[xXzZ?]", text) or text.startswith("'"):
        return "no x/z/? digits or fill literals (iverilog -P ignores such an override)"
    return "expected an unsigned decimal or a based literal such as 8'hFF (no real numbers)"


def param_override(name: str, value: str | int) -> tuple[str, str]:
    """A checked (name, value text) pair for -P / -G / -chparam and generated Verilog."""
    identifier(name, "parameter")
    return name, param_value(value, f"parameter {name} value")


def define(name: str, value: str = "") -> tuple[str, str]:
    """A checked preprocessor macro (name, value) for +define+ / -D: no blanks or quotes in the value."""
    identifier(name, "define")
    if not isinstance(value, str) or not _DEFINE_VALUE.fullmatch(value):
        raise LiteralError(f"define {name}={value!r}: use letters, digits and _ . ' + - only")
    return name, value
