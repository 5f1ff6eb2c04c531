"""The elaborated view of a candidate the structure gate checks: the top's ports, the modules, the
simulation-only constructs (``initial``/``final`` blocks, ``#`` delays), which ``initial`` blocks are
power-on values (only constant assignments: what FPGA flows turn into register init values),
pyslang's errors and the constructs simulation and synthesis read apart (``hdl.mismatch``).

Untrusted text is elaborated in a sandboxed child with the design's memory and time limits (a generate
bomb or a pyslang crash ends the child, never hh): ``CHILD_ARGV + (TOP, PARAMS_JSON, FILE...)`` prints
the view as JSON. The child is isolated (``-I``) and finds this package through an explicit path, so it
needs to read only the package folder (``CHILD_READABLE``); it imports pyslang and hdl.parse/ports/mismatch only.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path

from pyslang import ast, syntax

from .initial import initial_verdicts
from .mismatch import Finding, findings
from .parse import K, Syntax, elaborate, module_name, modules, parse_files, where
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
    power_on: list[str] = field(default_factory=list)  # the timing entries of initial blocks of constants only
    not_power_on: dict[str, str] = field(default_factory=dict)  # timing entry of another initial block -> why
    mismatch: list[Finding] = field(default_factory=list)  # constructs simulation and synthesis read apart

    def to_json(self) -> str:
        return json.dumps(asdict(self))

    @classmethod
    def from_json(cls, text: str) -> Elaborated:
        """The child's report; ValueError/TypeError/KeyError when it is not one."""
        data = json.loads(text)
        return cls(bool(data["top_found"]), list(data["modules"]), [Port(**p) for p in data["ports"]],
                   list(data["timing"]), list(data["errors"]), list(data["power_on"]),
                   {str(k): str(v) for k, v in dict(data["not_power_on"]).items()},
                   [Finding(str(f["rule"]), str(f["where"]), str(f["what"])) for f in data["mismatch"]])


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
    found = [(f"{where(t.sourceManager, n.sourceRange.start)}: {SIMULATION_ONLY[n.kind]}", n)
             for t in trees for n in _outside_initial(t.root) if n.kind in SIMULATION_ONLY]
    # initial blocks as elaborated (hdl.initial): one that holds nothing at the parameters is not there
    initial = initial_verdicts(comp)
    timing = [text for text, n in found if n.kind != K.InitialBlock or text in initial]
    return Elaborated(bool(tops), names, ports, timing + [k for k in initial if k not in timing], errors,
                      [text for text, why in initial.items() if why is None],
                      {text: why for text, why in initial.items() if why is not None}, findings(trees, comp))


def _outside_initial(root: Syntax) -> Iterator[Syntax]:
    """``walk`` without the inside of ``initial`` blocks (a delay there is the initial policy's, judged as
    elaborated: in a branch dead at the parameters it is not there)."""
    stack = [root]
    while stack:
        here = stack.pop()
        yield here
        if here.kind != K.InitialBlock:
            stack.extend(reversed([c for c in here if isinstance(c, syntax.SyntaxNode)]))


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
