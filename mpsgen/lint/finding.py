"""One located problem found by a rule: the shape shared by the rules and the output formats."""

from __future__ import annotations

from typing import Iterable

from mpsgen.model import Location
from mpsgen.records import NamedTuple

ERROR = "error"
WARNING = "warning"
SEVERITIES = (ERROR, WARNING)


class Basis(NamedTuple):
    """A file whose content the finding rests on (besides its own), and the line that matters there
    (1 when the fault is a line that is missing: the file is where it should be)."""

    path: str
    line: int = 1


class Finding:
    """One located problem.  `path` is relative to the checkout root (posix) or absolute.

    `rests_on` names the other files whose content produced it (the .mm that should register a
    stub, the .metal files that could register a kernel), most specific first: a run filtered to
    changed files reports the finding when any of them changed, naming it in `via`.

    Immutable, compared and hashed by its fields, as a frozen dataclass (a plain class: creating
    the dataclass cost ~1 ms of every run's start, and importing dataclasses as much)."""

    __slots__ = ("path", "line", "col", "code", "severity", "message", "hint", "rests_on", "via")

    path: str
    line: int
    col: int
    code: str
    severity: str
    message: str
    hint: str | None
    rests_on: tuple[Basis, ...]
    via: Basis | None  # set by a path-filtered run: the changed file it rests on (not its own path)

    def __init__(self, path: str, line: int, col: int, code: str, severity: str, message: str,
                 hint: str | None = None, rests_on: tuple[Basis, ...] = (), via: Basis | None = None) -> None:
        if severity not in SEVERITIES:
            raise ValueError(f"severity must be one of {SEVERITIES}, not {severity!r}")
        if line < 1 or col < 1:
            raise ValueError("line and col are 1-based")
        for name, value in zip(self.__slots__, (path, line, col, code, severity, message, hint, rests_on, via)):
            object.__setattr__(self, name, value)

    def _values(self) -> tuple:
        return tuple(getattr(self, name) for name in self.__slots__)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"cannot assign to field {name!r} of a Finding")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"cannot delete field {name!r} of a Finding")

    def __eq__(self, other: object) -> bool:
        return self._values() == other._values() if other.__class__ is self.__class__ else NotImplemented

    def __hash__(self) -> int:
        return hash(self._values())

    def __repr__(self) -> str:
        return "Finding(" + ", ".join(f"{name}={value!r}" for name, value in zip(self.__slots__, self._values())) + ")"

    def with_via(self, via: Basis) -> "Finding":
        """This finding, reported because it rests on the changed file *via*."""
        return Finding(self.path, self.line, self.col, self.code, self.severity, self.message, self.hint,
                       self.rests_on, via)

    @property
    def location(self) -> Location:
        return Location(self.path, self.line, self.col)

    def full_message(self) -> str:
        return f"{self.message} (hint: {self.hint})" if self.hint else self.message


class Bases(tuple[Basis, ...]):
    """What bases() returns: Basis records of distinct files, in order (a rule passing one to several
    findings, say the MPS sources to each MPS003, is not read again for each)."""


def bases(*groups: Iterable[str | Basis]) -> Bases:
    """The files of *groups* (paths or Basis), in order, each once (its first line kept)."""
    if len(groups) == 1 and isinstance(groups[0], Bases):
        return groups[0]
    seen: dict[str, Basis] = {}
    for group in groups:
        for b in group:
            basis = b if isinstance(b, Basis) else Basis(b)
            seen.setdefault(basis.path, basis)
    return Bases(seen.values())


def sort_key(f: Finding) -> tuple[str, int, int, str, str]:
    return (f.path, f.line, f.col, f.code, f.message)
