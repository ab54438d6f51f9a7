"""UnaryOps.mm's `#define REGISTER_MPS_UNARY_STUB(func, mps_func) ...`: delete it with its last use.

ceil, floor, trunc and round register their DispatchStub through this MPSGraph macro (so their move
to Metal needs no yaml change).  kernelplan removes an op's `REGISTER_MPS_UNARY_STUB(op, ...)` line;
this module then removes the macro definition once no line uses it, so no dead macro is left behind.
"""

from __future__ import annotations

import re

from mpsgen.errors import MpsgenError
from mpsgen.scan.lines import plain_lines, split_lines

MACRO = "REGISTER_MPS_UNARY_STUB"
_DEFINE = re.compile(rf"^\s*#\s*define\s+{MACRO}\b")
_UNDEF = re.compile(rf"^\s*#\s*undef\s+{MACRO}\s*$")


def definition_span(text: str, path: str = "<text>") -> tuple[int, int] | None:
    """(first, last) 1-based lines of the macro's #define, continuation lines included."""
    lines = plain_lines(text)
    for i, line in enumerate(lines):
        if _DEFINE.match(line):
            j = i
            while lines[j].rstrip().endswith("\\"):
                j += 1
                if j == len(lines):
                    raise MpsgenError(f"the #define of {MACRO} continues to the end of the file", path=path,
                                      line=i + 1, hint="fix the macro's trailing backslashes first")
            return i + 1, j + 1
    return None


def uses(text: str, path: str = "<text>") -> list[int]:
    """Lines that call the macro (outside preprocessor lines and comments)."""
    from mpsgen.sources.host import mm as host

    return [r.line for r in host.registrations(text, path) if r.macro == MACRO]


def remove_if_unused(text: str, path: str = "<text>") -> tuple[str, int | None]:
    """The text without the macro's definition (and its #undef) when nothing uses it any more.

    Returns (text, line of the removed #define or None).  Blank lines left meeting at the cut
    collapse to one."""
    span = definition_span(text, path)
    if span is None or uses(text, path):
        return text, None
    lines = split_lines(text)
    start, end = span[0] - 1, span[1]  # 0-based, end exclusive
    del lines[start:end]
    # Blank lines meeting at the cut (the definition's own, and the one its last use left) collapse to one.
    while start < len(lines) and not lines[start].strip() and (start == 0 or not lines[start - 1].strip()):
        del lines[start]
    kept = [line for line in lines if not _UNDEF.match(line)]
    return "".join(kept), span[0]
