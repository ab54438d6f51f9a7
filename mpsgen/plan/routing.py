"""Planning's first phase: which overloads move and how their dispatch lines change, the shared
kernels MPS will call and the DispatchStub behind them, as one frozen `Routing` (nothing is set in the
changeset here; the planner applies `yaml_text`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from mpsgen.errors import MpsgenError, Refusal, context
from mpsgen.model import Command, KernelOptions
from mpsgen.plan.multistub import StubTarget, stub_targets
from mpsgen.plan.callers import Spared, spare_callers
from mpsgen.plan.texts import TextEdit, folder_files, mentioning, planned_texts, yaml_index
from mpsgen.sources.host import mm as host
from mpsgen.sources.native_yaml import names as nf
from mpsgen.sources.native import stubs
from mpsgen.sources.host.register import Registration
from mpsgen.sources.native_yaml.edits import MovedEntry
from mpsgen.sources.native_yaml.facts import Entry
from mpsgen.tree.changeset import Changeset
from mpsgen.tree.checkout import YAML_REL, Checkout

if TYPE_CHECKING:
    from mpsgen.plan.indexing_route import IndexingRoute
    from mpsgen.plan.nullary_route import NullaryRoute
    from mpsgen.plan.random_route import RandomRoute
    from mpsgen.plan.reduction_route import ReductionRoute
    from mpsgen.sources.metal.two_output_kernels import TwoOutputKernels


@dataclass(frozen=True)
class Routing:
    """What phase 1 decided for one op (a family, or the overloads named)."""

    family: str
    overloads: tuple[str, ...]  # the entries selected (empty: the whole family)
    kept: tuple[str, ...]  # notes on overloads left on their MPS kernel
    nothing_to_do: str = ""  # why nothing moves (empty: there is work)
    index: nf.NativeIndex | None = None  # the yaml's index the edit was made on
    yaml_text: str | None = None  # the edited native_functions.yaml (None: unchanged)
    moved: tuple[MovedEntry, ...] = ()
    shared: tuple[str, ...] = ()  # the shared CPU/CUDA kernels MPS now calls
    legacy_kernels: tuple[str, ...] = ()  # the MPS-only kernels the moved entries called
    schema_entry: Entry | None = None  # the entry whose schema and iterator describe the kernel
    stub: stubs.StubDecl | None = None
    native: host.Registration | None = None  # with nothing_to_do: the stub's registration that is not MPSGraph
    # Every stub when the shared kernels call several (plan/multistub.py), the first being `stub`'s.
    targets: tuple[StubTarget, ...] = ()
    # upstream's kernels writing the op's two outputs (frexp on the 2026 tree): the host is all to write
    two_outputs: TwoOutputKernels | None = None
    # otherwise one kernel per output of the shared kernel's iterator (plan/split_outputs.py), in its order
    outputs: tuple[str, ...] = ()
    # calls of kernels the change deletes, rewritten to the op's at:: function (plan/callers.py)
    caller_edits: tuple[TextEdit, ...] = ()
    notes: tuple[str, ...] = ()  # overloads moved with the family through their shared kernel, calls rewritten
    # the nullary kind: the shared kernels reach a stub of an output-only iterator (fill_stub; plan/nullary_route.py)
    nullary: NullaryRoute | None = None
    indexing: IndexingRoute | None = None  # the indexing kind: index_fill_stub (plan/indexing_route.py)
    random: RandomRoute | None = None  # the random kind: a distribution stub (uniform_stub; plan/random_route.py)
    # the reduction kind: a TensorIterator reduction of a reduce stub (sum_stub; plan/reduction_route.py)
    reduction: ReductionRoute | None = None


def route(command: Command, checkout: Checkout, cs: Changeset, opts: KernelOptions) -> Routing:
    yaml_text = cs.current(YAML_REL)
    index = yaml_index(yaml_text)
    family = nf.select_overloads(index, opts.op)
    only = tuple(e.name for e in family.entries) if family.partial else None
    spared: Spared | None = None
    kept: list[str] = []
    notes: list[str] = []
    moved_notes: list[tuple[str, str]] = []  # (overload, why it moves with the family)
    delegating: frozenset[str] = frozenset()  # shared kernels reaching the stub through another one
    if command == "migrate" and only is None:
        only, kept, moved_notes, delegating = _movable_overloads(checkout, cs, family)
    with context(lambda: f"planning `mpsgen {command} {opts.op}`"):
        done, native = _already_native(checkout, cs, family, opts, only, index)
        if done:
            return Routing(family.name, only or (), tuple(kept), nothing_to_do=done, native=native)
        if command == "migrate":
            if not family.has_mps:
                first = family.entries[0]
                raise MpsgenError(
                    f"{family.name} has no MPS kernel to migrate", path=YAML_REL, line=first.line,
                    hint=f"use `mpsgen new-op {family.name}` to give it a native one", kind=Refusal.NO_MPS_KERNEL,
                )
            edit = nf.migrate_family(yaml_text, family.name, path=YAML_REL,
                                     shared_kernel=opts.shared_kernel, index=index, only=only)
            spared = spare_callers(checkout, cs, family, yaml_text, edit, only,
                                   lambda chosen: nf.migrate_family(yaml_text, family.name, path=YAML_REL,
                                                                    shared_kernel=opts.shared_kernel, index=index,
                                                                    only=chosen), delegating)
            edit, only = spared.edit, spared.only
            kept += spared.kept
            notes = [note for name, note in moved_notes if only is None or name in only] + list(spared.notes)
        else:
            if family.legacy_entries:
                e = family.legacy_entries[0]
                raise MpsgenError(
                    f"{family.name} already has an MPS kernel ({e.name}: {e.mps_kernel})",
                    path=YAML_REL, line=e.legacy_lines[0].line,
                    hint=f"use `mpsgen migrate {family.name}` to move it to Metal, or `mpsgen status --op {family.name}`",
                )
            edit = nf.add_mps_to_family(yaml_text, family.name, path=YAML_REL,
                                        shared_kernel=opts.shared_kernel, index=index, only=only)
        shared = edit.shared_kernels or tuple(
            k for e in family.entries if e.mps_route == "shared" and (k := e.mps_kernel)
        )
        if not shared:
            first = family.entries[0]
            raise MpsgenError(f"no entry of {family.name} routes MPS to a shared kernel", path=YAML_REL,
                              line=first.line, hint="pass --shared-kernel NAME")
        # The overload with the most tensors (ge.Tensor_out, not ge.Scalar_out, whose scalar is wrapped
        # into a tensor): its arguments are what the kernel reads, so the numeric check can call it.
        own = tuple(k for k in shared if k not in delegating) or shared  # a delegating kernel's schema is its callee's
        schema_entry = max((_entry_for_kernel(family, edit, k) for k in own), key=_tensor_count)
        two_outputs = None
        outputs: tuple[str, ...] = ()
        returns = schema_entry.func.rsplit("->", 1)[-1].strip()
        if returns.startswith("("):  # _prelu_kernel_backward -> (Tensor, Tensor)
            from mpsgen.generate.catalog import load_catalog
            from mpsgen.plan.two_output_ops import iterator_outputs, output_kernels, refuse_outputs, upstream_two_outputs

            built = iterator_outputs(family.name, shared, cs, checkout)
            two_outputs = upstream_two_outputs(family.name, built, cs, checkout)
            if two_outputs is None and opts.expr is None and not opts.stub_override:
                outputs = output_kernels(family.name, built, load_catalog().__contains__)
            if two_outputs is None and not outputs and _reduction(checkout, cs, own, family.name) is None:
                raise refuse_outputs(family.name, schema_entry, returns, built, cs, checkout)  # aminmax: one kernel
        nullary = None
        if not (opts.stub_override or outputs or two_outputs):
            from mpsgen.plan.nullary_route import route_nullary

            nullary = route_nullary(checkout, cs, index, shared)
        indexing = _indexing(checkout, cs, index, shared) if not (nullary or opts.stub_override or outputs) else None
        random = _random_route(checkout, cs, shared) if not (nullary or indexing or opts.stub_override) else None
        own = tuple(k for k in shared if k not in delegating) or shared  # nansum: its callee nansum_out's stub
        reduction = _reduction(checkout, cs, own, family.name) \
            if not (opts.stub_override or outputs or two_outputs or nullary or indexing or random) else None
        if nullary is None and indexing is None and random is None and reduction is None:
            _refuse_unserved_reduction(checkout, cs, family, edit, own)
            _require_elementwise(checkout, cs, family, edit, delegating)
        own_stub = opts.stub_override or outputs or nullary or indexing or random or reduction  # a stub found otherwise
        targets = () if own_stub else _targets(checkout, cs, family, edit, shared)
        if targets:  # several stubs: the first one's overload describes the first kernel
            stub, schema_entry = targets[0].stub, targets[0].entry
        elif nullary is not None:  # fill_: the stub its shared kernel reaches through fill_out
            stub = nullary.stub
            notes += nullary.notes()
        elif indexing is not None:  # index_fill_: index_fill_stub
            stub = indexing.stub
            notes += indexing.notes()
        elif random is not None:  # uniform_: the stub its shared kernel's template functor calls
            stub = random.stub
            notes += random.notes()
        elif reduction is not None:  # sum: sum_out's sum_stub, run by the reduction kind's kernels
            stub = reduction.stub
            notes += reduction.notes()
        else:
            stub = _infer_stub(checkout, cs, family.name, shared, opts.stub_override)
    return Routing(family.name, only or (), tuple(kept), index=index,
                   yaml_text=edit.text if edit.changed else None, moved=tuple(edit.moved), shared=shared,
                   legacy_kernels=edit.legacy_kernels, schema_entry=schema_entry, stub=stub, targets=targets,
                   two_outputs=two_outputs, outputs=outputs, caller_edits=spared.edits if spared else (),
                   notes=tuple(notes), nullary=nullary, indexing=indexing, random=random,
                   reduction=reduction)


def _indexing(checkout: Checkout, cs: Changeset, index: nf.NativeIndex, shared: tuple[str, ...]) -> IndexingRoute | None:
    from mpsgen.plan.indexing_route import route_indexing

    return route_indexing(checkout, cs, index, shared)


def _targets(checkout: Checkout, cs: Changeset, family: nf.Family, edit: nf.DispatchEdit | None, shared: tuple[str, ...]) -> tuple[StubTarget, ...]:
    """The family's stubs when its shared kernels call several (plan/multistub.py), else ()."""
    from mpsgen.generate.catalog import load_catalog

    known = load_catalog()

    def entry_for(kernel: str) -> Entry:
        users = [e for e in family.entries if kernel in (e.cpu_cuda_kernels | {e.mps_kernel})]
        return max(users, key=_tensor_count) if users else _entry_for_kernel(family, edit, kernel)

    return stub_targets(checkout, cs, family.name, shared, entry_for, lambda name: name in known)


