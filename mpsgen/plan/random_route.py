"""Routing of the random kind: a family whose shared kernels draw their output through a distribution
stub (uniform_ -> templates::uniform_impl_<UniformStub> -> uniform_stub; sources/native/distribution.py).

Such a family is no pointwise op, so routing's elementwise test would refuse it; this module says when
it is the random kind, which stub it runs and which sampler mpsgen writes for it.  A distribution stub
with no sampler here is refused with its file:line.  What is written is plan/random_code.py's.
"""

from __future__ import annotations

from typing import NamedTuple

from mpsgen.errors import MpsgenError
from mpsgen.plan.texts import folder_files, mentioning, planned_texts
from mpsgen.sources.native import stubs
from mpsgen.sources.native.distribution import DistributionReach, distribution_reach, takes_the_output
from mpsgen.tree.changeset import Changeset
from mpsgen.tree.checkout import Checkout

# stub -> (kernel name, the parameter names after the output, the CPU op the check compares with)
SAMPLERS = {"uniform_stub": ("uniform", ("from", "to", "gen"), "uniform_"),
            "normal_stub": ("normal", ("mean", "std", "gen"), "normal_"),
            "exponential_stub": ("exponential", ("lambda", "gen"), "exponential_"),
            "bernoulli_scalar_stub": ("bernoulli_scalar", ("p", "gen"), "bernoulli_"),
            "bernoulli_tensor_stub": ("bernoulli_tensor", ("p_", "gen"), "bernoulli_"),
            "random_stub": ("random", ("gen",), "random_"),
            "random_from_to_stub": ("random_from_to", ("range", "base", "gen"), "random_"),
            "random_full_64_bits_range_stub": ("random_full_64", ("gen",), "random_")}


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
    shared = tuple(dict.fromkeys(shared))
    if not shared:
        return None
    native = planned_texts(cs, folder_files(cs, "native_sources"), checkout)
    reaches = []
    for kernel in shared:
        reach = distribution_reach(lambda name: mentioning(native, name), kernel)
        if reach is None:
            return None
        reaches.append(reach)
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
