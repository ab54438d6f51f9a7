"""Whether a shared kernel that calls no DispatchStub hands its work to one that does, in one call.

2.7's `floor_divide_(Tensor& self, const Tensor& other)` is `return native::floor_divide_out(self, other,
self);`, and floor_divide_out calls div_floor_stub: MPS sharing floor_divide_ runs the stub's kernel as
surely as sharing floor_divide_out does.  The call is found in the kernel's masked body, spelled as a
native function (`floor_divide_out(`, `native::floor_divide_out(`, `at::native::floor_divide_out(`) or
through the dispatcher (`at::floor_divide_out(`, `at::floor_divide_outf(`).
"""

from __future__ import annotations

import re
from typing import Collection, Iterator

from mpsgen.model import Location
from mpsgen.records import NamedTuple
from mpsgen.sources.index import index_of
from mpsgen.sources.native.impl_lines import masked_lines
from mpsgen.sources.native.shared_impl import SharedImpl

# A call: its qualifier (a method call's `.`, or the `ns::` names before it) and the name called.
_CALL = re.compile(r"(\.\s*|(?:::\s*)?(?:\b\w+\s*::\s*)*)\b(\w+)\s*\(")
NATIVE = ("", "native::", "at::native::", "::at::native::")  # how code calls a function of at::native
DISPATCHED = ("at::", "::at::")  # an op through the dispatcher


class BodyCall(NamedTuple):
    """One call in a function body: `qualifier` without spaces ("", "native::", "at::", "." for a method)."""

    qualifier: str
    name: str
    at: int  # offset of the name in the file's text
    open_paren: int  # offset of its "("


def body_calls(text: str, impl: SharedImpl) -> Iterator[BodyCall]:
    """The calls in *impl*'s body (its file's *text*, masked: none in a comment or a literal), in order."""
    _, start, lines = masked_lines(text, impl)
    body_open = lines.find("{")
    if body_open < 0:
        return
    for m in _CALL.finditer(lines, body_open):  # none opens at the `{`: no word before it is read
        yield BodyCall(re.sub(r"\s+", "", m.group(1)), m.group(2), start + m.start(2), start + m.end() - 1)


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
    for call in body_calls(text, impl):
        qualifier = "" if call.qualifier == "." else call.qualifier  # `x.name(` was read as a plain call
        if call.name in native and qualifier in NATIVE:
            return Delegation(qualifier + call.name, call.name, impl.path, ix.line(call.at), False)
        if call.name in dispatched and qualifier in DISPATCHED:
            return Delegation(qualifier + call.name, call.name, impl.path, ix.line(call.at), True)
    return None
