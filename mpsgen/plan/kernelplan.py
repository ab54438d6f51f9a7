"""Plan one op's move to a native Metal kernel as a single changeset (shared by migrate and new-op).

Every reader runs on texts from the changeset, every editor is text -> text, and nothing is
written here: the caller shows the plan, applies it, then builds and tests.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from mpsgen.sources import host
from mpsgen.sources import metal
from mpsgen.sources import nativefunctions as nf
from mpsgen.sources.native_yaml.roundtrip import check_entry
from mpsgen.sources import stubs
from mpsgen.tree.changeset import Changeset
from mpsgen.tree.checkout import COMMON_MPS_REL, CMI_REL, OPERATIONS_REL, YAML_REL, Checkout
from mpsgen.errors import MpsgenError, context
from mpsgen.model import Command, KernelOptions, KernelSpec


# Which torch dtypes each --dtypes family makes work (for narrowing xfail lists).
TORCH_DTYPES = {
    "float": ("float32", "float16", "bfloat16"),
    "int2float": ("int64", "int32", "int16", "int8", "uint8", "bool"),
    "integer": ("int64", "int32", "int16", "int8", "uint8", "bool"),
    "complex": ("complex64",),
}


@dataclass
class Rendered:
    """What --print shows: the generated code, before placement."""

    functor: str = ""
    registrations: list[str] = field(default_factory=list)
    host_code: str = ""
    register_line: str = ""
    metal_path: str = ""
    mm_path: str = ""


@dataclass
class Plan:
    command: Command
    op: str
    family: str
    changeset: Changeset
    nothing_to_do: str = ""  # why there is nothing to do (empty: there is work)
    moved: list[nf.MovedEntry] = field(default_factory=list)
    stub: stubs.StubDecl | None = None
    spec: KernelSpec | None = None  # what was rendered (the numeric check tries the same)
    kernel: str = ""
    arity: str = ""
    dtypes: tuple[str, ...] = ()
    rendered: Rendered = field(default_factory=Rendered)
    added: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    test_lists: list[str] = field(default_factory=list)  # xfail/skip/decorator/complex-set edits
    # OpInfo names to run tests for, and test-name op part ("special_log_ndtr") -> common_mps.py key.
    test_names: list[str] = field(default_factory=list)
    test_keys: dict[str, str] = field(default_factory=dict)
    # `migrate pow.Tensor_Tensor_out`: the entries selected (empty: the whole family).
    overloads: tuple[str, ...] = ()
    files: list[str] = field(default_factory=list)  # the files this op's edits touched
    dtype_rows: list[Any] = field(default_factory=list)  # plan.dtypes.Row: per dtype, before -> after
    dropped: list[str] = field(default_factory=list)  # --drop-dtypes (torch names)

    def to_json(self) -> dict[str, Any]:
        return {
            "command": self.command,
            "op": self.op,
            "family": self.family,
            "overloads": list(self.overloads),
            "nothing_to_do": self.nothing_to_do or None,
            "moved": [{"entry": m.entry, "line": m.line, "from": m.legacy_kernel, "to": m.shared_kernel}
                      for m in self.moved],
            "stub": None if self.stub is None else {
                "name": self.stub.name, "type": self.stub.fn_type, "header": self.stub.header,
                "declared_at": f"{self.stub.path}:{self.stub.line}"},
            "kernel": self.kernel,
            "arity": self.arity,
            "dtypes": list(self.dtypes),
            "dtype_table": [r.to_json() for r in self.dtype_rows],
            "added": self.added,
            "removed": self.removed,
            "notes": self.notes,
            "test_lists": self.test_lists,
            "files": self.files,
        }


# -- reading the tree -------------------------------------------------------------------------


def _texts(cs: Changeset, paths: list[Path], checkout: Checkout) -> dict[str, str]:
    """{checkout-relative path: current planned text} for existing files."""
    return {checkout.rel(p): cs.current(checkout.rel(p)) for p in paths}


def _mentions(texts: dict[str, str], word: str) -> dict[str, str]:
    """Only the texts that mention *word* as an identifier prefix: a cheap filter before scanning."""
    pattern = re.compile(r"\b" + re.escape(word))
    return {p: t for p, t in texts.items() if word in t and pattern.search(t)}  # `in` first: C speed


def arity_of(schema: str, stub: stubs.StubDecl) -> str:
    """unary / binary / ternary from the schema's Tensor inputs; *_alpha when the stub takes a Scalar."""
    args = schema.split("(", 1)[1].rsplit(")", 1)[0]
    inputs = args.split("*", 1)[0] if "*" in args else args
    tensors = len(re.findall(r"(?:^|,)\s*Tensor\b(?!\(\w!\))(?!\[)", inputs))
    extra = [t for t, _ in stub.extra_params]
    if len(extra) > 1 or any("Scalar" not in t for t in extra):
        raise MpsgenError(
            f"{stub.name} takes ({', '.join(stub.params)}); mpsgen writes host kernels for an iterator "
            "plus at most one Scalar",
            path=stub.path, line=stub.line, hint="write the host kernel by hand",
        )
    if tensors == 1:
        return "unary_alpha" if extra else "unary"
    if tensors == 2:
        return "binary_alpha" if extra else "binary"
    if tensors == 3 and not extra:
        return "ternary"
    raise MpsgenError(
        f"cannot tell the kernel's arity from `{schema}` ({tensors} Tensor inputs) and {stub.name}",
        path=stub.path, line=stub.line, hint="only elementwise unary, binary and ternary ops are supported",
    )


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
    plan.files = cs.changed_since(before)
    if not plan.files and not plan.nothing_to_do:
        plan.nothing_to_do = f"{plan.family} is already on a native Metal kernel"
    elif not plan.nothing_to_do:
        with context(lambda: f"planning `mpsgen {command} {opts.op}`"):
            verify_structure(plan, checkout)
    return plan


