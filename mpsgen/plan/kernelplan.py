"""Plan one op's move to a native Metal kernel as a single changeset (shared by migrate and new-op).

Every reader runs on texts from the changeset, every editor is text -> text, and nothing is
written here: the caller shows the plan, applies it, then builds and tests.  The parts: the yaml
and the stub (here), the kernel code (kernel_code), the MPSGraph code that goes (legacy), the test
lists (here), and a last re-read of the result (verify).
"""

from __future__ import annotations

import re

from mpsgen.errors import MpsgenError, Refusal, context
from mpsgen.model import Command, KernelOptions, Location
from mpsgen.plan.kernel_code import plan_kernel_code, registered_metal_kernel
from mpsgen.plan.legacy import callers_first, remove_legacy
from mpsgen.plan.result import Plan  # callers (commands/migrate.py, plan/group.py) import it from here
from mpsgen.plan.texts import folder_files, mentioning, planned_texts, yaml_index
from mpsgen.plan.verify import verify_structure
from mpsgen.sources import host
from mpsgen.sources import nativefunctions as nf
from mpsgen.sources import stubs
from mpsgen.tree.changeset import Changeset
from mpsgen.tree.checkout import CMI_REL, YAML_REL, Checkout


# Which torch dtypes each --dtypes family makes work (for narrowing xfail lists).
TORCH_DTYPES = {
    "float": ("float32", "float16", "bfloat16"),
    "int2float": ("int64", "int32", "int16", "int8", "uint8", "bool"),
    "integer": ("int64", "int32", "int16", "int8", "uint8", "bool"),
    "complex": ("complex64",),
}


# -- reading the tree -------------------------------------------------------------------------


def schema_tensors(schema: str) -> int:
    """Tensor inputs of a schema (the fallback when the iterator's inputs cannot be read)."""
    args = schema.split("(", 1)[1].rsplit(")", 1)[0]
    inputs = args.split("*", 1)[0] if "*" in args else args
    return len(re.findall(r"(?:^|,)\s*Tensor\b(?!\(\w!\))(?!\[)", inputs))


