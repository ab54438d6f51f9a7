"""Whether a shared kernel draws through a stub it calls itself, with no distribution template between:
2.7's multinomial_out calls `multinomial_with_replacement_stub(result.device().type(), result, self,
n_sample, gen)` in its body (the stub takes the Generator), and on its other path runs at:: ops
(exponential_, topk, at::_assert_async).  Read here: that call and the at:: functions the body calls, for
the random kind's refusal (plan/random_route.py); sources/native/distribution.py reads the template form.
"""

from __future__ import annotations

import re
from typing import Callable

from mpsgen.records import NamedTuple
from mpsgen.scan.brackets import match_close, split_top_level
from mpsgen.sources.native.impl_lines import masked_lines
from mpsgen.sources.native.shared_impl import find_shared_impl
from mpsgen.sources.native.stubs import StubDecl

_STUB_CALL = re.compile(r"\b(\w+_stub)\s*\(")
_AT_CALL = re.compile(r"\bat\s*::\s*(\w+)\s*\(")
_GENERATOR = re.compile(r"\bGenerator\b")


class DirectSampler(NamedTuple):
    """A shared kernel's own call of a stub that takes a Generator."""

    kernel: str  # multinomial_out
    stub: str  # multinomial_with_replacement_stub
    path: str
    line: int  # the stub's call
    kernel_line: int  # the kernel's definition
    at_calls: tuple[tuple[str, int, int], ...]  # (at:: function, line, argument count) its body calls, first-seen


def direct_sampler(sources_for: Callable[[str], dict[str, str]], kernel: str,
                   declaration: Callable[[str], StubDecl | None]) -> DirectSampler | None:
    """The stub taking a Generator that the shared kernel *kernel* calls in its own body, or None.
    *sources_for(name)*: the native sources that may define *name*; *declaration(stub)*: its DECLARE_DISPATCH."""
    sources = sources_for(kernel)
    impl = find_shared_impl(sources, kernel)
    if impl is None:
        return None
    ix, start, body = masked_lines(sources[impl.path], impl)
    for call in _STUB_CALL.finditer(body):
        decl = declaration(call[1])
        if decl is not None and any(_GENERATOR.search(p) for p in decl.params):
            calls: dict[str, tuple[int, int]] = {}
            for at in _AT_CALL.finditer(body):
                close = match_close(body, at.end() - 1)
                inner = body[at.end(): close] if close is not None else ""
                args = len(split_top_level(inner, angles=False)) if inner.strip() else 0  # a literal: blanks
                calls.setdefault(at[1], (ix.line(start + at.start()), args))
            return DirectSampler(kernel, call[1], impl.path, ix.line(start + call.start()), impl.line,
                                 tuple((name, line, n) for name, (line, n) in calls.items()))
    return None
