"""Which other ops a shared kernel runs through the dispatcher: 2.7's `norm_out` calls its file's
`impl_func_norm`, which calls `at::linalg_vector_norm_out(...)`; once MPS shares linalg_vector_norm_out (its
norm_stub on the reduction kernels), MPS sharing norm_out runs them too, and the norm family moves by its yaml
lines and the deletion of its MPSGraph kernels only (upstream 2.13: `CPU, CUDA, MPS: norm_out`).

The callee is looked for in the kernel's body and in the bodies of the functions of its file it calls (one
level), as `at::<op>_out(`/`at::<op>_outf(` of an entry of another family, the only `at::` call there: a kernel
calling several ops (_linalg_slogdet_out's LAPACK work, then at::sum_out) does work of its own.
"""

from __future__ import annotations

import re
from typing import Callable

from mpsgen.records import NamedTuple
from mpsgen.scan.definitions import FunctionSpan
from mpsgen.sources.native.impl_lines import masked_lines
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
    stub: str = ""  # the callee's reduce stub, once judged (plan/reduction_route.py)
    callee_at: str = ""  # the callee's CPU/CUDA kernel and where it is defined, once judged


def handovers(text: str, impl: SharedImpl, index: NativeIndex, family: str,
              wanted: Callable[[Handover], bool] | None = None) -> tuple[Handover, ...]:
    """The `at::` call of an op of another family than *family* that *impl*'s body or a function of its file it
    calls (one level) makes, when it is the only `at::` call there and the yaml has the op's entry (at::empty's
    too: the caller judges the callee); else ().  With *wanted*, () as well for a handover it refuses.

    The body's own calls are read first: two, or one that is no handover (or an unwanted one), decide without
    reading the helpers (their calls could only add to it)."""
    ix, _, body = masked_lines(text, impl)
    own = [m.group(1) for m in _AT_CALL.finditer(body)]
    if len(own) > 1:
        return ()
    judged = _handover(impl, index, family, "", own[0]) if own else None
    if own and (judged is None or (wanted is not None and not wanted(judged))):
        return ()
    places = []
    helpers: dict[str, FunctionSpan | None] = {}  # each name looked up once (`size(`, `if (` recur in a body)
    for call in _CALL.finditer(body):
        name = call.group(1)
        if name not in helpers:
            helpers[name] = ix.plain_function(name)
        helper = helpers[name]
        if helper is not None and helper.name != impl.kernel:
            places.append((helper.name, ix.masked_slice(helper.body_open, helper.body_close)))
    calls = [("", name) for name in own] + [(via, m.group(1)) for via, code in places for m in _AT_CALL.finditer(code)]
    if len(calls) != 1:
        return ()  # the work is the callee's only when it is the one op called (not _linalg_slogdet's at::sum_out)
    if judged is not None:  # the body's own call, judged above
        return (judged,)
    found = _handover(impl, index, family, *calls[0])
    return (found,) if found is not None and (wanted is None or wanted(found)) else ()


def _handover(impl: SharedImpl, index: NativeIndex, family: str, via: str, name: str) -> Handover | None:
    """The Handover of *impl*'s call of `at::name` (made in *via*, "" for its own body) when the yaml has the
    op's entry in another family than *family*, else None."""
    base = name.removesuffix("f").removesuffix("_out") if name.endswith(("_out", "_outf")) else name
    key = family_key(base)
    if key == family or not index.has_family(key):
        return None
    entry = next((e for e in index.family(key).entries if name in at_spellings(e)), None)
    return Handover(impl.kernel, f"at::{name}", entry, via) if entry is not None else None
