"""Inventory.macro_arguments: whether a name is passed to an UPPER_CASE macro in the MPS sources, each name
read only from the files that could pass it."""

from __future__ import annotations

from pathlib import Path
from typing import Callable


class MacroArguments:
    """`name in` the identifiers passed first to an UPPER_CASE macro in the MPS sources *files*
    (file_facts.macro_arguments over every file costs ~23 M instructions; MPS003 asks about a few dozen
    names that no file passes).  A macro's argument is an identifier of its file, so a name spelling `mps`
    is looked for only where the per-file mps identifier counts (which MPS004 and MPS020's index walk need
    anyway) hold it.  *identifiers_per_file()*, *identifiers()* (their sum) and *arguments(files)* (the
    macro-arguments fact of those files) are the inventory's, asked only when needed."""

    def __init__(self, files: dict[str, Path], identifiers_per_file: Callable[[], dict[str, dict[str, int]]],
                 identifiers: Callable[[], dict[str, int]],
                 arguments: Callable[[dict[str, Path]], dict[str, frozenset[str]]]) -> None:
        self._files = files
        self._identifiers_per_file = identifiers_per_file
        self._identifiers = identifiers
        self._arguments = arguments
        self._answers: dict[str, bool] = {}

    def __contains__(self, name: object) -> bool:
        if not isinstance(name, str):
            return False
        found = self._answers.get(name)
        if found is None:
            found = self._answers[name] = any(name in args for args in self._arguments(self._could_pass(name)).values())
        return found

    def _could_pass(self, name: str) -> dict[str, Path]:
        """The MPS sources where *name* may be a macro's argument: an argument is an identifier of the file."""
        if "mps" not in name:
            return self._files
        if name not in self._identifiers():  # (one look-up for a name no file holds)
            return {}
        return {rel: self._files[rel] for rel, counts in self._identifiers_per_file().items() if name in counts}
