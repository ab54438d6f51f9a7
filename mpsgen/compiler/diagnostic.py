"""A compiler diagnostic, and which of a changed file's diagnostics are new.

A diagnostic counts against a change only when the file's HEAD version does not have it too: the
same severity and message, counted (two copies of a message where HEAD has one is one new). Line
numbers are left out of the match, since an edit above a diagnostic moves it."""

from __future__ import annotations

from collections import Counter
from typing import Iterable, NamedTuple

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
    """The diagnostics of *after* that *before* does not have (matched by path, severity and message,
    with multiplicity), in *after*'s order."""
    budget = Counter((d.path, d.severity, d.message) for d in before)
    out: list[Diagnostic] = []
    for d in after:
        key = (d.path, d.severity, d.message)
        if budget[key] > 0:
            budget[key] -= 1
        else:
            out.append(d)
    return out
