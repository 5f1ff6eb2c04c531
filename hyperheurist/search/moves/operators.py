"""operator_library: a recognised operator -> an alternative architecture from ``oparch``.

Sites (unsigned files without overridable parameters; modules that elaborate as a top of their
file, so every width is the declared one), in module-level continuous assigns and always blocks:

- ``t = a + b`` (or ``a + b + c``, c one bit: a carry in) / ``a - b`` / ``a * b`` as the whole
  right-hand side of a continuous assign or of a ``<=`` (counters: ``q <= q + 1``), ``t`` a plain
  name or a concatenation of them, the operands plain names, zero-extended ones (``{1'b0, a}``) or,
  for ``+``/``-``, literals: the expression's width is max(t, a, b) and only its low |t| bits are
  kept, so a module computing the operator mod 2^|t| on the operands' values is exact;
- ``a < b``, ``>``, ``<=``, ``>=`` on plain names anywhere: a 1-bit result whatever its context, so
  the relation becomes the module's output (``!`` of it for ``<=``/``>=``, a self-determined not);
- ``t = 1 << s`` (a literal 1): bit i of the result is ``s == i`` (see ``DecoderCompare``).

In an always block (on a clock edge, ``@*``, ``always_comb``/``always_ff``: ``_settled``) an operand must
not be updated by procedural code other than by ``<=`` (``blocking_targets``): the module instance sees a
name's settled value, which is what a ``<=`` or a condition reads then.
The architecture is a module appended to the file (``oplib_<arch>_<op>_<wa>_<wb>_<r>_<host module>``,
one per shape, shared by later sites), instantiated just before the statement; its output wire replaces the
operator. Each kept architecture of the site's operator is a separate option. ``KEPT`` lists those
that won on area, delay or power at some width against Yosys's own mapping (results/oplib.md).
An instance the move put in is itself an option site (``swaps``): another kept architecture, or the
plain operator back, so the annealer can trade architectures; a module goes with its last instance.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from dataclasses import replace as with_field

from pyslang.syntax import SyntaxKind

from ...hdl.ports import module_widths
from ..state import MoveContext
from .expr import Syntax, assignment_of, identifier, literal, replace, unparen
from .oparch import ALL_ARCHS, Arch
from .rtl import RtlMove, line_span
from .verilog import Edit, K, identifiers, module_name, nodes, walk

PREFIX = "oplib"  # hh_ is reserved for hh's own testbench modules (gates.safety)
# measured in results/oplib.md: the architectures that beat Yosys's mapping on some metric at some width
KEPT = {"add": ("ks", "sk", "bk", "cs"), "addc": ("ks", "sk", "bk", "rc", "cs"), "sub": ("ks", "sk", "bk", "rc", "cs"),
        "lt": ("tree", "chain"),
        "mul": ("dadda_ks", "dadda_rc"), "dec": ("predec",)}
# widest operand (dec: select) handled; a wider multiplier's proof takes minutes (toolchain notes: 12x12 did not end)
MAX_WIDTH = {"add": 64, "addc": 64, "sub": 64, "lt": 64, "mul": 8, "dec": 8}
MAX_RESULT = 256
ALWAYS = (K.AlwaysBlock, K.AlwaysFFBlock, K.AlwaysCombBlock)
PROCEDURAL = {*ALWAYS, K.AlwaysLatchBlock, K.InitialBlock, K.FinalBlock, K.FunctionDeclaration, K.TaskDeclaration}
BINARY = {K.AddExpression: "add", K.SubtractExpression: "sub", K.MultiplyExpression: "mul"}
# relation -> (operands swapped, result negated) for ``a < b``: a > b is b < a, a <= b is !(b < a)
RELATIONS = {K.LessThanExpression: (False, False), K.GreaterThanExpression: (True, False),
             K.LessThanEqualExpression: (True, True), K.GreaterThanEqualExpression: (False, True)}
EDGE = re.compile(r"\b(posedge|negedge)\b")


@dataclass(frozen=True)
class Site:
    """One operator instance: what it computes, its port connections and widths, what it replaces."""

    op: str
    a: str
    b: str
    wa: int
    wb: int
    r: int
    node: Syntax  # the expression the module's output replaces
    statement: Syntax  # the continuous assign the instance goes before
    invert: bool = False  # the relation is the negation of a < b
    carry: str = ""  # addc: the carry in's connection
    host: str = ""  # the module the operator is in


def _operand(node: Syntax, widths: dict[str, int], literals: bool) -> tuple[str, int] | None:
    """(connection text, width) of a plain name or a zero-extended one (``{1'b0, a}``: the same value),
    or of a non-negative literal when ``literals``."""
    node = unparen(node)
    if node.kind == K.ConcatenationExpression:
        parts = nodes(node.expressions)
        zero = literal(unparen(parts[0])) if len(parts) == 2 else None
        return _operand(parts[1], widths, False) if zero is not None and zero[0] == 0 else None
    name = identifier(node)
    if name is not None:
        return (name, widths[name]) if name in widths else None
    lit = literal(node) if literals else None
    if lit is None or lit[0] < 0:
        return None
    size = lit[1].split("'")[0] if "'" in lit[1] else ""  # an unsized literal is 32 bits
    width = int(size) if size else 32
    return f"{width}'d{lit[0]}", width


def _target_width(left: Syntax, widths: dict[str, int]) -> int | None:
    """Width of an assignment target: a plain name or a concatenation of plain names."""
    left = unparen(left)
    parts = nodes(left.expressions) if left.kind == K.ConcatenationExpression else [left]
    names = [identifier(p) for p in parts]
    return sum(widths[x] for x in names if x is not None) if all(x in widths for x in names) else None


def _add_terms(node: Syntax) -> list[Syntax]:
    node = unparen(node)
    return [*_add_terms(node.left), *_add_terms(node.right)] if node.kind == K.AddExpression else [node]


def _assign_site(n: Syntax, stmt: Syntax, widths: dict[str, int], kind: SyntaxKind) -> Site | None:
    """``t = a OP b``, ``t = a + b + c`` (c one bit) or ``t = 1 << s`` as the whole right-hand side of an
    assignment of ``kind``."""
    a_ = assignment_of(n)
    r = _target_width(a_.left, widths) if a_ is not None and a_.kind == kind else None
    if r is None:
        return None
    if n.kind == K.LogicalShiftLeftExpression:
        one, s = literal(unparen(n.left)), identifier(n.right)
        if one is None or one[0] != 1 or s is None or s not in widths:
            return None
        return Site("dec", s, "", widths[s], 0, r, n, stmt)
    op = BINARY[n.kind]
    terms = _add_terms(n) if op == "add" else [n.left, n.right]
    found = [_operand(t, widths, op != "mul") for t in terms]
    ops = [x for x in found if x is not None]
    if len(ops) != len(found):
        return None
    carry = ""
    if len(ops) == 3:  # a + b + c with a one-bit c: an adder with a carry in
        c = next((x for x in reversed(ops) if x[1] == 1), None)
        if c is None:
            return None
        ops.remove(c)
        op, carry = "addc", c[0]
    if len(ops) != 2 or all(x[0][0].isdigit() for x in ops):
        return None
    (x, wx), (y, wy) = ops
    return Site(op, x, y, wx, wy, r, n, stmt, carry=carry)


def _relation_site(n: Syntax, stmt: Syntax, widths: dict[str, int]) -> Site | None:
    swap, invert = RELATIONS[n.kind]
    x, y = identifier(n.left), identifier(n.right)
    if x is None or y is None or x not in widths or y not in widths:
        return None
    if swap:
        x, y = y, x
    return Site("lt", x, y, widths[x], widths[y], 1, n, stmt, invert)


def _procedural(node: Syntax) -> bool:
    p = node.parent
    while p is not None and p.kind not in PROCEDURAL:
        p = p.parent
    return p is not None


def blocking_targets(mod: Syntax) -> set[str]:
    """Names a procedural block updates other than by ``<=``: read in an always block, such a name may
    hold a value mid-block that an instance outside the block never sees."""
    out: set[str] = set()
    for n in walk(mod):
        name = n.kind.name
        if name.endswith("AssignmentExpression") and n.kind != K.NonblockingAssignmentExpression and _procedural(n):
            out.update(identifiers(n.left))
        elif "crement" in name:
            out.update(identifiers(n))
    return out


def _settled(block: Syntax) -> bool:
    """An always block that runs on a clock edge or on any change of what it reads (``@*``,
    ``always_comb``, ``always_ff``): it then reads an instance's output after the instance has updated.
    Under an explicit list such as ``@(a or b)`` it would run on a change of ``a`` before the output
    followed, and not run at all when only the output changes."""
    if block.kind != K.AlwaysBlock:
        return True
    stmt = block.statement
    if stmt.kind != K.TimingControlStatement:
        return False
    tc = stmt.timingControl
    return bool(tc.kind == K.ImplicitEventControl or EDGE.search(str(tc)))


def find_sites(tree: Syntax) -> list[Site]:
    """Every operator instance of the file this move can substitute."""
    kinds = {*BINARY, *RELATIONS, K.LogicalShiftLeftExpression}
    found: list[tuple[Syntax, Syntax, str, set[str] | None]] = []
    for mod in (m for m in walk(tree.root) if m.kind == K.ModuleDeclaration):
        name = module_name(mod)
        if name.startswith(PREFIX):
            continue
        blocked = blocking_targets(mod)
        for stmt in walk(mod):
            if stmt.parent is None or stmt.parent.kind != K.ModuleDeclaration or \
                    stmt.kind not in (K.ContinuousAssign, *ALWAYS) or (stmt.kind in ALWAYS and not _settled(stmt)):
                continue
            block = None if stmt.kind == K.ContinuousAssign else blocked
            found += [(n, stmt, name, block) for n in walk(stmt) if n.kind in kinds]
    if not found:
        return []
    widths = module_widths([tree])  # each module that elaborates as a top of this file
    out = []
    for n, stmt, mod_name, block in found:
        w = widths.get(mod_name, {})
        if block is not None:  # in an always block: only names whose value there is the continuous one
            w = {k: v for k, v in w.items() if k not in block}
        if n.kind in RELATIONS:
            site = _relation_site(n, stmt, w)
        else:
            site = _assign_site(n, stmt, w, K.AssignmentExpression if block is None
                                else K.NonblockingAssignmentExpression)
        if site is not None and max(site.wa, site.wb) <= MAX_WIDTH[site.op] and site.r <= MAX_RESULT:
            out.append(with_field(site, host=mod_name))
    return out


def module_for(arch: Arch, site: Site) -> tuple[str, str]:
    """(module name, module text) of ``arch`` at the site's widths. The name carries the host module's,
    so that two files of one design never both define it (a file's sites share it)."""
    name = f"{PREFIX}_{arch.name}_{arch.op}_{site.wa}_{site.wb}_{site.r}_{site.host}"
    return name, arch.make(name, site.wa, site.wb, site.r)


def substitute(text: str, site: Site, arch: Arch) -> list[Edit] | None:
    """The edits that put ``arch`` in place of the site's operator (None when a module of that name
    exists with other contents)."""
    name, module = module_for(arch, site)
    declared = re.search(rf"\bmodule\s+{name}\b", text) is not None
    if declared and module not in text:
        return None
    k = 0
    while re.search(rf"\b{PREFIX}{k}(_y)?\b", text):
        k += 1
    inst, wire = f"{PREFIX}{k}", f"{PREFIX}{k}_y"
    start, _ = line_span(text, site.statement.sourceRange.start.offset, site.statement.sourceRange.end.offset)
    indent = text[start:site.statement.sourceRange.start.offset]
    ports = f".s({site.a})" if site.op == "dec" else f".a({site.a}), .b({site.b})"
    ports += f", .c({site.carry})" if site.carry else ""
    edits = [Edit(start, start, f"{indent}wire {f'[{site.r - 1}:0] ' if site.r > 1 else ''}{wire};\n"
                                f"{indent}{name} {inst} ({ports}, .y({wire}));\n"),
             replace(site.node, f"(!{wire})" if site.invert else wire)]
    if not declared:
        edits.append(Edit(len(text), len(text), ("" if text.endswith("\n") else "\n") + "\n" + module))
    return edits


INSTANCE = re.compile(rf"^{PREFIX}_([a-z_]+?)_(add|addc|sub|lt|mul|dec)_(\d+)_(\d+)_(\d+)_(\w+)$")
CONNECTION = re.compile(r"\.([abcsy])\(([^()]*)\)")
PLAIN = {"add": "{a} + {b}", "addc": "{a} + {b} + {c}", "sub": "{a} - {b}", "mul": "{a} * {b}", "lt": "{a} < {b}",
         "dec": "1 << {s}"}


def _drop_module(text: str, tree: Syntax, name: str) -> list[Edit]:
    """Delete module ``name`` when the instance about to change is its only one (its name then occurs
    twice: declaration and instance), with the blank line ``substitute`` put before it."""
    if len(re.findall(rf"\b{name}\b", text)) != 2:
        return []
    mod = next((m for m in walk(tree.root) if m.kind == K.ModuleDeclaration and module_name(m) == name), None)
    if mod is None:
        return []
    start, end = line_span(text, mod.sourceRange.start.offset, mod.sourceRange.end.offset)
    if text[max(0, start - 2):start] == "\n\n":
        start -= 1
    return [Edit(start, end, "")]


def swaps(text: str, tree: Syntax) -> list[tuple[str, list[Edit]]]:
    """For each library instance the move put in a host module: every other kept architecture of its
    operator, and the plain operator back (``assign <its wire> = a OP b``, exact by the same width rules)."""
    out: list[tuple[str, list[Edit]]] = []
    for inst in walk(tree.root):
        if inst.kind != K.HierarchyInstantiation or inst.parent.kind != K.ModuleDeclaration:
            continue
        m = INSTANCE.match(str(inst.type.valueText))
        if m is None or m.group(1) not in KEPT[m.group(2)]:
            continue
        arch_name, op, wa, wb, r, host = m.groups()
        site = Site(op, "", "", int(wa), int(wb), int(r), None, inst, host=host)
        old = m.group(0)
        drop = _drop_module(text, tree, old)
        at = inst.type.location.offset
        for arch in ALL_ARCHS:
            if arch.op != op or arch.name == arch_name or arch.name not in KEPT[op]:
                continue
            name, module = module_for(arch, site)
            declared = re.search(rf"\bmodule\s+{name}\b", text) is not None
            if declared and module not in text:
                continue
            edits = [Edit(at, at + len(old), name), *drop]
            if not declared:
                edits.append(Edit(len(text), len(text), ("" if text.endswith("\n") else "\n") + "\n" + module))
            out.append((f"{op}:{arch.name}", edits))
        ports = dict(CONNECTION.findall(str(inst)))
        if all(k in ports for k in ["y", *re.findall(r"\{(\w)\}", PLAIN[op])]):
            expr = PLAIN[op].format(**ports)
            start, end = line_span(text, inst.sourceRange.start.offset, inst.sourceRange.end.offset)
            indent = text[start:inst.sourceRange.start.offset]
            out.append((f"{op}:plain", [Edit(start, end, f"{indent}assign {ports['y']} = {expr};\n"), *drop]))
    return out


class OperatorLibrary(RtlMove):
    """An adder, subtractor, comparator, small multiplier or decoder -> another architecture."""

    name = "operator_library"
    requires = "fixed-widths"
    finishing = True  # its instances hide the operators from the word-level moves: those go first

    def options(self, text: str, tree: Syntax) -> list[tuple[str, list[Edit]]]:
        """Every (architecture label, edits) for every site of the file, and every swap of a library
        instance to another architecture or back to the plain operator."""
        out = swaps(text, tree)
        for site in find_sites(tree):
            for arch in ALL_ARCHS:
                if arch.op == site.op and arch.name in KEPT[site.op]:
                    edits = substitute(text, site, arch)
                    if edits is not None:
                        out.append((f"{arch.op}:{arch.name}", edits))
        return out

    def sites(self, text: str, tree: Syntax, ctx: MoveContext, rng: random.Random) -> list[list[Edit]]:
        return [edits for _, edits in self.options(text, tree)]
