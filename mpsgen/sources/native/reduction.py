"""Whether a shared kernel is a TensorIterator reduction: its body builds a reduction iterator (2.7's
`meta::make_reduction(...)`, `make_reduction_from_out_ty(...)`, `make_reduction("nansum", ...)` or
`TensorIterator::reduce_op(...)`) and calls one DispatchStub (sum_out -> sum_stub)."""

from __future__ import annotations

import re

from mpsgen.sources.index import index_of
from mpsgen.sources.native.shared_impl import SharedImpl

_REDUCTION = re.compile(r"\bmake_reduction(?:_from_out_ty)?\s*\(|\bTensorIterator\s*::\s*reduce_op\s*\(")


def builds_reduction(text: str, impl: SharedImpl) -> bool:
    """*impl*'s body (in *text*, its file) builds a reduction iterator."""
    ix = index_of(impl.path, text)
    start, end = ix.lines.start_of(impl.line), ix.lines.start_of(impl.end_line + 1)
    return _REDUCTION.search(ix.masked[start:end]) is not None


def reduction_stub(text: str, impl: SharedImpl) -> str | None:
    """The one stub *impl* calls when it builds a reduction iterator, else None."""
    names = impl.stub_names
    return names[0] if len(names) == 1 and builds_reduction(text, impl) else None
