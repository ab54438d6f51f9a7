"""The C++ a stub declared twice is read and edited by (plan/stale_twin.py decides): which file defines
the stub, which files use its name, and the stale DECLARE_DISPATCH statement taken out."""

from __future__ import annotations

import re

from mpsgen.scan.lines import split_lines
from mpsgen.scan.mask import mask_code
from mpsgen.scan.words import names


def defines_stub(text: str, stub: str) -> bool:
    """Whether *text*'s code (comments and strings blanked) has DEFINE_DISPATCH(stub)."""
    return stub in text and re.search(rf"\bDEFINE_DISPATCH\(\s*{re.escape(stub)}\s*\)", mask_code(text)) is not None


def uses_name(text: str, name: str) -> bool:
    """Whether *text*'s code (comments and strings blanked) names *name* as a whole identifier."""
    return name in text and names(mask_code(text), name)


def without_declaration(text: str, line: int) -> str | None:
    """*text* without the DECLARE_DISPATCH statement on *line*, when that statement has its lines to itself."""
    lines = split_lines(text)
    start = line - 1
    if start >= len(lines) or not lines[start].lstrip().startswith("DECLARE_DISPATCH("):
        return None
    depth = 0
    for end in range(start, len(lines)):
        depth += lines[end].count("(") - lines[end].count(")")
        if depth <= 0:
            if not re.fullmatch(r"[^;]*\)\s*;?\s*", lines[end]):  # something else follows the statement
                return None
            return "".join(lines[:start] + lines[end + 1:])
    return None
