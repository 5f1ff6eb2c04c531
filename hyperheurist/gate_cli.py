"""``hh gate DESIGN_YAML [RTL_FILE... | -f FILELIST]``: the CI gate.

Exit 0 every gate passed, 1 functionally invalid (names the gate and the reason), 2 bad usage or
config, 3 infrastructure fault (a tool missing or crashing). No files: the design's own ``sources``.
``--junit`` writes JUnit XML whatever the exit code (exit 2/3 as an ``<error>``); ``--json`` prints
the verdict as JSON. Without ``--workdir`` the stage folders are temporary, so messages never
point into them.

The reference is always in the loop: ``equivalence.against: parent`` narrows only Phase-2 changes in
``hh run``; here (and in ``hh audit``) the formal check runs against the reference (``evidence``).
A reference that reads every file of the design's own ``sources:`` is a self-reference (the design
compared with itself passes every check): exit 2; files named on the command line that are the reference
get a note. A golden copy
(``hh init --golden``) is other files: it equals the design until the design changes, which is its point.
"""

from __future__ import annotations

from contextlib import nullcontext
from dataclasses import replace
from pathlib import Path

import click

from .candidate import Candidate
from .config import DesignConfig, load_design, parse_override, read_yaml_mapping
from .errors import EXIT_INFRA, EXIT_INVALID, EXIT_OK, ConfigError, HHError
from .evidence import with_reference_evidence
from .gates.junit import write_junit, write_junit_error
from .gates.result import GATES, GateReport
from .gating import run_gates
from .hdl.filelist import RTL_EXT, expand
from .jsonio import dumps
from .project.messages import scrub_temp
from .project.sources import candidate_from, cli_sources, path_candidate
from .sandbox_probe import enforce as enforce_sandbox
from .stages.model import StageId
from .tempdirs import owned_tempdir


def _golden(reference: str | None, design: DesignConfig) -> Candidate | None:
    if not reference:
        return None
    if not Path(reference).exists():
        raise ConfigError(f"--reference {reference}: file not found")
    return path_candidate(Path(reference).resolve(), design, origin="reference", label="reference")


def self_reference(design: DesignConfig, gated: list[Path], reference: str | None) -> str | None:
    """Why the reference cannot judge the gated files (it reads every one of them), else None."""
    ref = Path(reference) if reference else design.verification.reference
    mine = {p.resolve() for p in gated if p.suffix.lower() in RTL_EXT}
    if ref is None or not mine:
        return None
    try:
        theirs = {p.resolve() for p in expand([str(ref)], Path("."), str(ref)).files}
    except HHError:
        return None  # loading the reference names its own problem
    if not mine <= theirs:
        return None
    where = "--reference" if reference else "verification.reference"
    return (f"{where} {ref}: reads the design's own sources, so the design is compared with itself and "
            f"nothing judges its function: point it at a golden copy (`hh init --golden DIR` writes one) "
            f"or give verification.cocotb / testbench")


def _scrubbed(report: GateReport, tmp: Path | None) -> GateReport:
    if tmp is None:
        return report
    return GateReport(tuple(replace(r, message=scrub_temp(r.message, tmp)) for r in report.results))


@click.command("gate")
@click.argument("design_yaml", type=click.Path(dir_okay=False))
@click.argument("rtl_files", nargs=-1, type=click.Path(dir_okay=False))
@click.option("-f", "--filelist", "filelists", multiple=True, type=click.Path(dir_okay=False),
              help="A filelist (+incdir+, +define+, -f nesting); repeatable.")
@click.option("--junit", "junit_path", type=click.Path(dir_okay=False),
              help="Write JUnit XML (one test case per gate; an error case on exit 2 or 3).")
@click.option("--json", "as_json", is_flag=True, help="Print the verdict as JSON on stdout.")
@click.option("--reference", help="Golden RTL: a file, folder or filelist (default: verification.reference).")
@click.option("--equivalence/--no-equivalence", default=None, help="Force the formal gate on or off.")
@click.option("--only", multiple=True, type=click.Choice([str(g) for g in GATES]),
              help="Run only these gates (repeatable; safety always runs).")
