"""The migration frontier: which MPS-only (MPSGraph) overloads `mpsgen migrate` can move to a shared kernel.

An overload is a pointwise migration candidate when its CPU and CUDA dispatch name one kernel,
that kernel (in native/*.cpp) calls a DispatchStub, the entry is pointwise (structured_inherits
TensorIteratorBase, tagged pointwise, or a non-structured kernel that builds an elementwise
TensorIterator: reductions also take a TensorIterator) and the stub's
declared function type takes a TensorIterator (so a Metal kernel run by `exec_*_kernel` can
implement it; a stub declared outside native/*.h is given the benefit of the doubt).
Everything else that runs MPSGraph (convolution, RNN, softmax, FFT, reductions, ...) is listed
apart with the reason it is not a candidate.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Callable

from mpsgen.records import NamedTuple
from mpsgen.sources.native_yaml.facts import Entry
from mpsgen.sources.native.shared_impl import borrowed_stub, not_elementwise_reason

if TYPE_CHECKING:
    from mpsgen.lint.inventory import Inventory
    from mpsgen.sources.native.distribution import DistributionReach
    from mpsgen.sources.native.handover import Handover
    from mpsgen.sources.native.nullary import NullaryReach
    from mpsgen.sources.native.shared_impl import SharedImpl
    from mpsgen.sources.native.stubs import StubDecl

CANDIDATE = "candidate"
NOT_CANDIDATE = "not a candidate"
NEW_OP = "new-op candidate"  # no MPS key at all: `mpsgen new-op NAME` writes its first kernel


class Overload(NamedTuple):
    """One MPS-only overload and whether it can move to the shared kernel."""

    entry: str
    mps_kernel: str
    shared_kernel: str | None  # the CPU/CUDA kernel (None: CPU and CUDA differ, or one is missing)
    defined_at: str | None  # where the shared kernel is defined in native/*.cpp
    stubs: tuple[str, ...]  # the DispatchStubs it calls
    stub_type: str | None  # the first stub's declared function type
    candidate: bool
    why: str


class Frontier(NamedTuple):
    """A family's place on the frontier: a candidate when any MPS-only overload is one."""

    family: str
    overloads: tuple[Overload, ...]
    note: str = ""  # the reason when there is no MPS-only overload to judge
    note_is_candidate: bool = False  # a shared key whose stub MPSGraph code registers: migrate writes the Metal kernel
    new_op: bool = False  # judged for `new-op` (no MPS key), not for `migrate`

    @property
    def candidate(self) -> bool:
        return any(o.candidate for o in self.overloads) or self.note_is_candidate

    @property
    def label(self) -> str:
        if self.new_op:
            return NEW_OP if self.candidate else ""
        return CANDIDATE if self.candidate else NOT_CANDIDATE

    @property
    def why(self) -> str:
        if self.note:
            return self.note
        chosen = next((o for o in self.overloads if o.candidate), self.overloads[0] if self.overloads else None)
        if chosen is None:
            return "no MPS-only overload"
        return f"{chosen.entry}: {chosen.why}" + (" (no MPS key: `mpsgen new-op`)" if self.new_op and chosen.candidate else "")


def _paired_stub(text: str, impl: SharedImpl) -> str | None:
    """paired_stub(called_stubs(text, impl)), told without masking *impl*'s file when no pair can match:
    called_stubs adds to impl's stubs only names its masked body spells, which its raw body (and file) spell too."""
    from mpsgen.generate.reduction_ops import paired_stub
    from mpsgen.sources.native.impl_lines import impl_span
    from mpsgen.sources.native.indexing import called_stubs

    known = set(impl.stub_names)

    def may_pair(spelled: Callable[[str], bool]) -> bool:
        return any(known <= set(pair) and all(s in known or spelled(s) for s in pair) for pair in _pairs())

    if not may_pair(_pair_stubs_spelled(text).__contains__):  # the file first (once a file): its lines not looked up
        return None
    _, start, end = impl_span(text, impl)
    if not may_pair(text[start:end].__contains__):
        return None
    return paired_stub(called_stubs(text, impl))


