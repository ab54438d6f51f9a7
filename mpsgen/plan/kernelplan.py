"""Plan one op's move to a native Metal kernel as a single changeset (shared by migrate and new-op).

Every reader runs on texts from the changeset, every editor is text -> text, and nothing is
written here: the caller shows the plan, applies it, then builds and tests.  The phases, each a
function returning a frozen record whose texts the planner applies before the next one runs:
routing (routing.Routing: the yaml edit, the shared kernels and the stub), the kernel's shape and
name (kernel_choice.KernelChoice), the kernel code with its dtype table (kernel_code.KernelCode), the
MPSGraph code that goes (legacy.LegacyRemoval), the test lists (test_lists.TestListsPhase and
dtypes.DroppedXfails); the Plan is assembled from them, then re-read (edit_guard).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from mpsgen.errors import context
from mpsgen.model import Command, KernelOptions
from mpsgen.plan.kernel_choice import KernelChoice, choose_kernel
from mpsgen.plan.kernel_code import KernelCode, plan_kernel_code, registered_metal_kernel
from mpsgen.plan.legacy import LegacyRemoval, callers_first, remove_legacy
from mpsgen.plan.multistub import StubTarget
from mpsgen.plan.nullary_record import DTYPE_GROUPS as NULLARY_GROUPS
from mpsgen.plan.random_record import DTYPE_GROUPS as RANDOM_GROUPS  # the random kind's dtypes
from mpsgen.plan.retired import Retired, retire_bespoke_kernels
from mpsgen.plan.split_outputs import OutputKernel
from mpsgen.plan.result import Plan, Rendered  # callers (commands/migrate.py, plan/group.py) import Plan from here
from mpsgen.plan.routing import Routing, route
from mpsgen.plan.stub_kernels import StubKernel, choose_stub_kernel, plan_stub_code
from mpsgen.plan.test_lists import DroppedXfails, TestListsPhase, dropped_xfails, plan_test_lists, registered
from mpsgen.plan.texts import TextEdit, apply_edits
from mpsgen.plan.edit_guard import guard_edits
from mpsgen.sources.native import stubs
from mpsgen.sources.native_yaml import names as nf
from mpsgen.sources.native_yaml.facts import Entry
from mpsgen.tree.changeset import Changeset
from mpsgen.tree.checkout import YAML_REL, Checkout

if TYPE_CHECKING:
    from mpsgen.plan.indexing_record import IndexingCode
    from mpsgen.plan.kind_record import KindCode
    from mpsgen.plan.nullary_record import NullaryCode
    from mpsgen.plan.random_record import RandomCode
    from mpsgen.plan.reduction_record import ReductionCode


@dataclass(frozen=True)
class Phases:
    """Every record one op's planning produced, in the order the phases ran."""

    routing: Routing
    choice: KernelChoice | None = None  # None: MPS already runs the stub (or nothing moves)
    code: KernelCode | None = None
    kept_kernel: str = ""  # why no kernel is written: the stub's Metal registration
    removals: tuple[LegacyRemoval, ...] = ()
    legacy_notes: tuple[str, ...] = ()  # per legacy kernel in turn: kept (an overload still calls it), or its removal's
    tests: TestListsPhase | None = None
    xfails: DroppedXfails = DroppedXfails()
    first_notes: tuple[str, ...] = ()  # what the first stub's branch changed (a family calling several)
    others: tuple[StubKernel, ...] = ()  # the family's other stubs (plan/multistub.py), one kernel each
    nullary: NullaryCode | None = None  # the nullary kind's kernels (fill_stub; plan/nullary_code.py)
    indexing: IndexingCode | None = None  # the indexing kind's kernel (index_fill_stub; plan/indexing_code.py)
    random: RandomCode | None = None  # the random kind's kernels (uniform_stub; plan/random_code.py)
    reduction: ReductionCode | None = None  # the reduction kind's (sum_stub; plan/reduction_code.py)


