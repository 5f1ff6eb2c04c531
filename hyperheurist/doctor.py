"""``hh doctor``: which tools and liberty hh will use, and what to do about a missing one.

A tool that is a script (Verilator's ``verilator`` is a perl wrapper) is checked for its interpreter too.
Exit 0 when everything is present, 3 (an infrastructure fault, per the README's exit codes) when not; the
fix is ``make setup`` from a source checkout, else the apt packages and pip requirements to install.
"""

from __future__ import annotations

import os
import re
import shutil
import sys
from pathlib import Path

import click

from .config import BUNDLED_LIBERTIES
from .sandbox import SandboxUnavailable
from .sandbox import tool_env as sandbox_env
from .sandbox_probe import probe
from .tools import REQUIRED, TOOLS, override_var
from .versions import tool_versions

_CHECKOUT = Path(__file__).resolve().parent.parent  # a source checkout has tools/setup.sh here
_APT = re.compile(r"apt-get install ([\w.+-]+)")
_PIP = re.compile(r"pip install ([\w.+\[\]-]+)")


def interpreter_problem(tool: Path) -> str | None:
    """Why a script tool cannot start (its ``#!`` interpreter is absent), or None: Verilator's wrapper is
    perl, and a missing perl fails every lint as if the design were wrong. An ``env`` interpreter is looked
    up on both PATHs a tool may get: the sandbox's and yours (``limits.sandbox: off``)."""
    try:
        with open(tool, "rb") as fh:
            first = fh.readline(256).decode("utf-8", "replace")
    except OSError:
        return None
    if not first.startswith("#!"):
        return None
    words = first[2:].split()
    if not words:
        return None
    if Path(words[0]).name == "env" and len(words) > 1:
        prog = next((w for w in words[1:] if not w.startswith("-")), None)
        paths = {"your PATH (limits.sandbox: off)": os.environ.get("PATH", ""),
                 f"the sandbox's PATH ({sandbox_env()['PATH']})": sandbox_env()["PATH"]}
        missing = [name for name, path in paths.items() if not shutil.which(prog or "", path=path)]
        if prog is None or not missing:
            return None
        need, where = prog, f"{prog} not found on {' nor on '.join(missing)}"
    elif os.access(words[0], os.X_OK):
        return None
    else:
        need, where = Path(words[0]).name, f"{words[0]} not found"
    return f"{tool.name} is a {need} script ({first.strip()}): {where}; install it with: apt-get install {need}"


def fix_hint(rows: list[tuple[str, str, str, str]], checkout: Path = _CHECKOUT) -> str:
    """What to run for the rows marked MISSING: ``make setup`` in a source checkout, else apt/pip."""
    if (checkout / "tools" / "setup.sh").is_file() and (checkout / "Makefile").is_file():
        return f"run `make setup` in {checkout} (installs through apt and pip)"
    hints = [r[3] for r in rows if r[1] != "ok"]
    apt = list(dict.fromkeys(m for h in hints for m in _APT.findall(h)))
    pip = list(dict.fromkeys(m for h in hints for m in _PIP.findall(h)))
    todo = [f"apt-get install {' '.join(apt)}"] if apt else []
    if pip:
        todo.append(f"{Path(sys.executable).parent / 'pip'} install {' '.join(pip)}")
    return "install them with: " + "; ".join(todo) if todo else "see the hints above"


def check(liberty: str | None = None) -> tuple[list[tuple[str, str, str, str]], bool]:
    """Rows of (item, status, version or path, hint) and whether everything needed is present."""
    rows = []
    ok = True
    for name, info in tool_versions(REQUIRED).items():
        if info.get("error"):
            ok = False
            rows.append((name, "MISSING", "", info["error"]))
        else:
            problem = interpreter_problem(Path(info["path"]))
            if problem:
                ok = False
                rows.append((name, "BROKEN", info["version"], problem))
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
              "profile it revealed and the first error in full (exit 3 when it does not answer, 2 when it refuses "
              "the key).")
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

        lines, code = llm_check(design, base_url, model, os.environ.get("OPENAI_API_KEY"))
        for line in lines:
            click.echo(line)
        return code
    rows, ok = check(liberty)
    width = max(len(r[0]) for r in rows)
    for item, status, version, hint in rows:
        click.echo(f"{item:<{width}}  {status:<7}  {version}  {hint}".rstrip())
    if not ok:
        click.echo(f"Some requirements are missing: {fix_hint(rows)}.", err=True)
    known = ", ".join(f"{k}={'ok' if Path(v).is_file() else 'absent'}" for k, v in BUNDLED_LIBERTIES.items())
    overrides = ", ".join(override_var(t) for t in TOOLS)
    click.echo(f"bundled liberties: {known}; tools may be overridden with {overrides}")
    return 0 if ok else 3
