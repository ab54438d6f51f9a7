"""Whether a shared kernel fills its output through a DispatchStub that reads no input: the stub's
iterator holds an output only (2.7's `fill_out`: `TensorIteratorConfig().add_output(self)`, then
`fill_stub(iter.device_type(), iter, value)`).

The stub may sit a few calls away: `fill_` is `return fill_out(self, value);`, and `zero_` calls
`self.fill_(0)`, the op whose CPU kernel is `fill_`.  Followed are calls of native functions of the
sources and of ops through the dispatcher (`at::op(` or `.op(`) whose result the function returns (isin's
`out.fill_(invert);` on the way to its own stub is no fill), at most MAX_FUNCTIONS functions deep
(a CPU-only shortcut such as zero_cpu_'s `fill_(0)` fallback is one deeper and is not taken).
"""

from __future__ import annotations

import re
from typing import Callable

from mpsgen.model import Location
from mpsgen.records import NamedTuple
from mpsgen.scan.brackets import match_close, split_top_level
from mpsgen.sources.native.impl_lines import masked_lines
from mpsgen.sources.native.delegates import DISPATCHED, NATIVE, body_calls
from mpsgen.sources.native.shared_impl import SharedImpl, find_shared_impl

MAX_FUNCTIONS = 3  # zero_ -> fill_ -> fill_out
_INPUT = re.compile(r"\.\s*add_(?:owned_)?(?:const_)?input\s*\(")
_OUTPUT = re.compile(r"\.\s*add_(?:owned_)?output\s*\(")
_CONFIG = re.compile(r"\bTensorIteratorConfig\s*\(\s*\)")
_NULLARY_OP = re.compile(r"\bTensorIterator\s*::\s*nullary_op\s*\(")
_LITERAL = re.compile(r"-?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?[fFlLuU]*|true|false")


class NullaryReach(NamedTuple):
    """How a shared kernel reaches a stub whose iterator holds its output only."""

    stub: str  # fill_stub
    kernel: str  # the shared kernel asked about (zero_)
    hops: tuple[str, ...]  # each function on the way, located: "zero_ (Fill.cpp:155)", ..., "fill_out (...)"
    path: str  # where the stub is called
    line: int
    literal: str = ""  # a literal the way passes as the value (zero_: `self.fill_(0)` -> "0"), else ""

    @property
    def location(self) -> Location:
        return Location(self.path, self.line)

    def shown(self) -> str:
        """`zero_ (Fill.cpp:155) -> fill_ (...) -> fill_out (...) -> fill_stub`."""
        return " -> ".join((*self.hops, self.stub))


def builds_output_only(text: str, impl: SharedImpl) -> bool:
    """*impl*'s body builds an iterator of outputs only: a TensorIteratorConfig chain with add_output
    and no add_*input, or TensorIterator::nullary_op."""
    body = masked_lines(text, impl)[2]
    if _NULLARY_OP.search(body):
        return True
    for m in _CONFIG.finditer(body):
        stop = body.find(";", m.end())
        chain = body[m.end(): stop if stop >= 0 else len(body)]
        if _OUTPUT.search(chain) and not _INPUT.search(chain):
            return True
    return False


def _returned(masked: str, at: int) -> bool:
    """Whether the call whose name is at *at* in *masked* (a body's lines: its `{` before *at*) is what its
    statement returns (`return fill_out(...)`, `return self.fill_(0)`): a kernel that fills its output on
    the way to other work (isin's `out.fill_(invert);`) is no fill."""
    start = max(masked.rfind(c, 0, at) for c in ";{}") + 1
    return masked[start:at].split(maxsplit=1)[:1] == ["return"]


def nullary_reach(sources_for: Callable[[str], dict[str, str]], kernel: str, op_kernel: Callable[[str], str | None],
                  _depth: int = 1) -> NullaryReach | None:
    """How the shared CPU/CUDA kernel *kernel* reaches a stub of an output-only iterator, or None.
    *sources_for(name)*: the native sources that may define *name* (those mentioning it: each is indexed);
    *op_kernel(op)*: the one CPU kernel of the yaml op *op* (fill_ -> fill_), None when it has none."""
    sources = sources_for(kernel)
    impl = find_shared_impl(sources, kernel)
    if impl is None:
        return None
    hop = f"{kernel} ({impl.location})"
    if impl.stubs:
        names = impl.stub_names
        if len(names) != 1 or not builds_output_only(sources[impl.path], impl):
            return None
        return NullaryReach(names[0], kernel, (hop,), impl.path, impl.stubs[0].line)
    if _depth >= MAX_FUNCTIONS:
        return None
    ix, start, lines = masked_lines(sources[impl.path], impl)
    for call in body_calls(sources[impl.path], impl):
        qualifier, name = call.qualifier, call.name
        if name == kernel or not _returned(lines, call.at - start):
            continue
        if qualifier in NATIVE and ix.plain_function(name) is not None:
            callee: str | None = name
        elif qualifier == "." or qualifier in DISPATCHED:
            callee = op_kernel(name)
        else:
            continue
        if callee is None:
            continue
        found = nullary_reach(sources_for, callee, op_kernel, _depth + 1)
        if found is None:
            continue
        close = match_close(ix.masked, call.open_paren)
        args = split_top_level(ix.text[call.open_paren + 1: close]) if close is not None else []
        value = args[0 if qualifier == "." else 1].strip() if len(args) > (0 if qualifier == "." else 1) else ""
        literal = value if _LITERAL.fullmatch(value) else ""
        return found._replace(kernel=kernel, hops=(hop, *found.hops), literal=literal or found.literal)
    return None
