"""``hh`` called in this process: the real entry point (``hyperheurist.cli.main``, what ``python -m hyperheurist``
and the ``hh`` script run) with its exit code, stdout and stderr, as ``subprocess.run`` returns them.

For tests whose point is what a command answers (a refusal, an exit code, a one-line error), not how a process
behaves: each `hh` process costs about a second of interpreter start and imports. Tests about signals, kills,
sandboxes, environment or a process's own streams keep a real subprocess.
"""

from __future__ import annotations

import contextlib
import io
import os
import subprocess
from pathlib import Path

from hyperheurist.cli import main


def hh_in_process(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    out, err = io.StringIO(), io.StringIO()
    code: int
    with contextlib.chdir(cwd or os.getcwd()), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            main(list(args))
            code = 0
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    return subprocess.CompletedProcess(["hh", *args], code, out.getvalue(), err.getvalue())
