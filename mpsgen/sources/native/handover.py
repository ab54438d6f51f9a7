"""Whether a shared kernel runs another op's reduction through the dispatcher: 2.7's `norm_out` calls its file's
`impl_func_norm`, which calls `at::linalg_vector_norm_out(...)`; once MPS shares linalg_vector_norm_out (its
norm_stub on the reduction kernels), MPS sharing norm_out runs them too, and the norm family moves by its yaml
lines and the deletion of its MPSGraph kernels only (upstream 2.13: `CPU, CUDA, MPS: norm_out`).

The callee is looked for in the kernel's body and in the bodies of the functions of its file it calls (one
level), as `at::<op>_out(`/`at::<op>_outf(` of an entry of another family.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from mpsgen.sources.index import index_of
from mpsgen.sources.native.shared_impl import SharedImpl
from mpsgen.sources.native_yaml.cpp_api import at_spellings
from mpsgen.sources.native_yaml.facts import Entry, family_key
from mpsgen.sources.native_yaml.index import NativeIndex

_AT_CALL = re.compile(r"(?<![\w:])(?:::)?at\s*::\s*(\w+)\s*\(")
_CALL = re.compile(r"\b([A-Za-z_]\w*)\s*\(")


class Handover(NamedTuple):
    """The other op's entry a shared kernel calls through the dispatcher, and where."""

    kernel: str  # the caller: norm_out
    callee: str  # at::linalg_vector_norm_out
    entry: Entry  # linalg_vector_norm.out
    via: str  # the function of the file making the call ("" when the kernel itself does)


def handover(text: str, impl: SharedImpl, index: NativeIndex, family: str) -> Handover | None:
    """The first `at::` call of an op of another family than *family* in *impl*'s body or in a function of its
    file it calls, when the yaml has that op's entry; else None."""
    ix = index_of(impl.path, text)
    body = ix.masked[ix.lines.start_of(impl.line): ix.lines.start_of(impl.end_line + 1)]
    places = [("", body)]
    for call in _CALL.finditer(body):
        helper = ix.plain_function(call.group(1))
        if helper is not None and helper.name != impl.kernel:
            places.append((helper.name, ix.masked[helper.body_open: helper.body_close]))
    for via, code in places:
        for m in _AT_CALL.finditer(code):
            name = m.group(1)
            base = name.removesuffix("f").removesuffix("_out") if name.endswith(("_out", "_outf")) else name
            key = family_key(base)
            if key == family or not index.has_family(key):
                continue
            entry = next((e for e in index.family(key).entries if name in at_spellings(e)), None)
            if entry is not None:
                return Handover(impl.kernel, f"at::{name}", entry, via)
    return None
