"""Messages that outlive the command: no path into a temporary folder deleted at exit."""

from __future__ import annotations

import re
from pathlib import Path

KEEP_HINT = "rerun with --workdir DIR to keep the logs"


def scrub_temp(message: str, tmp: Path) -> str:
    """``message`` with references into ``tmp`` (deleted when the command ends) removed.

    A ``(log: ...)``/``(see ...)`` note pointing there goes; any other such path is cut to its file
    name; a hint says how to keep the logs. Messages naming no temporary path are returned as they are."""
    root = str(Path(tmp))
    if root not in message:
        return message
    esc = re.escape(root)
    text = re.sub(rf"\s*\((?:log|logs|see|in)[: ]\s*{esc}[^)]*\)", "", message)
    text = re.sub(rf"[;,]?\s*(?:see|log:|logs:|traceback in)\s+{esc}\S*", "", text)
    text = re.sub(rf"{esc}/?(\S*)", lambda m: Path(m.group(1)).name or "(temporary folder)", text)
    return f"{text.rstrip()} ({KEEP_HINT})"
