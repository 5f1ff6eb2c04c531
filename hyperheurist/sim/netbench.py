"""What a gate-level netlist needs to sit in the differential bench (``sim.difftb``) beside its own RTL.

- ``port_wrapper``: a netlist whose ports were split bit by bit (``splitnets -ports`` on a hierarchical
  netlist: ``\\a[0]``) is wrapped in a module with the RTL's vector ports, so the bench connects it as
  it connects the RTL;
- ``generic_cells``: Yosys' own simulation models of its internal cells (``simcells.v``, ``simlib.v``)
  for a generic netlist that instantiates them (``write_verilog`` writes most of them as expressions).
"""

from __future__ import annotations

import re
from collections.abc import Collection
from pathlib import Path

from .difftb import TbPort

WRAPPER = "hh_netlist_wrap"
# an instance of one of Yosys' internal cells: `\$_DFF_P_ name (` or `\$and #(...) name (`
_GENERIC_CELL = re.compile(r"^\s*\\\$(_?)\w+\s+(?:#\(|\\?\S+\s*\()", re.M)


def port_wrapper(ports: list[TbPort], top: str, split: Collection[str]) -> str:
    """A module ``hh_netlist_wrap`` with ``ports`` as vectors around the netlist's ``top``; the ports
    named in ``split`` are connected bit by bit to the netlist's escaped per-bit ports."""
    decls = [f"  {p.dir} [{p.width - 1}:0] {p.name};" for p in ports]
    conns = []
    for p in ports:
        if p.name in split:
            conns += [f".\\{p.name}[{i}] ({p.name}[{i}])" for i in range(p.width)]
        else:
            conns.append(f".{p.name}({p.name})")
    return (f"module {WRAPPER} ({', '.join(p.name for p in ports)});\n" + "\n".join(decls) + "\n"
            f"  {top} hh_netlist ({', '.join(conns)});\nendmodule\n")


def yosys_share(yosys: Path) -> Path | None:
    """Yosys' data folder (``yosys-config --datdir``) beside the binary, or the distribution's."""
    for share in (yosys.resolve().parent.parent / "share" / "yosys", Path("/usr/share/yosys"),
                  Path("/usr/local/share/yosys")):
        if (share / "simcells.v").is_file():
            return share
    return None


def generic_cells(netlist: str, share: Path | None) -> list[Path]:
    """The model files a generic netlist needs: none when it instantiates no internal cell, else
    ``simcells.v`` (gate cells, ``\\$_AND_``) and, for word-level cells (``\\$and``), ``simlib.v``.
    Raises FileNotFoundError when they are needed and Yosys' data folder is unknown."""
    kinds = {m.group(1) for m in _GENERIC_CELL.finditer(netlist)}
    if not kinds:
        return []
    if share is None:
        raise FileNotFoundError("simcells.v")
    return [share / "simcells.v"] + ([share / "simlib.v"] if "" in kinds else [])
