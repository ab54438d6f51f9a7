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