def _plan_on(command: Command, checkout: Checkout, opts: KernelOptions, cs: Changeset) -> Plan:
    yaml_text = cs.current(YAML_REL)
    index = nf.index_text(yaml_text, YAML_REL)
    family = nf.select_overloads(index, opts.op)
    only = tuple(e.name for e in family.entries) if family.partial else None
    plan = Plan(command, opts.op, family.name, cs, overloads=only or ())

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
                    hint=f"use `mpsgen new-op {family.name}` to give it a native one",
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
        plan.stub = _infer_stub(checkout, cs, family.name, shared, opts.stub_override)
        plan.arity = arity_of(schema_entry.func, plan.stub)
        _plan_kernel_code(plan, checkout, opts)
        for legacy in edit.legacy_kernels:
            user = nf.entry_calling(cs.current(YAML_REL), legacy)
            if user:  # an overload that was not selected still calls it
                plan.notes.append(f"kept {legacy}: {user} still calls it")
                continue
            _remove_legacy(plan, checkout, legacy)
        _plan_test_lists(plan, checkout, opts)
        from mpsgen.plan.dtypes import keep_dropped_xfailed

        keep_dropped_xfailed(plan, checkout)
    return plan


def _already_native(checkout: Checkout, cs: Changeset, family, opts: KernelOptions) -> str:
    """Why there is nothing to do: every MPS entry shares its CPU/CUDA kernel and the stub is
    registered by a Metal host kernel (not by MPSGraph's REGISTER_MPS_UNARY_STUB)."""
    if not family.has_mps or family.legacy_entries:
        return ""
    shared = tuple(dict.fromkeys(k for e in family.entries if e.mps_route == "shared" and (k := e.mps_kernel)))
    stub = _infer_stub(checkout, cs, family.name, shared, opts.stub_override)
    regs = host.registered_stubs(_mentions(_texts(cs, checkout.mm_files(), checkout), stub.name.removesuffix("_stub")))
    metal_regs = [r for r in regs.get(stub.name, []) if r.macro != "REGISTER_MPS_UNARY_STUB"]
    if not metal_regs:
        return ""
    r = metal_regs[0]
    return (f"{family.name} is already on a native Metal kernel "
            f"({stub.name} registered at {r.path}:{r.line}, MPS shares {', '.join(shared)})")


def _entry_for_kernel(family, edit, kernel: str):
    moved = {m.entry for m in edit.moved}
    for e in family.entries:
        if (e.name in moved or e.mps_route == "shared") and kernel in (e.cpu_cuda_kernels | {e.mps_kernel}):
            return e
    return family.entries[0]