def _movable_overloads(checkout: Checkout, cs: Changeset, family: nf.Family
                       ) -> tuple[tuple[str, ...] | None, list[str], list[tuple[str, str]], frozenset[str]]:
    """The overloads `migrate FAMILY` moves when some legacy ones cannot: an overload whose shared
    kernel calls no DispatchStub (pow.Scalar_out) keeps its MPS kernel, said in a note, while the
    others move (or moved in an earlier run: then there is nothing to do).  A variant (in-place, out or
    functional) left on MPSGraph whose shared kernel hands its work, in one call, to a kernel of the
    family that calls a stub (floor_divide_ -> floor_divide_out) moves with the family.

    Returns (the overloads to move, None when every one moves or none can: the usual refusal then
    says why; notes on those kept; (overload, note) of those moved through their kernel's callee; those
    kernels)."""
    stubless: dict[str, tuple[str, stubs.SharedImpl]] = {}
    legacy = family.legacy_entries
    native_texts = planned_texts(cs, folder_files(cs, "native_sources"), checkout)
    for e in legacy:
        for kernel in sorted(e.cpu_cuda_kernels):
            impl = stubs.find_shared_impl(mentioning(native_texts, kernel), kernel)
            if impl is not None and not impl.stub_names:
                stubless[e.name] = (f"{kernel} ({impl.location}) calls no DispatchStub", impl)
    moved_notes, delegating = _delegating(checkout, cs, family, stubless, native_texts) if stubless else ([], {})
    stubless = {name: why for name, why in stubless.items() if name not in delegating}
    moved_before = any(e.mps_route == "shared" for e in family.entries)  # a second run: the rest moved then
    if not stubless or (len(stubless) == len(legacy) and not moved_before):
        return None, [], moved_notes, frozenset(delegating.values())
    left = [e.name for e in family.entries if e.name not in stubless and e.structured_delegate not in stubless]
    notes = [f"kept {name} on {e.mps_kernel}: {why}; move it by hand" for e in legacy
             if (name := e.name) in stubless for why in [stubless[name][0]]]
    return tuple(left), notes, moved_notes, frozenset(delegating.values())


