"""``hh doctor``: which tools and liberty hh will use, and what to do about a missing one."""

from __future__ import annotations

from pathlib import Path

import click

from .config import BUNDLED_LIBERTIES
from .sandbox import SandboxUnavailable, probe
from .tools import REQUIRED, TOOLS, tool_versions


def check(liberty: str | None = None) -> tuple[list[tuple[str, str, str, str]], bool]:
    """Rows of (item, status, version or path, hint) and whether everything needed is present."""
    rows = []
    ok = True
    for name, info in tool_versions(REQUIRED).items():
        if info.get("error"):
            ok = False
            rows.append((name, "MISSING", "", info["error"]))
        else:
            rows.append((name, "ok", info["version"], info["path"]))
    lib = Path(liberty) if liberty else Path(BUNDLED_LIBERTIES["osu018"])
    if lib.is_file() and lib.stat().st_size > 0:
        rows.append(("liberty", "ok", lib.name, str(lib)))
    else:
        ok = False
        rows.append(("liberty", "MISSING", "", f"{lib} not found; install it with: apt-get install qflow-tech-osu018"))
    try:
        rows.append(("sandbox", "ok", "bubblewrap", probe()))
    except SandboxUnavailable as exc:  # limits.sandbox: required (the default) cannot run here
        ok = False
        rows.append(("sandbox", "MISSING", "", str(exc)))
    try:
        import cocotb

        rows.append(("cocotb", "ok", cocotb.__version__, str(Path(cocotb.__file__).parent)))
    except ImportError:
        ok = False
        rows.append(("cocotb", "MISSING", "", "pip install cocotb"))
    return rows, ok


@click.command("doctor")
@click.option("--liberty", type=click.Path(dir_okay=False), help="Check this liberty instead of osu018.")
@click.option("--llm", "llm", is_flag=True, help="Instead: send one request to the LLM endpoint, print the model "
              "profile it revealed and the first error in full (exit 3 when it does not answer).")
@click.option("--design", "design", type=click.Path(dir_okay=False, path_type=Path),
              help="With --llm: the design.yaml whose generation settings to use.")
@click.option("--base-url", default=None, help="With --llm: the endpoint (default: OPENAI_BASE_URL, then design.yaml).")
@click.option("--model", default=None, help="With --llm: the model (default: generation.model).")
def doctor(liberty: str | None, llm: bool = False, design: Path | None = None, base_url: str | None = None,
           model: str | None = None) -> int:
    """List each required tool with its version, the liberty in use, and fixes for anything missing."""
    if llm:
        import os

        from .llm.check import llm_check

        lines, answered = llm_check(design, base_url, model, os.environ.get("OPENAI_API_KEY"))
        for line in lines:
            click.echo(line)
        return 0 if answered else 3
    rows, ok = check(liberty)
    width = max(len(r[0]) for r in rows)
    for item, status, version, hint in rows:
        click.echo(f"{item:<{width}}  {status:<7}  {version}  {hint}".rstrip())
    if not ok:
        click.echo("Some requirements are missing: run `make setup` (installs through apt and pip).", err=True)
    known = ", ".join(f"{k}={'ok' if Path(v).is_file() else 'absent'}" for k, v in BUNDLED_LIBERTIES.items())
    overrides = ", ".join(f"HH_{t.upper()}" for t in TOOLS)
    click.echo(f"bundled liberties: {known}; tools may be overridden with {overrides}")
    return 0 if ok else 1
