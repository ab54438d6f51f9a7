"""Located facts and change records of the test-list editors."""

from __future__ import annotations

from mpsgen.model import Location
from mpsgen.records import NamedTuple


class Change(NamedTuple):
    """One edit, located in the file as it was before the edit (1-based line)."""

    path: str
    line: int
    what: str

    def __str__(self) -> str:
        return f"{self.location}: {self.what}"

    @property
    def location(self) -> Location:
        """Where it was found (model.Location renders `path:line`)."""
        return Location(self.path, self.line)


class OpInfoRef(NamedTuple):
    """An OpInfo call for the op.  `key` is the common_mps.py key: name + variant, no separator."""

    name: str
    variant: str
    key: str
    aten_name: str
    aliases: tuple[str, ...]
    path: str
    line: int
    end_line: int
    offset: int  # character offset of the call (e.g. `OpInfo(`) in the file's text
    kind: str  # OpInfo, UnaryUfuncInfo, BinaryUfuncInfo, ...

    @property
    def location(self) -> Location:
        """Where it was found (model.Location renders `path:line`)."""
        return Location(self.path, self.line)


class TableEntry(NamedTuple):
    """A key in an UPPERCASE dict/set literal of common_mps.py."""

    key: str
    table: str
    function: str  # enclosing function, "<module>" at top level
    line: int
    end_line: int
