"""A compiler diagnostic, and which of a changed file's diagnostics are new.

A diagnostic counts against a change only when the file's HEAD version has no diagnostic of the same
severity and message. Line numbers are left out of the match, since an edit above a diagnostic moves
it; and so is the count: on a real tree HEAD has no error, so this only matters where HEAD already
fails to compile in this setup (the Metal emulation's gaps, a composite tree's mixed headers), and
there a change that copies a sibling (a host API modeled on it) repeats the sibling's errors, which
are not the change's."""

from __future__ import annotations

import re
from typing import Iterable

from mpsgen.records import NamedTuple

ERROR = "error"
WARNING = "warning"


class Diagnostic(NamedTuple):
    path: str  # relative to the checkout root, posix
    line: int  # 1-based
    col: int  # 1-based
    severity: str  # ERROR or WARNING
    message: str  # the compiler's words, without file:line

    def render(self) -> str:
        return f"{self.path}:{self.line}:{self.col}: {self.severity}: {self.message}"


def new_diagnostics(after: Iterable[Diagnostic], before: Iterable[Diagnostic]) -> list[Diagnostic]:
    """The diagnostics of *after* whose path, severity and message no diagnostic of *before* has, in
    *after*'s order."""
    known = {_kind(d) for d in before}
    return [d for d in after if _kind(d) not in known]


# A diagnostic inside an included header is shown at the #include line, its message led by the header's
# own `path:line:` (compiler/objcxx.py): that line moves too when the change edits the header.
_HEADER_LINE = re.compile(r"^([^\s:]+\.(?:h|hpp|cuh|inc)):\d+: ")


def _kind(d: Diagnostic) -> tuple[str, str, str]:
    return d.path, d.severity, _HEADER_LINE.sub(r"\1: ", d.message)
