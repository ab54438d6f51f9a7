"""The live view of a child's output: one \\r-updated line on a terminal, plain lines otherwise."""

from __future__ import annotations

import shutil
from typing import TextIO


class Progress:
    """`[n/m]` lines become one bar on a terminal; a counter when the total is unknown."""

    def __init__(self, out: TextIO, is_tty: bool, width: int | None = None) -> None:
        self.out = out
        self.is_tty = is_tty
        self.width = width or shutil.get_terminal_size((100, 20)).columns
        self.bar_shown = False

    def bar(self, done: int, total: int, what: str) -> None:
        cells = 20
        filled = cells * done // total if total else cells
        head = f"[{'#' * filled}{'.' * (cells - filled)}] {done}/{total} "
        text = (head + what)[: max(self.width - 1, len(head))]
        self._overwrite(text)

    def count(self, done: int, what: str) -> None:
        """For runs whose total is unknown (tests): a counter instead of a bar."""
        self._overwrite(f"[{done}] {what}"[: self.width - 1])

    def line(self, text: str) -> None:
        self.clear()
        self.out.write(text + "\n")
        self.out.flush()

    def clear(self) -> None:
        if self.bar_shown:
            self.out.write("\r" + " " * (self.width - 1) + "\r")
            self.out.flush()
            self.bar_shown = False

    def _overwrite(self, text: str) -> None:
        self.out.write("\r" + text.ljust(self.width - 1))
        self.out.flush()
        self.bar_shown = True
