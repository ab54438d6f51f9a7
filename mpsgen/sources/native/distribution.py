"""Whether a shared kernel draws its output from a distribution through a DispatchStub: 2.7's
Distributions.cpp returns `templates::uniform_impl_<UniformStub, Generator>(self, from, to, gen)`, the
template (DistributionTemplates.h) checks the bounds and builds a nullary iterator, and the functor it is
given, a `struct UniformStub` of the same file, calls `uniform_stub(iter.device_type(), iter, from, to, gen)`.

Read here: the template called, the functor struct it is given, and the one stub that struct's body
calls; the shared kernel must return the template's result (a kernel calling it on the way is no sampler).
"""

from __future__ import annotations

import re
from typing import Callable

from mpsgen.model import Location
from mpsgen.records import NamedTuple
from mpsgen.scan.brackets import match_close
from mpsgen.sources.native.impl_lines import masked_lines
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
    # every stub the kernel's definitions reach: one for a sampler; several when a functor calls one per
    # overload (BernoulliStub: bernoulli_tensor_stub, bernoulli_scalar_stub) or the C++ overloads of the
    # kernel give different functors (random_: RandomStub, RandomFromToStub)
    stubs: tuple[str, ...] = ()

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
    ix, _, body = masked_lines(text, impl)
    call = _TEMPLATE_CALL.search(body)
    if call is None:
        return None
    template, functor = call[1], call[2]
    found = _functor_stubs(ix.masked, functor)
    if not found:
        return None
    (name, at), struct_at = found[0], _struct(ix.masked, functor)
    every = [n for n, _ in found]
    for other in _other_functors(ix.masked, kernel, functor):  # random_'s C++ overloads
        every += [n for n, _ in _functor_stubs(ix.masked, other)]
    assert struct_at is not None
    where = Location(impl.path, ix.line(struct_at.start()))
    return DistributionReach(name, kernel, template, functor, impl.path, ix.line(at),
                             (f"{kernel} ({impl.location})", f"{functor} ({where})"), tuple(dict.fromkeys(every)))


def _struct(masked: str, functor: str) -> re.Match[str] | None:
    return re.search(rf"\bstruct\s+{functor}\s*\{{", masked)


def _functor_stubs(masked: str, functor: str) -> list[tuple[str, int]]:
    """The stubs the struct *functor*'s body calls, with where."""
    struct = _struct(masked, functor)
    close = match_close(masked, struct.end() - 1) if struct is not None else None
    if struct is None or close is None:
        return []
    return [(m[1], struct.end() + m.start()) for m in _STUB_CALL.finditer(masked[struct.end(): close])]


def _other_functors(masked: str, kernel: str, functor: str) -> set[str]:
    """The functors other definitions of *kernel* (its C++ overloads) hand their template."""
    out = set()
    for head in re.finditer(rf"^[\w:&<>* ]+\b{kernel}\s*\(", masked, re.M):
        brace = masked.find("{", head.end())
        semi = masked.find(";", head.end())
        if brace < 0 or 0 <= semi < brace and ")" not in masked[head.end(): semi]:
            continue
        close = match_close(masked, brace)
        call = _TEMPLATE_CALL.search(masked[brace: close or brace])
        if call is not None and call[2] != functor:
            out.add(call[2])
    return out


def takes_the_output(param_type: str) -> bool:
    """Whether a stub's first parameter is the output itself (normal_stub's `const TensorBase&`), not an iterator."""
    return _OUTPUT.fullmatch(param_type.strip()) is not None
