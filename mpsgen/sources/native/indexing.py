"""Whether a shared kernel calls a stub of the indexing kind (plan/indexing_route.py): a stub of a known
indexing signature, index_fill_stub `void(*)(TensorIterator&, int64_t dim, int64_t self_dim_size, int64_t
self_dim_stride, const Scalar&)` over an iterator of one output and one input (2.7's index_fill_: `self`
restrided along dim, the index restrided over it), or gather_stub `void(*)(const Tensor& result, const
Tensor& self, int64_t dim, const Tensor& index)`; besides it, the shared kernel may call a stub only a CPU
tensor reaches (gather_out's gather_expanded_index_stub, behind can_use_expanded_index_path, which returns
false off the CPU)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from mpsgen.sources.native.impl_lines import impl_span, masked_lines
from mpsgen.sources.native.iterator_operands import add_outputs_in, operands_in
from mpsgen.sources.native.shared_impl import SharedImpl
from mpsgen.sources.native.stubs import StubDecl

if TYPE_CHECKING:
    from mpsgen.sources.native.stubs import StubDeclarations

# stub -> its parameter types (spelled loosely: const, &, c10:: dropped): the kind's stubs mpsgen writes a
# kernel for
SIGNATURES = {"index_fill_stub": ("TensorIterator", "int64_t", "int64_t", "int64_t", "Scalar"),
              "gather_stub": ("Tensor", "Tensor", "int64_t", "Tensor"),
              "scatter_add_stub": ("Tensor", "int64_t", "Tensor", "Tensor"),
              "scatter_stub": ("Tensor", "int64_t", "Tensor", "Tensor"),
              "scatter_fill_stub": ("Tensor", "int64_t", "Tensor", "Scalar"),
              "scatter_reduce_stub": ("Tensor", "int64_t", "Tensor", "Tensor", "ReductionType"),
              "scatter_scalar_reduce_stub": ("Tensor", "int64_t", "Tensor", "Scalar", "ReductionType")}
# a stub the shared kernel calls only when a function says so, which returns false for a tensor off the CPU
CPU_ONLY = {"gather_expanded_index_stub": "can_use_expanded_index_path",
            "scatter_add_expanded_index_stub": "can_use_expanded_index_path"}
_OFF_CPU_FALSE = re.compile(r"if\s*\(\s*!\s*\w+\s*\.\s*device\s*\(\s*\)\s*\.\s*is_cpu\s*\(\s*\)\s*\)\s*\{?\s*return\s+false\b")


def _loose(cpp_type: str) -> str:
    return re.sub(r"\b(?:const|c10::|at::)\s*|[&\s]", "", cpp_type)


def is_indexing_stub(decl: StubDecl) -> bool:
    """*decl* is a stub of SIGNATURES, declared with that signature."""
    return (decl.name in SIGNATURES and decl.resolved
            and tuple(_loose(p) for p in decl.params) == SIGNATURES[decl.name])


# `name_stub(<device>, ...`: the device spelled `iter.device_type()` or `result.device().type()` (gather_out's)
_STUB_CALL = re.compile(r"\b(\w+_stub)\s*\(\s*[\w.\->]*(?:device_type\s*\(\s*\)|device\s*\(\s*\)\s*\.\s*type\s*\(\s*\))\s*,")


def called_stubs(text: str, impl: SharedImpl) -> tuple[str, ...]:
    """The stubs *impl* (defined in *text*) calls: those the shared reader found, and those it passes a
    tensor's `.device().type()` (which that reader, reading for pointwise kernels, leaves out)."""
    _, start, end = impl_span(text, impl)
    if "device" not in text[start:end]:
        return tuple(dict.fromkeys(impl.stub_names))  # _STUB_CALL spells `device`: none masked (no file masked)
    body = masked_lines(text, impl)[2]
    return tuple(dict.fromkeys((*impl.stub_names, *(m.group(1) for m in _STUB_CALL.finditer(body)))))


def reaching_stubs(text: str, impl: SharedImpl) -> tuple[str, ...]:
    """The stubs *impl* (defined in *text*) calls that a tensor off the CPU can reach: those of CPU_ONLY go
    when their guard is called in the body and, defined in *text*, returns false off the CPU."""
    ix, _, body = masked_lines(text, impl)

    def cpu_only(stub: str) -> bool:
        guard = CPU_ONLY.get(stub)
        f = ix.plain_function(guard) if guard and re.search(rf"\b{guard}\s*\(", body) else None
        return f is not None and _OFF_CPU_FALSE.search(ix.masked_slice(f.body_open, f.body_close)) is not None

    return tuple(s for s in called_stubs(text, impl) if not cpu_only(s))


def one_output_one_index(text: str, impl: SharedImpl) -> bool:
    """*impl*'s TensorIteratorConfig holds one output and one input (self and the index)."""
    body = masked_lines(text, impl)[2]
    inputs = operands_in(body)
    return inputs is not None and len(inputs) == 1 and len(add_outputs_in(body)) == 1


def indexing_stubs(text: str, impl: SharedImpl, declarations: StubDeclarations) -> tuple[StubDecl, ...]:
    """The stubs of the indexing kind *impl* runs off the CPU (scatter_src_out: scatter_reduce_stub and
    scatter_stub, passed to scatter_impl), from *declarations*; () when one of them is of no such kind."""
    if not _may_call_indexing_stub(text, impl):
        return ()
    decls = [declarations.get(n) for n in reaching_stubs(text, impl)]
    if not decls or any(d is None or not is_indexing_stub(d) for d in decls):
        return ()
    found = tuple(d for d in decls if d is not None)
    iterators = [d for d in found if d.iterator_type is not None]
    if iterators and (len(found) > 1 or not one_output_one_index(text, impl)):
        return ()
    return found



def _may_call_indexing_stub(text: str, impl: SharedImpl) -> bool:
    """False when indexing_stubs is () whatever the body holds, told without masking the file: *impl* calls
    a stub of no indexing kind (add_stub), or none and its lines spell no stub of SIGNATURES."""
    if any(s not in SIGNATURES and s not in CPU_ONLY for s in impl.stub_names):
        return False
    if impl.stub_names:
        return True
    _, start, end = impl_span(text, impl)
    return any(name in text[start:end] for name in SIGNATURES)
