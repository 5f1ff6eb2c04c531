"""A candidate's file names: which are Verilog, which are headers, which names are safe for a tool."""

from __future__ import annotations

import re

VERILOG_EXT = (".v", ".sv", ".vh", ".svh")
SAFE_NAME = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$")


def is_verilog(name: str) -> bool:
    return name.lower().endswith(VERILOG_EXT)


def is_header(name: str) -> bool:
    return name.lower().endswith((".vh", ".svh"))
