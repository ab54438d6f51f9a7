"""Routing of the nullary kind: a family whose shared kernels reach a stub of an output-only iterator
taking one scalar (fill_, zero_ -> fill_stub `void(*)(TensorIterator&, const c10::Scalar&)`).

Such a family is no pointwise op, so routing's elementwise test would refuse it; this module says
when it is the nullary kind instead, and which stub and value it runs.  What is written for it is
plan/nullary_code.py's.
"""

from __future__ import annotations

from mpsgen.plan.texts import folder_files, mentioning, planned_texts
from mpsgen.records import NamedTuple
from mpsgen.sources.native import stubs
from mpsgen.sources.native.nullary import NullaryReach, nullary_reach
from mpsgen.sources.native_yaml import names as nf
from mpsgen.tree.changeset import Changeset
from mpsgen.tree.checkout import Checkout


class NullaryRoute(NamedTuple):
    """The stub a nullary family runs and how its shared kernels reach it."""

    stub: stubs.StubDecl
    reaches: tuple[NullaryReach, ...]  # one per shared kernel
    value: str  # the value the stub is passed when a literal (zero_: "0"); "" when it is the op's scalar
    owner: str  # the family owning the stub (fill for fill_stub): the kernel's name

    def notes(self) -> tuple[str, ...]:
        return tuple(f"{r.shown()}: an iterator of its output only, the nullary kind" for r in self.reaches)


def route_nullary(checkout: Checkout, cs: Changeset, index: nf.NativeIndex,
                  shared: tuple[str, ...]) -> NullaryRoute | None:
    """The nullary route of a family MPS shares *shared* for, or None when one of them reaches no
    output-only stub, they reach different ones, or the stub takes anything but one Scalar."""
    shared = tuple(dict.fromkeys(shared))  # fill_.Scalar and fill_.Tensor both share fill_
    if not shared:
        return None
    native = planned_texts(cs, folder_files(cs, "native_sources"), checkout)

    def op_kernel(op: str) -> str | None:
        if not index.has_family(nf.family_key(op)):
            return None
        kernels = {k for e in index.family(nf.family_key(op)).entries if e.name.split(".")[0] == op
                   for k in e.cpu_cuda_kernels}
        return next(iter(kernels)) if len(kernels) == 1 else None

    reaches = []
    for kernel in shared:
        reach = nullary_reach(lambda name: mentioning(native, name), kernel, op_kernel)
        if reach is None:
            return None
        reaches.append(reach)
    if len({r.stub for r in reaches}) != 1:
        return None
    name = reaches[0].stub
    headers = mentioning(planned_texts(cs, folder_files(cs, "native_headers"), checkout), name)
    decl = stubs.index_stub_declarations(headers).get(name)
    if decl is None or not decl.resolved or decl.iterator_type is None:
        return None
    extra = decl.params[1:]
    if len(extra) != 1 or not stubs.is_c10_scalar(extra[0]):
        return None
    literals = {r.literal for r in reaches}
    owner = name.removesuffix("_stub")
    return NullaryRoute(decl, tuple(reaches), next(iter(literals)) if len(literals) == 1 else "",
                        owner if index.has_family(owner) else reaches[0].kernel.rstrip("_"))


def nullary_in_tree(checkout: Checkout, cs: Changeset, op: str) -> tuple[str, str] | None:
    """(kernel name, .metal path) of the nullary kernels the tree already runs for *op* (fill_ once migrated:
    fill, kernels/ConstantKernel.metal), or None."""
    from mpsgen.plan.texts import yaml_index
    from mpsgen.sources.metal.nullary import registered_types
    from mpsgen.tree.checkout import YAML_REL

    index = yaml_index(cs.current(YAML_REL))
    family = nf.select_overloads(index, op)
    shared = tuple(k for e in family.entries if e.mps_route == "shared" and (k := e.mps_kernel))
    found = route_nullary(checkout, cs, index, shared)
    if found is None:
        return None
    metal = mentioning(planned_texts(cs, folder_files(cs, "metal_files"), checkout), f"{found.owner}_dense_")
    return next(((found.owner, path) for path, text in sorted(metal.items()) if registered_types(text, found.owner)),
                None)