def plan_kernel_command(command: Command, checkout: Checkout, opts: KernelOptions,
                        changeset: Changeset | None = None) -> Plan:
    """Every edit of `migrate OP` / `new-op OP`, planned in one changeset (nothing written).

    With *changeset*, the op is planned on the texts earlier ops of a group left there."""

    cs = changeset if changeset is not None else Changeset(checkout)
    before = cs.snapshot()
    phases = _run_phases(command, checkout, opts, cs)
    from mpsgen.generate.clang_format import format_written

    formatted = format_written(cs, before)  # every .metal/.mm/.h line written, as lintrunner lays it out
    plan = assemble(command, opts.op, cs, phases, formatted, tuple(cs.changed_since(before)))
    if not plan.nothing_to_do:
        with context(lambda: f"planning `mpsgen {command} {opts.op}`"):
            for each in plan.kernel_plans:  # every stub's registration and kernel
                guard_edits(each, checkout)
    return plan


def _run_phases(command: Command, checkout: Checkout, opts: KernelOptions, cs: Changeset) -> Phases:
    routing = route(command, checkout, cs, opts)
    if routing.nothing_to_do:
        return Phases(routing)
    with context(lambda: f"planning `mpsgen {command} {opts.op}`"):
        if routing.yaml_text is not None:
            cs.set_text(YAML_REL, routing.yaml_text, f"MPS dispatch of {routing.family}")
        apply_edits(cs, routing.caller_edits)  # calls of kernels the legacy phase deletes, now to at:: ops
        assert routing.stub is not None and routing.schema_entry is not None  # set whenever something moves
        targets = routing.targets
        # The bespoke kernels only the legacy code runs go with it, before the new kernel takes their names.
        retired = retire_bespoke_kernels(cs, checkout, routing.legacy_kernels, routing.family)
        apply_edits(cs, retired.edits)
        nullary = indexing = random = reduction = None
        no_others: tuple[StubKernel, ...] = ()
        if routing.nullary is not None:  # fill_: a stub of an output-only iterator (plan/nullary_code.py)
            from mpsgen.plan.nullary_code import plan_nullary_code

            nullary = plan_nullary_code(routing, checkout, cs, opts)
            apply_edits(cs, nullary.edits)
            first, others = StubKernel(routing.stub, kept_kernel=nullary.kept), no_others
        elif routing.indexing is not None:  # index_fill_: plan/indexing_code.py
            from mpsgen.plan.indexing_code import plan_indexing_code

            indexing = plan_indexing_code(routing, checkout, cs, opts)
            apply_edits(cs, indexing.edits)
            first, others = StubKernel(routing.stub, kept_kernel=indexing.kept), no_others
        elif routing.random is not None:  # uniform_: a distribution stub (plan/random_code.py)
            from mpsgen.plan.random_code import plan_random_code

            random = plan_random_code(routing, checkout, cs, opts)
            apply_edits(cs, random.edits)
            first, others = StubKernel(routing.stub, kept_kernel=random.kept), no_others
        elif routing.reduction is not None:  # sum: a reduce stub's kernels (plan/reduction_code.py)
            from mpsgen.plan.reduction_code import plan_reduction_code

            reduction = plan_reduction_code(routing, checkout, cs, opts)
            apply_edits(cs, reduction.edits)
            first, others = StubKernel(routing.stub, kept_kernel=reduction.kept), no_others
        elif routing.outputs:  # one kernel per output (plan/split_outputs.py), the host placed with the last
            kernels: list[StubKernel] = []
            for k in range(len(routing.outputs)):
                output = OutputKernel(k, routing.outputs, tuple(sk.code.rendered.host_code for sk in kernels
                                                                  if sk.code is not None))
                kernels.append(_stub_kernel(command, routing, routing.stub, routing.schema_entry, None,
                                            checkout, cs, opts, retired, output))
            first, others = kernels[0], tuple(kernels[1:])
        else:
            first = _stub_kernel(command, routing, routing.stub, routing.schema_entry,
                                 targets[0] if targets else None, checkout, cs, opts, retired)
            others = tuple(_stub_kernel(command, routing, t.stub, t.entry, t, checkout, cs, opts, retired)
                           for t in targets[1:])
        choice, code, kept_kernel = first.choice, first.code, first.kept_kernel
        legacy_notes: list[str] = []
        removals: list[LegacyRemoval] = [LegacyRemoval(removed=retired.removed)] if retired.removed else []
        for legacy in callers_first(cs, checkout, routing.legacy_kernels):
            yaml_now = cs.current(YAML_REL)
            # A plain substring test first: the line-anchored search of the whole yaml costs ~5 ms.
            user = nf.entry_calling(yaml_now, legacy) if legacy in yaml_now else None
            if user:  # an overload that was not selected still calls it
                legacy_notes.append(f"kept {legacy}: {user} still calls it")
                continue
            removal = remove_legacy(cs, checkout, legacy, routing.family)
            for path, text in removal.texts.items():
                cs.set_text(path, text, f"removed the legacy {legacy}")  # MPSGraph or bespoke Metal
            removals.append(removal)
            legacy_notes.extend(removal.notes)
        if nullary is not None or indexing is not None or reduction is not None:  # every dtype the CPU kernel takes
            groups = reduction.groups if reduction is not None and reduction.groups else NULLARY_GROUPS
            tests = plan_test_lists(routing.family, command, checkout, cs, dtypes=groups, dropped=(),
                                    drop_complex=False)
        elif random is not None:  # samples differ from the CPU's whatever the kernel: their xfails stay
            tests = TestListsPhase(notes=(f"test lists left alone: {routing.family}'s samples match the CPU's in "
                                          "distribution only, so its output-match entries stay as they are",))
        elif code is None:  # the stub's kernel is another op's (sub: add_stub): its dtypes are not ours to list
            tests = TestListsPhase(notes=(f"test lists left alone: {routing.stub.name}'s kernel serves "
                                          f"{routing.family} already",))
        else:
            served = tuple((sk.choice.binding.fixed if sk.choice and sk.choice.binding else (),  # what selects it
                            registered(sk.code.dtype_rows)) for sk in (first, *others) if sk.code is not None)
            tests = plan_test_lists(routing.family, command, checkout, cs, dtypes=code.spec.dtypes,
                                    dropped=code.dropped, drop_complex=opts.drop_complex, kernels=served)
        apply_edits(cs, tuple(TextEdit(path, text, ("test lists",)) for path, text in tests.texts.items()))
        xfails = DroppedXfails()
        if code is not None:
            xfails = dropped_xfails(code.dtype_rows, next(iter(tests.test_keys.values()), routing.family), cs, checkout,
                                    unregistered=code.unregistered)
            apply_edits(cs, xfails.edits)
    return Phases(routing, choice, code, kept_kernel, tuple(removals), tuple(legacy_notes), tests, xfails,
                  first.notes, others, nullary, indexing, random, reduction)


