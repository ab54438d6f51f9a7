"""Whether a shared kernel is a TensorIterator reduction: its body builds a reduction iterator (2.7's
`meta::make_reduction(...)`, `make_reduction_from_out_ty(...)`, `make_reduction("nansum", ...)` or
`TensorIterator::reduce_op(...)`) and calls one DispatchStub (sum_out -> sum_stub), or it passes one stub to
a helper of its file that does (all_out -> allany_impl(..., and_stub))."""

from __future__ import annotations

import functools
import re

from mpsgen.sources.index import index_of
from mpsgen.sources.native.impl_lines import impl_span, masked_lines
from mpsgen.sources.native.shared_impl import SharedImpl

_REDUCTION = re.compile(r"\bmake_reduction(?:_from_out_ty)?\s*\(|\bTensorIterator\s*::\s*reduce_op\s*\(")
_REDUCTION_WORDS = ("make_reduction", "reduce_op")  # what every match of _REDUCTION spells
_STUB_WORD = re.compile(r"\b(\w+_stub)\b")
_CALL = re.compile(r"\b([A-Za-z_]\w*)\s*(?:<[^;(){}<>]*>)?\s*\(")
_STUB_CALL = re.compile(r"\b\w+\s*\(\s*\w+\s*\.\s*device_type\s*\(\s*\)\s*,")  # stub(iter.device_type(), …


@functools.lru_cache(maxsize=64)  # asked for each kernel of a file in turn
def _spells_reduction(text: str) -> bool:
    """Whether *text* spells a word every match of _REDUCTION spells: masking only blanks, a file that does
    not builds no reduction iterator, in any of its functions."""
    return any(word in text for word in _REDUCTION_WORDS)


def builds_reduction(text: str, impl: SharedImpl) -> bool:
    """*impl*'s body (in *text*, its file) builds a reduction iterator."""
    if not _spells_reduction(text):
        return False  # (its lines not looked up)
    _, start, end = impl_span(text, impl)
    if not any(word in text[start:end] for word in _REDUCTION_WORDS):
        return False  # masking only blanks: a body not spelling them raw cannot match (no file masked)
    return _REDUCTION.search(masked_lines(text, impl)[2]) is not None


def reduction_stub(text: str, impl: SharedImpl) -> str | None:
    """The one stub *impl* calls when it builds a reduction iterator, else None."""
    names = impl.stub_names
    return names[0] if len(names) == 1 and builds_reduction(text, impl) else None


def passed_reduction_stub(text: str, impl: SharedImpl) -> str | None:
    """The one stub *impl* passes to a helper of its file that calls it on an iterator (`stub(iter.device_type(),
    iter)`) and builds a reduction iterator itself or through a function of the file it calls (2.7's all_out:
    `allany_impl<1>(self, result, dim, keepdim, and_stub)`, whose get_allany_iter makes the reduction), else None."""
    if not _spells_reduction(text):
        return None  # no helper of the file builds one either
    ix, start, end = impl_span(text, impl)
    if "_stub" not in text[start:end]:
        return None  # no stub word raw, none masked (no file masked)
    body = masked_lines(text, impl)[2]
    names = set(_STUB_WORD.findall(body))
    if len(names) != 1:
        return None
    stub = names.pop()
    if re.search(rf"\b{stub}\s*\(", body):
        return None  # called here: the shared kernel's own stub call
    for call in _CALL.finditer(body):
        helper = ix.plain_function(call.group(1))
        if helper is None or not re.search(rf"\b{call.group(1)}\s*(?:<[^;(){{}}]*>)?\s*\([^;]*\b{stub}\b", body):
            continue
        inner = ix.masked_slice(helper.body_open, helper.body_close)
        if not _STUB_CALL.search(inner):
            continue
        if _REDUCTION.search(inner):
            return stub
        for sub in _CALL.finditer(inner):
            f = ix.plain_function(sub.group(1))
            if f is not None and f.name != helper.name and _REDUCTION.search(ix.masked_slice(f.body_open, f.body_close)):
                return stub
    return None


def hands_over(text: str, impl: SharedImpl, kernels: tuple[str, ...]) -> bool:
    """*impl* calls no stub and its body calls another of *kernels* (the functional nansum ->
    at::native::nansum_out, both shared by the family)."""
    if impl.stub_names:
        return False
    ix = index_of(impl.path, text)
    body = ix.masked[ix.lines.start_of(impl.line): ix.lines.start_of(impl.end_line + 1)]
    return any(k != impl.kernel and re.search(rf"\b{re.escape(k)}\s*\(", body) for k in kernels)
