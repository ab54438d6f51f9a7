"""Blank comments and string/char literals (raw strings included) once per text; find preprocessor lines.

A masked text has the same length as the text and keeps every line break, so offsets, lines and
columns found in it are those of the text; regexes and bracket matching run on the mask while
quoted content is read from the text.
"""

from __future__ import annotations

import functools
import re
from bisect import bisect_right
from typing import Iterator

from mpsgen.records import NamedTuple

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
_ASCII_TO_BLANK = {c: " " for c in range(128) if chr(c) not in "\r\n"}


def blank_keeping_breaks(s: str) -> str:
    """`_NOT_BREAK.sub(" ", s)`: every character but \r and \n a space, by str.translate (in C) for
    an ASCII text (the regex substitution costs ~10 ns a character)."""
    if "\n" not in s and "\r" not in s:
        return " " * len(s)
    return s.translate(_ASCII_TO_BLANK) if s.isascii() else _NOT_BREAK.sub(" ", s)


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


def _tokens(text: str) -> Iterator[tuple[int, int, str | None]]:
    """(start, end, why unterminated or None) of each comment and literal, in order: the spans of
    `_TOKEN.finditer(text)`'s matches.

    A token opens with //, /*, ", ' or R" (an R just before a "): the next /, " or ' is found with
    str.find, at memchr speed, and so are a comment's end and a plain string's; the regex matches
    only the other literals, where they stand.  Its own search for a first character, and its walk
    through a comment, cost ~5 ns a character: most of mask()'s time.  After a token the search
    resumes at its end, as finditer's does.  The loop runs once a token or lone '/' (an #include's
    path), so it makes as few calls as it can: the nearest opener by comparisons (min() is a call),
    the character after a '/' by a slice, a one-line string without escapes read inline."""
    n, find = len(text), text.find
    # (each next /, " or ' found inline: a helper's call cost as much as the search)
    slash = k if (k := find("/")) >= 0 else n
    quote = k if (k := find('"')) >= 0 else n
    apostrophe = k if (k := find("'")) >= 0 else n
    resume = 0
    token: tuple[int, int, str | None] | None
    while True:
        p = slash if slash < quote else quote
        if apostrophe < p:
            p = apostrophe
        if p >= n:
            return
        if p == slash:
            after = text[p + 1 : p + 2]
            if after == "/":  # //[^\n]*
                end = find("\n", p + 2)
                token = (p, n if end < 0 else end, None)
            elif after == "*":  # /\*(?:.*?\*/|.*)
                end = find("*/", p + 2)
                token = (p, n, "unterminated /* comment") if end < 0 else (p, end + 2, None)
            else:
                slash = k if (k := find("/", p + 1)) >= 0 else n  # a division or a path: nothing opens here
                continue
        elif p == quote and (p == resume or text[p - 1] != "R") and (close := find('"', p + 1)) >= 0 \
                and "\\" not in (inside := text[p + 1 : close]) and "\n" not in inside:
            token = (p, close + 1, None)  # a string without escapes, on one line (no R before it)
        else:
            token = _literal(text, p, resume)
        if token is None:
            resume = p + 1  # a ' inside a word (1'000) opens nothing
        else:
            yield token
            resume = token[1]
        if slash < resume:
            slash = k if (k := find("/", resume)) >= 0 else n
        if quote < resume:
            quote = k if (k := find('"', resume)) >= 0 else n
        if apostrophe < resume:
            apostrophe = k if (k := find("'", resume)) >= 0 else n


def _literal(text: str, p: int, resume: int) -> tuple[int, int, str | None] | None:
    """The token that the " or ' at *p* opens (or, for a ", the R before it if not before *resume*):
    (start, end, why unterminated or None), None for a ' inside a word.  A raw string starts at its
    encoding prefix (u8, u, U, L), blanked with it."""
    quote = text[p] == '"'
    m = _TOKEN.match(text, p - 1) if quote and p > resume and text[p - 1] == "R" else None
    if m is None:
        if quote:
            close = text.find('"', p + 1)
            if close >= 0 and "\\" not in (inside := text[p + 1 : close]) and "\n" not in inside:
                return p, close + 1, None  # a string without escapes, on one line
        m = _TOKEN.match(text, p)
        if m is None:
            return None
    s, e = m.span()
    if s and m.group("delim") is not None:
        if text[s - 2 : s] == "u8" and (s == 2 or text[s - 3] not in _WORD_CHARS):
            s -= 2
        elif text[s - 1] in "uUL" and (s == 1 or text[s - 2] not in _WORD_CHARS):
            s -= 1
    return s, e, None if m.lastgroup in _TERMINATED else _unterminated(m)


