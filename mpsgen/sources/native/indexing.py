"""Whether a shared kernel calls a stub of the indexing kind (plan/indexing_route.py): a stub of a known
indexing signature (index_fill_stub `void(*)(TensorIterator&, int64_t dim, int64_t self_dim_size, int64_t
self_dim_stride, const Scalar&)`) over an iterator of one output and one input (2.7's index_fill_: `self`
restrided along dim, the index restrided over it)."""

from __future__ import annotations

import re

from mpsgen.sources.index import index_of
from mpsgen.sources.native.iterator_operands import add_output_calls, operands_in
from mpsgen.sources.native.shared_impl import SharedImpl
from mpsgen.sources.native.stubs import StubDecl

# stub -> its parameter types after the iterator (spelled loosely: const, &, c10:: dropped): the kind's
# stubs mpsgen writes a kernel for
SIGNATURES = {"index_fill_stub": ("int64_t", "int64_t", "int64_t", "Scalar")}


def _loose(cpp_type: str) -> str:
    return re.sub(r"\b(?:const|c10::|at::)\s*|[&\s]", "", cpp_type)


def is_indexing_stub(decl: StubDecl) -> bool:
    """*decl* is a stub of SIGNATURES, declared with that signature after a TensorIterator."""
    return (decl.name in SIGNATURES and decl.resolved and decl.iterator_type is not None
            and tuple(_loose(p) for p in decl.params[1:]) == SIGNATURES[decl.name])


def one_output_one_index(text: str, impl: SharedImpl) -> bool:
    """*impl*'s TensorIteratorConfig holds one output and one input (self and the index)."""
    ix = index_of(impl.path, text)
    body = ix.masked[ix.lines.start_of(impl.line): ix.lines.start_of(impl.end_line + 1)]
    inputs = operands_in(body)
    return inputs is not None and len(inputs) == 1 and len(add_output_calls(text, impl.line, impl.end_line)) == 1
