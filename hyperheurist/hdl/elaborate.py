"""The elaborated view of a candidate the structure gate checks: the top's ports, the modules, the
simulation-only constructs (``initial``/``final`` blocks, ``#`` delays) and pyslang's errors.

Untrusted text is elaborated in a sandboxed child with the design's memory and time limits (a generate
bomb or a pyslang crash ends the child, never hh): ``CHILD_ARGV + (TOP, PARAMS_JSON, FILE...)`` prints
the view as JSON. The child is isolated (``-I``) and finds this package through an explicit path, so it
needs to read only the package folder (``CHILD_READABLE``); it imports pyslang and hdl.parse/ports only.
"""

from __future__ import annotations

import json
import sys
from dataclasses import asdict, dataclass
from pathlib import Path

from pyslang import ast

from .parse import K, elaborate, module_name, modules, parse_files, walk, where
from .ports import Port, module_view

SIMULATION_ONLY = {K.InitialBlock: "initial block", K.FinalBlock: "final block", K.DelayControl: "# delay",
                   K.Delay3: "# delay"}
# the child's command (then TOP PARAMS_JSON FILE...) and the folder the sandbox must let it read
CHILD_READABLE = Path(__file__).resolve().parent.parent
CHILD_ARGV = (sys.executable, "-I", "-c", "import sys; sys.path.insert(0, sys.argv.pop(1)); "
              "from hyperheurist.hdl.elaborate import main; sys.exit(main(sys.argv[1:]))", str(CHILD_READABLE.parent))


@dataclass(frozen=True)
class Elaborated:
    top_found: bool
    modules: list[str]
    ports: list[Port]
    timing: list[str]  # "file:line: initial block" / "file:line: # delay" / "file:line: final block"
    errors: list[str]  # "file:line: DiagCode(...)"

    def to_json(self) -> str:
        return json.dumps(asdict(self))

    @classmethod
    def from_json(cls, text: str) -> Elaborated:
        """The child's report; ValueError/TypeError/KeyError when it is not one."""
        data = json.loads(text)
        return cls(bool(data["top_found"]), list(data["modules"]), [Port(**p) for p in data["ports"]],
                   list(data["timing"]), list(data["errors"]))


def elaborated(files: list[Path], top: str, params: dict[str, str]) -> Elaborated:
    """In process: only for trusted or already-vetted text (candidates go through the child)."""
    trees = parse_files(files)
    if not trees:
        return Elaborated(False, [], [], [], [])
    comp = elaborate(trees, top, params)
    sm = trees[0].sourceManager
    names = sorted({module_name(m) for t in trees for m in modules(t)})
    errors = [f"{where(sm, d.location)}: {d.code}" for d in comp.getAllDiagnostics() if d.isError()]
    tops = [i for i in comp.getRoot().topInstances if i.name == top]
    ports = list(module_view(tops[0], sm).ports) if tops else []
    timing = [f"{where(t.sourceManager, n.sourceRange.start)}: {SIMULATION_ONLY[n.kind]}"
              for t in trees for n in walk(t.root) if n.kind in SIMULATION_ONLY]
    return Elaborated(bool(tops), names, ports, timing, errors)


def instance_paths(files: list[Path], module: str) -> list[str]:
    """Hierarchical paths (from the root modules) of every instance of ``module``."""
    comp = elaborate(parse_files(files))
    found: list[str] = []

    def visit(inst: ast.InstanceSymbol, path: str) -> None:
        if inst.definition.name == module:
            found.append(path)
            return
        for member in inst.body:
            if isinstance(member, ast.InstanceSymbol):
                visit(member, f"{path}.{member.name}")

    for top in comp.getRoot().topInstances:
        visit(top, top.name)
    return found


def main(argv: list[str]) -> int:
    top, params, files = argv[0], json.loads(argv[1]), [Path(f) for f in argv[2:]]
    print(elaborated(files, top, params).to_json())
    return 0
