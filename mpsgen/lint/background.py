"""Work a forked child does while the parent goes on: `check` and `status` search native/*.cpp for the
shared kernels on the second core while they read the yaml, the .mm and the .metal files.

The child starts before the parent knows what to ask: it prepares (reads and indexes native/*.cpp)
while the parent parses the yaml, then takes the keys the parent sends.  It computes with the very
functions the parent would call, so its answers are the parent's; anything that goes wrong in it
(no fork on this platform, a crash, a short pipe) leaves the parent to compute the answers itself,
as it does without a child.
"""

from __future__ import annotations

import os
import pickle
from typing import Any, Callable


def second_core() -> bool:
    """Whether this process may run on more than one CPU: a child on the only one adds its fork and
    pipes to the same work (~10 ms on a full checkout)."""
    try:
        return len(os.sched_getaffinity(0)) > 1
    except AttributeError:  # no affinity API (macOS)
        return (os.cpu_count() or 1) > 1


class Background:
    """`prepare()`, then `compute(keys)` for the keys of send(), run in a forked child; `result()`
    collects the answers (empty when the child failed)."""

    def __init__(self, compute: Callable[[list[str]], dict[str, Any]], prepare: Callable[[], object] = lambda: None) -> None:
        self._pid: int | None = None
        self._answers: int | None = None  # the read end of the child's answers
        self._keys: int | None = None  # the write end of the keys for the child
        if not hasattr(os, "fork"):
            return
        keys_read, keys_write = os.pipe()
        answers_read, answers_write = os.pipe()
        try:
            pid = os.fork()
        except OSError:  # no process to spare (a sandbox, a process limit): the parent computes
            for fd in (keys_read, keys_write, answers_read, answers_write):
                os.close(fd)
            return
        if pid == 0:  # the child: compute, send, and leave without running the parent's exit handlers
            status = 1
            try:
                os.close(keys_write)
                os.close(answers_read)
                prepare()
                with os.fdopen(keys_read, "rb") as src:
                    sent = src.read()
                keys = pickle.loads(sent) if sent else []
                data = pickle.dumps(compute(keys), protocol=pickle.HIGHEST_PROTOCOL)
                with os.fdopen(answers_write, "wb") as out:
                    out.write(data)
                status = 0
            except BaseException:  # noqa: BLE001 - the parent computes whatever is missing
                pass
            finally:
                os._exit(status)
        os.close(keys_read)
        os.close(answers_write)
        self._pid, self._answers, self._keys = pid, answers_read, keys_write

    def send(self, keys: list[str]) -> None:
        """The keys to compute (once; the child reads them after preparing, so keys longer than a pipe's
        buffer, 64 KB, wait for that here)."""
        if self._keys is None:
            return
        fd, self._keys = self._keys, None
        try:
            with os.fdopen(fd, "wb") as out:
                out.write(pickle.dumps(list(keys), protocol=pickle.HIGHEST_PROTOCOL))
        except OSError:  # the child is gone: result() says so
            pass

    def result(self) -> dict[str, Any]:
        """The child's answers (blocks until it is done); {} when there is no child or it failed."""
        if self._keys is not None:
            os.close(self._keys)  # no keys sent: the child computes nothing
            self._keys = None
        if self._answers is None:
            return {}
        fd, self._answers = self._answers, None
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
