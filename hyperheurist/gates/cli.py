"""``hh gate DESIGN_YAML RTL_FILE...``: the CI gate.

Exit 0 every gate passed, 1 functionally invalid (names the gate and the reason), 2 bad usage or
config, 3 infrastructure fault (a tool missing or crashing). ``--junit`` writes JUnit XML,
``--json`` prints the verdict as JSON.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import click

from ..candidate import Candidate
from ..config import load_design, parse_override
from ..errors import EXIT_INVALID, EXIT_OK, ConfigError, InputError
from ..jsonio import dumps
from .chain import run_gates
from .junit import write_junit
from .result import GATES


def _candidate(files: tuple[str, ...], top: str) -> Candidate:
    paths = [Path(f) for f in files]
    for p in paths:
        if not p.is_file():
            raise InputError(f"{p}: file not found")
    try:
        return Candidate.from_paths(paths, top=top, origin="gate", label=paths[0].name)
    except OSError as exc:
        raise InputError(f"cannot read RTL: {exc}") from None


@click.command("gate")
@click.argument("design_yaml", type=click.Path(dir_okay=False))
@click.argument("rtl_files", nargs=-1, required=True, type=click.Path(dir_okay=False))
@click.option("--junit", "junit_path", type=click.Path(dir_okay=False), help="Write JUnit XML (one test case per gate).")
@click.option("--json", "as_json", is_flag=True, help="Print the verdict as JSON on stdout.")
@click.option("--reference", type=click.Path(dir_okay=False), help="Golden RTL (default: verification.reference).")
@click.option("--equivalence/--no-equivalence", default=None, help="Force the formal gate on or off.")
@click.option("--only", multiple=True, type=click.Choice(GATES), help="Run only these gates (repeatable).")
@click.option("--workdir", type=click.Path(file_okay=False), help="Keep stage folders here (default: a temp folder).")
@click.option("--set", "overrides", multiple=True, metavar="KEY=VALUE", help="Override a design.yaml key.")
def gate(design_yaml: str, rtl_files: tuple[str, ...], junit_path: str | None, as_json: bool,
         reference: str | None, equivalence: bool | None, only: tuple[str, ...], workdir: str | None,
         overrides: tuple[str, ...]) -> int:
    """Check RTL_FILE... against DESIGN_YAML: safety, compile, structure, simulation, equivalence."""
    design = load_design(design_yaml, dict(parse_override(o) for o in overrides))
    cand = _candidate(rtl_files, design.top)
    golden = None
    if reference:
        if not Path(reference).is_file():
            raise ConfigError(f"--reference {reference}: file not found")
        golden = Candidate.from_paths([Path(reference)], top=design.top, origin="reference")
    with tempfile.TemporaryDirectory(prefix="hh-gate-") as tmp:
        wd = Path(workdir).resolve() if workdir else Path(tmp) / cand.short  # tools run in stage folders
        report = run_gates(cand, design, wd, reference=golden, equivalence=equivalence, only=only or None)
    if junit_path:
        write_junit(Path(junit_path), report, design.name)
    if as_json:
        click.echo(dumps({"design": design.name, "files": list(rtl_files), **report.to_dict()}))
    else:
        for r in report.results:
            mark = "skip" if r.skipped else ("PASS" if r.passed else "FAIL")
            click.echo(f"{mark:4}  {r.gate:<11} {r.message}")
    f = report.failed
    if f is not None:  # stderr carries the verdict line even with --json (stdout stays pure JSON)
        click.echo(f"hh gate: INVALID: {f.gate} gate: {f.message}", err=True)
        return EXIT_INVALID
    return EXIT_OK
