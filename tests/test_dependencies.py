"""The dependencies are honest (issue 31): every third-party module the package imports is declared in
pyproject.toml, and the versions constraints.txt pins (what `make setup` and CI install) meet its lower bounds."""

from __future__ import annotations

import ast
import sys
import tomllib
from importlib.metadata import packages_distributions
from pathlib import Path

from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parent.parent


def _declared(extras: bool = False) -> dict[str, Requirement]:
    """[project].dependencies (and, with ``extras``, every optional group: ray is imported only when asked for)."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    lines = list(project["dependencies"])
    if extras:
        lines += [r for group in project["optional-dependencies"].values() for r in group]
    reqs = [Requirement(r) for r in lines]
    return {r.name.lower().replace("_", "-"): r for r in reqs}


def _imported_top_levels() -> set[str]:
    out: set[str] = set()
    for path in (ROOT / "hyperheurist").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                out |= {a.name.split(".")[0] for a in node.names}
            elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
                out.add(node.module.split(".")[0])
    return out - set(sys.stdlib_module_names) - {"hyperheurist", "__future__"}


def test_every_third_party_module_the_package_imports_is_declared() -> None:
    owners = packages_distributions()
    declared = _declared(extras=True)
    undeclared = {}
    for module in sorted(_imported_top_levels()):
        dists = {d.lower().replace("_", "-") for d in owners.get(module, [module])}
        if not dists & set(declared):
            undeclared[module] = sorted(dists)
    assert not undeclared, f"imported by hyperheurist/ but not in [project].dependencies: {undeclared}"


def test_the_package_declares_nothing_it_does_not_import() -> None:
    owners = packages_distributions()
    provided = {d.lower().replace("_", "-") for m in _imported_top_levels() for d in owners.get(m, [m])}
    unused = sorted(set(_declared()) - provided)
    assert not unused, f"declared in [project].dependencies but never imported by hyperheurist/: {unused}"


def test_the_constraints_meet_the_declared_lower_bounds() -> None:
    pinned = {}
    for line in (ROOT / "constraints.txt").read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            name, _, version = line.partition("==")
            pinned[name.strip().lower().replace("_", "-")] = version.strip()
    for name, req in _declared().items():
        assert name in pinned, f"{name} is declared but constraints.txt pins no version of it"
        assert req.specifier.contains(pinned[name]), f"constraints.txt pins {name}=={pinned[name]}, outside {req}"
