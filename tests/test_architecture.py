"""The package's shape rules (docs/architecture.md), checked on the source so a change cannot drift from them."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "hyperheurist"
MAX_LINES = 400


def _modules() -> list[Path]:
    return sorted(p for p in PACKAGE.rglob("*.py") if "__pycache__" not in p.parts)


def _imports(path: Path) -> set[str]:
    """Every module ``path`` imports, absolute (relative imports resolved against its package)."""
    package = path.relative_to(PACKAGE.parent).with_suffix("").parts[:-1]
    return _imports_of(path.read_text(encoding="utf-8"), package)


def _imports_of(text: str, package: tuple[str, ...]) -> set[str]:
    out: set[str] = set()
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = list(package[: len(package) - node.level + 1]) if node.level else []
            mod = ".".join([*base, *(node.module.split(".") if node.module else [])])
            out.add(mod)
            out |= {f"{mod}.{a.name}" for a in node.names}
    return out


def test_no_package_module_is_over_400_lines() -> None:
    long = {str(p.relative_to(PACKAGE)): n for p in _modules()
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_LINES}
    assert not long, long


def test_gates_ppa_and_stages_do_not_reach_up_to_the_run_directory() -> None:
    """Stage folders belong to the stage runner; the run directory is the flow's business."""
    offenders = [str(p.relative_to(PACKAGE)) for sub in ("gates", "ppa", "stages")
                 for p in sorted((PACKAGE / sub).rglob("*.py")) if "hyperheurist.rundir" in _imports(p)]
    assert not offenders, offenders


def test_the_import_reader_resolves_relative_imports() -> None:
    """The check above would pass vacuously if relative imports were not resolved."""
    got = _imports_of("from ..rundir import RunDir\nfrom . import result\nimport json\n", ("hyperheurist", "gates"))
    assert {"hyperheurist.rundir", "hyperheurist.gates.result", "json"} <= got


# ---- the import graph: no circle among the package's modules (issue 31) ---------------------------------------

def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _type_checking_only(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _module_imports(text: str, name: str, is_package: bool, known: set[str]) -> set[str]:
    """The package modules a module's text imports when it runs: at the top and inside functions (a late import
    still closes a circle, it only hides it from the interpreter), not under ``if TYPE_CHECKING:`` (never run).
    ``from pkg import name`` names the submodule ``pkg.name`` when there is one, else ``pkg`` itself."""
    package = name.split(".") if is_package else name.split(".")[:-1]
    out: set[str] = set()
    todo: list[ast.AST] = [ast.parse(text)]
    while todo:
        node = todo.pop()
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and _type_checking_only(child):
                todo.extend(child.orelse)
            elif isinstance(child, ast.Import):
                out |= {a.name for a in child.names if a.name in known}
            elif isinstance(child, ast.ImportFrom):
                base = package[: len(package) - child.level + 1] if child.level else []
                mod = ".".join([*base, *(child.module.split(".") if child.module else [])])
                for alias in child.names:
                    sub = f"{mod}.{alias.name}"
                    out |= {sub} if sub in known else ({mod} if mod in known else set())
            else:
                todo.append(child)
    return out - {name}


def _import_graph() -> dict[str, set[str]]:
    paths = {_module_name(p): p for p in _modules()}
    known = set(paths)
    return {n: _module_imports(p.read_text(encoding="utf-8"), n, p.name == "__init__.py", known)
            for n, p in paths.items()}


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one node (Tarjan, iterative), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    top = stack.pop()
                    on_stack.discard(top)
                    component.append(top)
                    if top == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_no_import_circle_among_the_package_modules() -> None:
    """A module that imports, at any depth, a module that imports it back: neither can be read, tested or
    moved alone. Late (function-local) imports count: they only hide the circle from the interpreter."""
    cycles = _cycles(_import_graph())
    assert not cycles, cycles


def test_the_cycle_finder_sees_a_late_import_and_skips_type_checking() -> None:
    """The check above would pass vacuously if it missed a function-local import or misread TYPE_CHECKING."""
    known = {"hyperheurist.a", "hyperheurist.b", "hyperheurist.c"}
    a = _module_imports("def f():\n    from .b import x\n", "hyperheurist.a", False, known)
    b = _module_imports("from . import a\nif TYPE_CHECKING:\n    from .c import y\n", "hyperheurist.b", False, known)
    c = _module_imports("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .a import z\n",
                        "hyperheurist.c", False, known)
    assert (a, b, c) == ({"hyperheurist.b"}, {"hyperheurist.a"}, set())
    assert _cycles({"hyperheurist.a": a, "hyperheurist.b": b, "hyperheurist.c": c}) == [
        ["hyperheurist.a", "hyperheurist.b"]]
    assert _cycles({"x": {"y"}, "y": {"z"}, "z": {"x"}, "w": {"x"}}) == [["x", "y", "z"]]


# Package pairs that still import each other, each with what ties them (issue 31 counted 7 and 4 module circles;
# this list may only shrink). A pair not listed fails the test below.
KNOWN_PACKAGE_PAIRS = {
    ("record", "search"): "record.evaluation imports search.state (the typed run record, in progress)",
}


def _package(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 2 or (PACKAGE / parts[-1]).is_dir() else module


def _package_pairs(graph: dict[str, set[str]]) -> set[tuple[str, str]]:
    edges = {(_package(a), _package(b)) for a, targets in graph.items() for b in targets}
    return {(a, b) for a, b in edges if a < b and (b, a) in edges}


def test_no_new_pair_of_packages_imports_each_other() -> None:
    """Two packages that import each other are one package in two folders; the known ones are named above."""
    new = _package_pairs(_import_graph()) - set(KNOWN_PACKAGE_PAIRS)
    assert not new, f"packages importing each other (move the shared concept to the lower one): {sorted(new)}"


def test_the_package_pair_finder_groups_by_subpackage() -> None:
    graph = {"hyperheurist.a.x": {"hyperheurist.b.y"}, "hyperheurist.b.z": {"hyperheurist.a.w"},
             "hyperheurist.c.x": {"hyperheurist.b.y"}}
    assert _package_pairs(graph) == {("a", "b")}
