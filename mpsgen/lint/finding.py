"""One located problem found by a rule: the shape shared by the rules and the output formats."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, NamedTuple

from mpsgen.model import Location

ERROR = "error"
WARNING = "warning"
SEVERITIES = (ERROR, WARNING)


class Basis(NamedTuple):
    """A file whose content the finding rests on (besides its own), and the line that matters there
    (1 when the fault is a line that is missing: the file is where it should be)."""

    path: str
    line: int = 1


@dataclass(frozen=True)
class Finding:
    """One located problem.  `path` is relative to the checkout root (posix) or absolute.

    `rests_on` names the other files whose content produced it (the .mm that should register a
    stub, the .metal files that could register a kernel), most specific first: a run filtered to
    changed files reports the finding when any of them changed, naming it in `via`."""

    path: str
    line: int
    col: int
    code: str
    severity: str
    message: str
    hint: str | None = None
    rests_on: tuple[Basis, ...] = ()
    via: Basis | None = None  # set by a path-filtered run: the changed file it rests on (not its own path)

    def __post_init__(self) -> None:
        if self.severity not in SEVERITIES:
            raise ValueError(f"severity must be one of {SEVERITIES}, not {self.severity!r}")
        if self.line < 1 or self.col < 1:
            raise ValueError("line and col are 1-based")

    @property
    def location(self) -> Location:
        return Location(self.path, self.line, self.col)

    def full_message(self) -> str:
        return f"{self.message} (hint: {self.hint})" if self.hint else self.message


def bases(*groups: Iterable[str | Basis]) -> tuple[Basis, ...]:
    """The files of *groups* (paths or Basis), in order, each once (its first line kept)."""
    seen: dict[str, Basis] = {}
    for group in groups:
        for b in group:
            basis = b if isinstance(b, Basis) else Basis(b)
            seen.setdefault(basis.path, basis)
    return tuple(seen.values())


def sort_key(f: Finding) -> tuple[str, int, int, str, str]:
    return (f.path, f.line, f.col, f.code, f.message)
