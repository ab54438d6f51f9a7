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
    """Offset -> (line, column) in O(log n) after one O(n) pass over the text."""

    __slots__ = ("starts", "length")

    def __init__(self, text: str) -> None:
        # Cumulative line lengths, +1 for each "\n" before (the k-th line's start adds k): all in C.
        self.starts = [0, *map(add, accumulate(map(len, text.split("\n")[:-1])), count(1))]
        self.length = len(text)

    def line(self, pos: int) -> int:
        """1-based line of offset *pos*."""
        return bisect_right(self.starts, pos)

    def col(self, pos: int) -> int:
        """1-based column of offset *pos* (in characters)."""
        return pos - self.starts[self.line(pos) - 1] + 1

    def start_of(self, line: int) -> int:
        """Offset of the first character of 1-based *line*."""
        return self.starts[line - 1] if line - 1 < len(self.starts) else self.length

    @property
    def count(self) -> int:
        return len(self.starts)
