"""One idea of a line: it ends at "\n" (a "\r\n" pair belongs to the line it ends); nothing else
breaks a line (str.splitlines also breaks at form feeds, \x1c-\x1e, \u2028, which C++ does not).
"""

from __future__ import annotations

from bisect import bisect_right
from itertools import accumulate, count
from operator import add


def split_lines(text: str) -> list[str]:
    """Lines of *text* with their endings kept; "".join(result) == text."""
    if not text:
        return []
    parts = text.split("\n")
    lines = [p + "\n" for p in parts[:-1]]
    if parts[-1]:
        lines.append(parts[-1])
    return lines


def above_comments(lines: list[str], line: int) -> int:
    """The 1-based line of the first of the `//` comment lines directly above 1-based *line* (they
    belong to what it starts), or *line*."""
    while line > 1 and lines[line - 2].lstrip().startswith("//"):
        line -= 1
    return line


def plain_lines(text: str) -> list[str]:
    """Lines of *text* without their endings ("\n", or "\r\n"), as str.splitlines() gives them for
    text that breaks lines only there."""
    if not text:
        return []
    parts = text.split("\n")
    if not parts[-1]:
        parts.pop()
    return [p[:-1] if p.endswith("\r") else p for p in parts]


def line_start(text: str, pos: int) -> int:
    """Offset of the first character of the line holding *pos*."""
    return text.rfind("\n", 0, pos) + 1


def eol(line: str) -> str:
    """The ending of one line ("\n", "\r\n" or "")."""
    return line[len(line.rstrip("\r\n")) :]


class LineTable:
    """Offset -> (line, column) and line -> offset of one text.

    The first questions are answered by counting line breaks (str.count, in C) from the nearest offset
    whose line is already known; the table of every line's start (one pass over the text, ~6x the cost
    of counting it) is built only once the counting has gone over the text a few times, or for a
    question the counts cannot answer cheaply.  Most files are asked about a few definitions."""

    __slots__ = ("_text", "_starts", "_known", "_known_lines", "_budget", "length")

    def __init__(self, text: str) -> None:
        self._text = text
        self._starts: list[int] | None = None
        self._known = [0]  # offsets whose lines are known, in order
        self._known_lines = [1]
        self._budget = 3 * len(text) + 4096  # characters left to count (a question counts 256 more) before the table
        self.length = len(text)

    @property
    def starts(self) -> list[int]:
        """The offset of each line's start (the table, built on first use)."""
        if self._starts is None:
            # Cumulative line lengths, +1 for each "\n" before (the k-th line's start adds k): all in C.
            self._starts = [0, *map(add, accumulate(map(len, self._text.split("\n")[:-1])), count(1))]
        return self._starts

    def line(self, pos: int) -> int:
        """1-based line of offset *pos*."""
        if self._starts is not None or pos < 0:
            return bisect_right(self.starts, pos)
        k = bisect_right(self._known, pos)
        at, line = self._known[k - 1], self._known_lines[k - 1]
        if at == pos:
            return line
        if k < len(self._known) and self._known[k] - pos < pos - at:  # nearer the next known offset
            line = self._known_lines[k] - self._text.count("\n", pos, self._known[k])
            self._budget -= self._known[k] - pos + 256
        else:
            line += self._text.count("\n", at, pos)
            self._budget -= pos - at + 256
        if self._budget < 0:
            self._starts = self.starts  # counting has cost as much as the table: build it
        else:
            self._known.insert(k, pos)
            self._known_lines.insert(k, line)
        return line

    def col(self, pos: int) -> int:
        """1-based column of offset *pos* (in characters)."""
        if self._starts is not None or pos < 0:
            return pos - self.starts[self.line(pos) - 1] + 1
        return pos - self._text.rfind("\n", 0, pos)  # the last line start at or before pos is one past that break

    def start_of(self, line: int) -> int:
        """Offset of the first character of 1-based *line*."""
        if self._starts is None and line >= 1:
            k = bisect_right(self._known_lines, line) - 1  # the last known offset on a line up to *line*
            if line - self._known_lines[k] <= 8:
                return self._walk_to(self._known[k], line - self._known_lines[k])
        return self.starts[line - 1] if line - 1 < len(self.starts) else self.length

    def _walk_to(self, pos: int, lines: int) -> int:
        """The start of the line *lines* below the one holding *pos* (the text's length past its last line)."""
        start = self._text.rfind("\n", 0, pos) + 1
        for _ in range(lines):
            brk = self._text.find("\n", start)
            if brk < 0:
                return self.length
            start = brk + 1
        return start

    @property
    def count(self) -> int:
        return len(self._starts) if self._starts is not None else self._text.count("\n") + 1