def _infer_stub(checkout: Checkout, cs: Changeset, family: str, kernels: tuple[str, ...],
                override: str | None) -> stubs.StubDecl:
    sources = _mentions(_texts(cs, checkout.native_sources(), checkout), family)
    all_headers = [p for p in checkout.native_headers()]
    found: dict[str, stubs.StubDecl] = {}
    for kernel in kernels:
        impl = stubs.find_shared_impl(sources, kernel)
        wanted = override or (impl.stub_names[0] if impl and impl.stub_names else family)
        headers = _mentions({checkout.rel(p): cs.current(checkout.rel(p)) for p in all_headers}, wanted)
        decl = stubs.infer_stub(headers or _texts(cs, all_headers, checkout), sources, kernel, override)
        found[kernel] = decl
    names = {d.name for d in found.values()}
    if len(names) > 1:
        listed = ", ".join(f"{k} -> {d.name}" for k, d in found.items())
        raise MpsgenError(
            f"the overloads of {family} call different stubs ({listed})",
            path=YAML_REL, hint="migrate them by hand, or name one with --stub and --shared-kernel",
        )
    return next(iter(found.values()))


def _host_file(checkout: Checkout, arity: str) -> str:
    stem = "UnaryKernel" if arity.startswith("unary") else "BinaryKernel"
    rel = f"{OPERATIONS_REL}/{stem}.mm"
    if not checkout.path(rel).is_file():
        raise MpsgenError(f"{stem}.mm not found", path=rel,
                          hint="mpsgen adds kernels to the existing Unary/BinaryKernel.mm files of the tree")
    return rel


def _plan_kernel_code(plan: Plan, checkout: Checkout, opts: KernelOptions) -> None:
    from mpsgen.generate import render

    cs, stub = plan.changeset, plan.stub
    assert stub is not None
    mm_rel = _host_file(checkout, plan.arity)
    metal_rel = metal.metal_file_for(mm_rel)
    if not checkout.path(metal_rel).is_file():
        raise MpsgenError(f"{Path(metal_rel).name} not found", path=metal_rel,
                          hint=f"the kernel must live in the .metal whose stem matches {Path(mm_rel).name}")
    from mpsgen.plan import dtypes as dtype_plan

    spec = dtype_plan.kernel_spec(plan, checkout, opts)  # registrations read from the op; the dtype guard
    plan.spec, plan.kernel, plan.dtypes = spec, spec.name, spec.dtypes
    metal_texts = _texts(cs, checkout.metal_files(), checkout)
    indexes = [metal.index_metal(t, p) for p, t in metal_texts.items()]
    style = metal.style_of(next(ix for ix in indexes if ix.path == metal_rel))
    functor = render.render_functor(spec, opts.templates_dir)
    registrations = render.render_registrations(spec, style)
    r = plan.rendered
    r.functor, r.registrations, r.metal_path, r.mm_path = functor, registrations, metal_rel, mm_rel

    if metal.check_kernel_name(indexes, spec.name, functor) == "new":
        new_metal = metal.plan_metal_addition(metal_texts[metal_rel], metal_rel, spec, functor, registrations,
                                              available_macros=_c10_metal_macros(checkout))
        if new_metal != metal_texts[metal_rel]:
            cs.set_text(metal_rel, new_metal, f"{spec.name}_functor and its registrations")
            plan.added.append(f"{metal_rel}: {spec.name}_functor + {len(registrations)} registration line(s)")
    else:
        plan.notes.append(f"kernel '{spec.name}' is already registered with this functor: reused")

    mm_texts = _texts(cs, checkout.mm_files(), checkout)
    existing = host.registered_stubs(mm_texts).get(stub.name, [])
    metal_regs = [reg for reg in existing if reg.macro != "REGISTER_MPS_UNARY_STUB"]
    for reg in existing:
        if reg.macro == "REGISTER_MPS_UNARY_STUB":  # MPSGraph registering the stub itself
            _remove_text_lines(plan, reg.path, reg.line, reg.end_line, f"{reg.macro}({stub.name.removesuffix('_stub')}, …)")
            from mpsgen.sources import unary_stub_macro

            text, line = unary_stub_macro.remove_if_unused(cs.current(reg.path), reg.path)
            if line is not None:  # that was its last use: the macro goes too
                cs.set_text(reg.path, text, f"removed #define {reg.macro}")
                plan.removed.append(f"{reg.path}:{line}: #define {reg.macro} (no use left)")
    if metal_regs:
        reg = metal_regs[0]
        plan.notes.append(f"{stub.name} is already registered for MPS at {reg.path}:{reg.line} ({reg.fn or reg.macro}): kept")
        return
    mm_text = cs.current(mm_rel)
    simple_unary = plan.arity == "unary" and stub.name == f"{spec.name}_stub" and stub.iterator_type == "TensorIteratorBase"
    if simple_unary and host.uses_unary_ti_macro(mm_text):
        new_mm = host.add_unary_ti_dispatch(mm_text, spec.name, path=mm_rel)
        r.host_code = f"REGISTER_UNARY_TI_DISPATCH({spec.name});"
        plan.added.append(f"{mm_rel}: REGISTER_UNARY_TI_DISPATCH({spec.name})")
    else:
        fn = f"{spec.name}_mps_kernel"
        scalar = stub.param_names[1] if len(stub.param_names) > 1 and stub.param_names[1] else None
        call = render.exec_call_args(plan.arity, spec.name, scalar)
        code = render.render_host_kernel(fn, stubs.host_params(stub), call, opts.templates_dir)
        semicolon, ampersand = host.register_dispatch_style(mm_text)
        line = render.render_register_dispatch(stub.name, fn, semicolon, ampersand, opts.templates_dir)
        r.host_code, r.register_line = code, line
        new_mm = host.add_host_kernel(mm_text, code, line, path=mm_rel)
        plan.added.append(f"{mm_rel}: {fn} + REGISTER_DISPATCH({stub.name}, …)")
    new_mm = host.ensure_include(new_mm, stub.header, path=mm_rel)
    cs.set_text(mm_rel, new_mm, f"host kernel for {stub.name}")