def _delegating(checkout: Checkout, cs: Changeset, family: nf.Family, stubless: dict[str, tuple[str, stubs.SharedImpl]],
                native_texts: dict[str, str]) -> tuple[list[tuple[str, str]], dict[str, str]]:
    """((entry, note) pairs, {entry: its shared kernel}) of the stubless variants on MPSGraph (in-place, out, or
    functional: nansum -> at::native::nansum_out) whose kernel calls a family kernel that calls a stub (or that
    kernel's op through at::)."""
    from mpsgen.sources.host.callers import uses_of
    from mpsgen.sources.native.delegates import delegation
    from mpsgen.sources.native_yaml.cpp_api import at_spellings

    callees: dict[str, str] = {}  # kernel, or at:: spelling -> the stub it reaches
    for e in family.entries:
        if e.name in stubless:
            continue
        for kernel in sorted(e.cpu_cuda_kernels | ({e.mps_kernel} if e.mps_route == "shared" and e.mps_kernel else set())):
            impl = stubs.find_shared_impl(mentioning(native_texts, kernel), kernel)
            if impl is not None and impl.stub_names:
                callees.setdefault(kernel, impl.stub_names[0])
                for spelling in at_spellings(e):
                    callees.setdefault(f"at::{spelling}", impl.stub_names[0])
    if not callees:
        return [], {}
    native = {k for k in callees if "::" not in k}
    dispatched = {k.removeprefix("at::") for k in callees if k.startswith("at::")}
    going = {d.kernel for e in family.legacy_entries if e.name not in stubless for d in e.legacy_lines}
    mm_texts = planned_texts(cs, folder_files(cs, "mm_files"), checkout)
    notes: list[tuple[str, str]] = []
    moving: dict[str, str] = {}
    for e in family.legacy_entries:
        if e.name not in stubless or not e.mps_kernel:
            continue
        impl = stubless[e.name][1]
        via = delegation(native_texts, impl, native, dispatched)
        if via is None:
            continue
        mps = e.mps_kernel
        on_graph = any(i.backend == "mpsgraph" for i in host.find_implementations(mentioning(mm_texts, mps), mps))
        calls_going = next((f"{k} ({u.location})" for k in sorted(going) for path, text in mentioning(mm_texts, k).items()
                            for u in uses_of(path, text, k) if u.function == mps), "")
        if not (on_graph or calls_going):
            continue  # not MPSGraph code (pow_Scalar_out_mps redispatches): left as it is
        stub = callees[f"at::{via.name}" if via.dispatched else via.name]
        moving[e.name] = impl.kernel
        left_on = f"calls {calls_going}, which goes" if calls_going else "runs MPSGraph"
        notes.append((e.name, f"moved {e.name} with the family: {mps} {left_on}, and its shared kernel {impl.kernel} "
                     f"({impl.location}) calls {via.callee} ({via.location}), which calls {stub}"))
    return notes, moving


