"""The `#include` lines of a C, C++, Objective-C++ or Metal text, and the files they may name."""

from __future__ import annotations

import posixpath
import re

from mpsgen.records import NamedTuple
from mpsgen.scan.anchored import directive_line_starts, finditer_at

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
    # _INCLUDE.finditer, tried at '#' lines only (a `^` pattern is tried at every offset)
    for m in finditer_at(_INCLUDE, text, directive_line_starts(text)):
        line += text.count("\n", seen, m.start())
        seen = m.start()
        found.append(Include(m.group(2).strip(), m.group(1) == '"', line))
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


def included_names(text: str) -> frozenset[str]:
    """The file names (`OperationUtils.h`) of the files *text*'s #include and #import lines name."""
    return frozenset(posixpath.basename(inc.spelled) for inc in includes(text))


def includes_header(text: str, *headers: str) -> bool:
    """Whether *text* has an #include (or #import) of one of *headers*, spelled so (<...> or "...")."""
    return any(inc.spelled in headers for inc in includes(text))
