"""Plan one op's move to a native Metal kernel as a single changeset (shared by migrate and new-op).

Every reader runs on texts from the changeset, every editor is text -> text, and nothing is
written here: the caller shows the plan, applies it, then builds and tests.  The phases: routing
(routing.Routing: the yaml edit, the shared kernels and the stub), the kernel's shape (here:
shape.KernelShape), the kernel code (kernel_code), the MPSGraph code that goes (legacy), the test
lists (test_lists.TestListsPhase), and a last re-read of the result (verify).
"""

from __future__ import annotations

import re

from mpsgen.errors import MpsgenError, context
from mpsgen.model import Command, KernelOptions, Location
from mpsgen.plan.kernel_code import plan_kernel_code, registered_metal_kernel
from mpsgen.plan.legacy import callers_first, remove_legacy
from mpsgen.plan.result import Plan  # callers (commands/migrate.py, plan/group.py) import it from here
from mpsgen.plan.routing import route
from mpsgen.plan.test_lists import plan_test_lists
from mpsgen.plan.texts import folder_files, mentioning, planned_texts
from mpsgen.plan.verify import verify_structure
from mpsgen.sources import nativefunctions as nf
from mpsgen.sources import stubs
from mpsgen.tree.changeset import Changeset
from mpsgen.tree.checkout import YAML_REL, Checkout


# -- reading the tree -------------------------------------------------------------------------


def schema_tensors(schema: str) -> int:
    """Tensor inputs of a schema (the fallback when the iterator's inputs cannot be read)."""
    args = schema.split("(", 1)[1].rsplit(")", 1)[0]
    inputs = args.split("*", 1)[0] if "*" in args else args
    return len(re.findall(r"(?:^|,)\s*Tensor\b(?!\(\w!\))(?!\[)", inputs))


# -- the plan ---------------------------------------------------------------------------------


def plan_kernel_command(command: Command, checkout: Checkout, opts: KernelOptions,
                        changeset: Changeset | None = None) -> Plan:
    """Every edit of `migrate OP` / `new-op OP`, planned in one changeset (nothing written).

    With *changeset*, the op is planned on the texts earlier ops of a group left there."""

    cs = changeset if changeset is not None else Changeset(checkout)
    before = cs.snapshot()
    plan = _plan_on(command, checkout, opts, cs)
    from mpsgen.generate.clang_format import format_written

    plan.notes += format_written(cs, before)  # every .metal/.mm/.h line written, as lintrunner lays it out
    plan.files = cs.changed_since(before)
    if not plan.files and not plan.nothing_to_do:
        plan.nothing_to_do = f"{plan.family} is already on a native Metal kernel"
    elif not plan.nothing_to_do:
        with context(lambda: f"planning `mpsgen {command} {opts.op}`"):
            for each in plan.kernel_plans:  # every stub's registration and kernel
                verify_structure(each, checkout)
    return plan


def _plan_on(command: Command, checkout: Checkout, opts: KernelOptions, cs: Changeset) -> Plan:
    routing = route(command, checkout, cs, opts)
    plan = Plan(command, opts.op, routing.family, cs, overloads=routing.overloads, stub=routing.stub)
    plan.notes.extend(routing.kept)
    if routing.nothing_to_do:
        plan.nothing_to_do = routing.nothing_to_do
        return plan
    with context(lambda: f"planning `mpsgen {command} {opts.op}`"):
        if routing.yaml_text is not None:
            cs.set_text(YAML_REL, routing.yaml_text, f"MPS dispatch of {routing.family}")
        plan.moved = list(routing.moved)
        first = routing.targets[0] if routing.targets else None
        plan_stub_kernel(plan, checkout, opts, routing.index, routing.schema_entry, routing.shared, first)
        for target in routing.targets[1:]:  # the family's other stubs, one kernel each
            sub = Plan(command, opts.op, routing.family, cs, stub=target.stub, moved=list(routing.moved),
                       other_stub=True)
            plan_stub_kernel(sub, checkout, opts, routing.index, target.entry, routing.shared, target)
            plan.stub_plans.append(sub)
            plan.added.extend(sub.added)
            plan.api_added.extend(a for a in sub.api_added if a not in plan.api_added)
            plan.notes.extend(f"{target.stub.name}: {n}" for n in sub.notes)
        for legacy in callers_first(plan, checkout, routing.legacy_kernels):
            yaml_now = cs.current(YAML_REL)
            # A plain substring test first: the line-anchored search of the whole yaml costs ~5 ms.
            user = nf.entry_calling(yaml_now, legacy) if legacy in yaml_now else None
            if user:  # an overload that was not selected still calls it
                plan.notes.append(f"kept {legacy}: {user} still calls it")
                continue
            removal = remove_legacy(cs, checkout, legacy, plan.family)
            for path, text in removal.texts.items():
                cs.set_text(path, text, f"removed MPSGraph {legacy}")
            plan.removed.extend(removal.removed)
            plan.notes.extend(removal.notes)
        tests = plan_test_lists(plan.family, plan.command, checkout, cs, dtypes=plan.dtypes,
                                dropped=tuple(plan.dropped), drop_complex=opts.drop_complex)
        for path, text in tests.texts.items():
            cs.set_text(path, text, "test lists")
        plan.test_lists.extend(tests.changes)
        plan.test_names.extend(tests.test_names)
        plan.test_keys.update(tests.test_keys)
        plan.grad_test_names = list(tests.grad_test_names)
        plan.notes.extend(tests.notes)
        from mpsgen.plan.dtypes import keep_dropped_xfailed

        keep_dropped_xfailed(plan, checkout)
    return plan