def _already_native(checkout: Checkout, cs: Changeset, family: nf.Family, opts: KernelOptions,
                    only: tuple[str, ...] | None, index: nf.NativeIndex) -> tuple[str, host.Registration | None]:
    """Why there is nothing to do, and the registration that makes it so: every MPS entry (of those
    *only* names) shares its CPU/CUDA kernel and every stub they call (pow's two, once on Metal) is
    registered by a kernel that does not run MPSGraph (REGISTER_MPS_UNARY_STUB, or a host function whose
    body runs MPSGraph, leaves work to do)."""
    entries = [e for e in family.entries if only is None or e.name in only]
    if not any(e.mps_lines for e in entries) or any(e.legacy_lines for e in entries):
        return "", None
    shared = tuple(dict.fromkeys(k for e in entries if e.mps_route == "shared" and (k := e.mps_kernel)))
    nullary: NullaryRoute | IndexingRoute | None = None  # either kind's route names its stub
    if not opts.stub_override:
        from mpsgen.plan.nullary_route import route_nullary

        nullary = route_nullary(checkout, cs, index, shared)  # fill_: fill_stub, reached through fill_out
        nullary = nullary or _indexing(checkout, cs, index, shared)  # gather_out: gather_stub (indexing kind)
    random = _random_route(checkout, cs, shared) if nullary is None and not opts.stub_override else None
    reduction = _reduction(checkout, cs, shared, family.name) if not (opts.stub_override or nullary or random) else None
    one = random.stub if random else reduction.stub if reduction else None  # either kind names its one stub
    targets = () if opts.stub_override or nullary or one else _targets(checkout, cs, family, None, shared)
    found = [t.stub for t in targets] or ([*getattr(nullary, "stubs", (nullary.stub,))] if nullary else  # scatter: 4
                                          [one, *([reduction.also] if reduction and reduction.also else [])] if one else
                                          [_infer_stub(checkout, cs, family.name, shared, opts.stub_override)])
    mm_all = planned_texts(cs, folder_files(cs, "mm_files"), checkout)
    runs: list[tuple[stubs.StubDecl, Registration, str]] = []
    for stub in found:  # every stub must already run a kernel that is not MPSGraph
        mm_texts = mentioning(mm_all, stub.name.removesuffix("_stub"))
        kinds = [(r, host.registration_backend_in(r, mm_texts[r.path]))
                 for r in host.registered_stubs(mm_texts).get(stub.name, [])]
        kept = [(r, kind) for r, kind in kinds if kind != "mpsgraph"]
        if not kept:
            return "", None
        runs.append((stub, *kept[0]))
    # the one to name: a kernel that is neither Metal nor MPSGraph, when one of the stubs has it
    _, r, kind = next((run for run in runs if run[2] != "metal"), runs[0])
    where = "; ".join(f"{s.name} registered at {reg.location}" for s, reg, _ in runs) + \
        f", MPS shares {', '.join(shared)}"
    if kind == "metal":
        return f"{family.name} is already on a native Metal kernel ({where})", runs[0][1]
    return (f"{family.name} already has an MPS kernel that is not MPSGraph code mpsgen knows ({where}; "
            f"{r.fn or r.macro} calls neither Metal nor MPSGraph directly): left as it is"), None


