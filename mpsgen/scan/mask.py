"""Blank comments and string/char literals (raw strings included) once per text; find preprocessor lines.

A masked text has the same length as the text and keeps every line break, so offsets, lines and
columns found in it are those of the text; regexes and bracket matching run on the mask while
quoted content is read from the text.
"""

from __future__ import annotations

import functools
import re
from bisect import bisect_right
from typing import NamedTuple

# Each alternative opens with a literal (/, R, " or '), so the regex engine skips in C to the next
# of those characters instead of trying the pattern at every offset (u, U and L are too common to
# open one): a raw string's encoding prefix (u8, u, U, L) is checked behind its R", and the
# character literal's word-boundary test behind its quote.  The matches are those of
# `(?<![A-Za-z0-9_])(?:u8|u|U|L)?R"...` and `(?<![A-Za-z0-9_])'...`, but a raw string's match starts at
# its R (mask() blanks the prefix; tests/test_scan.py compares both patterns).
_TOKEN = re.compile(
    r"//[^\n]*"
    r"|/\*(?:.*?(?P<bc>\*/)|.*)"
    r'|R"(?:(?<![A-Za-z0-9_]R")|(?<=(?<![A-Za-z0-9_])[uUL]R")|(?<=(?<![A-Za-z0-9_])u8R"))'
    r'(?P<delim>[^()\\\s"]{0,16})\((?:.*?(?P<rc>\)(?P=delim)")|.*)'
    r'|"(?:[^"\\\n]|\\.)*(?P<sq>")?'
    r"|'(?<![A-Za-z0-9_]')(?:[^'\\\n]|\\.)*(?P<cq>')?",
    re.S,
)
_WORD_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")
_NOT_BREAK = re.compile(r"[^\r\n]")


class ScanProblem(NamedTuple):
    """Why a text cannot be scanned: an unterminated comment or literal, or an unbalanced bracket."""

    pos: int
    message: str
    hint: str


class Masked(NamedTuple):
    text: str
    masked: str
    problem: ScanProblem | None  # the first unterminated comment or literal


def _unterminated(m: re.Match[str]) -> str | None:
    token = m.group(0)
    if token.startswith("//"):
        return None
    if token.startswith("/*"):
        return None if m.group("bc") else "unterminated /* comment"
    if m.group("delim") is not None:
        return None if m.group("rc") else "unterminated raw string"
    if token.startswith('"'):
        return None if m.group("sq") else "unterminated string literal"
    return None if m.group("cq") else "unterminated character literal"


_TERMINATED = frozenset({"bc", "rc", "sq", "cq"})  # the group each well-formed token ends with


@functools.lru_cache(maxsize=1024)
def mask(text: str) -> Masked:
    """*text* with comments and literals blanked (line breaks kept), and the first scan problem."""
    out: list[str] = []
    i = 0
    problem: ScanProblem | None = None
    for m in _TOKEN.finditer(text):
        s, e = m.span()
        if s and m.group("delim") is not None:  # a raw string: blank its encoding prefix with it
            if text[s - 2 : s] == "u8" and (s == 2 or text[s - 3] not in _WORD_CHARS):
                s -= 2
            elif text[s - 1] in "uUL" and (s == 1 or text[s - 2] not in _WORD_CHARS):
                s -= 1
        out.append(text[i:s])
        token = text[s:e]
        out.append(_NOT_BREAK.sub(" ", token) if "\n" in token else " " * (e - s))
        i = e
        if problem is None and m.lastgroup not in _TERMINATED and not token.startswith("//"):
            why = _unterminated(m)
            if why is not None:
                problem = ScanProblem(s, why, "close it; mpsgen reads only files that compile")
    out.append(text[i:])
    return Masked(text, "".join(out), problem)


def mask_code(text: str) -> str:
    """*text* with comments and string/char literals blanked (same length, line breaks kept)."""
    return mask(text).masked


_DIRECTIVE = re.compile(r"^[ \t]*#", re.M)
_DIRECTIVE_AFTER_BREAK = re.compile(r"\n[ \t]*#")


def _directive_starts(text: str):
    """The starts of _DIRECTIVE's matches (`^[ \\t]*#`, line starts): searched as `\\n[ \\t]*#`, whose
    leading literal the regex engine finds in C instead of testing `^` at every offset."""
    if _DIRECTIVE.match(text):
        yield 0
    for m in _DIRECTIVE_AFTER_BREAK.finditer(text):
        yield m.start() + 1


def line_continues(text: str, end: int) -> bool:
    """Whether the line ending at *end* ends in a backslash (`text[:end].rstrip("\\r").endswith("\\")`,
    without copying the text before *end*: once per directive line, that copy was quadratic)."""
    while end > 0 and text[end - 1] == "\r":
        end -= 1
    return end > 0 and text[end - 1] == "\\"


class Directives:
    """Spans of preprocessor lines (with backslash continuations) of one masked text."""

    __slots__ = ("spans", "_starts")

    def __init__(self, masked: str) -> None:
        spans: list[tuple[int, int]] = []
        for start in _directive_starts(masked):
            if spans and start < spans[-1][1]:
                continue  # a '#' on a continuation line of the previous directive
            end = masked.find("\n", start)
            while end >= 0 and line_continues(masked, end):
                end = masked.find("\n", end + 1)
            spans.append((start, len(masked) if end < 0 else end))
        self.spans = spans
        self._starts = [s for s, _ in spans]

    def span_at(self, pos: int) -> tuple[int, int] | None:
        k = bisect_right(self._starts, pos) - 1
        if k >= 0 and pos <= self.spans[k][1]:
            return self.spans[k]
        return None

    def __contains__(self, pos: int) -> bool:
        return self.span_at(pos) is not None


@functools.lru_cache(maxsize=512)
def directives(masked: str) -> Directives:
    return Directives(masked)


@functools.lru_cache(maxsize=512)  # asked for twice per file (braces, then definitions)
def code_only(masked: str) -> str:
    """A masked text with its preprocessor lines blanked too (line breaks kept)."""
    spans = directives(masked).spans
    if not spans:
        return masked
    out: list[str] = []
    k = 0
    for s, e in spans:
        out.append(masked[k:s])
        out.append(_NOT_BREAK.sub(" ", masked[s:e]))
        k = e
    out.append(masked[k:])
    return "".join(out)
