"""The one way hh reads Verilog with pyslang: parse text or files, elaborate, walk, locate, always bounded.

pyslang is a complete SystemVerilog front end (0.1-1 ms per file) with exact widths and file:line
locations. Every tree gets its own SourceManager (pyslang's default one would grow for the whole run)
and the same bounded options: a recursion, include or generate bomb stops here with a diagnostic
(the sandboxed child that elaborates candidates adds memory and time limits on top).

Lifetimes (pyslang 12 is bound with nanobind): ``tree.root``, a node's single-node attributes (``.header``) and
the children ``walk`` yields keep their tree alive; a node's TOKEN attributes (``decl.name``), the elements of
its list attributes (``.members``, ``.ports``, ``.declarators``, ``.items``: what ``nodes`` takes) and AST
symbols do NOT keep their tree or Compilation alive. Keep the tree (or Compilation) referenced while any of those
is, and copy what outlives it into plain Python (offsets, text): a wrapper kept past its owner, if only in a
reference cycle awaiting the collector, makes nanobind abort the process ("inst_new_int(): unexpected
collision!") when a new pyslang object is later allocated at the freed address (tests/test_pyslang_lifetime.py).
pyslang holds the GIL in its calls (measured: a Python thread got under 1% of its free-running loop count during
an elaboration), so threads cannot race inside it.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

import pyslang
from pyslang import ast, parsing, syntax

K = syntax.SyntaxKind
# a syntax node as callers use it: pyslang's stubs type ``.kind`` but not which attributes a node of that
# kind has (``.header`` of a module, ``.left`` of a binary expression); code narrows by ``.kind``
Syntax = Any
MAX_TEXT = 2_000_000  # characters: larger sources are not parsed in process
# elaboration bounds, most under pyslang's defaults: a generate or recursion bomb stops here
BOUNDS = {"maxGenerateSteps": 65536, "maxInstanceDepth": 64, "maxInstanceArray": 65536,
          "maxConstexprSteps": 1_000_000, "maxConstexprDepth": 64, "maxDefParamSteps": 4096,
          "errorLimit": 32}
MAX_INCLUDE_DEPTH = 16
MAX_PARSE_DEPTH = 256  # nesting of expressions/statements (pyslang's default 1024 can exhaust the C stack)
# depth of the syntax tree hh's own analyses accept: benchmark designs reach 23, a 100-term XOR chain ~110;
# a left-deep chain of binary operators passes pyslang's nesting bound at any length
MAX_SYNTAX_DEPTH = 400


def options(include_dirs: Iterable[Path] = (), defines: Mapping[str, str] | None = None,
            includes: bool = True) -> pyslang.Bag:
    """Preprocessor, parser and lexer options with our bounds (and the given include folders and macros).
    ``includes=False``: an `` `include`` is an error and no file is opened."""
    pp = parsing.PreprocessorOptions()
    pp.maxIncludeDepth = MAX_INCLUDE_DEPTH if includes else 0
    pp.additionalIncludePaths = [str(d) for d in include_dirs]
    pp.predefines = [f"{k}={v}" if v else k for k, v in (defines or {}).items()]
    po = parsing.ParserOptions()
    po.maxRecursionDepth = MAX_PARSE_DEPTH
    return pyslang.Bag([pp, po, parsing.LexerOptions()])


def parse(text: str, name: str = "source.sv") -> syntax.SyntaxTree:
    """A syntax tree of one untrusted text, macros resolved within it. No `` `include`` is followed
    (pyslang would open any path, ``/dev/zero`` included). pyslang raises RuntimeError on nesting past its
    hard limit (thousands of parentheses): the text is then unusable."""
    return syntax.SyntaxTree.fromText(text, pyslang.SourceManager(), name, "", options(includes=False))


def parse_files(files: Iterable[Path], include_dirs: Iterable[Path] = (),
                defines: Mapping[str, str] | None = None) -> list[syntax.SyntaxTree]:
    """One tree per trusted (or sandboxed) file, sharing one SourceManager (so locations of all files resolve
    through any tree); includes are followed, up to MAX_INCLUDE_DEPTH."""
    sm = pyslang.SourceManager()
    bag = options(include_dirs, defines)
    return [syntax.SyntaxTree.fromFile(str(f), sm, bag) for f in files]


def elaborate(trees: Iterable[syntax.SyntaxTree], top: str | Collection[str] | None = None,
              params: Mapping[str, str] | None = None) -> ast.Compilation:
    """A bounded compilation of the trees; ``top`` fixes the top module (or modules), ``params`` override its
    parameters."""
    opts = ast.CompilationOptions()
    if top is not None:
        opts.topModules = {top} if isinstance(top, str) else set(top)
    opts.paramOverrides = [f"{k}={v}" for k, v in (params or {}).items()]
    for key, value in BOUNDS.items():
        setattr(opts, key, value)
    comp = ast.Compilation(pyslang.Bag([opts]))
    for t in trees:
        comp.addSyntaxTree(t)
    return comp


def syntax_errors(tree: syntax.SyntaxTree) -> int:
    return sum(1 for d in tree.diagnostics if d.isError())


def semantic_errors(texts: Iterable[str]) -> int:
    """Errors of a full elaboration of all sources together (undeclared names, bad widths, ...).

    The trees share one SourceManager: pyslang refuses a compilation of trees from several."""
    sm, bag = pyslang.SourceManager(), options(includes=False)
    comp = elaborate([syntax.SyntaxTree.fromText(t, sm, f"source{i}.sv", "", bag) for i, t in enumerate(texts)])
    return sum(1 for d in comp.getAllDiagnostics() if d.isError())


def first_error(comp: ast.Compilation, sm: pyslang.SourceManager) -> str | None:
    """pyslang's own first error line (``file:line:col: error: what``), or None."""
    errors = [d for d in comp.getAllDiagnostics() if d.isError()]
    if not errors:
        return None
    return pyslang.DiagnosticEngine.reportAll(sm, errors[:1]).strip().splitlines()[0]


