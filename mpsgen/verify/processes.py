"""Child processes: run one streamed, stop its whole process group on Ctrl-C, name missing tools.

Each child runs in its own process group, so Ctrl-C (which only reaches mpsgen) stops the whole
group and raises `Interrupted`.  The full output always goes to a log file.
"""

from __future__ import annotations

import os
import shlex
import shutil
import signal
import subprocess
import tempfile
import threading
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, Iterator, Sequence, TextIO

from mpsgen.errors import MpsgenError
from mpsgen.tree.checkout import BUILD_REL
from mpsgen.scan.lines import plain_lines

KILL_GRACE_S = 3.0

_MISSING_HINTS = {
    "build": "install it (pip install ninja), set the command with --build-cmd or [tool.mpsgen] build_cmd, "
    "or pass --no-build",
    "tests": "pass --python or set [tool.mpsgen] test_cmd",
}


class Interrupted(Exception):
    """Ctrl-C stopped a child process group.  The CLI adds what state the tree is in."""

    def __init__(self, phase: str, command: Sequence[str], log_path: Path) -> None:
        super().__init__(f"interrupted during the {phase}")
        self.phase = phase
        self.command = tuple(command)
        self.log_path = log_path

    def describe(self) -> str:
        return (
            f"interrupted during the {self.phase} (`{shown_command(self.command)}`); the child processes were "
            f"stopped; partial log in {self.log_path}"
        )


def shown_command(argv: Sequence[str]) -> str:
    """*argv* as a user would type it in a shell."""
    return " ".join(shlex.quote(a) for a in argv)


def missing_executable(name: str, phase: str) -> MpsgenError:
    return MpsgenError(f"`{name}` not found on PATH", hint=_MISSING_HINTS.get(phase))


def check_executable(argv: Sequence[str], cwd: Path, phase: str) -> None:
    """Raise MpsgenError when *argv*'s program is neither on PATH nor (for a path) under *cwd*."""
    exe = argv[0]
    if os.sep in exe:
        if not (cwd / exe).exists():
            raise missing_executable(exe, phase)
    elif shutil.which(exe) is None:
        raise missing_executable(exe, phase)


def default_log_path(root: Path, name: str, build_dir: str = BUILD_REL) -> Path:
    """build/<name> when the build folder exists, else the temp folder (never the source tree)."""
    build = Path(root) / build_dir
    return build / name if build.is_dir() else Path(tempfile.gettempdir()) / name


def stream(
    argv: Sequence[str],
    cwd: Path,
    log: TextIO,
    on_line: Callable[[str], None],
    phase: str,
    log_path: Path,
    env: dict[str, str] | None = None,
) -> int:
    """Run *argv*, feed each output line (stdout and stderr merged) to the log and *on_line*;
    return its exit code.  On Ctrl-C stop the child's process group and raise `Interrupted`."""
    log.write(f"$ {shown_command(argv)}  (in {cwd})\n")
    log.flush()
    with _ctrl_c_deferred() as pressed:  # a Ctrl-C while Popen waits for the exec lands below, child in hand
        proc = _start(argv, cwd, env, phase)
    try:
        if pressed:
            raise KeyboardInterrupt
        assert proc.stdout is not None
        for line in proc.stdout:
            log.write(line)
            on_line(line.rstrip("\r\n"))
        return proc.wait()
    except KeyboardInterrupt:
        kill_group(proc)
        log.write(f"\n[mpsgen] interrupted; process group {proc.pid} stopped\n")
        log.flush()
        raise Interrupted(phase, argv, log_path) from None
    finally:
        if proc.stdout is not None:
            proc.stdout.close()


@contextmanager
def _ctrl_c_deferred() -> Iterator[list[bool]]:
    """SIGINT only noted (the list gets True) while the block runs, in the main thread; elsewhere as is."""
    pressed: list[bool] = []
    if threading.current_thread() is not threading.main_thread():
        yield pressed
        return
    previous = signal.signal(signal.SIGINT, lambda *_: pressed.append(True))
    try:
        yield pressed
    finally:
        signal.signal(signal.SIGINT, previous)


def _start(argv: Sequence[str], cwd: Path, env: dict[str, str] | None, phase: str) -> subprocess.Popen:
    try:
        return subprocess.Popen(
            list(argv),
            cwd=cwd,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # own process group: we decide when it is stopped
            env=env,
            text=True,
            encoding="utf-8",
            errors="replace",
            bufsize=1,
        )
    except FileNotFoundError:
        raise missing_executable(argv[0], phase) from None


def kill_group(proc: subprocess.Popen) -> None:
    """SIGINT the child's group (what a terminal Ctrl-C would do), then SIGTERM, then SIGKILL;
    then make sure no descendant's group outlives it."""
    groups = _descendant_groups(proc.pid) | {proc.pid}
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            break
        try:
            proc.wait(timeout=KILL_GRACE_S)
            break
        except subprocess.TimeoutExpired:
            continue
    proc.wait()
    _signal_groups(groups, signal.SIGKILL)


def _descendant_groups(pid: int) -> set[int]:
    """Process groups of *pid*'s descendants.  ninja starts every command in a group of its own,
    so killing ninja's group alone can leave a compiler running; `ps` works on macOS and Linux."""
    try:
        listing = subprocess.run(["ps", "-A", "-o", "pid=", "-o", "ppid=", "-o", "pgid="],
                                 capture_output=True, text=True, timeout=5).stdout
    except (OSError, subprocess.SubprocessError):
        return set()
    children: dict[int, list[tuple[int, int]]] = {}
    for row in plain_lines(listing):
        parts = row.split()
        if len(parts) == 3 and all(p.isdigit() for p in parts):
            child, parent, group = map(int, parts)
            children.setdefault(parent, []).append((child, group))
    groups, todo = set(), [pid]
    while todo:
        for child, group in children.get(todo.pop(), []):
            groups.add(group)
            todo.append(child)
    return groups


def _signal_groups(groups: set[int], sig: int) -> None:
    for group in groups:
        try:
            os.killpg(group, sig)
        except (ProcessLookupError, PermissionError):
            pass