def _c10_metal_macros(checkout: Checkout) -> frozenset[str] | None:
    """Macros the checkout's c10/metal headers define (None when the tree has no such headers)."""
    from mpsgen.sources.metal_layout import macros_defined

    headers = sorted(checkout.path("c10/metal").glob("*.h"))
    return macros_defined(checkout.read_text(h) for h in headers) if headers else None


def _remove_text_lines(plan: Plan, path: str, line: int, end_line: int, what: str) -> None:
    cs = plan.changeset
    lines = cs.current(path).splitlines(keepends=True)
    del lines[line - 1 : end_line]
    cs.set_text(path, "".join(lines), f"removed {what}")
    plan.removed.append(f"{path}:{line}: {what}")


def _remove_legacy(plan: Plan, checkout: Checkout, name: str) -> None:
    """Delete the MPSGraph implementation of a legacy yaml kernel, and its now unused include."""
    cs = plan.changeset
    mm_texts = _mentions(_texts(cs, checkout.mm_files(), checkout), name)
    impls = host.find_implementations(mm_texts, name)
    if not impls:
        plan.notes.append(f"no implementation of {name} found in operations/*.mm (already removed?)")
        return
    for impl in impls:
        if impl.backend == "metal":
            raise MpsgenError(
                f"{name} already runs Metal code; mpsgen deletes only MPSGraph implementations",
                path=impl.path, line=impl.line,
                hint="rewire it by hand (route its yaml entry to the shared kernel and register its stub)",
            )
    from mpsgen.sources.deadcode import referenced_names, remove_unused_helpers

    for impl in impls:
        before = cs.current(impl.path)
        used = referenced_names("".join(before.splitlines(True)[impl.line - 1 : impl.end_line]))
        text = host.remove_implementation(before, impl)
        text, dead, left = remove_unused_helpers(text, impl.path, used, plan.family)
        text = host.remove_op_include(text, plan.family)
        cs.set_text(impl.path, text, f"removed MPSGraph {name}")
        kind = impl.macro or impl.form
        plan.removed.append(f"{impl.path}:{impl.line}: {kind} {name}")
        plan.removed.extend(f"{impl.path}:{line}: {what} (used only by {name})" for line, what in dead)
        plan.notes.extend(f"{impl.path}:{line}: {what} is no longer used; left in place (shared helper)"
                          for line, what in left)


