"""Routing of the reduction kind: a family whose shared kernels build a TensorIterator reduction and call one
reduce stub the kernel template serves (generate/reduction_ops.REDUCTIONS: sum_stub, mean_stub,
max_values_stub, min_values_stub; `void(*)(TensorIterator&)`).

Such a family is no pointwise op, so routing's elementwise test would refuse it; this module says when it
is the reduction kind instead.  A reduction of another stub (prod_stub, argmax_stub, std_var_stub, ...) is
still refused there.  What is written for it is plan/reduction_code.py's.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mpsgen.plan.texts import folder_files, mentioning, planned_texts
from mpsgen.records import NamedTuple
from mpsgen.sources.native import stubs
from mpsgen.sources.native.indexing import called_stubs
from mpsgen.sources.native.reduction import hands_over, passed_reduction_stub, reduction_stub
from mpsgen.sources.native.shared_impl import find_shared_impl
from mpsgen.tree.changeset import Changeset
from mpsgen.tree.checkout import Checkout

if TYPE_CHECKING:
    from mpsgen.generate.reduction_ops import ReductionOp
    from mpsgen.sources.native.handover import Handover


class ReductionRoute(NamedTuple):
    """The reduce stub a family runs, the reduction the kernel template does for it, and where it is called."""

    stub: stubs.StubDecl
    op: ReductionOp
    calls: tuple[str, ...]  # "sum_out (ReduceOps.cpp:1205) -> sum_stub", one per shared kernel
    also: stubs.StubDecl | None = None  # the op's second stub (aminmax_allreduce_stub), its host kernel beside

    def notes(self) -> tuple[str, ...]:
        what = "a reduction of whole tensors (no iterator), one kernel writing both outputs" if self.also \
            else "a TensorIterator reduction"
        return tuple(f"{c}: {what}, the reduction kind ({self.op.kernels})" for c in self.calls)


def route_reduction(checkout: Checkout, cs: Changeset, shared: tuple[str, ...], family: str = "") -> ReductionRoute | None:
    """The reduction route of *family*, MPS sharing *shared* for it, or None when one of them builds no reduction
    iterator (nor hands its work to another op's reduction MPS shares: sources/native/handover.py), they call
    different stubs, or the stub is none the kernel template serves."""
    from mpsgen.generate.reduction_ops import REDUCTIONS, paired_stub

    shared = tuple(dict.fromkeys(shared))
    if not shared:
        return None
    native = planned_texts(cs, folder_files(cs, "native_sources"), checkout)
    calls: list[str] = []
    names: set[str] = set()
    for kernel in shared:
        sources = mentioning(native, kernel)
        impl = find_shared_impl(sources, kernel)
        name = (reduction_stub(sources[impl.path], impl) or passed_reduction_stub(sources[impl.path], impl)
                if impl is not None else None)
        if impl is not None and name is None and hands_over(sources[impl.path], impl, shared):
            continue  # the functional nansum: its work is nansum_out's, judged in turn
        if impl is not None and name is None and family:  # norm_out -> at::linalg_vector_norm_out
            handed = _handed_reduction(checkout, cs, sources[impl.path], impl, family)
            if handed is not None:
                via = f" (through {handed.via})" if handed.via else ""
                calls.append(f"{kernel} ({impl.location}) -> {handed.callee}{via}, whose {handed.entry.name} MPS "
                             f"shares ({handed.callee_at}) -> {handed.stub}")
                names.add(handed.stub)
                continue
        called = called_stubs(sources[impl.path], impl) if impl is not None and name is None else ()
        paired = paired_stub(called)
        if impl is not None and paired is not None:  # aminmax_out: aminmax_stub or aminmax_allreduce_stub
            names.add(paired)
            calls.append(f"{kernel} ({impl.location}) -> {' / '.join(called)}")
            continue
        if impl is None or name is None or name not in REDUCTIONS:
            return None
        names.add(name)
        calls.append(f"{kernel} ({impl.location}) -> {name}")
    if len(names) != 1:
        return None
    name = names.pop()
    headers = mentioning(planned_texts(cs, folder_files(cs, "native_headers"), checkout), name)
    decl = stubs.index_stub_declarations(headers).get(name)
    op = REDUCTIONS[name]
    if op.also:  # two stubs of whole tensors: their host kernels lay the tensors out themselves
        also = stubs.index_stub_declarations(mentioning(planned_texts(cs, folder_files(cs, "native_headers"),
                                                                      checkout), op.also)).get(op.also)
        if decl is None or also is None or not (decl.resolved and also.resolved) or decl.iterator_type \
                or also.iterator_type:
            return None
        return ReductionRoute(decl, op, tuple(calls), also)
    if decl is None or not decl.resolved or decl.iterator_type is None or len(decl.params) != 1 + bool(op.scalar):
        return None
    if op.scalar and not stubs.is_c10_scalar(decl.params[1]):  # norm_stub: (TensorIterator&, const Scalar& ord)
        return None
    return ReductionRoute(decl, op, tuple(calls))



def reduction_in_tree(checkout: Checkout, cs: Changeset, op: str) -> tuple[str, str] | None:
    """(reduction, .metal path) of the reduction kernels the tree already runs for *op* (sum once migrated:
    sum, kernels/ReduceOps.metal), or None."""
    from mpsgen.generate.reduction_kernel import METAL_FILE, registered_ops
    from mpsgen.plan.texts import yaml_index
    from mpsgen.sources.native_yaml import names as nf
    from mpsgen.tree.checkout import KERNELS_REL, YAML_REL

    family = nf.select_overloads(yaml_index(cs.current(YAML_REL)), op)
    shared = tuple(k for e in family.entries if e.mps_route == "shared" and (k := e.mps_kernel))
    found = route_reduction(checkout, cs, shared, op)
    rel = f"{KERNELS_REL}/{METAL_FILE}"
    if found is None or not cs.exists(rel) or found.op.name not in registered_ops(cs.current(rel)):
        return None
    return found.op.name, rel


def unserved_reduction(checkout: Checkout, cs: Changeset, shared: tuple[str, ...],
                       family: str = "") -> tuple[str, str, str] | None:
    """(kernel, why, hint or "") when one of *shared* is a TensorIterator reduction of a stub the reduction kernels
    do not serve (prod_out -> prod_stub, argmax_out -> argmax_stub), or hands its work to another family's op MPS does
    not share yet (norm_out -> at::linalg_vector_norm_out on linalg_vector_norm_out_mps): the refusal says so.
    None otherwise."""
    from mpsgen.generate.reduction_ops import REDUCTIONS

    native = planned_texts(cs, folder_files(cs, "native_sources"), checkout)
    for kernel in dict.fromkeys(shared):
        sources = mentioning(native, kernel)
        impl = find_shared_impl(sources, kernel)
        if impl is None:
            continue
        name = reduction_stub(sources[impl.path], impl) or passed_reduction_stub(sources[impl.path], impl)
        handed = _handed_reduction(checkout, cs, sources[impl.path], impl, family, shared_only=False) \
            if name is None and not impl.stub_names and family else None
        if handed is not None and handed.entry.mps_route != "shared" and handed.entry.mps_kernel:
            via = f" (through {handed.via})" if handed.via else ""
            key = handed.entry.base.removesuffix("_")
            return kernel, (f"{kernel} ({impl.location}) hands its work to {handed.callee}{via}, whose "
                            f"{handed.entry.name} still runs {handed.entry.mps_kernel} on MPS"), \
                f"migrate {key} first, or both at once: `mpsgen migrate {key} {family}`"
        if name is not None and name not in REDUCTIONS:
            return kernel, (f"{kernel} ({impl.location}) is a TensorIterator reduction of {name}, which mpsgen's "
                            f"reduction kernels do not serve (they serve {', '.join(REDUCTIONS)})"), ""
    return None


def _handed_reduction(checkout: Checkout, cs: Changeset, text: str, impl: stubs.SharedImpl, family: str, *,
                      shared_only: bool = True) -> Handover | None:
    """The first op of another family *impl* hands its work to through the dispatcher whose CPU/CUDA kernel is a
    reduction of a stub the kernels serve (norm_out -> at::linalg_vector_norm_out -> norm_stub; at::empty and the
    like pass), with its yaml line shared by MPS unless *shared_only* is False; else None."""
    from mpsgen.generate.reduction_ops import REDUCTIONS
    from mpsgen.plan.texts import yaml_index
    from mpsgen.sources.native.handover import handovers
    from mpsgen.tree.checkout import YAML_REL

    native = planned_texts(cs, folder_files(cs, "native_sources"), checkout)
    for handed in handovers(text, impl, yaml_index(cs.current(YAML_REL)), family):
        if shared_only and handed.entry.mps_route != "shared":
            continue
        callee = handed.entry.shared_kernel().kernel
        sources = mentioning(native, callee) if callee else {}
        target = find_shared_impl(sources, callee) if callee else None
        stub = reduction_stub(sources[target.path], target) if target is not None else None
        if stub in REDUCTIONS:
            return handed._replace(stub=stub, callee_at=f"{callee}, {target.location}" if target else callee or "")
    return None
