"""A structural digest of a mapped netlist, so a netlist already timed is not timed again.

Recipe knobs that do not change the mapped netlist (and RTL edits that map to the same cells) are
common in Phase 2; the digest lets ``estimate`` reuse the STA and power numbers of the first
evaluation of that netlist. Yosys' auto-generated names (``_123_``) are renumbered by first
appearance and comments (the version banner) dropped, so two syntheses that differ only in how many
internal names Yosys consumed on the way hash alike. User-visible names (ports, registers) are kept:
they appear in the SDC and the critical-path report.
"""

from __future__ import annotations

import hashlib
import re

_COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.DOTALL)
_AUTO = re.compile(r"(?<![\w$\\])_\d+_(?![\w$])")


def canonical_netlist(text: str) -> str:
    text = _COMMENT.sub("", text)
    names: dict[str, str] = {}
    text = _AUTO.sub(lambda m: names.setdefault(m.group(0), f"_n{len(names)}_"), text)
    return "\n".join(ln.strip() for ln in text.splitlines() if ln.strip())


def netlist_digest(text: str) -> str:
    """sha256 of the canonical form of a netlist's text."""
    return hashlib.sha256(canonical_netlist(text).encode("utf-8", "surrogateescape")).hexdigest()
