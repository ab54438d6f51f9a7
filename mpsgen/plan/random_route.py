"""Routing of the random kind: a family whose shared kernels draw their output through a distribution
stub (uniform_ -> templates::uniform_impl_<UniformStub> -> uniform_stub; sources/native/distribution.py).

Such a family is no pointwise op, so routing's elementwise test would refuse it; this module says when
it is the random kind, which stub it runs and which sampler mpsgen writes for it.  A distribution stub
with no sampler here is refused with its file:line.  What is written is plan/random_code.py's.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mpsgen.errors import MpsgenError
from mpsgen.plan.samplers import SAMPLERS
from mpsgen.records import NamedTuple
from mpsgen.sources.native import stubs
from mpsgen.sources.native.direct_sampler import direct_sampler
from mpsgen.sources.native.distribution import DistributionReach, distribution_reach, takes_the_output
from mpsgen.sources.native_yaml.facts import Entry
from mpsgen.sources.native_yaml.index import NativeIndex
from mpsgen.sources.native_yaml.schema import schema_args
from mpsgen.tree.checkout import YAML_REL, Checkout

if TYPE_CHECKING:  # the planner's texts and changeset load with a route
    from mpsgen.tree.changeset import Changeset


class Sampler(NamedTuple):
    """One distribution stub and the kernels mpsgen writes for it."""

    stub: stubs.StubDecl
    name: str  # the kernels' prefix: uniform -> uniform_dense_<T>
    params: tuple[str, ...]  # the host kernel's parameter names after the output
    op: str  # the CPU op of the numeric check


class RandomRoute(NamedTuple):
    """The distribution stubs a family runs (bernoulli: two) and how its shared kernels reach them."""

    stub: stubs.StubDecl  # the first sampler's
    reaches: tuple[DistributionReach, ...]  # one per shared kernel
    samplers: tuple[Sampler, ...]

    def notes(self) -> tuple[str, ...]:
        return tuple(f"{r.shown()}: a distribution stub, the random kind" for r in self.reaches)


def route_random(checkout: Checkout, cs: Changeset, shared: tuple[str, ...]) -> RandomRoute | None:
    """The random route of a family MPS shares *shared* for, or None when one of them reaches no
    distribution stub.  A stub mpsgen has no sampler for is refused."""
    from mpsgen.plan.texts import folder_files, mentioning, planned_texts

    shared = tuple(dict.fromkeys(shared))
    if not shared:
        return None
    native = planned_texts(cs, folder_files(cs, "native_sources"), checkout)
    found = [distribution_reach(lambda name: mentioning(native, name), kernel) for kernel in shared]
    reaches = [r for r in found if r is not None]
    if len(reaches) < len(found):
        _refuse_direct_sampler(checkout, cs, shared, native)  # multinomial_out: its own stub call
        return None
    first = reaches[0]
    every = tuple(dict.fromkeys(s for r in reaches for s in (r.stubs or (r.stub,))))
    missing = [s for s in every if s not in SAMPLERS]
    if missing and len(every) > 1:
        raise MpsgenError(f"{first.kernel} draws through {len(every)} stubs ({', '.join(every)}; {first.shown()}); "
                          f"mpsgen has no Metal sampler for {', '.join(missing)}", path=first.path, line=first.line,
                          hint="register the stubs by hand, or keep the MPSGraph kernels")
    if missing:
        raise MpsgenError(f"{first.stub} draws {first.kernel}'s output ({first.shown()}); mpsgen has no Metal "
                          "sampler for it", path=first.path, line=first.line,
                          hint=f"register {first.stub} by hand, or keep the MPSGraph kernel")
    headers = planned_texts(cs, folder_files(cs, "native_headers"), checkout)
    samplers = []
    for name in every:
        decl = stubs.index_stub_declarations(mentioning(headers, name)).get(name)
        if decl is None or not decl.resolved or not (decl.iterator_type or takes_the_output(decl.params[0])):
            return None
        kernel, params, op = SAMPLERS[name]
        if len(decl.params) != len(params) + 1:
            raise MpsgenError(f"{name} is declared with {len(decl.params) - 1} parameters after its output, "
                              f"the {kernel} sampler takes {len(params)}", path=decl.path, line=decl.line,
                              hint=f"register {name} by hand")
        samplers.append(Sampler(decl, kernel, params, op))
    return RandomRoute(samplers[0].stub, tuple(reaches), tuple(samplers))


def _refuse_direct_sampler(checkout: Checkout, cs: Changeset, shared: tuple[str, ...], native: dict[str, str]) -> None:
    """Refuse a family whose shared kernel calls a stub taking a Generator itself (2.7's multinomial_out:
    multinomial_with_replacement_stub), saying what else sharing it needs: the at:: ops its body calls that
    this checkout dispatches nowhere for MPS (at::_assert_async before 2.13)."""
    from mpsgen.plan.texts import folder_files, mentioning, planned_texts, yaml_index

    headers = planned_texts(cs, folder_files(cs, "native_headers"), checkout)

    def declaration(name: str) -> stubs.StubDecl | None:
        return stubs.index_stub_declarations(mentioning(headers, name)).get(name)

    for kernel in shared:
        found = direct_sampler(lambda name: mentioning(native, name), kernel, declaration)
        if found is None:
            continue
        index = yaml_index(cs.current(YAML_REL))
        missing = [(name, line, entry) for name, line, args in found.at_calls
                   if (entry := _no_mps_kernel(index, name, args)) is not None]
        also = "".join(f"; it also calls at::{name} (line {line}), which {YAML_REL}:{entry.line} dispatches to "
                       f"{', '.join(k for d in entry.dispatch for k in d.keys)} only, so the shared {kernel} "
                       "would fail on MPS" for name, line, entry in missing[:1])
        needs = "".join(f" and give {entry.name} an MPS kernel" for _, _, entry in missing[:1])
        raise MpsgenError(f"{kernel} ({found.path}:{found.kernel_line}) draws through {found.stub} itself, with no "
                          f"distribution template: mpsgen has no Metal sampler for it{also}", path=found.path,
                          line=found.line,
                          hint=f"register {found.stub} by hand{needs}, or leave the family's MPS dispatch as it is")


def _no_mps_kernel(index: NativeIndex, name: str, args: int) -> Entry | None:
    """The entry of the op an at:: function *name* runs (`div_out` -> div) with *args* arguments (else its
    first) when no entry of the op has an MPS kernel: each dispatches to backends without MPS and without a
    Composite key; else None."""
    key = name if index.has_family(name) else name.removesuffix("_out")
    if not index.has_family(key):
        return None
    entries = index.family(key).entries
    served = any(not e.dispatch or e.structured_delegate or any(d.has_mps or any(k.startswith("Composite")
                                                                                for k in d.keys) for d in e.dispatch)
                 for e in entries)
    return None if served else next((e for e in entries if len(schema_args(e.func)) == args), entries[0])
