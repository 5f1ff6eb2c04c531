"""A unified diff of two texts as escaped, coloured HTML (RTL is untrusted: everything is escaped)."""

from __future__ import annotations

import difflib
from html import escape

MAX_DIFF_LINES = 3000  # beyond this the page gets heavy; the full files are in best/ and initial/


def diff_lines(old: str, new: str, old_name: str, new_name: str, context: int = 3) -> list[str]:
    return list(difflib.unified_diff(old.splitlines(), new.splitlines(), fromfile=old_name, tofile=new_name,
                                     n=context, lineterm=""))


def diff_html(old: str, new: str, old_name: str, new_name: str, what: str = "text") -> str:
    """``<pre>`` with added/removed/hunk lines marked; says so when the texts are identical."""
    lines = diff_lines(old, new, old_name, new_name)
    if not lines:
        return f'<p class="muted">Identical: the best design keeps the initial {escape(what)}.</p>'
    added = sum(1 for ln in lines if ln.startswith("+") and not ln.startswith("+++"))
    removed = sum(1 for ln in lines if ln.startswith("-") and not ln.startswith("---"))
    shown = lines[:MAX_DIFF_LINES]
    out = []
    for i, ln in enumerate(shown):
        if i < 2 and ln.startswith(("--- ", "+++ ")):
            cls = "f"  # the file names
        else:
            cls = "h" if ln.startswith("@@") else "a" if ln.startswith("+") else "r" if ln.startswith("-") else ""
        text = escape(ln)
        out.append(f'<span class="{cls}">{text}</span>' if cls else text + "\n")
    note = (f'<p class="muted">Diff cut at {MAX_DIFF_LINES} of {len(lines)} lines.</p>'
            if len(lines) > MAX_DIFF_LINES else "")
    return (f'<p class="muted">{added} line(s) added, {removed} removed.</p>'
            f'<pre class="diff">{"".join(out)}</pre>{note}')