def _plan_test_lists(plan: Plan, checkout: Checkout, opts: KernelOptions) -> None:
    from mpsgen.sources import testlists

    cs = plan.changeset
    if not checkout.path(COMMON_MPS_REL).is_file() or not checkout.path(CMI_REL).is_file():
        plan.notes.append("common_mps.py or common_methods_invocations.py not found: test lists left alone")
        return
    if "complex" in plan.dtypes:
        action = "add"
    elif opts.drop_complex or "complex64" in plan.dropped:
        action = "drop"
    else:
        action = "refuse-if-listed"
    definitions = {checkout.rel(p): cs.current(checkout.rel(p)) for p in checkout.opinfo_definition_files()}
    result = testlists.plan_test_lists(
        plan.family,
        common_mps_text=cs.current(COMMON_MPS_REL),
        cmi_text=cs.current(CMI_REL),
        definitions=definitions,
        supported_dtypes=[d for d in _supported_dtypes(plan.dtypes) if d not in plan.dropped],
        complex_action=action,
        common_mps_path=COMMON_MPS_REL,
        cmi_path=CMI_REL,
    )
    for ref in result.refs:
        formatted = ref.name.replace(".", "_") + (f"_{ref.variant.replace('.', '_')}" if ref.variant else "")
        plan.test_keys[formatted] = ref.key
        if ref.name not in plan.test_names:
            plan.test_names.append(ref.name)
    for path, text in result.texts.items():
        cs.set_text(path, text, "test lists")
    plan.test_lists.extend(str(change) for change in result.changes)


# -- structural verification ------------------------------------------------------------------


def verify_structure(plan: Plan, checkout: Checkout) -> None:
    """Re-read the planned tree: nothing left on a legacy kernel, the stub registered for MPS
    exactly once, the kernel name registered in Metal.  A failure here is a bug in a planner,
    so it is reported before anything is written."""

    cs = plan.changeset
    family = nf.select_overloads(nf.index_text(cs.current(YAML_REL), YAML_REL), plan.op)
    problems = []
    if family.legacy_entries:
        problems.append("entries still on a legacy kernel: " + ", ".join(e.name for e in family.legacy_entries))
    if any(e.duplicate_mps for e in family.entries):
        problems.append("an entry has MPS on two dispatch lines")
    yaml_text = cs.current(YAML_REL)
    by_name = {e.name: e for e in family.entries}
    for m in plan.moved:  # what torchgen and PyTorch's yaml lint will read, parsed on the entry alone
        if m.entry in by_name:
            e = by_name[m.entry]
            check_entry(yaml_text, e.line, e.end_line, path=YAML_REL, mps_kernel=m.shared_kernel)
    assert plan.stub is not None
    regs = host.registered_stubs(_texts(cs, checkout.mm_files(), checkout)).get(plan.stub.name, [])
    if len(regs) != 1:
        problems.append(f"{plan.stub.name} is registered for MPS {len(regs)} times")
    metal_texts = _texts(cs, checkout.metal_files(), checkout)
    names = metal.registered_kernel_names(metal.index_metal(t, p) for p, t in metal_texts.items())
    if plan.kernel not in names:
        problems.append(f"kernel '{plan.kernel}' is not registered in any .metal file")
    _verify_statements(cs)
    if problems:
        raise MpsgenError(
            "the planned change would leave the tree inconsistent: " + "; ".join(problems),
            path=YAML_REL, hint="nothing was written; please report this with the op name",
        )


def _verify_statements(cs: Changeset) -> None:
    """Each edited .metal/.mm keeps its statement structure outside the lines mpsgen inserted or
    deleted (text written into the middle of a statement is refused before anything is written)."""
    from mpsgen.scan.statements import first_broken_statement

    for path in cs.changed_paths:
        if not path.endswith((".metal", ".mm")) or cs.is_new(path):
            continue
        line = first_broken_statement(cs.original(path), cs.current(path))
        if line is not None:
            raise MpsgenError(
                "the planned edit would change a statement it does not own (text inserted inside it)",
                path=path, line=line,
                hint="nothing was written; the file's layout is not one mpsgen can edit, please report it",
            )
