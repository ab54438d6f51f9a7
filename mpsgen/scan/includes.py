"""The `#include` lines of a C, C++, Objective-C++ or Metal text, and the files they may name."""

from __future__ import annotations

import posixpath
import re
from typing import NamedTuple

_INCLUDE = re.compile(r'^[ \t]*#[ \t]*(?:include|import)[ \t]*([<"])([^>"\n]+)[>"]', re.M)


class Include(NamedTuple):
    """One `#include <spelled>` (or "spelled"), with its line."""

    spelled: str
    quoted: bool  # "..." (searched beside the including file first) rather than <...>
    line: int


def includes(text: str) -> tuple[Include, ...]:
    """Every #include (and #import) directive of *text*, in order.  A directive inside a block
    comment is counted too: the reader errs towards a file being included (no false finding)."""
    found = []
    line, seen = 1, 0  # the line at offset *seen*
    # _INCLUDE's matches, tried only at the start of a line whose first non-blank is `#` (a `^` pattern
    # is tried at every offset)
    k = text.find("#")
    while k >= 0:
        start = text.rfind("\n", 0, k) + 1
        m = None if text[start:k].strip(" \t") else _INCLUDE.match(text, start)
        if m is not None:
            line += text.count("\n", seen, m.start())
            seen = m.start()
            found.append(Include(m.group(2).strip(), m.group(1) == '"', line))
        end = text.find("\n", k)
        k = text.find("#", end) if end >= 0 else -1
    return tuple(found)


def candidates(include: Include, including: str, roots: tuple[str, ...]) -> tuple[str, ...]:
    """The root-relative paths *include* may name, in search order: beside *including* for a
    quoted one, then under each of *roots* ("" is the checkout's root)."""
    beside = (posixpath.dirname(including),) if include.quoted else ()
    out = []
    for base in (*beside, *roots):
        p = posixpath.normpath(posixpath.join(base, include.spelled))
        if not p.startswith("../"):
            out.append(p)
    return tuple(dict.fromkeys(out))


def includes_header(text: str, *headers: str) -> bool:
    """Whether *text* has an #include (or #import) of one of *headers*, spelled so (<...> or "...")."""
    return any(inc.spelled in headers for inc in includes(text))
