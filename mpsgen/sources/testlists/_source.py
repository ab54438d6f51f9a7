"""Text helpers for editing Python sources in place: offsets from `ast`, item removal (brackets are
matched by scan/brackets on scan/mask.mask_python).

Edits are made on the text itself (never by unparsing), so comments, quoting and layout outside the
removed items stay byte-identical.  `ast` (C, fast) gives the positions; libcst is not needed.
"""

from __future__ import annotations

import ast
import bisect
import itertools
import operator
import re

from mpsgen.tree.checkout import newline_of

# A comment line that is itself a disabled entry, e.g. `# "kthvalue": None,` - never deleted.
_COMMENTED_ENTRY = re.compile(r"""^\s*#\s*(['"]).+?\1\s*[:,]""")


class Lines:
    """Maps `ast` positions (1-based line, UTF-8 byte column) to character offsets in *src*."""

    def __init__(self, src: str, upto: int | None = None) -> None:
        """*upto*: only lines 1..upto are asked about (a tree of the file's first lines): only their starts are found."""
        self.src = src
        lines = src.split("\n")[:-1] if upto is None else src.split("\n", upto)[:-1]
        # where each line starts: 0, then one past each "\n" (line lengths summed in C: no Python step a line)
        self.starts = list(itertools.accumulate(map(operator.add, map(len, lines), itertools.repeat(1)), initial=0))

    def offset(self, lineno: int, col: int) -> int:
        start = self.starts[lineno - 1]
        end = self.starts[lineno] if lineno < len(self.starts) else len(self.src)
        line = self.src[start:end]
        if line.isascii():
            return start + col
        return start + len(line.encode("utf-8")[:col].decode("utf-8"))

    def span(self, node: ast.AST) -> tuple[int, int]:
        return (
            self.offset(node.lineno, node.col_offset),  # type: ignore[attr-defined]
            self.offset(node.end_lineno, node.end_col_offset),  # type: ignore[attr-defined]
        )

    def line_of(self, offset: int) -> int:
        return bisect.bisect_right(self.starts, offset)


def has_lone_cr(text: str) -> bool:
    # a text without "\r" (every LF file) is answered by one C search, not two counts over it (2.7's
    # test_mps.py: 560 KB, ~5 M instructions)
    return "\r" in text and text.count("\r") != text.count("\r\n")


def _skip_trivia(src: str, pos: int, limit: int) -> int:
    """First offset at or after *pos* that is neither whitespace nor inside a comment."""
    while pos < limit:
        ch = src[pos]
        if ch in " \t\r\n\f":
            pos += 1
        elif ch == "#":
            nl = src.find("\n", pos)
            pos = limit if nl == -1 else nl
        else:
            break
    return pos


def _line_bounds(src: str, pos: int) -> tuple[int, int]:
    """(start, end) of the line holding *pos*; end is past its newline."""
    start = src.rfind("\n", 0, pos) + 1
    nl = src.find("\n", pos)
    return start, (len(src) if nl == -1 else nl + 1)


def _is_blank(line: str) -> bool:
    return line.strip() == ""


def _is_comment(line: str) -> bool:
    return line.lstrip().startswith("#")


def remove_item(
    src: str,
    items: list[tuple[int, int]],
    index: int,
    close: int,
    *,
    is_tuple: bool = False,
) -> str:
    """Remove item *index* (with its comma) from a bracketed container in *src*.

    *items* are the (start, end) offsets of every item in the container, *close* the offset of
    its closing bracket.  An item on whole lines is removed with those lines (and its trailing
    comment); a comment block right above it goes too when the item was the last of the run of
    items under that comment.  Otherwise only the item text and its comma are removed.  A tuple
    left with one item keeps its comma.
    """
    if is_tuple and len(items) == 2 and index == 0:
        # `(A, B)` -> `(B,)`: give B a comma first (it lies after everything removed below).
        b_end = items[1][1]
        after_b = _skip_trivia(src, b_end, close)
        if src[after_b] != ",":
            src = src[:b_end] + "," + src[b_end:]
            close += 1
    start, end = items[index]
    limit = items[index + 1][0] if index + 1 < len(items) else close
    after = _skip_trivia(src, end, limit)
    has_comma = after < limit and src[after] == ","
    comma_end = after + 1 if has_comma else end

    line_start, _ = _line_bounds(src, start)
    _, line_end = _line_bounds(src, max(comma_end - 1, start))
    rest = src[comma_end:line_end]
    on_own_lines = _is_blank(src[line_start:start]) and (_is_blank(rest) or _is_comment(rest))
    if on_own_lines:
        return _remove_lines(src, line_start, line_end)

    if has_comma:
        del_end = comma_end
        while del_end < len(src) and src[del_end] in " \t":
            del_end += 1
        if not _is_blank(src[line_start:start]) and src.startswith(("\n", "\r\n"), del_end):
            # `[A,\n    B]`: pull the next item up to where A was.
            del_end = src.index("\n", del_end) + 1
            while del_end < len(src) and src[del_end] in " \t":
                del_end += 1
        return src[:start] + src[del_end:]
    if index == 0:
        return src[:start] + src[end:]
    prev_end = items[index - 1][1]
    if is_tuple and len(items) == 2:
        prev_comma = src.index(",", prev_end)
        return src[: prev_comma + 1] + src[end:]
    return src[:prev_end] + src[end:]


def _remove_lines(src: str, first: int, last: int) -> str:
    """Delete src[first:last] (whole lines) and the comment block that introduced only them."""
    below_start, below_end = _line_bounds(src, last) if last < len(src) else (last, last)
    below = src[below_start:below_end]
    run_ends = last >= len(src) or _is_blank(below) or _is_comment(below) or below.lstrip()[:1] in (")", "]", "}")
    if run_ends:
        block = first
        while block > 0:
            prev_start, _ = _line_bounds(src, block - 1)
            prev = src[prev_start:block]
            if not _is_comment(prev) or _COMMENTED_ENTRY.match(prev):
                break
            block = prev_start
        if block != first:
            above_start, _ = _line_bounds(src, block - 1) if block > 0 else (0, 0)
            if block > 0 and _is_blank(src[above_start:block]) and _is_blank(below) and last < len(src):
                last = below_end  # do not leave two blank lines behind
            first = block
    return src[:first] + src[last:]


def insert_after_item(src: str, items: list[tuple[int, int]], index: int, close: int, item_text: str) -> str:
    """Insert *item_text* as a new item after item *index* (or before the first when index == -1)."""
    if index == -1:
        start = items[0][0]
        line_start, _ = _line_bounds(src, start)
        indent = src[line_start:start]
        if _is_blank(indent):
            return src[:line_start] + indent + item_text + "," + _newline(src) + src[line_start:]
        return src[:start] + item_text + ", " + src[start:]
    start, end = items[index]
    limit = items[index + 1][0] if index + 1 < len(items) else close
    after = _skip_trivia(src, end, limit)
    has_comma = after < limit and src[after] == ","
    line_start, line_end = _line_bounds(src, after if has_comma else end)
    first_line_start, _ = _line_bounds(src, start)
    indent = src[first_line_start:start]
    rest = src[(after + 1 if has_comma else end):line_end]
    if has_comma and _is_blank(indent) and (_is_blank(rest) or _is_comment(rest)):
        return src[:line_end] + indent + item_text + "," + _newline(src) + src[line_end:]
    if has_comma:
        return src[: after + 1] + " " + item_text + "," + src[after + 1 :]
    return src[:end] + ", " + item_text + src[end:]


def _newline(src: str) -> str:
    return newline_of(src)
