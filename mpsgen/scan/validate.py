"""Whether a text can be scanned at all: literals and comments closed, brackets balanced."""

from __future__ import annotations

from mpsgen.scan.brackets import first_unbalanced
from mpsgen.scan.mask import ScanProblem, code_only, mask


def scan_problem(text: str) -> ScanProblem | None:
    """The first reason *text* cannot be scanned reliably, or None.

    Brackets are counted outside preprocessor lines; both branches of an #if are counted, so a
    file whose branches each open a brace is reported too (mpsgen does not edit such files)."""
    m = mask(text)
    if m.problem is not None:
        return m.problem
    pos = first_unbalanced(code_only(m.masked))
    if pos is None:
        return None
    ch = text[pos]
    what = f"'{ch}' without its partner" if ch in "([{" else f"'{ch}' closes nothing"
    return ScanProblem(pos, f"unbalanced brackets: {what}", "fix the file so it compiles, then run again")
