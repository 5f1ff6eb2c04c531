"""The ``hh`` command line: a thin click layer; each command lives beside the code it drives.

Commands are imported lazily so ``hh --help`` and ``hh doctor`` start fast.
"""

from __future__ import annotations

import errno
import importlib
import os
import stat
import sys
import tempfile
import traceback

import click

from . import __version__
from .errors import EXIT_INFRA, EXIT_INTERRUPTED, EXIT_USAGE, HHError
from .secrets import without_credentials

COMMANDS = {
    "run": ("hyperheurist.flow_cli", "run", "Run a design end to end: gates, then PPA annealing."),
    "gate": ("hyperheurist.gate_cli", "gate", "CI gate: exit 0 valid, 1 invalid, 2 usage, 3 infrastructure."),
    "ppa": ("hyperheurist.ppa_cli", "ppa", "Synthesize RTL and print area, timing and power."),
    "doctor": ("hyperheurist.doctor", "doctor", "Check the tools and liberty hh needs."),
    "report": ("hyperheurist.report.cli", "report", "Render report.html for a run or sweep folder."),
    "audit": ("hyperheurist.audit", "audit", "Re-gate every design a run accepted, against the reference."),
    "init": ("hyperheurist.project.init", "init",
             "Write a design.yaml for existing RTL (files, -f filelist, FuseSoC core)."),
}


class LazyGroup(click.Group):
    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name not in COMMANDS:
            return None
        module, attr, _ = COMMANDS[name]
        command = vars(importlib.import_module(module))[attr]  # imported on demand: `hh --help` stays fast
        if not isinstance(command, click.Command):
            raise TypeError(f"{module}.{attr} is not a click command")
        return command

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = [(name, COMMANDS[name][2]) for name in sorted(COMMANDS)]
        with formatter.section("Commands"):
            formatter.write_dl(rows)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="hh")
def cli() -> None:
    """HyperHeurist: correct-first, then PPA-optimised RTL from LLM candidates."""


CRASH_LOGS_KEPT = 20  # one folder per user, the newest kept: internal errors must not fill the temp folder


def _crash_folder() -> str | None:
    """``$TMPDIR/hh-crash-<uid>``, made private; None when that name is not a folder of ours (a link planted by
    someone else, another user's folder)."""
    folder = os.path.join(tempfile.gettempdir(), f"hh-crash-{os.getuid()}")
    try:
        os.mkdir(folder, 0o700)
    except FileExistsError:
        pass
    except OSError:
        return None
    st = os.lstat(folder)
    if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.getuid():
        return None
    old = sorted((e for e in os.scandir(folder) if e.name.startswith("hh-crash-") and e.is_file(follow_symlinks=False)),
                 key=lambda e: e.stat(follow_symlinks=False).st_mtime)
    for e in old[:max(0, len(old) - CRASH_LOGS_KEPT + 1)]:
        os.unlink(e.path)
    return folder


def _crash_log() -> str:
    fd, path = tempfile.mkstemp(prefix="hh-crash-", suffix=".log", dir=_crash_folder())
    with open(fd, "w") as fh:
        traceback.print_exc(file=fh)
    return path


def main(argv: list[str] | None = None) -> None:
    try:
        rv = cli.main(args=argv, prog_name="hh", standalone_mode=False)
    except click.exceptions.Exit as exc:
        sys.exit(exc.exit_code)
    except click.ClickException as exc:  # usage errors: one line, like every other error
        msg = " ".join(exc.format_message().split())
        ctx = exc.ctx if isinstance(exc, click.UsageError) else None  # only usage errors know their command
        hint = f" (see '{ctx.command_path} --help')" if ctx is not None else ""
        click.echo(without_credentials(f"hh: error: {msg}{hint}"), err=True)
        sys.exit(exc.exit_code if exc.exit_code else EXIT_USAGE)
    except (click.exceptions.Abort, KeyboardInterrupt):
        click.echo("hh: interrupted", err=True)
        sys.exit(EXIT_INTERRUPTED)
    except HHError as exc:
        line = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        click.echo(f"hh: error: {without_credentials(line)}", err=True)  # a URL's user:password@ never shown
        sys.exit(exc.exit_code)
    except OSError as exc:
        what = "disk full" if exc.errno == errno.ENOSPC else (exc.strerror or str(exc))
        click.echo(without_credentials(f"hh: error: {what}: {exc.filename or ''}".rstrip(": ")), err=True)
        sys.exit(EXIT_INFRA)
    except Exception as exc:  # last resort: one line, the traceback goes to a file
        line = f"hh: internal error: {type(exc).__name__}: {exc} (traceback in {_crash_log()})"
        click.echo(without_credentials(line), err=True)
        sys.exit(EXIT_INFRA)
    sys.exit(rv if isinstance(rv, int) else 0)


if __name__ == "__main__":
    main()
