"""Whether a shared kernel draws its output from a distribution through a DispatchStub: 2.7's
Distributions.cpp returns `templates::uniform_impl_<UniformStub, Generator>(self, from, to, gen)`, the
template (DistributionTemplates.h) checks the bounds and builds a nullary iterator, and the functor it is
given, a `struct UniformStub` of the same file, calls `uniform_stub(iter.device_type(), iter, from, to, gen)`.

Read here: the template called, the functor struct it is given, and the one stub that struct's body
calls; the shared kernel must return the template's result (a kernel calling it on the way is no sampler).
"""

from __future__ import annotations

import re
from typing import Callable, NamedTuple

from mpsgen.model import Location
from mpsgen.scan.brackets import match_close
from mpsgen.sources.index import index_of
from mpsgen.sources.native.shared_impl import find_shared_impl

_TEMPLATE_CALL = re.compile(r"\breturn\s+(?:(?:::)?at\s*::\s*native\s*::\s*)?templates\s*::\s*(\w+)\s*<\s*(\w+)\s*[,>]")
_STUB_CALL = re.compile(r"\b(\w+_stub)\s*\(")
_OUTPUT = re.compile(r"(?:const\s+)?(?:at::)?TensorBase\s*&")


class DistributionReach(NamedTuple):
    """How a shared kernel reaches a distribution stub through a template and its functor."""

    stub: str  # uniform_stub
    kernel: str  # uniform_
    template: str  # uniform_impl_
    functor: str  # UniformStub
    path: str  # where the functor calls the stub
    line: int
    hops: tuple[str, ...]  # "uniform_ (Distributions.cpp:250)", "UniformStub (Distributions.cpp:237)"

    @property
    def location(self) -> Location:
        return Location(self.path, self.line)

    def shown(self) -> str:
        """`uniform_ (...) -> templates::uniform_impl_<UniformStub> -> UniformStub (...) -> uniform_stub`."""
        return " -> ".join((self.hops[0], f"templates::{self.template}<{self.functor}>", *self.hops[1:], self.stub))


def distribution_reach(sources_for: Callable[[str], dict[str, str]], kernel: str) -> DistributionReach | None:
    """How the shared CPU/CUDA kernel *kernel* reaches a distribution stub, or None.  *sources_for(name)*:
    the native sources that may define *name*."""
    sources = sources_for(kernel)
    impl = find_shared_impl(sources, kernel)
    if impl is None or impl.stubs:
        return None
    text = sources[impl.path]
    ix = index_of(impl.path, text)
    body = ix.masked[ix.lines.start_of(impl.line): ix.lines.start_of(impl.end_line + 1)]
    call = _TEMPLATE_CALL.search(body)
    if call is None:
        return None
    template, functor = call[1], call[2]
    struct = re.search(rf"\bstruct\s+{functor}\s*\{{", ix.masked)
    if struct is None:
        return None
    close = match_close(ix.masked, struct.end() - 1)
    if close is None:
        return None
    stubs = [(m[1], struct.end() + m.start()) for m in _STUB_CALL.finditer(ix.masked[struct.end(): close])]
    if len({name for name, _ in stubs}) != 1:
        return None
    name, at = stubs[0]
    line = ix.line(at)
    where = Location(impl.path, ix.line(struct.start()))
    return DistributionReach(name, kernel, template, functor, impl.path, line,
                             (f"{kernel} ({impl.location})", f"{functor} ({where})"))


def takes_the_output(param_type: str) -> bool:
    """Whether a stub's first parameter is the output itself (normal_stub's `const TensorBase&`), not an iterator."""
    return _OUTPUT.fullmatch(param_type.strip()) is not None
