"""Routing of the indexing kind: a family whose shared kernel calls a stub of a known indexing signature
over an iterator of one output and one input (index_fill_ -> index_fill_stub; sources/native/indexing.py).

Such a family is no pointwise op (the stub's kernel writes where the index says, not where the iterator
is), so routing's elementwise test would refuse it; this module says when it is the indexing kind
instead.  What is written for it is plan/indexing_code.py's.
"""

from __future__ import annotations

from typing import NamedTuple

from mpsgen.plan.texts import folder_files, mentioning, planned_texts
from mpsgen.sources.native import stubs
from mpsgen.sources.native.indexing import SIGNATURES, is_indexing_stub, one_output_one_index
from mpsgen.sources.native_yaml import names as nf
from mpsgen.tree.changeset import Changeset
from mpsgen.tree.checkout import Checkout


class IndexingRoute(NamedTuple):
    """The stub an indexing family runs, and the shared kernel calling it."""

    stub: stubs.StubDecl
    impl: stubs.SharedImpl
    name: str  # the kernel's name: index_fill_stub -> index_fill

    def notes(self) -> tuple[str, ...]:
        return (f"{self.impl.kernel} ({self.impl.location}) -> {self.stub.name}: an iterator of one output and "
                "one index, the indexing kind",)


def route_indexing(checkout: Checkout, cs: Changeset, index: nf.NativeIndex,
                   shared: tuple[str, ...]) -> IndexingRoute | None:
    """The indexing route of a family MPS shares *shared* for, or None when they call no stub of
    SIGNATURES (or several), or its declaration or iterator differ from the kind's."""
    shared = tuple(dict.fromkeys(shared))  # index_fill_.int_Scalar and .int_Tensor both share index_fill_
    if not shared:
        return None
    native = planned_texts(cs, folder_files(cs, "native_sources"), checkout)
    impls = [stubs.find_shared_impl(mentioning(native, k), k) for k in shared]
    names = {n for i in impls if i is not None for n in i.stub_names}
    if None in impls or len(names) != 1 or (name := next(iter(names))) not in SIGNATURES:
        return None
    impl = next(i for i in impls if i is not None and i.stub_names)
    headers = mentioning(planned_texts(cs, folder_files(cs, "native_headers"), checkout), name)
    decl = stubs.index_stub_declarations(headers).get(name)
    if decl is None or not is_indexing_stub(decl) or not one_output_one_index(native[impl.path], impl):
        return None
    return IndexingRoute(decl, impl, name.removesuffix("_stub"))
