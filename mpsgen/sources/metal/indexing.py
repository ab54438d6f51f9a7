"""The indexing kind's .metal and its host (plan/indexing_code.py): whether a .metal already holds a kernel
of a name, and which .metal's library a .mm includes when shaders are compiled at run time."""

from __future__ import annotations

import re

from mpsgen.scan.mask import blank_comments

_JIT_LIBRARY = re.compile(r"<ATen/native/mps/(\w+)_metallib\.h>")


def holds_kernel(text: str, name: str) -> bool:
    """*text* defines `kernel void <name>(` or a host_name `"<name>_" #T` (outside comments; scatter_add's
    `"scatter_add_"` is no scatter kernel)."""
    code = blank_comments(text)
    return re.search(rf"\bkernel\s+void\s+{re.escape(name)}\s*\(|\"{re.escape(name)}_\"\s*#", code) is not None


def jit_library_stem(mm_text: str) -> str | None:
    """The stem of the kernels/<stem>.metal whose `_metallib.h` the .mm includes (Indexing), or None."""
    m = _JIT_LIBRARY.search(mm_text)
    return m.group(1) if m else None