def walk(node: Syntax) -> Iterator[Syntax]:
    """Every syntax node below ``node`` (pre-order, tokens skipped). Iterative: a 100,000-term sum is a
    left-deep tree that pyslang's parser depth bound does not stop, and must not exhaust hh's stack."""
    stack = [node]
    while stack:
        here = stack.pop()
        yield here
        stack.extend(reversed([c for c in here if isinstance(c, syntax.SyntaxNode)]))


def depth_problem(text: str, name: str = "canonical.v") -> str | None:
    """``file:line: ...`` when the syntax tree of ``text`` is deeper than MAX_SYNTAX_DEPTH (hh's analyses walk
    it), else None. Iterative, and stops at the first node past the bound."""
    if len(text) > MAX_TEXT:
        return None  # not parsed in process at all
    try:
        tree = parse(text, name)
    except RuntimeError:
        return None  # pyslang's own nesting limit: the tools report it
    stack = [(tree.root, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > MAX_SYNTAX_DEPTH:
            token = node.getFirstToken()
            at = where(tree.sourceManager, token.location) if token is not None else name
            return (f"{at}: the design nests more than {MAX_SYNTAX_DEPTH} levels deep here (a chain of that many "
                    "operators, or blocks inside blocks); split it with intermediate signals")
        stack.extend((c, depth + 1) for c in node if isinstance(c, syntax.SyntaxNode))
    return None


def nodes(seq: Syntax) -> list[Syntax]:
    """The syntax nodes of a separated list (drops the comma tokens)."""
    return [x for x in seq if isinstance(x, syntax.SyntaxNode)]


def modules(tree: syntax.SyntaxTree) -> list[syntax.ModuleDeclarationSyntax]:
    """Module declarations (``module``/``macromodule``; not interfaces, programs or packages)."""
    return [n for n in walk(tree.root)
            if isinstance(n, syntax.ModuleDeclarationSyntax) and n.kind == K.ModuleDeclaration]


def module_name(mod: syntax.ModuleDeclarationSyntax) -> str:
    return mod.header.name.valueText


def modules_named(tree: syntax.SyntaxTree, name: str) -> list[syntax.ModuleDeclarationSyntax]:
    """The declarations of module ``name`` in ``tree`` (one in a legal file; a move rewrites each it sees)."""
    return [m for m in modules(tree) if module_name(m) == name]


def where(sm: pyslang.SourceManager, loc: pyslang.SourceLocation) -> str:
    """``file:line`` of a location (file name only), "?" for one pyslang cannot map."""
    try:
        return f"{Path(sm.getFileName(loc)).name}:{sm.getLineNumber(loc)}"
    except Exception:  # a location inside a macro expansion: keep the message usable
        return "?"
