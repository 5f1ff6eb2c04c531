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
from dataclasses import asdict, dataclass, field
from pathlib import Path

from pyslang import ast

from .mismatch import Finding, findings
from .parse import K, Syntax, elaborate, module_name, modules, nodes, parse_files, walk, where
from .ports import Port, module_view

SIMULATION_ONLY = {K.InitialBlock: "initial block", K.FinalBlock: "final block", K.DelayControl: "# delay",
                   K.Delay3: "# delay"}
# what a power-on value may be built of: numbers and operators on them, nothing that names a signal
CONSTANT = {K.IntegerLiteralExpression, K.IntegerVectorExpression, K.UnbasedUnsizedLiteralExpression,
            K.ParenthesizedExpression, K.UnaryMinusExpression, K.UnaryPlusExpression, K.UnaryBitwiseNotExpression,
            K.ConcatenationExpression, K.MultipleConcatenationExpression, K.AddExpression, K.SubtractExpression,
            K.MultiplyExpression, K.BinaryAndExpression, K.BinaryOrExpression, K.BinaryXorExpression,
            K.LogicalShiftLeftExpression, K.LogicalShiftRightExpression}
SELECTS = {K.ElementSelect, K.BitSelect, K.SimpleRangeSelect}  # mem[3] = ..., q[3:0] = ...
LOOPS = {K.ForLoopStatement, K.LoopStatement, K.DoWhileStatement, K.ForeverStatement,
         K.ForeachLoopStatement}
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


def _constant(expr: Syntax, allowed: set[K]) -> bool:
    return all(n.kind in allowed for n in walk(expr))


def power_on_problem(block: Syntax) -> str | None:
    """Why an ``initial`` block is not a set of power-on values (constants assigned to registers), or None."""
    st = block.statement
    items = nodes(st.items) if st.kind == K.SequentialBlockStatement else [st]
    for it in items:
        if it.kind == K.TimingControlStatement:
            return "a delay or event control"
        if it.kind in LOOPS:
            return "a loop"
        if it.kind != K.ExpressionStatement:
            return f"a statement other than an assignment ({str(it.kind).split('.')[-1]})"
        e = it.expr
        if any(n.kind in (K.InvocationExpression, K.SystemName) for n in walk(e)):
            return "a system task or function call"
        if e.kind not in (K.AssignmentExpression, K.NonblockingAssignmentExpression):
            return f"an expression other than an assignment ({str(e.kind).split('.')[-1]})"
        if any(n.kind in SIMULATION_ONLY or n.kind == K.EventControl for n in walk(e)):
            return "a delay or event control"
        if e.left.kind not in (K.IdentifierName, K.IdentifierSelectName) or not all(
                _constant(n, CONSTANT | SELECTS) for n in list(walk(e.left))[1:]):
            return "an assignment to something other than a register (or one element of it)"
        if not _constant(e.right, CONSTANT):
            return "a value that is not a constant"
    return None


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
             for t in trees for n in walk(t.root) if n.kind in SIMULATION_ONLY]
    initial = {text: power_on_problem(n) for text, n in found if n.kind == K.InitialBlock}
    return Elaborated(bool(tops), names, ports, [text for text, _ in found], errors,
                      [text for text, why in initial.items() if why is None],
                      {text: why for text, why in initial.items() if why is not None}, findings(trees, comp))


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
