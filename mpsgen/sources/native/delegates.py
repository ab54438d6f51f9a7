"""Whether a shared kernel that calls no DispatchStub hands its work to one that does, in one call.

2.7's `floor_divide_(Tensor& self, const Tensor& other)` is `return native::floor_divide_out(self, other,
self);`, and floor_divide_out calls div_floor_stub: MPS sharing floor_divide_ runs the stub's kernel as
surely as sharing floor_divide_out does.  The call is found in the kernel's masked body, spelled as a
native function (`floor_divide_out(`, `native::floor_divide_out(`, `at::native::floor_divide_out(`) or
through the dispatcher (`at::floor_divide_out(`, `at::floor_divide_outf(`).
"""

from __future__ import annotations

import re
from typing import Collection, NamedTuple

from mpsgen.model import Location
from mpsgen.sources.index import index_of
from mpsgen.sources.native.shared_impl import SharedImpl

_CALL = re.compile(r"((?:::\s*)?(?:\b\w+\s*::\s*)*)\b(\w+)\s*\(")
_NATIVE = ("", "native::", "at::native::", "::at::native::")
_DISPATCHED = ("at::", "::at::")


class Delegation(NamedTuple):
    """The call a stubless kernel makes to a kernel that calls a stub."""

    callee: str  # as written: `native::floor_divide_out`, `at::floor_divide_out`
    name: str  # the bare name called
    path: str
    line: int
    dispatched: bool  # through at:: (the dispatcher), not a direct call of the native function

    @property
    def location(self) -> Location:
        return Location(self.path, self.line)


def delegation(sources: dict[str, str], impl: SharedImpl, native: Collection[str],
               dispatched: Collection[str]) -> Delegation | None:
    """The first call in *impl*'s body of a function of *native* (called directly) or an op of
    *dispatched* (through `at::`), or None."""
    text = sources.get(impl.path)
    if text is None:
        return None
    ix = index_of(impl.path, text)
    start, end = ix.lines.start_of(impl.line), ix.lines.start_of(impl.end_line + 1)
    body_open = ix.masked.find("{", start, end)
    if body_open < 0:
        return None
    for m in _CALL.finditer(ix.masked, body_open, end):
        qualifier, name = re.sub(r"\s+", "", m.group(1)), m.group(2)
        if name in native and qualifier in _NATIVE:
            return Delegation(qualifier + name, name, impl.path, ix.line(m.start(2)), False)
        if name in dispatched and qualifier in _DISPATCHED:
            return Delegation(qualifier + name, name, impl.path, ix.line(m.start(2)), True)
    return None