def plan_stub_kernel(plan: Plan, checkout: Checkout, opts: KernelOptions, index, entry, shared: tuple[str, ...],
                     target=None) -> None:
    """plan.stub's kernel (shape and code), unless MPS already runs the stub.  *target*: the stub's
    plan/multistub.StubTarget when the family calls several (its kernel's name, the arguments that
    select it, whether complex inputs reach it)."""
    if registered_metal_kernel(plan, checkout):
        return
    kernel = target.kernel if target is not None else ""
    plan.shape = _kernel_shape(plan, checkout, plan.changeset, index, entry, shared, kernel)
    plan.arity = plan.shape.arity
    if target is not None and target.fixed:
        from mpsgen.plan.binding import fixing

        plan.binding = fixing(plan.binding, entry.name, entry.func, plan.shape.inputs, target.fixed)
    never_complex = target is not None and target.complex == "never"
    if never_complex:
        opts = opts._replace(drop_complex=True)
    refused = _cpu_refuses(plan.kernel) if target is not None else ()
    if refused:  # div_trunc has no bool case on the CPU, while div's OpInfo (without a mode) declares bool
        opts = opts._replace(drop_dtypes=",".join(filter(None, (opts.drop_dtypes, *refused))))
        plan.notes.append(f"{plan.kernel}: the CPU kernel has no {', '.join(refused)} case (torch raises): not registered")
    plan_kernel_code(plan, checkout, opts)
    if never_complex:
        plan.notes.append(f"complex inputs reach another stub ({target.at}): {plan.kernel} registers none")


def _cpu_refuses(kernel: str) -> tuple[str, ...]:
    from mpsgen.generate import catalog

    return tuple((catalog.load_catalog().get(kernel) or {}).get("cpu_refuses", ()))


