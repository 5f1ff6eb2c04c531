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