def _reduction(checkout: Checkout, cs: Changeset, shared: tuple[str, ...], family: str) -> ReductionRoute | None:
    from mpsgen.plan.reduction_route import route_reduction

    return route_reduction(checkout, cs, shared, family)


def _refuse_unserved_reduction(checkout: Checkout, cs: Changeset, family: nf.Family, edit: nf.DispatchEdit,
                               shared: tuple[str, ...]) -> None:
    from mpsgen.plan.reduction_route import unserved_reduction

    found = unserved_reduction(checkout, cs, shared, family.name)
    if found is not None:
        entry = _entry_for_kernel(family, edit, found[0])
        raise MpsgenError(f"{entry.name} is not a pointwise op: {found[1]}", path=YAML_REL, line=entry.line,
                          hint=found[2] or f"write its Metal kernel by hand; `mpsgen status --op {family.name}` "
                                           "shows the frontier")


def _entry_for_kernel(family: nf.Family, edit: nf.DispatchEdit | None, kernel: str) -> Entry:
    moved = {m.entry for m in edit.moved} if edit is not None else set()
    for e in family.entries:
        if (e.name in moved or e.mps_route == "shared") and kernel in (e.cpu_cuda_kernels | {e.mps_kernel}):
            return e
    return family.entries[0]


def _require_elementwise(checkout: Checkout, cs: Changeset, family: nf.Family, edit: nf.DispatchEdit,
                         delegating: frozenset[str]) -> None:
    """Refuse an entry MPS would share that is not elementwise (argmax.out: a reduction whose stub
    also takes a TensorIterator): beyond the pointwise kernels, mpsgen writes only the fill, indexing, random and
    reduction kinds, each recognised by its stub before this test.  Same test as status's
    frontier: marked pointwise in the yaml, or its shared kernel builds an elementwise iterator."""
    from mpsgen.sources.native.shared_impl import not_elementwise_reason

    moved = {m.entry: m.shared_kernel for m in edit.moved}
    for e in family.entries:
        kernel = moved.get(e.name) or (e.mps_kernel if e.mps_route == "shared" else None)
        if not kernel or e.marked_pointwise or kernel in delegating:  # a delegating kernel: its callee is checked
            continue
        sources = mentioning(planned_texts(cs, folder_files(cs, "native_sources"), checkout), kernel)
        impl = stubs.find_shared_impl(sources, kernel)
        if impl is None or impl.elementwise:
            continue  # a kernel not found is _infer_stub's to report
        raise MpsgenError(f"{e.name} is not a pointwise op: {not_elementwise_reason(kernel, f'{impl.location}')}",
                          path=YAML_REL, line=e.line,
                          hint="mpsgen writes Metal kernels for pointwise ops and for the fill, indexing, random and "
                               f"reduction stubs; `mpsgen status --op {family.name}` shows the migration frontier")


