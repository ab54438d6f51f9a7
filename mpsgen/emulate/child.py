"""The child process that runs a compiled functor library for `mpsgen try` (standard library only).

Run as ``python -I -S child.py LIBRARY``: a kernel that traps (integer division by zero, a null
dereference) kills this process, not mpsgen.  isolate.py is the other end of the pipe.

Protocol, repeated until stdin closes: one JSON line ``{"symbol", "n", "inputs": [byte counts],
"alpha": byte count or -1, "out": byte count, "step": [input, output element sizes] or null}``,
then the input bytes in order, then the alpha bytes.  Without "step" the whole array is mapped in
one call and the reply is an 8-byte little-endian length followed by the output bytes.  With
"step" (finding the first element that crashes) the elements are mapped one call each, and one
byte is written after each element: the number of bytes the parent reads is the crashing index.
"""

from __future__ import annotations

import ctypes
import json
import os
import sys


def _read_exact(stream, count: int) -> bytes:
    data = stream.read(count)
    if len(data) != count:
        raise EOFError(f"expected {count} bytes, got {len(data)}")
    return data


def _serve(library: ctypes.CDLL, stdin, out_fd: int) -> None:
    while True:
        header = stdin.readline()
        if not header:
            return
        job = json.loads(header)
        buffers = [ctypes.create_string_buffer(_read_exact(stdin, size), size) for size in job["inputs"]]
        alpha = ctypes.create_string_buffer(_read_exact(stdin, job["alpha"]), job["alpha"]) \
            if job["alpha"] >= 0 else None
        out = ctypes.create_string_buffer(max(job["out"], 1))
        fn = getattr(library, job["symbol"])
        fn.restype = None
        base = [ctypes.addressof(b) for b in buffers] + [0] * (3 - len(buffers))
        alpha_ptr = ctypes.c_void_p(ctypes.addressof(alpha) if alpha is not None else 0)
        n, step = job["n"], job["step"]
        if step is None:
            fn(*(ctypes.c_void_p(p) for p in base), alpha_ptr, ctypes.c_void_p(ctypes.addressof(out)),
               ctypes.c_long(n))
            os.write(out_fd, job["out"].to_bytes(8, "little") + out.raw[:job["out"]])
            continue
        in_size, out_size = step
        for i in range(n):
            ptrs = [ctypes.c_void_p(p + i * in_size if p else 0) for p in base]
            fn(*ptrs, alpha_ptr, ctypes.c_void_p(ctypes.addressof(out) + i * out_size), ctypes.c_long(1))
            os.write(out_fd, b".")


def main() -> None:
    library = ctypes.CDLL(sys.argv[1])
    out_fd = sys.stdout.fileno()
    _serve(library, sys.stdin.buffer, out_fd)


if __name__ == "__main__":
    main()