def _stub_kernel(command: Command, routing: Routing, stub: stubs.StubDecl, entry: Entry, target: StubTarget | None,
                 checkout: Checkout, cs: Changeset, opts: KernelOptions, retired: Retired,
                 output: OutputKernel | None = None) -> StubKernel:
    """One stub's kernel choice and code, each phase's texts applied before the next reads them."""
    sk = choose_stub_kernel(command, routing, stub, entry, target, checkout, cs, opts, retired, output)
    if sk.choice is None:  # MPS already runs the stub (sk.kept_kernel)
        return sk
    apply_edits(cs, sk.choice.edits)  # the host API forms the choice adds
    code = plan_stub_code(sk, routing, cs, checkout, output)
    apply_edits(cs, code.edits)
    return replace(sk, code=code)


def assemble(command: Command, op: str, cs: Changeset, phases: Phases, formatted: tuple[str, ...] | list[str],
             files: tuple[str, ...]) -> Plan:
    """The Plan the commands show, from the phases' records, with the plans of the family's other stubs."""
    routing, choice, code, tests = phases.routing, phases.choice, phases.code, phases.tests
    nothing_to_do = routing.nothing_to_do
    if not files and not nothing_to_do:
        nothing_to_do = f"{routing.family} is already on a native Metal kernel"
    # the other stubs' kernels, as the numeric check, the summary and --print read them (the yaml, legacy
    # code and test lists are this plan's; its overloads too, so one it kept, pow.Scalar_out, stays for them)
    subs = tuple(_plan_of(command, op, routing.family, cs, sk.choice, sk.code, moved=routing.moved, stub=sk.stub,
                          overloads=routing.overloads, other_stub=True,
                          check_op=sk.choice.check_op if sk.choice else "",
                          added=sk.code.added if sk.code else (), backfilled=sk.choice.backfilled if sk.choice else (),
                          removed=sk.code.removed if sk.code else (),
                          notes=(*((sk.kept_kernel,) if sk.kept_kernel else ()), *sk.notes,
                                 *(sk.code.notes if sk.code else ())))
                 for sk in phases.others)
    nullary, indexing, random, reduction = phases.nullary, phases.indexing, phases.random, phases.reduction
    own = nullary or indexing or random or reduction  # a kind writing its own .metal and host: the same fields
    notes = (*routing.kept, *routing.notes, *((phases.kept_kernel,) if phases.kept_kernel else ()),
             *phases.first_notes, *(code.notes if code else ()), *(own.notes if own else ()),
             *(f"{sub.stub.name}: {n}" for sub in subs if sub.stub for n in sub.notes), *phases.legacy_notes,
             *(tests.notes if tests else ()), *phases.xfails.notes, *formatted)
    backfilled = (*(choice.backfilled if choice else ()), *(a for sub in subs for a in sub.backfilled))
    return _plan_of(
        command, op, routing.family, cs, choice, code, nothing_to_do=nothing_to_do,
        moved=routing.moved if not routing.nothing_to_do else (), stub=routing.stub,
        added=(*(code.added if code else ()), *(own.added if own else ()), *(a for sub in subs for a in sub.added)),
        backfilled=tuple(dict.fromkeys(backfilled)),
        removed=(*(code.removed if code else ()), *(r for sub in subs for r in sub.removed),
                 *(r for x in phases.removals for r in x.removed)),
        notes=notes, tests=tests, xfail_changes=phases.xfails.changes, overloads=routing.overloads, files=files,
        stub_plans=subs, nullary=nullary if nullary and not nullary.kept else None,
        indexing=indexing if indexing and not indexing.kept else None,
        random=random if random and not random.kept else None,
        reduction=reduction if reduction and not reduction.kept else None,
    )


