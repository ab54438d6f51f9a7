"""Where a kind writing its own kernels puts its host kernel, and what the checkout's c10/metal asks of its
Metal: shared by the nullary, indexing, random and reduction kinds' code phases."""

from __future__ import annotations

from typing import Callable

from mpsgen.errors import MpsgenError
from mpsgen.plan.routing import Routing
from mpsgen.plan.texts import folder_files, mentioning, planned_texts
from mpsgen.sources.host import mm as host
from mpsgen.tree.changeset import Changeset
from mpsgen.tree.checkout import OPERATIONS_REL, Checkout


def host_file(routing: Routing, checkout: Checkout, cs: Changeset, name: str,
              dead_name: Callable[[str], bool] | None = None) -> tuple[str, tuple[str, ...]]:
    """The .mm holding the legacy MPSGraph code (the host kernel's place), else the first one still defining
    `<name>_*mps*` functions no yaml line names (the 2026-shaped tree's ConstantOps.mm, Distributions.mm,
    ReduceOps.mm, Indexing.mm), with those (*dead_name* says which names count, when not that pattern)."""
    def named(n: str) -> bool:
        return n.startswith(f"{name}_") and "mps" in n[len(name) + 1:]

    mm_texts = planned_texts(cs, folder_files(cs, "mm_files"), checkout)
    for legacy in routing.legacy_kernels:
        impls = host.find_implementations(mentioning(mm_texts, legacy), legacy)
        if impls:
            return impls[0].path, ()
    for path, text in sorted(mentioning(mm_texts, f"{name}_").items()):
        defined = [d.name for d in host.definitions(path, text) if not d.static]
        if any(named(n) for n in defined):
            return path, tuple(dict.fromkeys(n for n in defined if (dead_name or named)(n)))
    raise MpsgenError(f"no operations/*.mm holds {routing.family}'s MPS code to put its host kernel beside",
                      path=OPERATIONS_REL, hint=f"register {routing.stub.name if routing.stub else 'the stub'} by hand")


def dead_code_notes(mm_rel: str, dead: tuple[str, ...]) -> tuple[str, ...]:
    """The note naming the MPSGraph functions host_file found that no yaml line names any more."""
    if not dead:
        return ()
    return (f"{mm_rel}: {', '.join(dead)} named by no yaml line (MPSGraph code the dispatch left): left in place, "
            "delete by hand",)


def bfloat_guarded(cs: Changeset, checkout: Checkout) -> bool:
    """The checkout's c10/metal guards bfloat by the Metal version (2.7), so the kernels do too."""
    rel = "c10/metal/utils.h"
    return cs.exists(rel) and "__METAL_VERSION__ >= 310" in cs.current(rel)