def _pairs() -> list[tuple[str, str]]:
    """The two stubs of each reduction serving two (aminmax_stub, aminmax_allreduce_stub)."""
    from mpsgen.generate.reduction_ops import REDUCTIONS

    return [(op.stub, op.also) for op in REDUCTIONS.values() if op.also]


@functools.lru_cache(maxsize=64)  # asked for each kernel of a file in turn
def _pair_stubs_spelled(text: str) -> frozenset[str]:
    """The stubs of _pairs() that *text* spells."""
    return frozenset(s for pair in _pairs() for s in pair if s in text)


class FrontierIndex:
    """Frontier questions over one Inventory, each family and each MPS entry judged at most once
    (MPS001, MPS003 and MPS005 ask about one family for each of its findings)."""

    def __init__(self, inv: "Inventory") -> None:
        self.inv = inv
        self._families: dict[str, Frontier] = {}
        self._judged: dict[str, Overload] = {}  # overload() of the family's MPS entries, by entry name

    def overload(self, e: Entry) -> Overload:
        inv = self.inv
        mps_kernel = e.mps_kernel or ""
        site = e.shared_kernel()
        if not site.kernel:
            return Overload(e.name, mps_kernel, None, None, (), None, False, site.reason)
        use = inv.stub_use(site.kernel)
        if use.impl is None:
            return Overload(e.name, mps_kernel, site.kernel, None, (), None, False,
                            f"{site.kernel} is not defined in native/*.cpp")
        at = f"{use.impl.location}"
        if not use.impl.stub_names:
            nullary = self._nullary(site.kernel)
            if nullary is not None:
                return Overload(e.name, mps_kernel, site.kernel, at, (nullary.stub,), None, True,
                                f"{nullary.shown()}: an iterator of its output only (the nullary kind)")
            drawn = self._random(site.kernel)  # uniform_ -> templates::uniform_impl_<UniformStub> -> uniform_stub
            if drawn is not None:
                return Overload(e.name, mps_kernel, site.kernel, at, (drawn[0].stub,), None, drawn[1], drawn[2])
            direct = self._direct_sampler(site.kernel)  # multinomial_out -> multinomial_with_replacement_stub
            if direct is not None:
                return Overload(e.name, mps_kernel, site.kernel, at, (direct,), None, False,
                                f"{site.kernel} ({at}) draws through {direct} itself: "
                                "mpsgen has no Metal sampler for it")
            handed = self._handed(e, use.impl)  # norm_out -> at::linalg_vector_norm_out -> norm_stub
            if handed is not None:
                return Overload(e.name, mps_kernel, site.kernel, at, (), None, handed[0], handed[1])
        indexing = self._indexing(use.impl)
        if indexing:  # index_fill_ -> index_fill_stub (plan/indexing_route.py)
            return Overload(e.name, mps_kernel, site.kernel, at, tuple(d.name for d in indexing), indexing[0].fn_type,
                            True, f"{site.kernel} ({at}) calls {', '.join(d.name for d in indexing)}: the indexing kind")
        reduction = self._reduction(use.impl) if not use.impl.elementwise else ""
        if reduction:
            from mpsgen.generate.reduction_ops import REDUCTIONS

            what = "a reduction of whole tensors" if REDUCTIONS[reduction].also else "a TensorIterator reduction"
            return Overload(e.name, mps_kernel, site.kernel, at, use.impl.stub_names, None, True,
                            f"{site.kernel} ({at}) calls {reduction}: {what} (the reduction kind)")
        if not e.marked_pointwise and not use.impl.elementwise:
            return Overload(e.name, mps_kernel, site.kernel, at, use.impl.stub_names, None, False,
                            not_elementwise_reason(site.kernel, at))
        stubs = use.impl.stub_names
        if not stubs:
            return Overload(e.name, mps_kernel, site.kernel, at, (), None, False,
                            f"{site.kernel} ({at}) calls no DispatchStub (it calls other ops)")
        borrowed = self._borrowed(e, use.impl)
        if borrowed:
            return Overload(e.name, mps_kernel, site.kernel, at, stubs, None, False, borrowed)
        decls = [inv.stub_declarations.get(s) for s in stubs]
        stub_type = decls[0].fn_type if decls[0] else None
        known = [d for d in decls if d is not None]
        if known and all(d.iterator_type for d in known):
            its = ", ".join(f"{d.name}({d.iterator_type}&...)" for d in known)
            return Overload(e.name, mps_kernel, site.kernel, at, stubs, stub_type, True,
                            f"{site.kernel} ({at}) calls {its}")
        if known:
            odd = next(d for d in known if not d.iterator_type)
            return Overload(e.name, mps_kernel, site.kernel, at, stubs, stub_type, False,
                            f"{site.kernel} ({at}) calls {odd.name}, whose type {odd.fn_type} takes no TensorIterator")
        return Overload(e.name, mps_kernel, site.kernel, at, stubs, None, True,
                        f"{site.kernel} ({at}) calls {', '.join(stubs)} (a pointwise entry; "
                        "the stub's declaration is not in native/*.h)")

    def _nullary(self, kernel: str) -> NullaryReach | None:
        """How *kernel*, which calls no stub itself, reaches a stub of an output-only iterator taking one
        Scalar (fill_ -> fill_out -> fill_stub): what plan/nullary_route.py plans; None otherwise.  Each hop
        is found through the shared kernels' cached search, not by indexing every file naming it."""
        from mpsgen.sources.native import stubs
        from mpsgen.sources.native.nullary import nullary_reach
        from mpsgen.sources.native_yaml.facts import family_key

        inv = self.inv
        found = inv.shared_kernels

        def sources_for(name: str) -> dict[str, str]:
            impl = found.impl(name)
            return {impl.path: found.text(impl.path)} if impl is not None else {}

        def op_kernel(op: str) -> str | None:
            kernels = {k for head in inv.family_heads.get(family_key(op), ()) if head.name.split(".")[0] == op
                       for k in inv.index.parse(head).cpu_cuda_kernels}
            return next(iter(kernels)) if len(kernels) == 1 else None

        reach = nullary_reach(sources_for, kernel, op_kernel)
        decl = inv.stub_declarations.get(reach.stub) if reach is not None else None
        if decl is None or decl.iterator_type is None or len(decl.params) != 2:
            return None
        return reach if stubs.is_c10_scalar(decl.params[1]) else None

    def _indexing(self, impl: SharedImpl) -> tuple[StubDecl, ...]:
        """The stubs of the indexing kind *impl* calls (what plan/indexing_route.py plans), else ()."""
        from mpsgen.sources.native.indexing import indexing_stubs

        return indexing_stubs(self.inv.shared_kernels.text(impl.path), impl, self.inv.stub_declarations)

    def _random(self, kernel: str) -> tuple[DistributionReach, bool, str] | None:
        """How *kernel* reaches a distribution stub through a template's functor (uniform_ -> uniform_stub),
        whether mpsgen writes its sampler (plan/samplers.py), and why; None when it does not."""
        from mpsgen.plan.samplers import SAMPLERS
        from mpsgen.sources.native.distribution import distribution_reach

        found = self.inv.shared_kernels
        impl = found.impl(kernel)
        reach = distribution_reach(lambda _: {impl.path: found.text(impl.path)}, kernel) if impl else None
        if reach is None:
            return None
        every = reach.stubs or (reach.stub,)
        if all(s in SAMPLERS for s in every):
            also = f" (and {', '.join(every[1:])})" if len(every) > 1 else ""
            return reach, True, f"{reach.shown()}{also}: a distribution stub (the random kind)"
        if len(every) > 1:
            return reach, False, (f"{reach.shown()}: draws through {', '.join(every)}; mpsgen has no Metal sampler "
                                  f"for {', '.join(s for s in every if s not in SAMPLERS)}")
        return reach, False, f"{reach.shown()}: a distribution stub mpsgen has no Metal sampler for yet"

    def _direct_sampler(self, kernel: str) -> str | None:
        """The stub taking a Generator *kernel* calls itself (sources/native/direct_sampler.py), else None."""
        from mpsgen.sources.native.direct_sampler import direct_sampler

        found = self.inv.shared_kernels
        impl = found.impl(kernel)
        sampler = direct_sampler(lambda _: {impl.path: found.text(impl.path)}, kernel,
                                 self.inv.stub_declarations.get) if impl else None
        return sampler.stub if sampler else None

    def _reduction(self, impl: SharedImpl) -> str:
        """The reduce stub *impl* calls when it builds a reduction iterator and the reduction kind serves the
        stub (`void(*)(TensorIterator&)`, norm_stub's with a Scalar: what plan/reduction_route.py plans), else ""."""
        from mpsgen.generate.reduction_ops import REDUCTIONS
        from mpsgen.sources.native.reduction import passed_reduction_stub, reduction_stub

        text = self.inv.shared_kernels.text(impl.path)
        stub = reduction_stub(text, impl) if impl.stub_names else passed_reduction_stub(text, impl)
        paired = _paired_stub(text, impl) if not stub else None  # aminmax_out: two tensor stubs
        if paired is not None:
            decl = self.inv.stub_declarations.get(paired)
            return paired if decl is not None and decl.resolved and decl.iterator_type is None else ""
        decl = self.inv.stub_declarations.get(stub) if stub in REDUCTIONS else None
        params = 1 + bool(REDUCTIONS[stub].scalar) if stub and decl is not None else 0  # norm_stub: and the ord
        return stub if stub and decl is not None and decl.iterator_type is not None and len(decl.params) == params else ""

    def _handed(self, e: Entry, impl: SharedImpl) -> tuple[bool, str] | None:
        """(candidate, why) when *impl* hands its work to another family's op whose shared kernel is a reduction
        the reduction kind serves (norm_out -> at::linalg_vector_norm_out): a candidate once MPS shares that op
        (plan/reduction_route.py's hand-over), else waiting for it."""
        from mpsgen.generate.reduction_ops import REDUCTIONS
        from mpsgen.sources.native.handover import handovers
        from mpsgen.sources.native_yaml.facts import family_key

        stubs: dict[str, str] = {}  # by callee: handovers() asks, then the reason names it

        def reduced(handed: Handover) -> str:
            """The reduce stub of the op *handed* to, when the reduction kind serves it (at::empty and the like
            pass), else ""."""
            if handed.callee not in stubs:
                callee = handed.entry.shared_kernel().kernel
                use = self.inv.stub_use(callee) if callee else None
                stub = self._reduction(use.impl) if use is not None and use.impl is not None else ""
                stubs[handed.callee] = stub if stub and not REDUCTIONS[stub].also else ""
            return stubs[handed.callee]

        text = self.inv.shared_kernels.text(impl.path)
        found = handovers(text, impl, self.inv.index, family_key(e.base), wanted=lambda h: bool(reduced(h)))
        if not found:
            return None
        handed = found[0]
        stub = reduced(handed)
        how = f"{impl.kernel} ({impl.location}) hands its work to {handed.callee} (a reduction of {stub})"
        if handed.entry.mps_route == "shared":
            return True, f"{how}, which MPS shares (the reduction kind)"
        return False, f"{how}: waits for {family_key(handed.entry.base)} (`mpsgen migrate {family_key(handed.entry.base)}`)"

    def _borrowed(self, e: Entry, impl: SharedImpl) -> str:
        """Why *e* waits for another op: its shared kernel passes a computed value to that op's stub
        (sub_out: add_stub (-alpha)) and MPS runs that stub with no Metal kernel yet, so `migrate`
        would refuse (plan/kernelplan.py asks the same sources.shared_impl.borrowed_stub)."""
        from mpsgen.sources.native_yaml.facts import family_key

        inv = self.inv
        family = family_key(e.name.split(".", 1)[0])
        for call in impl.stubs:
            owner = borrowed_stub(call, family, lambda name: name in inv.family_heads)
            regs = inv.registrations.get(call.stub, ())
            if owner and not any(inv.registration_backend(r) != "mpsgraph" for r in regs):
                return (f"{impl.kernel} ({impl.location}) passes {call.stub} ({', '.join(call.extra_args)}): "
                        f"{owner}'s kernel, which MPS does not run on Metal yet; {family} follows {owner}")
        return ""

    def family(self, name: str) -> Frontier:
        """The frontier state of family *name* (whose MPS runs MPSGraph or an MPS-only kernel)."""
        found = self._families.get(name)
        if found is None:
            judged, note = self._judge(name)
            found = self._families[name] = note or Frontier(name, tuple(map(self._overload, judged)))
        return found

    def candidate(self, name: str) -> bool:
        """`family(name).candidate`, with the family's overloads judged only up to the first candidate
        (a check hint asks no more)."""
        held = self._families.get(name)
        if held is not None:
            return held.candidate
        judged, note = self._judge(name)
        return note.candidate if note is not None else any(self._overload(e).candidate for e in judged)

    def _overload(self, e: Entry) -> Overload:
        found = self._judged.get(e.name)
        if found is None:
            found = self._judged[e.name] = self.overload(e)
        return found

    def _judge(self, name: str) -> tuple[list[Entry], Frontier | None]:
        """The entries of family *name* whose overloads decide its state, or the state itself when no
        overload does (a note)."""
        inv = self.inv
        entries = inv.mps_family(name)
        legacy = [e for e in entries if e.mps_route == "legacy"]
        if legacy:
            # An MPS-only kernel running bespoke Metal stays a candidate: migrate replaces it like MPSGraph
            # code (plan/legacy.py), as upstream moved 2.7's bitwise_* off BitwiseOps.mm.
            return legacy, None
        unregistered = [e for e in entries if e.mps_route == "shared" and inv.stub_use(e.mps_kernel or "").missing]
        if unregistered:  # a half-done move (MPS005): migrate writes the kernel the yaml already routes to
            return unregistered, None
        for e in entries:  # shared yaml key, but the stub is registered by MPSGraph code
            if e.mps_route == "shared" and e.mps_kernel:
                use = inv.stub_use(e.mps_kernel)
                graph = [r for r in use.registrations if inv.registration_backend(r) == "mpsgraph"]
                if graph and len(graph) == len(use.registrations):  # one on Metal too: a duplicate, not work
                    return [], Frontier(name, (), f"shared kernel {use.kernel} calls {use.stub}, registered by "
                                                  f"MPSGraph code at {graph[0].path}:{graph[0].line}", True)
        return [], Frontier(name, (), "no MPS-only overload and no MPSGraph registration found")

    def new_op(self, name: str) -> Frontier:
        """Family *name*, which has no MPS key, judged for `new-op`: a candidate when an entry's CPU and
        CUDA share a kernel that calls TensorIterator stubs (the migrate frontier's test) and the yaml says
        the entry is pointwise (TensorIterator-structured or tagged).  An entry MPSGraph never served has
        no MPS test history to go on, and a kernel building a TensorIterator is not enough there: indexing
        ops build one over their indices (take, put_), glu_jvp one over slices of its arguments."""
        inv = self.inv
        overloads = []
        for head in inv.family_heads.get(name, ()):
            chunk = inv.index.text[head.start : head.end]
            if "CPU" not in chunk or "CUDA" not in chunk:  # cheap: most such families are not pointwise
                continue
            entry = inv.index.parse(head)
            found = self.overload(entry)
            if found.candidate and not entry.marked_pointwise:
                found = found._replace(candidate=False, why=(
                    f"{found.shared_kernel} ({found.defined_at}) calls {', '.join(found.stubs)}, but the entry is "
                    "neither TensorIterator-structured nor tagged pointwise (an indexing or slicing op builds a "
                    "TensorIterator too)"))
            overloads.append(found)
        if not overloads:
            return Frontier(name, (), "no entry with CPU and CUDA kernels", new_op=True)
        return Frontier(name, tuple(overloads), new_op=True)
