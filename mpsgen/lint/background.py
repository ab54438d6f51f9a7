"""Work a forked child does while the parent goes on: `check` and `status` search native/*.cpp for the
shared kernels (~150 ms on a full checkout) on the second core while they read the .mm and .metal files.

The child computes with the very functions the parent would call, so its answers are the parent's;
anything that goes wrong in it (no fork on this platform, a crash, a short pipe) leaves the parent to
compute the answers itself, as it does without a child.
"""

from __future__ import annotations

import os
import pickle
from typing import Any, Callable


class Background:
    """`compute(keys)` -> {key: answer}, run in a forked child; `result()` collects it (empty on failure)."""

    def __init__(self, compute: Callable[[list[str]], dict[str, Any]], keys: list[str]) -> None:
        self._pid: int | None = None
        self._fd: int | None = None
        if not keys or not hasattr(os, "fork"):
            return
        read_fd, write_fd = os.pipe()
        try:
            pid = os.fork()
        except OSError:  # no process to spare (a sandbox, a process limit): the parent computes
            os.close(read_fd)
            os.close(write_fd)
            return
        if pid == 0:  # the child: compute, send, and leave without running the parent's exit handlers
            status = 1
            try:
                os.close(read_fd)
                data = pickle.dumps(compute(keys), protocol=pickle.HIGHEST_PROTOCOL)
                with os.fdopen(write_fd, "wb") as out:
                    out.write(data)
                status = 0
            except BaseException:  # noqa: BLE001 - the parent computes whatever is missing
                pass
            finally:
                os._exit(status)
        os.close(write_fd)
        self._pid, self._fd = pid, read_fd

    def result(self) -> dict[str, Any]:
        """The child's answers (blocks until it is done); {} when there is no child or it failed."""
        if self._fd is None:
            return {}
        fd, self._fd = self._fd, None
        with os.fdopen(fd, "rb") as src:
            data = src.read()
        _, status = os.waitpid(self._pid, 0) if self._pid else (0, 1)
        if status != 0:
            return {}
        try:
            answers = pickle.loads(data)
        except Exception:  # noqa: BLE001 - a truncated answer: compute instead
            return {}
        return answers if isinstance(answers, dict) else {}