def _infer_stub(checkout: Checkout, cs: Changeset, family: str, kernels: tuple[str, ...],
                override: str | None) -> stubs.StubDecl:
    sources = mentioning(planned_texts(cs, folder_files(cs, "native_sources"), checkout), family)
    all_headers = folder_files(cs, "native_headers")
    found: dict[str, stubs.StubDecl] = {}
    impls = {k: stubs.find_shared_impl(sources, k) for k in kernels}
    if override is None and any(i is not None and i.stub_names for i in impls.values()):
        # where (where.self) calls no stub, only where_self_out, which does: MPS shares both, and only
        # the stub's registration moves; a stubless overload with its own MPS kernel (pow.Scalar_out)
        # never gets here (_movable_overloads keeps it).
        kernels = tuple(k for k in kernels if (i := impls[k]) is None or i.stub_names)
    for kernel in kernels:
        impl = impls[kernel]
        wanted = override or (impl.stub_names[0] if impl and impl.stub_names else family)
        headers = mentioning(planned_texts(cs, all_headers, checkout), wanted)
        decl = stubs.infer_stub(headers or planned_texts(cs, all_headers, checkout), sources, kernel, override)
        found[kernel] = decl
    names = {d.name for d in found.values()}
    if len(names) > 1:
        listed = ", ".join(f"{k} -> {d.name}" for k, d in found.items())
        raise MpsgenError(
            f"the overloads of {family} call different stubs ({listed})",
            path=YAML_REL, hint="migrate them by hand, or name one with --stub and --shared-kernel",
        )
    return next(iter(found.values()))


def _tensor_count(entry: Entry) -> int:
    from mpsgen.plan.binding import schema_args

    return sum(a.type.startswith("Tensor") for a in schema_args(entry.func))


def _random_route(checkout: Checkout, cs: Changeset, shared: tuple[str, ...]) -> RandomRoute | None:
    """The random kind's route (plan/random_route.py), imported when asked."""
    from mpsgen.plan.random_route import route_random

    return route_random(checkout, cs, shared)
