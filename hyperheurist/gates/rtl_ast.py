"""pyslang views of the candidate: the top module's ports after elaboration, initial/final blocks, delays.

Superseded by hdl.elaborate (the same view, on hdl.parse); kept only while gates/structure.py runs this
file as its sandboxed child and gates/simulation.py imports instance_paths from it.

Why pyslang here: it is a complete SystemVerilog front end (0.1-1 ms per file) that resolves port
types and parameterised widths exactly, with file:line locations, and it sees syntax that Yosys
silently accepts or drops (``initial`` blocks, ``#`` delays).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyslang
from pyslang import ast, syntax

DIRS = {"In": "input", "Out": "output", "InOut": "inout", "Ref": "ref"}
DELAY_KINDS = {"DelayControl", "Delay3"}
BLOCKS = {"InitialBlock": "initial block", "FinalBlock": "final block"}  # simulation-only, as # delays


@dataclass(frozen=True)
class PortInfo:
    name: str
    dir: str
    width: int
    signed: bool
    where: str


@dataclass
class Elaborated:
    top_found: bool
    modules: list[str]
    ports: list[PortInfo]
    timing: list[str]  # "file:line: initial block" / "file:line: delay"
    errors: list[str]


def _where(sm: pyslang.SourceManager, loc: pyslang.SourceLocation) -> str:
    try:
        return f"{Path(sm.getFileName(loc)).name}:{sm.getLineNumber(loc)}"
    except Exception:  # a location pyslang cannot map (macro expansion): keep the message usable
        return "?"


# elaboration bounds well under pyslang's defaults: a generate or recursion bomb stops here
# (the child process's memory and time limits stop what these do not)
BOUNDS = {"maxGenerateSteps": 65536, "maxInstanceDepth": 64, "maxInstanceArray": 65536,
          "maxConstexprSteps": 1_000_000, "maxConstexprDepth": 64, "maxDefParamSteps": 4096,
          "errorLimit": 32}


def elaborate(files: list[Path], top: str, params: dict[str, str]) -> Elaborated:
    """In-process: only for trusted or already-vetted text (the structure stage runs this in a
    sandboxed child for candidates)."""
    sm = pyslang.SourceManager()  # one per call: the default manager would grow forever in a long run
    trees = [syntax.SyntaxTree.fromFile(str(f), sm) for f in files]
    opts = ast.CompilationOptions()
    opts.topModules = {top}
    opts.paramOverrides = [f"{k}={v}" for k, v in params.items()]
    for key, value in BOUNDS.items():
        setattr(opts, key, value)
    comp = ast.Compilation(pyslang.Bag([opts]))
    for t in trees:
        comp.addSyntaxTree(t)
    root = comp.getRoot()
    modules = sorted({n for t in trees for n in _module_names(t)})
    errors = [f"{_where(sm, d.location)}: {d.code}" for d in comp.getAllDiagnostics() if d.isError()]
    ports: list[PortInfo] = []
    found = False
    for inst in root.topInstances:
        if inst.name != top:
            continue
        found = True
        for p in inst.body.portList:
            direction = DIRS.get(str(p.direction).split(".")[-1], str(p.direction))
            ports.append(PortInfo(p.name, direction, int(p.type.bitWidth), bool(p.type.isSigned),
                                  _where(sm, p.location)))
    timing: list[str] = []
    for t in trees:
        def visit(node: Any) -> bool:
            kind = str(node.kind).split(".")[-1]
            if kind in BLOCKS:
                timing.append(f"{_where(sm, node.sourceRange.start)}: {BLOCKS[kind]}")
            elif kind in DELAY_KINDS:
                timing.append(f"{_where(sm, node.sourceRange.start)}: # delay")
            return True
        t.root.visit(visit)
    return Elaborated(found, modules, ports, timing, errors)


def _module_names(tree: syntax.SyntaxTree) -> list[str]:
    out: list[str] = []

    def visit(node: Any) -> bool:
        if str(node.kind).split(".")[-1] == "ModuleDeclaration":
            out.append(node.header.name.valueText)
        return True

    tree.root.visit(visit)
    return out


def instance_paths(files: list[Path], module: str) -> list[str]:
    """Hierarchical paths (from the root modules) of every instance of ``module``."""
    sm = pyslang.SourceManager()
    comp = ast.Compilation()
    for f in files:
        comp.addSyntaxTree(syntax.SyntaxTree.fromFile(str(f), sm))
    found: list[str] = []

    def walk(inst: Any, path: str) -> None:
        if inst.definition.name == module:
            found.append(path)
            return
        for member in inst.body:
            kind = str(member.kind).split(".")[-1]
            if kind == "Instance":
                walk(member, f"{path}.{member.name}")

    for top in comp.getRoot().topInstances:
        walk(top, top.name)
    return found


def main(argv: list[str]) -> int:
    """``python rtl_ast.py TOP PARAMS_JSON FILE...``: the Elaborated view as JSON on stdout. Run as a
    script (not ``-m``), so the child imports pyslang and nothing of hh."""
    import json
    from dataclasses import asdict

    top, params, files = argv[0], json.loads(argv[1]), [Path(f) for f in argv[2:]]
    print(json.dumps(asdict(elaborate(files, top, params))))
    return 0


if __name__ == "__main__":
    import sys

    sys.exit(main(sys.argv[1:]))