@click.option("--workdir", type=click.Path(file_okay=False), help="Keep stage folders here (default: a temp folder).")
@click.option("--set", "overrides", multiple=True, metavar="KEY=VALUE", help="Override a design.yaml key.")
def gate(design_yaml: str, rtl_files: tuple[str, ...], filelists: tuple[str, ...], junit_path: str | None,
         as_json: bool, reference: str | None, equivalence: bool | None, only: tuple[str, ...], workdir: str | None,
         overrides: tuple[str, ...]) -> int:
    """Check RTL against DESIGN_YAML: safety, compile, structure, simulation, equivalence, synthesis,
    netlist_sim (the synthesized netlist simulated beside the RTL).

    RTL is RTL_FILE... and/or -f FILELIST; with neither, the design's `sources:`."""
    suite = _suite(Path(design_yaml))
    try:
        design = load_design(design_yaml, dict(parse_override(o) for o in overrides))
        notice = enforce_sandbox(design.limits.sandbox)  # exit 3 now, not per candidate
        if notice:
            click.echo(notice, err=True)
        suite = design.name
        return _gate(design, rtl_files, filelists, junit_path, as_json, reference, equivalence, only, workdir)
    except HHError as exc:
        if junit_path:
            write_junit_error(Path(junit_path), suite, str(exc), exc.exit_code)
        raise
    except Exception as exc:  # an internal error is exit 3 (cli.main): CI still gets its XML
        if junit_path:
            write_junit_error(Path(junit_path), suite, f"{type(exc).__name__}: {exc}", EXIT_INFRA)
        raise


def _suite(path: Path) -> str:
    """The JUnit suite before the design validates (a config error's too): its ``name:``, else the file's name
    (the folder's for ``design.yaml``)."""
    try:
        name = read_yaml_mapping(path).get("name")
    except HHError:  # unreadable or not YAML: the load reports it
        name = None
    if isinstance(name, str) and name.strip():
        return name
    return path.stem if path.stem != "design" else path.resolve().parent.name


def _gate(design: DesignConfig, rtl_files: tuple[str, ...], filelists: tuple[str, ...], junit_path: str | None,
          as_json: bool, reference: str | None, equivalence: bool | None, only: tuple[str, ...],
          workdir: str | None) -> int:
    ss = cli_sources(design, rtl_files, filelists)
    why = self_reference(design, ss.files, reference)
    if why and not (rtl_files or filelists):  # the design's own sources: what CI and the pre-commit hook gate
        raise ConfigError(why)
    if why:  # files named on the command line: the user's choice (e.g. checking the reference itself)
        click.echo(f"hh gate: note: the files given are the reference itself: {why.partition(': ')[2]}", err=True)
    cand = candidate_from(ss, design, origin="gate", label=ss.files[0].name if ss.files else "")
    golden = _golden(reference, design)
    # a temporary folder only without --workdir (one made anyway was left empty by every killed hh gate)
    with nullcontext(None) if workdir else owned_tempdir("hh-gate-") as temp:
        wd = temp / cand.short if temp is not None else Path(str(workdir)).resolve()  # tools run in stage folders
        try:
            report = run_gates(cand, design, wd, reference=golden, equivalence=equivalence, only=only or None)
            if not only or str(StageId.EQUIVALENCE) in only:
                report = with_reference_evidence(report, cand, design, wd, reference=golden, equivalence=equivalence)
        except HHError as exc:
            if temp is not None:
                exc.args = (scrub_temp(str(exc), temp),)
            raise
        report = _scrubbed(report, temp)
    if junit_path:
        write_junit(Path(junit_path), report, design.name)
    files = [n for n, _ in cand.files]
    if as_json:
        click.echo(dumps({"design": design.name, "files": files, "defines": dict(cand.defines), **report.to_dict()}))
    else:
        for r in report.results:
            mark = "skip" if r.skipped else ("PASS" if r.passed else "FAIL")
            click.echo(f"{mark:4}  {r.gate:<11} {r.message}")
    f = report.failed
    if f is not None:  # stderr carries the verdict line even with --json (stdout stays pure JSON)
        click.echo(f"hh gate: INVALID: {f.gate} gate: {f.message}", err=True)
        return EXIT_INVALID
    return EXIT_OK
