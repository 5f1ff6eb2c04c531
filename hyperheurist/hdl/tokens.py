"""The tokens of raw Verilog text that matter before any tool reads it, from pyslang's lexer.

The lexer (no preprocessing: the text as written) tells code from comments and strings exactly, so a
``$fopen`` in a comment or a string is no call and a ``\\$fopen`` is an escaped identifier. Only the
tokens the safety scan, the module rename and the canonical design's checks need are kept, each with
the word that follows it when that word is its argument (a file name, a DPI spec, a module name).
Offsets are byte offsets into the UTF-8 text (pyslang's); ``line_of`` maps them to lines.
Measured (safety scan, ~1 MB of Verilog with system tasks): 0.19-0.26 s, against 0.21-0.30 s for the hand
lexer and regexes it replaced; text without any trigger character is not lexed (0.05 s against 0.28 s).
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from enum import Enum

from pyslang import BumpAllocator, Diagnostics, Diags, SourceManager
from pyslang.parsing import Lexer, Token, TokenKind, TriviaKind


class Kind(Enum):
    SYSTEM = "system name"  # $name (a task or function call); arg: the string literal after it
    DIRECTIVE = "directive"  # `name; arg: the string (`include) or name (`ifdef) after it
    ESCAPED = "escaped identifier"  # \name
    FOREIGN = "import/export string"  # import/export "DPI-C"; arg: the string
    DECLARED = "declared name"  # module/macromodule/package NAME; arg: NAME
    PASTE = "macro token paste"  # ``


@dataclass(frozen=True)
class Tok:
    kind: Kind
    offset: int  # byte offset of the token
    text: str  # the token as written
    arg: str | None = None  # the string or name that follows, when it is the token's argument
    arg_offset: int = -1  # byte offset of that argument


@dataclass
class Scan:
    data: bytes  # the UTF-8 text the offsets index
    tokens: list[Tok] = field(default_factory=list)
    comments: list[tuple[int, str]] = field(default_factory=list)  # (offset, text), when asked for
    unterminated: bool = False  # a string or block comment runs to the end (a syntax error)
    _newlines: list[int] | None = field(default=None, repr=False)

    def of(self, kind: Kind) -> list[Tok]:
        return [t for t in self.tokens if t.kind is kind]

    def line_of(self, offset: int) -> int:
        if self._newlines is None:  # built once: a scan asks for many lines of a large file
            self._newlines = [m.start() for m in re.finditer(b"\n", self.data)]
        return bisect.bisect_left(self._newlines, offset) + 1


_DECLARING = {TokenKind.ModuleKeyword, TokenKind.MacromoduleKeyword, TokenKind.PackageKeyword}
_LIFETIME = {TokenKind.AutomaticKeyword, TokenKind.StaticKeyword}
_FOREIGN = {TokenKind.ImportKeyword, TokenKind.ExportKeyword}
_WANTED = {TokenKind.SystemIdentifier, TokenKind.Directive, TokenKind.MacroPaste, *_FOREIGN, *_DECLARING}
_NAME_AFTER = {"`ifdef", "`ifndef", "`elsif", "`define", "`undef"}
_COMMENT = {TriviaKind.LineComment, TriviaKind.BlockComment}
_UNTERMINATED = {Diags.ExpectedClosingQuote, Diags.UnterminatedBlockComment}


def utf8(text: str) -> bytes:
    """The bytes pyslang lexes (invalid input bytes, kept as surrogates by hh's readers, become U+FFFD)."""
    return text.encode("utf-8", "surrogateescape").decode("utf-8", "replace").encode("utf-8")


class TokenStream:
    """The tokens of ``data`` in order (EndOfFile last), each with its kind, one at a time: holding every
    token's Python wrapper costs 3-4x the lexing itself. The stream keeps the source manager, allocator and
    diagnostics the tokens point into alive (a token outliving them reads freed memory): keep a token only
    while the stream is referenced."""

    def __init__(self, data: bytes) -> None:
        self.sm = SourceManager()
        self.alloc = BumpAllocator()
        self.diags = Diagnostics()
        self._lexer = Lexer(self.sm.assignText("<text>", data.decode("utf-8")), self.alloc, self.diags, self.sm)

    def __iter__(self) -> Iterator[tuple[Token, TokenKind]]:
        lex, eof = self._lexer.lex, TokenKind.EndOfFile
        while True:
            tok = lex()
            kind = tok.kind  # each .kind crosses into pyslang: read once
            yield tok, kind
            if kind == eof:
                return

    @property
    def unterminated(self) -> bool:
        """A string or block comment runs to the end of the text (read after iterating)."""
        return any(d.code in _UNTERMINATED for d in self.diags)


def _comments(tok: Token) -> list[tuple[int, str]]:
    """Comments in the trivia before ``tok``, with their offsets (trivia run up to the token)."""
    out: list[tuple[int, str]] = []
    end = tok.location.offset
    for tr in reversed(tok.trivia):
        raw = tr.getRawText()
        end -= len(raw.encode("utf-8"))
        if tr.kind in _COMMENT:
            out.append((end, raw))
    return out[::-1]


def scan(text: str, comments: bool = False) -> Scan:
    """The tokens that matter in ``text`` (see Kind); ``comments`` also collects every comment."""
    data = utf8(text)
    stream = TokenStream(data)
    res = Scan(data)
    wanted = _WANTED | {TokenKind.Identifier} if b"\\" in data else _WANTED  # escaped names need a backslash
    pending: tuple[Kind, Token, TokenKind] | None = None  # a token waiting for its argument, the kind wanted
    for tok, kind in stream:
        if comments and tok.trivia:
            res.comments += _comments(tok)
        if pending is not None:
            what, first, want = pending
            if (what is Kind.SYSTEM and kind == TokenKind.OpenParenthesis) or (
                    what is Kind.DECLARED and kind in _LIFETIME):
                continue  # $readmemh ( ("f") ; module automatic m
            pending = None
            if kind == want:
                res.tokens.append(Tok(what, first.location.offset, first.rawText, tok.valueText, tok.location.offset))
            elif what is not Kind.FOREIGN:  # import/export without a string: a package import, not DPI
                res.tokens.append(Tok(what, first.location.offset, first.rawText))
        if kind not in wanted:
            continue
        if kind == TokenKind.SystemIdentifier:
            pending = (Kind.SYSTEM, tok, TokenKind.StringLiteral)
        elif kind == TokenKind.Directive:
            arg = TokenKind.Identifier if tok.rawText in _NAME_AFTER else TokenKind.StringLiteral
            pending = (Kind.DIRECTIVE, tok, arg)
        elif kind == TokenKind.Identifier:
            if tok.rawText.startswith("\\"):
                res.tokens.append(Tok(Kind.ESCAPED, tok.location.offset, tok.rawText))
        elif kind in _FOREIGN:
            pending = (Kind.FOREIGN, tok, TokenKind.StringLiteral)
        elif kind in _DECLARING:
            pending = (Kind.DECLARED, tok, TokenKind.Identifier)
        else:
            res.tokens.append(Tok(Kind.PASTE, tok.location.offset, tok.rawText))
    res.unterminated = stream.unterminated
    return res


def conditionals(text: str) -> list[tuple[int, str, str]]:
    """(line, directive, macro) of each `` `ifdef``/`` `ifndef``/`` `elsif`` test in code (not comments)."""
    sc = scan(text)
    return [(sc.line_of(t.offset), t.text[1:], t.arg) for t in sc.of(Kind.DIRECTIVE)
            if t.text in ("`ifdef", "`ifndef", "`elsif") and t.arg is not None]