def _plan_of(command: Command, op: str, family: str, cs: Changeset, choice: KernelChoice | None,
             code: KernelCode | None, *, moved: tuple[nf.MovedEntry, ...], stub: stubs.StubDecl | None,
             added: tuple[str, ...], backfilled: tuple[str, ...], removed: tuple[str, ...], notes: tuple[str, ...],
             overloads: tuple[str, ...], nothing_to_do: str = "", tests: TestListsPhase | None = None,
             xfail_changes: tuple[str, ...] = (), files: tuple[str, ...] = (), stub_plans: tuple[Plan, ...] = (),
             other_stub: bool = False, check_op: str = "", nullary: NullaryCode | None = None,
             indexing: IndexingCode | None = None, random: RandomCode | None = None,
             reduction: ReductionCode | None = None) -> Plan:
    """The one place a Plan is built: a stub's kernel from its choice and code records (or the nullary,
    indexing, random or reduction kind's code: its texts, kernel and dtype rows), the rest given."""
    own = nullary or indexing or random or reduction
    return Plan(
        command, op, family, cs, nothing_to_do=nothing_to_do, moved=moved, stub=stub,
        spec=code.spec if code else None,
        kernel=own.kernel if own else code.spec.name if code else (choice.kernel if choice else ""),
        arity=choice.arity if choice else "", shape=choice.shape if choice else None,
        reused_kernel=code.reused_kernel if code else "", reused_functor=code.reused_functor if code else "",
        two_outputs=code.two_outputs if code else None,
        binding=choice.binding if choice else None, operands_at=choice.operands_at if choice else "",
        diverted=choice.diverted if choice else None,
        dtypes=NULLARY_GROUPS if nullary or indexing else RANDOM_GROUPS if random else reduction.groups if reduction
        else code.spec.dtypes if code else (),
        rendered=code.rendered if code else _own_rendered(own) if own else Rendered(), added=added, backfilled=backfilled, removed=removed,
        notes=notes, test_lists=(*(tests.changes if tests else ()), *xfail_changes),
        test_names=tests.test_names if tests else (), test_keys=dict(tests.test_keys) if tests else {},
        grad_test_names=tests.grad_test_names if tests else (), overloads=overloads, files=files,
        dtype_rows=own.rows if own else code.dtype_rows if code else (), dropped=code.dropped if code else (), stub_plans=stub_plans,
        other_stub=other_stub, check_op=check_op, nullary=nullary, indexing=indexing, random=random, reduction=reduction,
        kind="nullary" if nullary else "indexing" if indexing else "random" if random else "reduction" if reduction
        else "pointwise",
    )


def _own_rendered(own: KindCode) -> Rendered:
    """What --print shows of a kind writing its own .metal and host: the .metal file, the host kernel and its
    registration."""
    return Rendered(own.metal_text, (), own.host_code, own.register_line, own.metal_path, own.mm_path)