@functools.lru_cache(maxsize=1024)
def mask(text: str) -> Masked:
    """*text* with comments and literals blanked (line breaks kept), and the first scan problem."""
    out: list[str] = []
    i = 0
    problem: ScanProblem | None = None
    for s, e, why in _tokens(text):
        out.append(text[i:s])
        # a token without a line break is blanked whole (a comment's \r too); a slice and `in` cost
        # less than a bounded str.find, whose arguments CPython 3.11 parses slowly
        token = text[s:e]
        out.append(" " * (e - s) if "\n" not in token else blank_keeping_breaks(token))
        i = e
        if why is not None and problem is None:
            problem = ScanProblem(s, why, "close it; mpsgen reads only files that compile")
    out.append(text[i:])
    return Masked(text, "".join(out), problem)


def mask_code(text: str) -> str:
    """*text* with comments and string/char literals blanked (same length, line breaks kept)."""
    return mask(text).masked


def line_comments(text: str) -> list[tuple[int, int]]:
    """(start, end) of each `//` comment of *text*, its line break excluded (none inside a literal
    or a block comment)."""
    return [(s, e) for s, e, _ in _tokens(text) if text.startswith("//", s)]


@functools.lru_cache(maxsize=256)
def blank_comments(text: str) -> str:
    """*text* with its comments blanked (same length, line breaks kept) and its literals as written,
    for readers of quoted names (`host_name("exp_" #DTYPE)`, "lgamma"): found as mask() finds them,
    so a // inside a literal is no comment."""
    out: list[str] = []
    i = 0
    for s, e, _ in _tokens(text):
        if text[s] != "/":
            continue  # a literal: kept
        out.append(text[i:s])
        token = text[s:e]
        out.append(" " * (e - s) if "\n" not in token else blank_keeping_breaks(token))
        i = e
    out.append(text[i:])
    return "".join(out)


# Python's comments and strings (triple-quoted first), for the Python sources mpsgen edits (the MPS
# test lists, OpInfo definitions): what a bracket there is matched outside of.
_PY_TOKEN = re.compile(
    r"#[^\n]*"
    r'|"""(?:\\.|[^\\])*?"""'
    r"|'''(?:\\.|[^\\])*?'''"
    r'|"(?:\\.|[^"\\\n])*"'
    r"|'(?:\\.|[^'\\\n])*'"
)


@functools.lru_cache(maxsize=8)
def mask_python(text: str) -> str:
    """Python source *text* with comments and string literals blanked (same length, line breaks kept)."""
    out: list[str] = []
    i = 0
    for m in _PY_TOKEN.finditer(text):
        s, e = m.span()
        out.append(text[i:s])
        token = text[s:e]
        out.append(" " * (e - s) if "\n" not in token else blank_keeping_breaks(token))
        i = e
    out.append(text[i:])
    return "".join(out)


_DIRECTIVE = re.compile(r"^[ \t]*#", re.M)


def _directive_starts(text: str) -> Iterator[int]:
    """The starts of _DIRECTIVE's matches (`^[ \\t]*#`, line starts), in order: from each '#' (found
    with str.find, in C) back over blanks to the start of its line.  A regex tries `\\n[ \\t]*#` at
    every line break, and there are 20 lines for each '#' in a masked .mm file."""
    find = text.find
    k = find("#")
    while k >= 0:
        if k == 0 or text[k - 1] == "\n":
            yield k  # most directives open their line: no search back
        else:
            start = text.rfind("\n", 0, k) + 1
            if not text[start:k].strip(" \t"):
                yield start  # a later '#' on this line has this one before it: no second start
        k = find("#", k + 1)


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
            while end > 0 and masked[end - 1] in "\\\r" and line_continues(masked, end):
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
        out.append(blank_keeping_breaks(masked[s:e]))
        k = e
    out.append(masked[k:])
    return "".join(out)
