"""Routing of the indexing kind: a family whose shared kernel calls a stub of a known indexing signature
(index_fill_ -> index_fill_stub, gather_out -> gather_stub; sources/native/indexing.py).

Such a family is no pointwise op (the stub's kernel reads or writes where the index says, not where an
iterator is), so routing's elementwise test would refuse it; this module says when it is the indexing kind
instead.  What is written for it is plan/indexing_code.py's.
"""

from __future__ import annotations

from mpsgen.plan.texts import folder_files, mentioning, planned_texts
from mpsgen.records import NamedTuple
from mpsgen.sources.native import stubs as stub_reader
from mpsgen.sources.native.indexing import SIGNATURES, called_stubs, indexing_stubs, reaching_stubs
from mpsgen.sources.native_yaml import names as nf
from mpsgen.tree.changeset import Changeset
from mpsgen.tree.checkout import Checkout


class IndexingRoute(NamedTuple):
    """The stubs an indexing family runs (scatter: four), and the first shared kernel calling them."""

    stubs: tuple[stub_reader.StubDecl, ...]
    impl: stub_reader.SharedImpl
    calls: tuple[str, ...] = ()  # every stub the shared kernels call (gather_out: gather_expanded_index_stub too)

    @property
    def stub(self) -> stub_reader.StubDecl:
        return self.stubs[0]

    def notes(self) -> tuple[str, ...]:
        others = [s for s in self.calls if s not in {d.name for d in self.stubs}]
        return (f"{self.impl.kernel} ({self.impl.location}) -> {', '.join(d.name for d in self.stubs)}: the indexing "
                "kind" + (f" ({', '.join(others)}: only a CPU tensor reaches it)" if others else ""),)


def route_indexing(checkout: Checkout, cs: Changeset, index: nf.NativeIndex,
                   shared: tuple[str, ...]) -> IndexingRoute | None:
    """The indexing route of a family MPS shares *shared* for, or None when a shared kernel reaches a stub
    of no SIGNATURES entry, or its declaration or iterator differ from the kind's."""
    shared = tuple(dict.fromkeys(shared))  # index_fill_.int_Scalar and .int_Tensor both share index_fill_
    if not shared:
        return None
    native = planned_texts(cs, folder_files(cs, "native_sources"), checkout)
    impls = [stub_reader.find_shared_impl(mentioning(native, k), k) for k in shared]
    if None in impls:
        return None
    calling = [i for i in impls if i is not None and called_stubs(native[i.path], i)]
    names = tuple(dict.fromkeys(n for i in calling for n in reaching_stubs(native[i.path], i)))
    if not names or any(n not in SIGNATURES for n in names):
        return None
    names = tuple(sorted(names, key=list(SIGNATURES).index))  # scatter_stub first: the kernel's own
    all_headers = planned_texts(cs, folder_files(cs, "native_headers"), checkout)
    decls = stub_reader.index_stub_declarations({p: t for n in names for p, t in mentioning(all_headers, n).items()})
    found: dict[str, stub_reader.StubDecl] = {}
    for impl in calling:
        each = indexing_stubs(native[impl.path], impl, decls)
        if not each:
            return None
        found.update((d.name, d) for d in each)
    calls = tuple(dict.fromkeys(n for i in calling for n in called_stubs(native[i.path], i)))
    return IndexingRoute(tuple(found[n] for n in names), calling[0], calls)
