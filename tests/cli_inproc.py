"""``hh`` called in this process: the real entry point (``hyperheurist.cli.main``, what ``python -m hyperheurist``
and the ``hh`` script run) with its exit code, stdout and stderr, as ``subprocess.run`` returns them.

For tests whose point is what a command answers (a refusal, an exit code, a one-line error), not how a process
behaves: each `hh` process costs about a second of interpreter start and imports. Tests about signals, kills,
sandboxes, environment or a process's own streams keep a real subprocess: ``hh_process``, the same call in a
child process.

``env`` overlays the environment for the call (a value of None removes that variable); ``without`` removes every
variable whose name starts with one of the prefixes (``OPENAI_``). ``hh_in_process`` restores the environment, the
working folder, ``sys.argv`` (the run's manifest records it) and the standard streams afterwards; ``hh run``
restores the signal handlers it sets itself (``flow.session.StopFlag``). Python warnings and log records go to the
captured stderr as a fresh interpreter would print them (pytest would otherwise collect them), so a test that
counts stderr's lines sees them.
"""

from __future__ import annotations

import contextlib
import io
import logging
import os
import subprocess
import sys
import warnings
from collections.abc import Iterator, Mapping
from pathlib import Path

from hyperheurist.cli import main

HH = [sys.executable, "-m", "hyperheurist"]


def _environment(env: Mapping[str, str | None] | None, without: tuple[str, ...]) -> dict[str, str]:
    out = {k: v for k, v in os.environ.items() if not (without and k.startswith(without))}
    for k, v in (env or {}).items():
        if v is None:
            out.pop(k, None)
        else:
            out[k] = v
    return out


@contextlib.contextmanager
def _environ(wanted: dict[str, str]) -> Iterator[None]:
    saved = dict(os.environ)
    os.environ.clear()
    os.environ.update(wanted)
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)


@contextlib.contextmanager
def _printed_as_a_process(err: io.StringIO) -> Iterator[None]:
    """Warnings under the interpreter's default filters (or PYTHONWARNINGS=ignore) and records of WARNING and above
    (logging's last resort: no handler of hh's own) written to ``err``."""
    handler = logging.StreamHandler(err)
    handler.setLevel(logging.WARNING)
    root = logging.getLogger()
    with warnings.catch_warnings():
        warnings.resetwarnings()
        for category in (DeprecationWarning, PendingDeprecationWarning, ImportWarning, ResourceWarning):
            warnings.simplefilter("ignore", category)
        if os.environ.get("PYTHONWARNINGS") == "ignore":
            warnings.simplefilter("ignore")
        warnings.showwarning = lambda message, category, filename, lineno, file=None, line=None: err.write(
            warnings.formatwarning(message, category, filename, lineno, line))
        root.addHandler(handler)
        try:
            yield
        finally:
            root.removeHandler(handler)


def hh_in_process(*args: str, cwd: Path | None = None, env: Mapping[str, str | None] | None = None,
                  without: tuple[str, ...] = ()) -> subprocess.CompletedProcess[str]:
    out, err = io.StringIO(), io.StringIO()
    code: int
    argv, stdin = sys.argv, sys.stdin
    with contextlib.chdir(cwd or os.getcwd()), _environ(_environment(env, without)), \
            contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), _printed_as_a_process(err):
        sys.argv, sys.stdin = ["hh", *args], io.StringIO("")  # as run with stdin from /dev/null
        try:
            main(list(args))
            code = 0
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        finally:
            sys.argv, sys.stdin = argv, stdin
    return subprocess.CompletedProcess(["hh", *args], code, out.getvalue(), err.getvalue())


def hh_process(*args: str, cwd: Path | None = None, env: Mapping[str, str | None] | None = None,
               without: tuple[str, ...] = (), timeout: float = 600) -> subprocess.CompletedProcess[str]:
    """``python -m hyperheurist *args`` in a child process (stdin from /dev/null)."""
    return subprocess.run([*HH, *args], cwd=cwd, capture_output=True, text=True, timeout=timeout,
                          stdin=subprocess.DEVNULL, env=_environment(env, without), check=False)
