"""User-facing errors: one line naming the file and line, a hint, exit code 2."""

from __future__ import annotations

import contextlib
import enum
from typing import TYPE_CHECKING, Callable, Iterator

if TYPE_CHECKING:
    from os import PathLike

    from mpsgen.model import Location

EXIT_OK = 0
EXIT_FINDINGS = 1  # findings, build failure or test failure
EXIT_USAGE = 2  # usage or input error; nothing was written


class Refusal(enum.Enum):
    """What kind of refusal an error is, for the callers that act on it (never on its wording)."""

    OTHER = "other"
    NO_MPS_KERNEL = "no-mps-kernel"  # migrate on an op with no MPS kernel: new-op's business
    LOSES_COMPLEX = "loses-complex"  # the new kernel would stop serving complex64 that MPSGraph serves


class MpsgenError(Exception):
    """An error caused by the user's input or tree, never by a bug in mpsgen.

    Rendered as one line: ``path:line: message (hint: ...)``.  Raising it anywhere
    before the changeset is applied guarantees that no file was written.
    """

    def __init__(
        self,
        message: str,
        *,
        path: str | PathLike[str] | None = None,  # a Path, or gitpython's working_tree_dir
        line: int | None = None,
        hint: str | None = None,
        kind: Refusal = Refusal.OTHER,
    ) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message
        self.path = str(path) if path is not None else None
        self.line = line
        self.hint = hint
        self.context: list[str] = []

    @property
    def location(self) -> Location | None:
        """Where the error is, when it names a line (model.Location renders `path:line`)."""
        from mpsgen.model import Location  # the CLI's error path imports only this module up front

        return Location(self.path, self.line) if self.path is not None and self.line else None

    def where(self) -> str:
        if self.path is None:
            return ""
        return f"{self.location}: " if self.location else f"{self.path}: "

    def render(self) -> str:
        text = f"{self.where()}{self.message}"
        if self.context:
            text += " (while " + "; while ".join(self.context) + ")"
        if self.hint:
            text += f" (hint: {self.hint})"
        # Keep the promise of one line even when a message quotes source text.
        return " ".join(text.split("\n"))


@contextlib.contextmanager
def context(msg_fn: Callable[[], str]) -> Iterator[None]:
    """Add 'while <msg>' to any MpsgenError raised inside (cf. torchgen.utils.context)."""
    try:
        yield
    except MpsgenError as err:
        err.context.append(msg_fn())
        raise
