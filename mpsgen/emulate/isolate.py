"""Run the compiled functor in a child process, so a body that traps cannot kill mpsgen.

On the host, integer division by zero (and INT_MIN / -1) raises SIGFPE on x86 and a bad pointer
SIGSEGV; on the GPU neither traps (the value is unspecified).  The emulated library is therefore
only ever loaded by child.py, one process per check (started while the library compiles, restarted
after a crash), fed raw bytes through a pipe.  A crash becomes a KernelCrash naming the signal;
first_crash() replays one call element by element to find the inputs that trap.
"""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import IO

from mpsgen.errors import MpsgenError
from mpsgen.records import NamedTuple
from mpsgen.scan.lines import plain_lines

CHILD = Path(__file__).resolve().parent / "child.py"
TIMEOUT_S = 60.0  # per call: the inputs take milliseconds; longer means the body never returns
# What each signal usually means for a functor body.
_MEANING = {
    "SIGFPE": "arithmetic trap: integer division by zero or MIN / -1; on the GPU it gives an unspecified "
              "value instead, so guard the divisor",
    "SIGSEGV": "invalid memory access",
    "SIGBUS": "invalid memory access",
    "SIGILL": "illegal instruction (a trap or unreachable code)",
    "SIGABRT": "abort",
}


class KernelCrash(Exception):
    """The child running the kernel died of *signal* (a name such as SIGFPE, or "timeout") after
    *done* bytes of its reply (in element-by-element mode: the index of the element that crashed)."""

    def __init__(self, signal_name: str, done: int = 0) -> None:
        super().__init__(signal_name)
        self.signal, self.done = signal_name, done
        self.element: int | None = None  # the first input that crashes, once found (numerics.py)

    @property
    def meaning(self) -> str:
        if self.signal == "timeout":
            return f"no result within {TIMEOUT_S:g} s: an endless loop?"
        return _MEANING.get(self.signal, "killed by a signal")


class Call(NamedTuple):
    """One kernel call: the symbol, element count, raw input arrays, raw alpha, output size."""

    symbol: str
    n: int
    inputs: tuple[bytes, ...]
    alpha: bytes | None
    out_bytes: int


class KernelRunner:
    """A child process serving calls into one library; use as a context manager.

    start() early (the child's Python start-up then overlaps the compile); *library* may be set
    once it is built, before the first run()."""

    def __init__(self, library: str | Path | None = None) -> None:
        self.library = library
        self._proc: subprocess.Popen[bytes] | None = None
        self._stderr: IO[bytes] | None = None  # a temporary file: a child's error message, never a blocked pipe
        self._loaded = False

    def __enter__(self) -> "KernelRunner":
        return self

    def __exit__(self, exc_type: object, *exc: object) -> None:
        self.close(kill=exc_type is not None)  # Ctrl-C or an error: do not wait for a looping body

    def close(self, *, kill: bool = False) -> None:
        proc, self._proc = self._proc, None
        if proc is not None and kill and proc.poll() is None:
            proc.kill()
        if proc is not None:
            assert proc.stdin is not None
            try:
                proc.stdin.close()
            except BrokenPipeError:
                pass
            try:
                proc.wait(timeout=TIMEOUT_S)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
            assert proc.stdout is not None
            proc.stdout.close()
        if self._stderr is not None:
            self._stderr.close()
            self._stderr = None

    def start(self) -> subprocess.Popen[bytes]:
        if self._proc is None:
            import tempfile

            self._stderr = tempfile.TemporaryFile()
            # -I -S: no site packages, no user paths: the child needs ctypes only.
            self._proc = subprocess.Popen([sys.executable, "-I", "-S", str(CHILD)], stdin=subprocess.PIPE,
                                          stdout=subprocess.PIPE, stderr=self._stderr)
            self._loaded = False
        return self._proc

    def run(self, call: Call) -> bytes:
        """The output bytes of *call*; KernelCrash if the kernel killed the child."""
        reply = self._exchange(call, None, 8)
        size = int.from_bytes(reply, "little")
        return self._read(size)

    def first_crash(self, call: Call, in_size: int, out_size: int) -> int | None:
        """The index of the first element of *call* that crashes when run alone (None if none does)."""
        try:
            self._exchange(call, (in_size, out_size), call.n)
        except KernelCrash as crash:
            return crash.done
        return None

    # -- the pipe ---------------------------------------------------------------------------------

    def _exchange(self, call: Call, step: tuple[int, int] | None, expect: int) -> bytes:
        proc = self.start()
        assert proc.stdin is not None and self.library is not None
        load = b"" if self._loaded else os.fsencode(str(self.library)) + b"\n"
        self._loaded = True
        fields = [call.symbol, call.n, call.out_bytes, len(call.alpha) if call.alpha is not None else -1,
                  *(step or (0, 0)), *(len(b) for b in call.inputs)]
        header = " ".join(map(str, fields)).encode() + b"\n"
        try:
            proc.stdin.write(load + header + b"".join(call.inputs) + (call.alpha or b""))
            proc.stdin.flush()
        except BrokenPipeError:
            pass  # the child is gone: _read reports why
        return self._read(expect)

    def _read(self, count: int) -> bytes:
        proc = self._proc
        assert proc is not None and proc.stdout is not None
        fd, chunks, got = proc.stdout.fileno(), [], 0
        deadline = time.monotonic() + TIMEOUT_S
        while got < count:
            ready, _, _ = select.select([fd], [], [], max(0.0, deadline - time.monotonic()))
            data = os.read(fd, count - got) if ready else None
            if not data:
                raise self._died(timed_out=data is None, done=got)
            chunks.append(data)
            got += len(data)
        return b"".join(chunks)

    def _died(self, *, timed_out: bool, done: int) -> Exception:
        proc = self._proc
        assert proc is not None
        if timed_out:
            proc.kill()
        code = proc.wait()
        stderr = self._child_stderr()
        self.close()  # the next call starts a fresh child
        if code == -signal.SIGINT:
            raise KeyboardInterrupt  # Ctrl-C reached the child too: not the kernel's fault
        if timed_out or code < 0:
            name = "timeout" if timed_out else _signal_name(-code)
            return KernelCrash(name, done)
        last = plain_lines(stderr.strip())[-1] if stderr.strip() else f"exit status {code}"
        return MpsgenError(f"the kernel runner failed: {last}", path=CHILD)

    def _child_stderr(self) -> str:
        if self._stderr is None:
            return ""
        self._stderr.seek(0)
        return self._stderr.read().decode("utf-8", "replace")


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"
