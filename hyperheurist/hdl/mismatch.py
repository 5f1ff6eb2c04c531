"""Constructs that the simulators and Yosys read as two different circuits (docs/mismatch.md has the measurements).

Each finding names its rule (the key of ``verification.mismatch``), ``file:line`` and why, worded for a repair
prompt. Everything is read from pyslang: the syntax tree (literals, case statements, attributes, comments as
trivia of the tokens they precede) and the elaborated design (which signals a level-sensitive ``always`` reads).
A text search only skips the tree walks a text cannot need (no ``===``, no x/z digit, no pragma word...).

- ``x_compare``: ``===``/``!==``/``==?``/``!=?``; ``==``, ``!=``, ``<``... with an x/z literal operand; ``casex``;
  ``case`` items with x, z or ``?`` digits, ``casez`` items with x digits (``?``/z in casez items are the usual
  don't-cares and read alike everywhere); ``$isunknown``; ``$countbits`` asked to count x or z.
- ``sensitivity``: an ``always @(...)`` without an edge that reads a signal its list does not name (a signal the
  block itself assigned with ``=`` before reading it is a temporary, not an input; one assigned with ``<=`` is).
- ``synthesis_pragmas``: ``// synopsys full_case``-style comments (the first word names a tool, a later one the
  directive: a comment that merely mentions one is no pragma), the ``full_case``/``parallel_case``/``blackbox``
  attributes, and ``unique``/``unique0``/``priority`` qualifiers Yosys reads as full/parallel case where they
  change the circuit (no ``default`` item, or wildcard items).
``#`` delays are found by ``hdl.elaborate`` (its ``timing`` list); their policy key is ``delays``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

import pyslang
from pyslang import ast, parsing, syntax

from .parse import K, Syntax, walk, where

RULES = ("x_compare", "sensitivity", "delays", "synthesis_pragmas")
CASE_COMPARE = {K.CaseEqualityExpression: "===", K.CaseInequalityExpression: "!==",
                K.WildcardEqualityExpression: "==?", K.WildcardInequalityExpression: "!=?"}
COMPARE = {K.EqualityExpression: "==", K.InequalityExpression: "!=", K.LessThanExpression: "<",
           K.LessThanEqualExpression: "<=", K.GreaterThanExpression: ">", K.GreaterThanEqualExpression: ">="}
# the first word of a comment that some synthesis tool reads as a directive (Yosys: synopsys, synthesis)
PRAGMA_TOOLS = frozenset({"synopsys", "synthesis", "pragma", "cadence", "ambit", "exemplar", "rtl_synthesis"})
PRAGMA_WORDS = ("full_case", "parallel_case")  # Yosys 0.23 matches them anywhere after `synopsys `
# attributes Yosys acts on and the simulators ignore
ATTRIBUTES = {"full_case": "makes every unlisted case value a don't-care in synthesis only",
              "parallel_case": "drops the case priority in synthesis only",
              "blackbox": "makes Yosys drop the module's body (the simulators run it)",
              "whitebox": "makes Yosys treat the module as a cell (the simulators run it)"}
# text a design must contain for the syntax rules to find anything (a search, then the tree decides)
SYNTAX_TRIGGERS = ("===", "!==", "==?", "!=?", "casex", "unique", "priority", "$isunknown", "$countbits", "(*", "'x",
                   "'z", "'X", "'Z")
XZ_DIGIT = re.compile(r"'[sS]?[bBoOhHdD]\s*[0-9a-fA-F_]*[xXzZ?]")  # a based literal with an x, z or ? digit
WATCHED = {*CASE_COMPARE, *COMPARE, K.CaseStatement, K.InvocationExpression, K.AttributeSpec}
SIGNALS = {ast.SymbolKind.Net, ast.SymbolKind.Variable}
EDGES = {ast.EdgeKind.PosEdge, ast.EdgeKind.NegEdge, ast.EdgeKind.BothEdges}


@dataclass(frozen=True)
class Finding:
    rule: str  # one of RULES
    where: str  # file:line
    what: str  # why, for a repair prompt


def _xz(node: Syntax) -> str:
    """The x/z/? digits of a literal node ('' for none)."""
    if node.kind == K.IntegerVectorExpression:
        return "".join(sorted({c for c in node.value.rawText.lower() if c in "xz?"}))
    if node.kind == K.UnbasedUnsizedLiteralExpression:
        return "".join(c for c in node.literal.rawText.lower()[1:] if c in "xz")
    return ""


def _xz_below(node: Syntax) -> str:
    return "".join(sorted({c for n in walk(node) for c in _xz(n)}))


def _case_problem(node: Syntax) -> tuple[str, str] | None:
    kw, qual = node.caseKeyword.valueText, node.uniqueOrPriority.valueText
    if kw == "casex":
        return ("x_compare", "casex treats x and z in the case expression as wildcards in simulation only (an "
                "unknown selector matches an item no circuit would): use casez with ? don't-cares, or case")
    if _xz_below(node.expr):
        return ("x_compare", f"{kw} expression holds an x/z literal: it compares unknowns, which no circuit has")
    items: list[Syntax] = [it for it in node.items if isinstance(it, syntax.SyntaxNode)]
    for it in items:
        if it.kind != K.StandardCaseItem:
            continue
        digits = "".join(sorted({c for e in it.expressions if isinstance(e, syntax.SyntaxNode) for c in _xz_below(e)}))
        bad = digits.replace("z", "").replace("?", "") if kw == "casez" else digits
        if bad:
            fix = "use ? for don't-care bits" if kw == "casez" else "use casez with ? don't-cares"
            return ("x_compare", f"{kw} item with {'/'.join(bad)} digits: simulation matches them only against "
                    f"unknown values, Yosys reads them as don't-cares ({fix})")
    if qual:
        has_default = any(it.kind == K.DefaultCaseItem for it in items)
        if not has_default or (qual != "priority" and kw == "casez"):
            why = "without a default item" if not has_default else "with wildcard items"
            return ("synthesis_pragmas", f"`{qual} {kw}` {why}: Yosys reads it as full_case/parallel_case (unlisted "
                    "or overlapping values become don't-cares), the simulators keep the old value or take the "
                    "first match: add a default item (and drop the qualifier on casez)")
    return None


def _syntax_findings(tree: syntax.SyntaxTree, sm: pyslang.SourceManager) -> Iterator[Finding]:
    for n in walk(tree.root):
        if n.kind not in WATCHED:
            continue
        at = where(sm, n.sourceRange.start)
        if n.kind in CASE_COMPARE:
            yield Finding("x_compare", at, f"`{CASE_COMPARE[n.kind]}` compares x and z as values: a simulator can "
                          "take a branch no circuit takes (Yosys folds it differently); use == or !=")
        elif n.kind in COMPARE and (_xz_below(n.left) or _xz_below(n.right)):
            yield Finding("x_compare", at, f"`{COMPARE[n.kind]}` against an x/z literal: never true in simulation, "
                          "a don't-care for Yosys (compare with 0/1 values)")
        elif n.kind == K.CaseStatement:
            problem = _case_problem(n)
            if problem:
                yield Finding(problem[0], at, problem[1])
        elif n.kind == K.InvocationExpression and n.left.kind == K.SystemName:
            name = n.left.systemIdentifier.valueText
            if name == "$isunknown" or (name == "$countbits" and n.arguments is not None
                                        and any(_xz(a) for a in walk(n.arguments))):
                yield Finding("x_compare", at, f"{name} tests for x/z: 0 in every circuit, so simulation and "
                              "synthesis answer differently once a value is unknown")
        elif n.kind == K.AttributeSpec and n.name.valueText in ATTRIBUTES:
            yield Finding("synthesis_pragmas", at, f"attribute (* {n.name.valueText} *) "
                          f"{ATTRIBUTES[n.name.valueText]}")


def _tokens(node: Syntax) -> Iterator[parsing.Token]:
    for child in node:
        if isinstance(child, syntax.SyntaxNode):
            yield from _tokens(child)
        elif isinstance(child, parsing.Token):
            yield child


def pragma_words(comment: str, directives: tuple[str, ...] = PRAGMA_WORDS) -> list[str]:
    """The ``directives`` a synthesis pragma comment gives (``// synopsys full_case parallel_case``), [] when the
    comment is no pragma: its first word must name a tool, so prose that mentions a directive is none
    (``directives=("translate_off", "synthesis_off")`` asks the same of the code-hiding pragmas)."""
    body = comment[2:-2] if comment.startswith("/*") else comment[2:]
    words = body.split()
    if not words or words[0].lower() not in PRAGMA_TOOLS:
        return []
    rest = " ".join(words[1:]).lower()
    return [w for w in directives if w in rest]


def _texts(sm: pyslang.SourceManager) -> list[str] | None:
    """Every source text the manager holds (None: unknown). Walking a tree in Python costs ~10 us a node,
    searching the text a few ms a megabyte: a text with no trigger of a rule is not walked for it."""
    try:
        return [sm.getSourceText(b) for b in sm.getAllBuffers()]
    except Exception:
        return None


def _any(texts: list[str] | None, words: tuple[str, ...]) -> bool:
    return texts is None or any(w in t for t in texts for w in words)


def _pragma_comments(tree: syntax.SyntaxTree, sm: pyslang.SourceManager) -> Iterator[Finding]:
    comments = (parsing.TriviaKind.LineComment, parsing.TriviaKind.BlockComment)
    for tok in _tokens(tree.root):
        trivia = list(tok.trivia)
        for i, tr in enumerate(trivia):
            if tr.kind not in comments:
                continue
            found = pragma_words(tr.getRawText())
            if not found:
                continue
            # the comment's line: the token's, less the line breaks between the comment's start and the token
            try:
                line = sm.getLineNumber(tok.location) - "".join(t.getRawText() for t in trivia[i:]).count("\n")
                name = where(sm, tok.location).rsplit(":", 1)[0]
            except Exception:  # a location pyslang cannot map: keep the finding
                line, name = 0, "?"
            yield Finding("synthesis_pragmas", f"{name}:{line}", f"synthesis pragma `{' '.join(found)}` in a comment: "
                          "Yosys obeys it, the simulators ignore it (write the case so that it needs none)")


def _lvalue(expr: ast.Expression) -> tuple[list[ast.Symbol], list[ast.Expression]]:
    """The signals an assignment's left side writes, and the expressions it reads (indices)."""
    if isinstance(expr, ast.NamedValueExpression):
        return [expr.symbol], []
    if isinstance(expr, ast.ElementSelectExpression):
        roots, reads = _lvalue(expr.value)
        return roots, [*reads, expr.selector]
    if isinstance(expr, ast.RangeSelectExpression):
        roots, reads = _lvalue(expr.value)
        return roots, [*reads, expr.left, expr.right]
    if isinstance(expr, ast.MemberAccessExpression):
        return _lvalue(expr.value)
    if isinstance(expr, ast.ConcatenationExpression):
        out: tuple[list[ast.Symbol], list[ast.Expression]] = ([], [])
        for op in expr.operands:
            r, e = _lvalue(op)
            out[0].extend(r)
            out[1].extend(e)
        return out
    return [], [expr]


def _is_signal(sym: ast.Symbol) -> bool:
    """A net or variable of the module, not a parameter or a variable declared inside a block or function."""
    if sym.kind not in SIGNALS:
        return False
    scope = sym.parentScope
    return scope is not None and not scope.isProceduralContext


def _reads(stmt: ast.Statement) -> dict[str, ast.Symbol]:
    """Signals the statement reads before assigning them with ``=`` (in text order)."""
    read: dict[str, ast.Symbol] = {}
    temps: set[str] = set()

    def note(sym: ast.Symbol | None) -> None:
        if sym is not None and _is_signal(sym) and sym.name not in temps:
            read.setdefault(sym.name, sym)

    def visit(node: object) -> ast.VisitAction:
        if isinstance(node, ast.AssignmentExpression):
            node.right.visit(visit)
            roots, index = _lvalue(node.left)
            for e in index:
                e.visit(visit)
            for r in roots:
                if node.isCompound:
                    note(r)
                if not node.isNonBlocking and _is_signal(r):
                    temps.add(r.name)
            return ast.VisitAction.Skip
        if isinstance(node, ast.NamedValueExpression):
            note(node.symbol)
        return ast.VisitAction.Advance

    stmt.visit(visit)
    return read


def _listed(timing: ast.TimingControl) -> set[str] | None:
    """The signals a level-sensitive event list names; None for an edge-triggered or implicit (``@*``) one."""
    events = list(timing.events) if isinstance(timing, ast.EventListControl) else [timing]
    names: set[str] = set()
    for ev in events:
        if not isinstance(ev, ast.SignalEventControl) or ev.edge in EDGES:
            return None

        def add(node: object) -> ast.VisitAction:
            if isinstance(node, ast.NamedValueExpression):
                names.add(node.symbol.name)
            return ast.VisitAction.Advance

        ev.expr.visit(add)
    return names


def _sensitivity_findings(comp: ast.Compilation, sm: pyslang.SourceManager) -> list[Finding]:
    seen: dict[str, Finding] = {}

    def visit(node: object) -> ast.VisitAction:
        if not isinstance(node, ast.ProceduralBlockSymbol):
            return ast.VisitAction.Advance
        body = node.body
        if node.procedureKind != ast.ProceduralBlockKind.Always or not isinstance(body, ast.TimedStatement):
            return ast.VisitAction.Skip
        listed = _listed(body.timing)
        if listed is None:
            return ast.VisitAction.Skip
        missing = sorted(n for n in _reads(body.stmt) if n not in listed)
        at = where(sm, node.location)
        if missing and at not in seen:
            names = ", ".join(f"`{n}`" for n in missing[:4]) + (", ..." if len(missing) > 4 else "")
            seen[at] = Finding("sensitivity", at, f"the sensitivity list of this always block misses {names}, which "
                               "it reads: simulation re-runs it only when a listed signal changes, synthesis "
                               "builds the full function (use @* or always_comb)")
        return ast.VisitAction.Skip

    comp.getRoot().visit(visit)
    return list(seen.values())


def findings(trees: list[syntax.SyntaxTree], comp: ast.Compilation) -> list[Finding]:
    """Every mismatch construct of the design (the trees) and of its elaboration (``comp``), in text order."""
    if not trees:
        return []
    sm = trees[0].sourceManager
    texts = _texts(sm)
    out: list[Finding] = []
    if texts is None or any(XZ_DIGIT.search(t) for t in texts) or _any(texts, SYNTAX_TRIGGERS):
        out += [f for t in trees for f in _syntax_findings(t, sm)]
    if _any(texts, PRAGMA_WORDS):
        out += [f for t in trees for f in _pragma_comments(t, sm)]
    return out + _sensitivity_findings(comp, sm)
