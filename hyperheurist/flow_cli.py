"""``hh run``: the click layer over ``flow.run``."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import click

from .config import load_design, parse_override
from .errors import EXIT_INFRA, EXIT_INTERRUPTED, ConfigError, InputError
from .sandbox_probe import enforce as enforce_sandbox


@click.command("run")
@click.argument("design_yaml", required=False, type=click.Path(dir_okay=False, path_type=Path))
@click.option("--out", "out_root", default="runs", show_default=True, type=click.Path(file_okay=False, path_type=Path),
              help="Root folder for run directories.")
@click.option("--seed", type=int, help="Annealing seed (anneal.seed).")
@click.option("--iterations", type=int, help="Annealing iterations per chain (anneal.iterations).")
@click.option("--chains", type=int, help="Independent annealing chains (anneal.chains).")
@click.option("--jobs", "-j", type=click.IntRange(1, 256), help="Parallel evaluations [default: cores].")
@click.option("--set", "overrides", multiple=True, metavar="KEY=VALUE",
              help="Override any design.yaml field, e.g. ppa.clock_period_ns=8.")
@click.option("--power", type=click.Choice(["vectorless", "activity"]), help="Power fidelity during search.")
@click.option("--resume", type=click.Path(file_okay=False, path_type=Path),
              help="Continue a killed or interrupted run.")
@click.option("--replay", type=click.Path(file_okay=False, path_type=Path),
              help="Replay LLM responses recorded in an earlier run (no requests).")
@click.option("--base-url", help="OpenAI-compatible endpoint (overrides generation.base_url and OPENAI_BASE_URL).")
@click.option("--model", help="Model name (overrides generation.model).")
@click.option("--provider", type=click.Choice(["offline", "openai", "files"]),
              help="Candidate source (generation.provider).")
@click.option("--executor", type=click.Choice(["local", "ray"]), default="local", show_default=True,
              help="Where evaluations run: a local process pool or a Ray cluster.")
@click.option("--ray-address", help="Ray cluster address (default: RAY_ADDRESS, else a local Ray instance).")
@click.option("--quiet", "-q", is_flag=True, help="No progress display (CI logs).")
@click.option("--no-report", is_flag=True, help="Skip report.html.")
def run(design_yaml: Path | None, out_root: Path, seed: int | None, iterations: int | None, chains: int | None,
        jobs: int | None, overrides: tuple[str, ...], power: str | None, resume: Path | None, replay: Path | None,
        base_url: str | None, model: str | None, provider: str | None, executor: str, ray_address: str | None,
        quiet: bool, no_report: bool) -> int:
    """Run DESIGN_YAML end to end: Phase 1 gates every candidate, Phase 2 anneals the valid ones for PPA.

    Leaves runs/<design>/<timestamp>-s<seed>/ with every candidate, journal.jsonl, summary.json,
    best/ and report.html. Exit 0 on success, 1 when no candidate is valid, 2 on bad input,
    3 on an infrastructure fault, 130 when interrupted (resume with --resume RUN_DIR).
    """
    from .flow import RunOptions
    from .flow import run as run_flow

    if resume is not None:
        if not (resume / "resolved.yaml").is_file():
            raise InputError(f"{resume}: not a run directory (no resolved.yaml)")
        if design_yaml is not None or overrides or seed is not None or iterations is not None or chains is not None:
            raise ConfigError("--resume continues a run with its recorded configuration; "
                              "drop DESIGN_YAML and overrides")
        design_yaml = resume / "resolved.yaml"
    if design_yaml is None and replay is not None and (replay / "resolved.yaml").is_file():
        design_yaml = replay / "resolved.yaml"  # replaying a run: its own configuration by default
    if design_yaml is None:
        raise click.UsageError("give DESIGN_YAML (or --resume RUN_DIR, or --replay RUN_DIR)")
    sets = dict(parse_override(o) for o in overrides)
    for key, value in (("anneal.seed", seed), ("anneal.iterations", iterations), ("anneal.chains", chains),
                       ("generation.provider", provider)):
        if value is not None:
            sets[key] = value
    design = load_design(design_yaml, sets)
    notice = enforce_sandbox(design.limits.sandbox)  # exit 3 now, not per candidate
    if notice:
        click.echo(notice, err=True)
    opts = RunOptions(out_root=out_root, jobs=jobs, quiet=quiet, power=power, resume=resume, replay=replay,
                      base_url=base_url, model=model, api_key=os.environ.get("OPENAI_API_KEY"),
                      report=not no_report, executor=executor, ray_address=ray_address, argv=["hh", *sys.argv[1:]])
    rd, summary = run_flow(design, opts)
    from .report import terminal_summary

    click.echo(terminal_summary(rd.path))
    faults = summary.infrastructure_faults
    if summary.status == "interrupted" and summary.interrupted_by == "infrastructure":
        click.echo(f"hh: error: search stopped by repeated tool faults ({faults.first}); everything so far "
                   f"is kept; fix the tool, then: hh run --resume {rd.path}", err=True)
        return EXIT_INFRA
    if summary.status == "interrupted":
        click.echo(f"hh: interrupted; resume with: hh run --resume {rd.path}", err=True)
        return EXIT_INTERRUPTED
    llm = summary.llm
    note = llm.get("note")
    failed = llm.get("failed_requests") or 0
    if failed and not note:
        note = f"{failed} of {llm.get('requests', failed)} request(s) failed (see {llm.get('records') or rd.path})"
    if note:  # the LLM endpoint failed or was never reachable: the run went on without it; say so even with -q
        click.echo(f"hh: warning: LLM: {note}", err=True)
    if faults.count:
        click.echo(f"hh: warning: {faults.count} evaluation(s) hit a tool fault (first: {faults.first}); "
                   f"they count as rejected", err=True)
    return 0
