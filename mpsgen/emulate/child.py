"""The child process that runs a compiled functor library for `mpsgen try` (standard library only).

Run as ``python -I -S child.py``: a kernel that traps (integer division by zero, a null
dereference) kills this process, not mpsgen.  isolate.py is the other end of the pipe; it starts
the child while the library still compiles, so the first line on stdin is the library's path.

Then, repeated until stdin closes: a line ``SYMBOL N OUT ALPHA STEP_IN STEP_OUT INPUT...`` (byte
counts; ALPHA -1 for none; STEP_IN 0 for a whole call), the input bytes in order, the alpha bytes.
A whole call maps the arrays at once and replies with an 8-byte little-endian length and the
output bytes.  A stepped call (finding the first element that crashes) maps one element per call
and writes one byte after each: the number of bytes the parent reads is the crashing index.
No json here: its import would double the child's start-up.
"""

from __future__ import annotations

import ctypes
import os
import sys
from typing import BinaryIO


def _read_exact(stream: BinaryIO, count: int) -> bytes:
    data = stream.read(count)
    if len(data) != count:
        raise EOFError(f"expected {count} bytes, got {len(data)}")
    return data


def _serve(library: ctypes.CDLL, stdin: BinaryIO, stdout: BinaryIO) -> None:
    while True:
        header = stdin.readline().split()
        if not header:
            return
        symbol = header[0].decode()
        n, out_bytes, alpha_bytes, in_size, out_size, *inputs = map(int, header[1:])
        buffers = [ctypes.create_string_buffer(_read_exact(stdin, size), size) for size in inputs]
        alpha = ctypes.create_string_buffer(_read_exact(stdin, alpha_bytes), alpha_bytes) if alpha_bytes >= 0 else None
        out = ctypes.create_string_buffer(max(out_bytes, 1))
        fn = getattr(library, symbol)
        fn.restype = None
        base = [ctypes.addressof(b) for b in buffers] + [0] * (3 - len(buffers))
        alpha_ptr = ctypes.c_void_p(ctypes.addressof(alpha) if alpha is not None else 0)
        if not in_size:
            fn(*(ctypes.c_void_p(p) for p in base), alpha_ptr, ctypes.c_void_p(ctypes.addressof(out)),
               ctypes.c_long(n))
            stdout.write(out_bytes.to_bytes(8, "little") + out.raw[:out_bytes])
            stdout.flush()
            continue
        for i in range(n):
            ptrs = [ctypes.c_void_p(p + i * in_size if p else 0) for p in base]
            fn(*ptrs, alpha_ptr, ctypes.c_void_p(ctypes.addressof(out) + i * out_size), ctypes.c_long(1))
            stdout.write(b".")
            stdout.flush()  # in the pipe before the next element can crash


def main() -> None:
    stdin = sys.stdin.buffer
    path = stdin.readline().rstrip(b"\n")
    if path:  # else the compile failed and the parent closed the pipe
        _serve(ctypes.CDLL(os.fsdecode(path)), stdin, sys.stdout.buffer)


if __name__ == "__main__":
    main()
