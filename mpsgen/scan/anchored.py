"""A pattern's matches, tried only where one of the literal words that every match starts with occurs.

`pattern.finditer(text)` tries the pattern at each offset the regex engine cannot rule out from the
pattern's first character; for a pattern opening with a class (`[A-Z_]`) or with alternatives (`//`
or `"`) that is much of the text, and each try costs a call into the matcher.  str.find jumps from
one occurrence of a word to the next in C, so a pattern whose every match starts with one of a few
words is matched at those occurrences only, with the same result.
"""

from __future__ import annotations

import re
from typing import Iterable, Iterator, Sequence


def occurrences(text: str, words: Sequence[str]) -> list[int]:
    """The offsets where any of *words* occurs in *text* (overlaps included), ascending, once each."""
    found: list[int] = []
    for word in words:
        k = text.find(word)
        while k >= 0:
            found.append(k)
            k = text.find(word, k + 1)
    return found if len(words) == 1 else sorted(set(found))


def finditer_at(pattern: re.Pattern[str], text: str, starts: Iterable[int]) -> Iterator[re.Match[str]]:
    """`pattern.finditer(text)` when every match of *pattern* starts at one of *starts* (ascending)
    and none is empty: the pattern is tried at each start not inside the previous match.
    (`pattern.match(text, pos)` sees the text before *pos*: lookbehinds and \\b behave as in finditer.)"""
    end = 0
    for start in starts:
        if start < end:
            continue
        m = pattern.match(text, start)
        if m is not None:
            yield m
            end = m.end()


def directive_line_starts(text: str) -> list[int]:
    """The starts of the lines whose first character after spaces and tabs is `#` (a preprocessor
    line), ascending: where a `^[ \t]*#` pattern (re.M) can match, for finditer_at."""
    starts: list[int] = []
    k = text.find("#")
    while k >= 0:
        if k == 0 or text[k - 1] == "\n":
            starts.append(k)  # most directives open their line: no search back
        else:
            start = text.rfind("\n", 0, k) + 1
            if not text[start:k].strip(" \t"):
                starts.append(start)
        k = text.find("#", text.find("\n", k) + 1 or len(text))  # the next line's first '#' at the earliest
    return starts


def lines_holding(text: str, word: str) -> list[int]:
    """The starts of the lines on which *word* occurs, ascending, once each: where a `^...word` pattern
    (re.M) whose match holds *word* on its first line can start, for finditer_at (a `#define NAME(`
    pattern is tried on the few lines spelling `define`, not on every preprocessor line)."""
    starts: list[int] = []
    k = text.find(word)
    while k >= 0:
        start = text.rfind("\n", 0, k) + 1
        starts.append(start)
        k = text.find(word, text.find("\n", k) + 1 or len(text))  # the next line's first at the earliest
    return starts
