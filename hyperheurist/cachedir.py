"""Where hh keeps what it may reuse across runs: the PPA cache and the stage runner's remembered invocations.

One folder for both (``HH_CACHE_DIR``, else ``~/.cache/hyperheurist``), named below the packages that use it,
so the stage runner need not import the PPA cache to find it.
"""

from __future__ import annotations

import os
from pathlib import Path


def default_cache_dir() -> Path:
    env = os.environ.get("HH_CACHE_DIR")
    return Path(env).expanduser() if env else Path.home() / ".cache" / "hyperheurist"