def _kernel_shape(plan: Plan, checkout: Checkout, cs: Changeset, index, entry, shared: tuple[str, ...],
                  kernel: str = ""):
    """The shape of the kernel behind plan.stub (plan/shape.py), read from the shared kernel that calls
    it (where_self_out, not its wrapper where), and whose kernel it is: a stub another op owns
    (threshold_backward passes threshold_stub (threshold, 0)) gets that op's kernel name."""
    from mpsgen.generate import catalog
    from mpsgen.plan.shape import choose_shape
    from mpsgen.sources.iterator_operands import iterator_operands

    stub = plan.stub
    assert stub is not None
    native = planned_texts(cs, folder_files(cs, "native_sources"), checkout)
    # a macro-made kernel (ge_Scalar_out of CREATE_COMPARISON_SCALAR_TENSOR_IMPL_FUNC(ge)) is found by its op
    read = [(src, stubs.find_shared_impl(src, k)) for k in shared
            for src in [mentioning(native, k) or mentioning(native, plan.family)]]
    calls = [(src, impl, c) for src, impl in read if impl for c in impl.stubs if c.stub == stub.name]
    sources, impl, call = calls[0] if calls else (*read[0], None)
    owner = stub.name.removesuffix("_stub")
    plan.kernel = kernel or plan.family
    if call is not None and call.extra_args and owner != plan.family and not kernel:
        assert impl is not None  # the call was found in it
        odd = [a for a in call.extra_args if not re.fullmatch(r"[A-Za-z_]\w*|-?[\d.]+[fL]?", a)]
        if odd:  # sub passes add_stub -alpha: the kernel behind the stub is add's, not sub's
            raise MpsgenError(
                f"{impl.kernel} passes {stub.name} ({', '.join(call.extra_args)}): the stub is {owner}'s, and its "
                f"kernel computes {owner}'s function of what it is passed", path=impl.path, line=call.line,
                hint=f"register {stub.name} on MPS first (`mpsgen migrate {owner}` if `mpsgen status` lists {owner} "
                     f"as a candidate, else by hand); then `mpsgen migrate {plan.family}` only moves the dispatch")
        if index.has_family(owner):
            plan.kernel = owner
    if not kernel and plan.kernel == plan.family and owner != plan.family and _kernel_registered(checkout, cs, owner):
        plan.kernel = owner  # huber_loss's huber_stub: upstream's `huber` kernel is there to call
    if call is not None and call.diverts:
        assert impl is not None
        plan.diverted = (call.diverts, f"{impl.kernel} at {Location(impl.path, call.line)}")
    operands = iterator_operands(sources, impl, entry.name) if impl else None
    plan.operands_at = f"{operands.location}" if operands else ""
    if operands is not None and len(operands.names) > 1:
        assert impl is not None  # operands are read from it
        _require_one_input_dtype(sources[impl.path], impl, operands.names)
    body = catalog.load_catalog().get(plan.kernel) or catalog.load_catalog().get(plan.family) or {}
    declared = tuple(body["params"]) if body.get("params") else None
    shape = choose_shape(stub=stub, call=call, operands=operands.names if operands else None,
                         schema_tensors=schema_tensors(entry.func), api=_host_api(cs), declared_names=declared)
    if shape.extend:  # the checkout lacks the host API the shape needs: this change adds it
        from mpsgen.generate.api_extension import extend_planned

        plan.api_added.extend(extend_planned(cs, shape.extend))
    if operands is not None and impl is not None:
        from mpsgen.plan.binding import bind
        from mpsgen.sources.iterator_operands import impl_parameters

        plan.binding = bind(entry.name, entry.func, operands.names, operands.params,
                            tuple(p.source for p in shape.scalars), impl_parameters(sources, impl))
    return shape


def _require_one_input_dtype(text: str, impl, inputs: tuple[str, ...]) -> None:
    """The registration macros read every input as the kernel's one type T: an iterator built with
    check_all_same_dtype(false) over several inputs (where: a bool condition and two T values) is refused."""
    lines = text.split("\n")[impl.line - 1 : impl.end_line]
    for k, line in enumerate(lines):
        if re.search(r"\.check_all_same_dtype\(\s*false\s*\)", line):
            raise MpsgenError(
                f"{impl.kernel} builds its TensorIterator with check_all_same_dtype(false): its inputs "
                f"({', '.join(inputs)}) may differ in dtype, and mpsgen's kernels read every input as one type T",
                path=impl.path, line=impl.line + k,
                hint="write the kernel by hand (a functor taking each input in its own type)")


def _kernel_registered(checkout: Checkout, cs: Changeset, name: str) -> bool:
    from mpsgen.sources.metal_index import index_metal, registered_kernel_names

    texts = mentioning(planned_texts(cs, folder_files(cs, "metal_files"), checkout), name)
    return name in registered_kernel_names(index_metal(t, p) for p, t in texts.items())


def _host_api(cs: Changeset):
    """The checkout's Metal host API (MetalShaderLibrary.h, c10/metal's macros, 2.7's binary_mps_impl),
    read through the changeset like every other text a plan depends on."""
    from mpsgen.plan.kernel_code import c10_metal_macros
    from mpsgen.sources.host_api import LIBRARY_HEADER_REL, defines_binary_mps_impl, read_host_api
    from mpsgen.tree.checkout import OPERATIONS_REL

    checkout = cs.checkout
    text = cs.current(LIBRARY_HEADER_REL) if checkout.path(LIBRARY_HEADER_REL).is_file() else None
    api = read_host_api(text, c10_metal_macros(cs) or frozenset())
    binary_mm = f"{OPERATIONS_REL}/BinaryKernel.mm"
    if not api.has("exec_binary_kernel") and checkout.path(binary_mm).is_file():
        api = api._replace(binary_mps_impl=defines_binary_mps_impl(cs.current(binary_mm)))
    return api
