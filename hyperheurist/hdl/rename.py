"""Module rename on pyslang's tokens: every identifier token naming a declared module or package gets a
prefix, and nothing else does (a name inside a comment, a string or a longer identifier stays)."""

from __future__ import annotations

from collections.abc import Collection

from pyslang.parsing import TokenKind

from .tokens import Kind, TokenStream, scan, utf8


def declared_names(text: str) -> list[str]:
    """Names declared by ``module``/``macromodule``/``package`` in ``text``, in order."""
    return [t.arg for t in scan(text).of(Kind.DECLARED) if t.arg is not None]


def prefix_names(text: str, names: Collection[str], prefix: str) -> str:
    """``text`` with ``prefix`` put before every identifier token (plain or escaped) that is one of ``names``."""
    data = utf8(text)
    out: list[bytes] = []
    pos = 0
    for tok, kind in TokenStream(data):
        if kind != TokenKind.Identifier or tok.valueText not in names:
            continue
        at = tok.location.offset + (1 if tok.rawText.startswith("\\") else 0)  # after an escape's backslash
        out += [data[pos:at], prefix.encode()]
        pos = at
    out.append(data[pos:])
    return b"".join(out).decode("utf-8")
