"""A text's lines as a reader of masked code walks them: each masked (comments and literals blanked,
line ending dropped) and as written, and the lines worth reading, found in C rather than line by
line: those where a pattern matches at the line's start, those holding a word."""

from __future__ import annotations

import re
from bisect import bisect_right
from itertools import accumulate, count
from operator import add

from mpsgen.scan.anchored import occurrences
from mpsgen.scan.mask import mask_code


class MaskedLines:
    """The lines of *text* (split at "\\n" as split_lines splits them).  (A plain class: a NamedTuple
    class costs ~0.2 ms to create at import, a cold run's price.)"""

    __slots__ = ("text", "masked", "code", "bounds")

    def __init__(self, text: str) -> None:
        masked = mask_code(text)
        parts = masked.split("\n")
        if not parts[-1]:
            parts.pop()  # the text ends with a line break: no line after it
        self.text = text
        self.masked = masked
        # each masked line without its line ending (`[ln.rstrip("\r\n") for ln in split_lines(masked)]`)
        self.code = [p.rstrip("\r") for p in parts] if "\r" in masked else parts
        # The offset each line starts at (a masked line is as long as its text: the k-th starts after
        # the k line breaks before it), then the end (or one past it: slices clamp).
        self.bounds = [0, *map(add, accumulate(map(len, parts)), count(1))]

    def raw(self, first: int, last: int | None = None) -> str:
        """Lines *first* to *last* (default: *first*) as written, line endings kept."""
        return self.text[self.bounds[first] : self.bounds[(first if last is None else last) + 1]]

    def line_of(self, offset: int) -> int:
        return bisect_right(self.bounds, offset) - 1

    def opening(self, pattern: re.Pattern[str]) -> list[int]:
        """Line 0 and each line where *pattern*, a "\\n" and then what may start a line, matches the
        masked text (a superset of the lines a line-start pattern matches, without trying each)."""
        found, line, seen = [0], 0, 0
        for m in pattern.finditer(self.masked):
            line += self.masked.count("\n", seen, m.end())
            seen = m.end()
            found.append(line)
        return [k for k in found if k < len(self.code)]

    def holding(self, word: str) -> list[int]:
        """The lines whose masked text holds *word* (no line break in it), ascending."""
        return sorted({self.line_of(k) for k in occurrences(self.masked, (word,))})
