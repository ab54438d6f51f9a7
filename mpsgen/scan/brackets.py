"""Bracket matching, the one top-level comma splitter, and macro-style calls in masked text."""

from __future__ import annotations

import re
from typing import Iterator, Sequence

from mpsgen.scan.anchored import finditer_at, occurrences
from mpsgen.scan.lines import LineTable
from mpsgen.scan.mask import directives

_PAIRS = {"(": ")", "[": "]", "{": "}"}
_BRACKETS = {o: re.compile(re.escape(o) + "|" + re.escape(c)) for o, c in _PAIRS.items()}


def match_close(masked: str, open_pos: int) -> int | None:
    """Index of the bracket closing the one at *open_pos* in a masked text, or None if unbalanced (or
    if the text has no bracket there: one inside a comment or literal, masked)."""
    opener = masked[open_pos]
    if opener not in _BRACKETS:
        return None
    depth = 0
    for m in _BRACKETS[opener].finditer(masked, open_pos):
        depth += 1 if m.group(0) == opener else -1
        if depth == 0:
            return m.start()
    return None


def paren_pairs(masked: str) -> dict[int, int]:
    """{offset of '(': offset of its ')'} for every balanced '(' of a masked text: match_close's answer
    for each, from one pass over the parentheses instead of one scan a call."""
    return bracket_pairs(masked, "(", ")")


def bracket_pairs(code: str, opening_char: str, closing_char: str) -> dict[int, int]:
    """{offset of each balanced *opening_char*: offset of its *closing_char*} in masked code; strays are
    ignored.  The brackets are found with str.find, at memchr speed (a regex for `[{}]` tests every offset)."""
    pairs: dict[int, int] = {}
    stack: list[int] = []
    find = code.find
    opening, closing = find(opening_char), find(closing_char)
    while closing >= 0:  # after the last closing bracket, the opening ones left have no partner
        if 0 <= opening < closing:
            stack.append(opening)
            opening = find(opening_char, opening + 1)
        else:
            if stack:
                pairs[stack.pop()] = closing
            closing = find(closing_char, closing + 1)
    return pairs


def first_unbalanced(code: str) -> int | None:
    """Offset of the first bracket without its partner in masked code (directives blanked), or None."""
    stack: list[tuple[str, int]] = []
    for m in re.finditer(r"[()\[\]{}]", code):
        ch = m.group(0)
        if ch in _PAIRS:
            stack.append((ch, m.start()))
        elif not stack or _PAIRS[stack[-1][0]] != ch:
            return m.start()
        else:
            stack.pop()
    return stack[0][1] if stack else None


# Any bracket an argument text can nest in: most arguments hold none (`abs, half, half`), and then
# every comma splits, as str.split finds them in C (a bracket-free text is never split otherwise).
_BRACKET = re.compile(r"[(){}\[\]<>]")
_SPLIT_AT = re.compile(r"[(){}\[\]<>,]")


def split_bounds(args: str, *, angles: bool = True) -> list[tuple[int, int]]:
    """(start, end) of each comma-separated part of a masked argument text, outside (), [], {}
    and, with *angles*, template <> (`->` is not a closing angle)."""
    bounds: list[tuple[int, int]] = []
    start = 0
    if _BRACKET.search(args) is None:
        for part in args.split(","):
            bounds.append((start, start + len(part)))
            start += len(part) + 1
        return bounds
    depth = 0
    openers = "([{<" if angles else "([{"
    closers = ")]}>" if angles else ")]}"
    for m in _SPLIT_AT.finditer(args):
        ch = m.group(0)
        k = m.start()
        if ch in openers:
            depth += 1
        elif ch in closers:
            if ch == ">" and k > 0 and args[k - 1] == "-":
                continue
            depth -= 1
        elif ch == "," and depth == 0:
            bounds.append((start, k))
            start = k + 1
    bounds.append((start, len(args)))
    return bounds


def split_top_level(args: str, *, angles: bool = True) -> list[str]:
    """The stripped comma-separated parts of a masked argument text (see split_bounds)."""
    if _BRACKET.search(args) is None:
        return [part.strip() for part in args.split(",")]
    return [args[a:b].strip() for a, b in split_bounds(args, angles=angles)]


def calls_outside_directives(
    text: str, masked: str, pattern: re.Pattern[str], lines: LineTable | None = None, words: Sequence[str] = ()
) -> Iterator[tuple[re.Match[str], int, int]]:
    """(match, 1-based line, offset of the closing parenthesis) for every match of *pattern* (which
    must end at an opening parenthesis) that is not on a preprocessor line, such as a #define body.
    With *words* (every match starts with one of them), the pattern is tried only where one occurs
    (scan/anchored.py)."""
    table = lines or LineTable(text)
    skip = directives(masked)
    for m in finditer_at(pattern, masked, occurrences(masked, words)) if words else pattern.finditer(masked):
        if m.start() in skip:
            continue
        close = match_close(masked, m.end() - 1)
        if close is not None:
            yield m, table.line(m.start()), close
