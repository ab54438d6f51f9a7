"""Line helpers shared by the host-code readers and editors (host.py, host_register.py)."""

from __future__ import annotations

import re

from mpsgen.scan.lines import eol, split_lines

INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*[<"]([^>"]+)[>"]')


def lines_of(text: str) -> list[str]:
    return split_lines(text)


def is_blank(line: str) -> bool:
    return not line.strip()


def as_lines(snippet: str, nl: str) -> list[str]:
    """Rendered snippet -> lines ending with the file's newline."""
    return [ln.rstrip("\r") + nl for ln in snippet.strip("\r\n").split("\n")]


def join_after(lines: list[str], index: int, new: list[str]) -> list[str]:
    """Insert *new* after lines[index - 1]; repairs a missing final newline before the insertion."""
    if index > 0 and not eol(lines[index - 1]) and new:
        lines = lines[:]
        lines[index - 1] += eol(new[0]) or "\n"
    return lines[:index] + new + lines[index:]


_TODO = re.compile(r"//[ \t]*(?:TODO|FIXME)\b")


def without_todo_comments(code: str) -> str:
    """*code* (a sibling's definition, copied into a new one) without its TODO/FIXME comments: they
    are notes of the sibling's authors about that code, and a copy would only repeat them.  A comment
    on a line of its own goes with the comment lines right after it (its continuation); one after code,
    with the spaces before it."""
    from mpsgen.scan.mask import line_comments

    lines = split_lines(code)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))
    comments = {code.count("\n", 0, s): (s, e) for s, e in line_comments(code)}  # line index -> its comment
    out: list[str] = []
    dropping = False
    for k, line in enumerate(lines):
        span = comments.get(k)
        own_line = span is not None and not code[starts[k] : span[0]].strip()
        if dropping and own_line:
            continue
        dropping = False
        if span is None or not _TODO.match(code, span[0]):
            out.append(line)
        elif own_line:
            dropping = True
        else:
            out.append(code[starts[k] : span[0]].rstrip(" \t") + eol(line))
    return "".join(out)