def _supported_dtypes(dtypes: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(d for fam in dtypes for d in TORCH_DTYPES.get(fam, ()))


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
            verify_structure(plan, checkout)
    return plan


def _plan_on(command: Command, checkout: Checkout, opts: KernelOptions, cs: Changeset) -> Plan:
    yaml_text = cs.current(YAML_REL)
    index = yaml_index(yaml_text)
    family = nf.select_overloads(index, opts.op)
    only = tuple(e.name for e in family.entries) if family.partial else None
    kept: list[str] = []
    if command == "migrate" and only is None:
        only, kept = _movable_overloads(checkout, cs, family)
    plan = Plan(command, opts.op, family.name, cs, overloads=only or ())
    plan.notes.extend(kept)

    with context(lambda: f"planning `mpsgen {command} {opts.op}`"):
        done = _already_native(checkout, cs, family, opts)
        if done:
            plan.nothing_to_do = done
            return plan
        if command == "migrate":
            if not family.has_mps:
                first = family.entries[0]
                raise MpsgenError(
                    f"{family.name} has no MPS kernel to migrate", path=YAML_REL, line=first.line,
                    hint=f"use `mpsgen new-op {family.name}` to give it a native one", kind=Refusal.NO_MPS_KERNEL,
                )
            edit = nf.migrate_family(yaml_text, family.name, path=YAML_REL,
                                     shared_kernel=opts.shared_kernel, index=index, only=only)
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
        if edit.changed:
            cs.set_text(YAML_REL, edit.text, f"MPS dispatch of {family.name}")
        plan.moved = list(edit.moved)
        shared = edit.shared_kernels or tuple(
            k for e in family.entries if e.mps_route == "shared" and (k := e.mps_kernel)
        )
        if not shared:
            first = family.entries[0]
            raise MpsgenError(f"no entry of {family.name} routes MPS to a shared kernel", path=YAML_REL,
                              line=first.line, hint="pass --shared-kernel NAME")
        schema_entry = _entry_for_kernel(family, edit, shared[0])
        returns = schema_entry.func.rsplit("->", 1)[-1].strip()
        if returns.startswith("("):  # _prelu_kernel_backward -> (Tensor, Tensor)
            raise MpsgenError(f"{schema_entry.name} returns {returns}: mpsgen writes kernels with one output",
                              path=YAML_REL, line=schema_entry.line,
                              hint="write the kernel by hand (c10/metal has no multiple-output registration macro)")
        _require_elementwise(checkout, cs, family, edit)
        plan.stub = _infer_stub(checkout, cs, family.name, shared, opts.stub_override)
        if not registered_metal_kernel(plan, checkout):
            plan.shape = _kernel_shape(plan, checkout, cs, index, schema_entry, shared)
            plan.arity = plan.shape.arity
            plan_kernel_code(plan, checkout, opts)
        for legacy in callers_first(plan, checkout, edit.legacy_kernels):
            yaml_now = cs.current(YAML_REL)
            # A plain substring test first: the line-anchored search of the whole yaml costs ~5 ms.
            user = nf.entry_calling(yaml_now, legacy) if legacy in yaml_now else None
            if user:  # an overload that was not selected still calls it
                plan.notes.append(f"kept {legacy}: {user} still calls it")
                continue
            remove_legacy(plan, checkout, legacy)
        _plan_test_lists(plan, checkout, opts)
        from mpsgen.plan.dtypes import keep_dropped_xfailed

        keep_dropped_xfailed(plan, checkout)
    return plan


def _movable_overloads(checkout: Checkout, cs: Changeset, family) -> tuple[tuple[str, ...] | None, list[str]]:
    """The overloads `migrate FAMILY` moves when some legacy ones cannot: an overload whose shared
    kernel calls no DispatchStub (pow.Scalar_out) keeps its MPS kernel, said in a note, while the
    others move.  (None, []) when every overload moves, or none can (the usual refusal then says why)."""
    stubless: dict[str, str] = {}
    legacy = family.legacy_entries
    for e in legacy:
        for kernel in sorted(e.cpu_cuda_kernels):
            sources = mentioning(planned_texts(cs, folder_files(cs, "native_sources"), checkout), kernel)
            impl = stubs.find_shared_impl(sources, kernel)
            if impl is not None and not impl.stub_names:
                stubless[e.name] = f"{kernel} ({impl.location}) calls no DispatchStub"
    if not stubless or len(stubless) == len(legacy):
        return None, []
    left = [e.name for e in family.entries if e.name not in stubless and e.structured_delegate not in stubless]
    notes = [f"kept {name} on {e.mps_kernel}: {why}; move it by hand" for e in legacy
             if (name := e.name) in stubless for why in [stubless[name]]]
    return tuple(left), notes


def _already_native(checkout: Checkout, cs: Changeset, family, opts: KernelOptions) -> str:
    """Why there is nothing to do: every MPS entry shares its CPU/CUDA kernel and the stub is
    registered by a kernel that does not run MPSGraph (REGISTER_MPS_UNARY_STUB, or a host function
    whose body runs MPSGraph, leaves work to do)."""
    if not family.has_mps or family.legacy_entries:
        return ""
    shared = tuple(dict.fromkeys(k for e in family.entries if e.mps_route == "shared" and (k := e.mps_kernel)))
    stub = _infer_stub(checkout, cs, family.name, shared, opts.stub_override)
    mm_texts = mentioning(planned_texts(cs, folder_files(cs, "mm_files"), checkout), stub.name.removesuffix("_stub"))
    kinds = [(r, host.registration_backend_in(r, mm_texts[r.path]))
             for r in host.registered_stubs(mm_texts).get(stub.name, [])]
    kept = [(r, kind) for r, kind in kinds if kind != "mpsgraph"]
    if not kept:
        return ""
    r, kind = kept[0]
    where = f"{stub.name} registered at {r.location}, MPS shares {', '.join(shared)}"
    if kind == "metal":
        return f"{family.name} is already on a native Metal kernel ({where})"
    return (f"{family.name} already has an MPS kernel that is not MPSGraph code mpsgen knows ({where}; "
            f"{r.fn or r.macro} calls neither Metal nor MPSGraph directly): left as it is")


def _kernel_shape(plan: Plan, checkout: Checkout, cs: Changeset, index, entry, shared: tuple[str, ...]):
    """The shape of the kernel behind plan.stub (plan/shape.py), read from the shared kernel that calls
    it (where_self_out, not its wrapper where), and whose kernel it is: a stub another op owns
    (threshold_backward passes threshold_stub (threshold, 0)) gets that op's kernel name."""
    from mpsgen.generate import catalog
    from mpsgen.plan.shape import choose_shape
    from mpsgen.sources.iterator_operands import iterator_operands

    stub = plan.stub
    assert stub is not None
    native = planned_texts(cs, folder_files(cs, "native_sources"), checkout)
    read = [(src, stubs.find_shared_impl(src, k)) for k in shared for src in [mentioning(native, k)]]
    calls = [(src, impl, c) for src, impl in read if impl for c in impl.stubs if c.stub == stub.name]
    sources, impl, call = calls[0] if calls else (*read[0], None)
    owner = stub.name.removesuffix("_stub")
    plan.kernel = plan.family
    if call is not None and call.extra_args and owner != plan.family:
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
    if plan.kernel == plan.family and owner != plan.family and _kernel_registered(checkout, cs, owner):
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


def _entry_for_kernel(family, edit, kernel: str):
    moved = {m.entry for m in edit.moved}
    for e in family.entries:
        if (e.name in moved or e.mps_route == "shared") and kernel in (e.cpu_cuda_kernels | {e.mps_kernel}):
            return e
    return family.entries[0]


def _require_elementwise(checkout: Checkout, cs: Changeset, family, edit) -> None:
    """Refuse an entry MPS would share that is not elementwise (argmax.out: a reduction whose stub
    also takes a TensorIterator): mpsgen writes elementwise Metal kernels only.  Same test as status's
    frontier: marked pointwise in the yaml, or its shared kernel builds an elementwise iterator."""
    from mpsgen.sources.shared_impl import not_elementwise_reason

    moved = {m.entry: m.shared_kernel for m in edit.moved}
    for e in family.entries:
        kernel = moved.get(e.name) or (e.mps_kernel if e.mps_route == "shared" else None)
        if not kernel or e.marked_pointwise:
            continue
        sources = mentioning(planned_texts(cs, folder_files(cs, "native_sources"), checkout), kernel)
        impl = stubs.find_shared_impl(sources, kernel)
        if impl is None or impl.elementwise:
            continue  # a kernel not found is _infer_stub's to report
        raise MpsgenError(f"{e.name} is not a pointwise op: {not_elementwise_reason(kernel, f'{impl.location}')}",
                          path=YAML_REL, line=e.line,
                          hint=f"mpsgen writes elementwise Metal kernels only; `mpsgen status --op {family.name}` "
                               "shows the migration frontier")


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



def _plan_test_lists(plan: Plan, checkout: Checkout, opts: KernelOptions) -> None:
    from mpsgen.sources import testlists

    cs = plan.changeset
    lists_rel = checkout.test_lists_rel()  # common_mps.py, or 2.7's test_mps.py
    missing = [name for name, there in (("common_mps.py (or test/test_mps.py)", lists_rel is not None),
                                        ("common_methods_invocations.py", checkout.path(CMI_REL).is_file())) if not there]
    if missing or lists_rel is None:
        plan.notes.append(f"{' and '.join(missing)} not found: test lists left alone")
        return
    action: testlists.ComplexAction
    if "complex" in plan.dtypes:
        action = "add"
    elif opts.drop_complex or "complex64" in plan.dropped:
        action = "drop"
    else:
        action = "refuse-if-listed"
    definitions = planned_texts(cs, folder_files(cs, "opinfo_definition_files"), checkout)
    result = testlists.plan_test_lists(
        plan.family,
        common_mps_text=cs.current(lists_rel),
        cmi_text=cs.current(CMI_REL),
        definitions=definitions,
        supported_dtypes=[d for d in _supported_dtypes(plan.dtypes) if d not in plan.dropped],
        complex_action=action,
        # An op with no MPS kernel fails every MPS test ("not currently implemented for the MPS device"),
        # so new-op's kernel makes each MPS xfail of its OpInfo pass, not only TestConsistency's.
        tests=None if plan.command == "new-op" else testlists.DEFAULT_TESTS,
        common_mps_path=lists_rel,
        cmi_path=CMI_REL,
    )
    if not result.refs:
        plan.notes.append(_no_opinfo_note(plan.family, cs.current(CMI_REL), definitions))
        plan.grad_test_names = testlists.gradient_opinfos(plan.family, cs.current(CMI_REL), definitions,
                                                          cmi_path=CMI_REL)
    for ref in result.refs:
        formatted = ref.name.replace(".", "_") + (f"_{ref.variant.replace('.', '_')}" if ref.variant else "")
        plan.test_keys[formatted] = ref.key
        if ref.name not in plan.test_names:
            plan.test_names.append(ref.name)
    for path, text in result.texts.items():
        cs.set_text(path, text, "test lists")
    plan.test_lists.extend(str(change) for change in result.changes)


def _no_opinfo_note(op: str, cmi_text: str, definitions) -> str:
    """Which OpInfo tests an op that has none (sigmoid's covers sigmoid_backward through its gradient)."""
    from mpsgen.sources import testlists

    forward = op.removesuffix("_backward")
    if forward != op and testlists.opinfo_keys(cmi_text, definitions, forward, cmi_path=CMI_REL):
        return (f"no OpInfo named {op}: {forward}'s OpInfo covers it through its gradient (test_output_grad_match); "
                "test lists left alone")
    return f"no OpInfo named {op}: test lists left alone (common_mps.py keys are OpInfo names)"
