"""The tokens of raw Verilog text that matter before any tool reads it, from pyslang's lexer.

The lexer (no preprocessing: the text as written) tells code from comments and strings exactly, so a
``$fopen`` in a comment or a string is no call and a ``\\$fopen`` is an escaped identifier. Only the
tokens the safety scan, the module rename and the canonical design's checks need are kept, each with
the word that follows it when that word is its argument (a file name, a DPI spec, a module name).
Offsets are byte offsets into the UTF-8 text (pyslang's); ``line_of`` maps them to lines.
Measured on ~1 MB of Verilog (the safety scan, lexer and checks): 0.20-0.26 s, against 0.17-0.23 s for the
hand lexer and regexes it replaces; text with none of the scan's trigger characters is not lexed (0.03 s).
"""

from __future__ import annotations

import bisect
import re
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


class Lexed:
    """Every token of ``data`` (EndOfFile last). Holds the source manager, allocator and diagnostics the
    tokens point into: a token outlived by them reads freed memory."""

    def __init__(self, data: bytes) -> None:
        self.sm = SourceManager()
        self.alloc = BumpAllocator()
        self.diags = Diagnostics()
        lexer = Lexer(self.sm.assignText("<text>", data.decode("utf-8")), self.alloc, self.diags, self.sm)
        self.tokens: list[Token] = []
        self.kinds: list[TokenKind] = []  # each .kind crosses into pyslang: read once
        eof = TokenKind.EndOfFile
        while True:
            tok = lexer.lex()
            kind = tok.kind
            self.tokens.append(tok)
            self.kinds.append(kind)
            if kind == eof:
                break

    @property
    def unterminated(self) -> bool:
        """A string or block comment runs to the end of the text."""
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
    lexed = Lexed(data)
    toks = lexed.tokens
    res = Scan(data, unterminated=lexed.unterminated)
    if comments:
        for tok in toks:
            if tok.trivia:
                res.comments += _comments(tok)
    kinds = lexed.kinds
    wanted = _WANTED | {TokenKind.Identifier} if b"\\" in data else _WANTED  # escaped names need a backslash
    n = len(toks)
    for i, kind in enumerate(kinds):
        if kind not in wanted:
            continue
        tok = toks[i]
        nxt = toks[i + 1] if i + 1 < n else None
        if kind == TokenKind.SystemIdentifier:
            j = i + 1
            while j < n and kinds[j] == TokenKind.OpenParenthesis:
                j += 1
            res.tokens.append(_with_arg(Kind.SYSTEM, tok, toks[j] if j < n else None, TokenKind.StringLiteral))
        elif kind == TokenKind.Directive:
            want = TokenKind.Identifier if tok.rawText in _NAME_AFTER else TokenKind.StringLiteral
            res.tokens.append(_with_arg(Kind.DIRECTIVE, tok, nxt, want))
        elif kind == TokenKind.Identifier:
            if tok.rawText.startswith("\\"):
                res.tokens.append(Tok(Kind.ESCAPED, tok.location.offset, tok.rawText))
        elif kind in _FOREIGN:
            if nxt is not None and kinds[i + 1] == TokenKind.StringLiteral:
                res.tokens.append(_with_arg(Kind.FOREIGN, tok, nxt, TokenKind.StringLiteral))
        elif kind in _DECLARING:
            if nxt is not None and kinds[i + 1] in _LIFETIME:
                nxt = toks[i + 2] if i + 2 < n else None
            res.tokens.append(_with_arg(Kind.DECLARED, tok, nxt, TokenKind.Identifier))
        else:
            res.tokens.append(Tok(Kind.PASTE, tok.location.offset, tok.rawText))
    return res


def _with_arg(kind: Kind, tok: Token, nxt: Token | None, want: TokenKind) -> Tok:
    if nxt is None or nxt.kind != want:
        return Tok(kind, tok.location.offset, tok.rawText)
    return Tok(kind, tok.location.offset, tok.rawText, nxt.valueText, nxt.location.offset)


def conditionals(text: str) -> list[tuple[int, str, str]]:
    """(line, directive, macro) of each `` `ifdef``/`` `ifndef``/`` `elsif`` test in code (not comments)."""
    sc = scan(text)
    return [(sc.line_of(t.offset), t.text[1:], t.arg) for t in sc.of(Kind.DIRECTIVE)
            if t.text in ("`ifdef", "`ifndef", "`elsif") and t.arg is not None]
