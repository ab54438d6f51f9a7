"""Routing of the indexing kind: a family whose shared kernel calls a stub of a known indexing signature
(index_fill_ -> index_fill_stub, gather_out -> gather_stub; sources/native/indexing.py).

Such a family is no pointwise op (the stub's kernel reads or writes where the index says, not where an
iterator is), so routing's elementwise test would refuse it; this module says when it is the indexing kind
instead.  What is written for it is plan/indexing_code.py's.
"""

from __future__ import annotations

from typing import NamedTuple

from mpsgen.plan.texts import folder_files, mentioning, planned_texts
from mpsgen.sources.native import stubs
from mpsgen.sources.native.indexing import SIGNATURES, called_stubs, indexing_stub, reaching_stubs
from mpsgen.sources.native_yaml import names as nf
from mpsgen.tree.changeset import Changeset
from mpsgen.tree.checkout import Checkout


class IndexingRoute(NamedTuple):
    """The stub an indexing family runs, and the shared kernel calling it."""

    stub: stubs.StubDecl
    impl: stubs.SharedImpl
    name: str  # the kernel's name: index_fill_stub -> index_fill
    calls: tuple[str, ...] = ()  # every stub the shared kernel calls (gather_out: gather_expanded_index_stub too)

    def notes(self) -> tuple[str, ...]:
        others = [s for s in self.calls if s != self.stub.name]
        return (f"{self.impl.kernel} ({self.impl.location}) -> {self.stub.name}: the indexing kind"
                + (f" ({', '.join(others)}: only a CPU tensor reaches it)" if others else ""),)


def route_indexing(checkout: Checkout, cs: Changeset, index: nf.NativeIndex,
                   shared: tuple[str, ...]) -> IndexingRoute | None:
    """The indexing route of a family MPS shares *shared* for, or None when they reach no stub of
    SIGNATURES (or several), or its declaration or iterator differ from the kind's."""
    shared = tuple(dict.fromkeys(shared))  # index_fill_.int_Scalar and .int_Tensor both share index_fill_
    if not shared:
        return None
    native = planned_texts(cs, folder_files(cs, "native_sources"), checkout)
    impls = [stubs.find_shared_impl(mentioning(native, k), k) for k in shared]
    if None in impls:
        return None
    calling = [i for i in impls if i is not None and called_stubs(native[i.path], i)]
    names = {n for i in calling for n in reaching_stubs(native[i.path], i)}
    if len(names) != 1 or (name := next(iter(names))) not in SIGNATURES:
        return None
    impl = calling[0]
    decls = stubs.index_stub_declarations(mentioning(planned_texts(cs, folder_files(cs, "native_headers"), checkout),
                                                     name))
    decl = indexing_stub(native[impl.path], impl, decls)
    return IndexingRoute(decl, impl, name.removesuffix("_stub"), called_stubs(native[impl.path], impl)) \
        if decl is not None else None
