"""Planning's kernel-code phase: render the op's kernel and place it (the functor and registrations in the
matching .metal, the host kernel and REGISTER_DISPATCH in the .mm; MPSGraph's registration goes), as one
frozen `KernelCode` whose edits the planner applies."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from mpsgen.errors import MpsgenError
from mpsgen.model import KernelOptions, KernelSpec, Location
from mpsgen.plan.dtypes import Row
from mpsgen.plan.era import fit_to_checkout
from mpsgen.plan.graph_registration import remove_graph_registration
from mpsgen.plan.host_iterator import TENSOR_ITERATOR_REL, HostIterator, host_iterator, iterator_text, untested_path_note
from mpsgen.plan.kernel_choice import KernelChoice
from mpsgen.plan.result import Rendered
from mpsgen.plan.split_outputs import OutputKernel, stub_host_kernel
from mpsgen.plan.texts import Draft, TextEdit, capabilities, folder_files, mentioning, planned_texts
from mpsgen.scan.includes import includes_header
from mpsgen.sources.host import mm as host
from mpsgen.sources.metal import edit as metal
from mpsgen.sources.metal.index import MetalIndex
from mpsgen.sources.metal.two_output_kernels import TwoOutputKernels
from mpsgen.sources.native import stubs
from mpsgen.tree.changeset import Changeset
from mpsgen.tree.checkout import OPERATIONS_REL, Checkout


@dataclass(frozen=True)
class KernelCode:
    """Phase 3: the kernel rendered and placed, the MPSGraph registration it replaces deleted."""

    spec: KernelSpec  # what was rendered (the numeric check tries the same)
    rendered: Rendered
    dtype_rows: tuple[Row, ...]  # per dtype, before -> after
    dropped: tuple[str, ...]  # --drop-dtypes (torch names)
    edits: tuple[TextEdit, ...]
    added: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    reused_kernel: str = ""  # where upstream's kernel of that name is registered, when the host reuses it
    reused_functor: str = ""  # that kernel's `struct <name>_functor {...}` ("" when a macro makes it)
    two_outputs: TwoOutputKernels | None = None  # upstream's kernels of two outputs, when the host runs them
    unregistered: str = ""  # the family's stub no MPS source registers before the change: nothing serves it


def registered_metal_kernel(stub: stubs.StubDecl, cs: Changeset, checkout: Checkout) -> str:
    """A note when MPS already runs *stub* with a kernel that is not MPSGraph (sub: add_stub, add being
    on Metal): the move is then the dispatch lines, the MPSGraph code and the test lists.  "" otherwise."""
    mm_texts = mentioning(planned_texts(cs, folder_files(cs, "mm_files"), checkout), stub.name.removesuffix("_stub"))
    existing = host.registered_stubs(mm_texts).get(stub.name, [])
    kept = [reg for reg in existing if host.registration_backend_in(reg, mm_texts[reg.path]) != "mpsgraph"]
    if not kept:
        return ""
    reg = kept[0]
    return f"{stub.name} is already registered for MPS at {reg.location} ({reg.fn or reg.macro}): kept; no new kernel"


def _host_file(cs: Changeset, arity: str) -> str:
    stem = "UnaryKernel" if arity.startswith("unary") else "BinaryKernel"
    rel = f"{OPERATIONS_REL}/{stem}.mm"
    if not cs.exists(rel):
        raise MpsgenError(f"{stem}.mm not found", path=rel,
                          hint="mpsgen adds kernels to the existing Unary/BinaryKernel.mm files of the tree")
    return rel


def plan_kernel_code(choice: KernelChoice, cs: Changeset, checkout: Checkout, opts: KernelOptions,
                     output: OutputKernel | None = None) -> KernelCode:
    """The functor and registrations in the matching .metal, the host kernel and its registration in the
    .mm (or upstream's kernel of the same name reused), planned on a Draft over the changeset.  *output*:
    the kernel is one of an op's kernels per output (plan/split_outputs.py): its host function is placed
    with the last one's, beside the stub's host kernel running them all."""
    from mpsgen.generate import host_code, render

    stub, arity = choice.stub, choice.arity
    draft = Draft(cs)
    added: list[str] = []
    removed: list[str] = []
    notes: list[str] = []
    mm_rel = _host_file(cs, arity)
    metal_rel = metal.metal_file_for(mm_rel)
    if not cs.exists(metal_rel):
        raise MpsgenError(f"{Path(metal_rel).name} not found", path=metal_rel,
                          hint=f"the kernel must live in the .metal whose stem matches {Path(mm_rel).name}")
    from mpsgen.plan import dtypes as dtype_plan

    dtypes = dtype_plan.kernel_spec(choice, cs, checkout, opts)  # registrations read from the op; the dtype guard
    notes.extend(dtypes.notes)
    dtype_rows = dtypes.rows
    metal_texts = planned_texts(cs, folder_files(cs, "metal_files"), checkout)
    caps = capabilities(cs)
    spec = fit_to_checkout(dtypes.spec, caps, metal_rel)
    _require_2_7_layout(choice, spec, metal_rel)
    if spec.shims:
        from mpsgen.backfill.c10_shims import described

        notes.append(f"this checkout's c10/metal has no {described(spec.shims)}: {spec.name}_functor carries "
                     f"its own ({', '.join(n + '_' for n in spec.shims)})")
    # Kernel names are global across the files, but one that never spells the name can neither
    # register it nor define its functor: only the target and those that mention it are indexed.
    naming = mentioning(metal_texts, spec.name)
    indexes = [metal.index_metal(t, p) for p, t in metal_texts.items() if p == metal_rel or p in naming]
    functor = render.render_functor(spec, opts.templates_dir, c10_traits=caps.c10_traits)
    from mpsgen.generate.expr_check import require_compilable

    require_compilable(spec, functor, opts, checkout.root)  # a typo's compiler error, not a layout refusal
    registrations: tuple[str, ...] = ()
    reused_functor = ""
    registered_at, dtype_rows = _registered_elsewhere(dtype_rows, indexes, metal_texts, spec, functor)
    if registered_at:  # upstream's own kernel of that name serves every dtype: the host calls it
        found = next((f for ix in indexes if (f := ix.functor(spec.name)) is not None), None)
        reused_functor = found.text if found is not None and found.macro is None else ""
        notes.append(f"kernel '{spec.name}' is already registered ({registered_at}) for every dtype the op "
                     "needs: reused, no Metal written")
    else:
        registrations = tuple(_registrations(spec, indexes, metal_rel, metal_texts[metal_rel]))
        if metal.check_kernel_name(indexes, spec.name, functor) == "new":
            new_metal = _metal_addition(metal_texts[metal_rel], metal_rel, spec, functor, list(registrations), cs)
            if new_metal != metal_texts[metal_rel]:  # laid out by clang-format with the rest (kernelplan)
                draft.set_text(metal_rel, new_metal, f"{spec.name}_functor and its registrations")
                added.append(f"{metal_rel}: {spec.name}_functor + {len(registrations)} registration line(s)")
        else:
            notes.append(f"kernel '{spec.name}' is already registered with this functor: reused")
    own_struct = spec.binary_indexing or spec.template_kernel  # 2.7: each file has its own
    shared_struct = spec.has_params and not own_struct
    header = _params_header(cs, metal_rel, stub) if shared_struct else ""
    if shared_struct:  # the struct's header, and the .metal's #include of it (after the layout checks)
        added.extend(_plan_params_struct(draft, checkout, spec, metal_rel, mm_rel, opts, header,
                                         reused=bool(registered_at)))

    # A file that registers the stub spells its name (REGISTER_DISPATCH(x_stub, …)) or its op (REGISTER_*_STUB(x)).
    mm_texts = mentioning(planned_texts(cs, folder_files(cs, "mm_files"), checkout), stub.name.removesuffix("_stub"))
    existing = host.registered_stubs(mm_texts).get(stub.name, [])
    for reg in existing:  # registered_metal_kernel() left only MPSGraph ones
        removal = remove_graph_registration(draft, reg)
        removed.extend(removal.removed)
        notes.extend(removal.notes)
    mm_text = draft.current(mm_rel)
    simple_unary = arity == "unary" and stub.name == f"{spec.name}_stub" and stub.iterator_type == "TensorIteratorBase"
    if simple_unary and host.uses_unary_ti_macro(mm_text):
        new_mm = host.add_unary_ti_dispatch(mm_text, spec.name, path=mm_rel)
        host_text, register_line = f"REGISTER_UNARY_TI_DISPATCH({spec.name});", ""
        added.append(f"{mm_rel}: REGISTER_UNARY_TI_DISPATCH({spec.name})")
    else:
        fn = host_code.host_kernel_name(spec.name)
        scalars = choice.shape.scalars
        arg = host_code.scalar_argument(scalars[0].cpp_type, scalars[0].name) if scalars else None
        call = host_code.exec_call_args(arity, spec.name, arg, opmath=spec.param_type == "opmath",
                                        result_args=_bool_kernel_args(cs, spec, arity, mm_text))
        body = host_code.params_host_body(spec, [p.cpp_type for p in scalars]) if spec.has_params else None
        ternary = arity.startswith("ternary")
        factory = "binary_op"  # 2.7's binary host: the iterator its CPU-scalar / mixed-dtype path builds
        if spec.binary_indexing and spec.result != "complex":
            built = "a TensorIteratorConfig of the inputs cast to one dtype"
            if not ternary:
                rebuilt = _rebuilt_iterator(choice, spec, cs, checkout)
                factory, built = rebuilt.factory, iterator_text(rebuilt)
            notes.append(untested_path_note(spec.name, fn, mm_rel, built))
        if spec.binary_indexing and scalars:  # 2.7: the helper the change adds
            from mpsgen.backfill.binary_alpha_host import HELPER
            from mpsgen.backfill.ternary_host import ALPHA_HELPER

            body = host_code.binary_alpha_mps_impl_body(spec, [p.cpp_type for p in scalars],
                                                        ALPHA_HELPER if ternary else HELPER, iterator=factory)
        elif choice.shape.backfill == "ternary_cond_mps_impl":  # 2.7's where: the condition keeps its dtype
            body = host_code.ternary_cond_mps_impl_body(spec.name)
        elif spec.binary_indexing:
            from mpsgen.backfill.ternary_host import HELPER as TERNARY_HELPER

            body = (host_code.binary_mps_impl_body(spec.name, spec.result, helper=TERNARY_HELPER, inputs=3) if ternary
                    else host_code.binary_mps_impl_body(spec.name, spec.result, iterator=factory))
        elif spec.template_kernel and scalars:  # 2.7: the helper the change adds
            from mpsgen.backfill.unary_alpha import HELPER as UNARY_HELPER

            body = host_code.unary_alpha_mps_impl_body(spec, [p.cpp_type for p in scalars], UNARY_HELPER)
        params = stubs.host_params(stub, names=[p.name for p in scalars])
        host_text = host_code.render_host_kernel(fn, params, call, opts.templates_dir, body=body)
        if spec.has_params and not shared_struct:  # the host's twin of the .metal's struct, as 2.7 keeps them
            host_text = f"{render.render_params_struct(spec, opts.templates_dir)}\n\n{host_text}"
        if output is not None and not output.last:  # placed with the last output's (split_outputs)
            new_mm, register_line = mm_text, ""
            added.append(f"{mm_rel}: {fn}")
        else:
            registered = fn
            if output is not None:  # the stub's host kernel runs every output's host function
                registered = host_code.host_kernel_name(choice.family)
                runner = stub_host_kernel(registered, params, choice.family, output.kernels, choice.shape.inputs)
                host_text = "\n\n".join((*output.earlier_hosts, host_text, runner))
            semicolon, ampersand = host.register_dispatch_style(mm_text)
            register_line = host_code.render_register_dispatch(stub.name, registered, semicolon, ampersand,
                                                               opts.templates_dir)
            new_mm = host.add_host_kernel(mm_text, host_text, register_line, path=mm_rel)
            if output is not None and not includes_header(new_mm, "ATen/TensorIterator.h", "ATen/native/TensorIterator.h"):
                new_mm = host.ensure_include(new_mm, "ATen/TensorIterator.h", path=mm_rel)
            added.append(f"{mm_rel}: {fn}" + (f", {registered}" if registered != fn else "")
                         + f" + REGISTER_DISPATCH({stub.name}, …)")
    new_mm = host.ensure_include(new_mm, stub.header, path=mm_rel)
    if spec.has_params or (spec.scalars and own_struct):  # AT_DISPATCH, opmath
        extra = ("ATen/OpMathType.h",) if spec.param_type == "opmath" else ()
        named = (header, "fmt/format.h") if shared_struct else ()  # the struct's header; its Metal instance's name
        for include in (*named[:1], "ATen/Dispatch.h", *extra, *named[1:]):
            new_mm = host.ensure_include(new_mm, include, path=mm_rel)
    draft.set_text(mm_rel, new_mm, f"host kernel for {stub.name}")
    from mpsgen.plan.stale_twin import drop_stale_twins

    removed.extend(drop_stale_twins(draft, mm_rel, new_mm))  # 2.7's clamp_stub in UnaryOps.h beside TensorCompare.h's
    rendered = Rendered("" if registered_at else functor, registrations, host_text, register_line, metal_rel, mm_rel)
    return KernelCode(spec, rendered, dtype_rows, dtypes.dropped, draft.edits, tuple(added), tuple(removed),
                      tuple(notes), registered_at, reused_functor, unregistered=dtypes.unregistered)


def _rebuilt_iterator(choice: KernelChoice, spec: KernelSpec, cs: Changeset, checkout: Checkout) -> HostIterator:
    """The TensorIterator factory 2.7's binary host kernel builds for a CPU scalar or a second dtype, as the
    op's shared kernel builds its own; checked against the checkout's TensorIterator.h when it has one."""
    from mpsgen.sources.native.iterator_builder import static_factories

    header = TENSOR_ITERATOR_REL
    declared = static_factories(cs.original(header)) if cs.exists(header) else None
    return host_iterator(choice.builder, spec.result, declared, choice.shared_at)


# 2.7's host API backfills (backfill/host_api) by the .metal layout their kernels need
_TEMPLATE_KERNEL_BACKFILLS = ("unary_alpha_mps_impl",)
_BINARY_INDEXING_BACKFILLS = ("binary_alpha_mps_impl", "ternary_mps_impl", "ternary_alpha_mps_impl",
                               "ternary_cond_mps_impl")


def _require_2_7_layout(choice: KernelChoice, spec: KernelSpec, metal_rel: str) -> None:
    backfill = choice.shape.backfill
    if ((backfill in _TEMPLATE_KERNEL_BACKFILLS and not spec.template_kernel)
            or (backfill in _BINARY_INDEXING_BACKFILLS and not spec.binary_indexing)):
        raise MpsgenError(f"this checkout's host runs {choice.arity} kernels through the {backfill} the change "
                          f"adds, but {Path(metal_rel).name} is not in PyTorch 2.7's layout for them",
                          path=metal_rel, line=1, hint="write the kernel by hand")
    cond = backfill == "ternary_cond_mps_impl"
    if spec.binary_indexing and (cond != (spec.bool_inputs == (0,) and spec.arity == "ternary")
                                                    or (cond and spec.result != "same")):
        raise MpsgenError(f"{spec.name}'s inputs may differ in dtype: mpsgen writes that kernel on this checkout only "
                          "for a bool condition first and the other inputs of the result's dtype (where)",
                          path=metal_rel, line=1, hint="write the kernel by hand")


def _registrations(spec: KernelSpec, indexes: list[MetalIndex], metal_rel: str, metal_text: str) -> list[str]:
    """The registration lines (or host_name instances) the kernel gets, in the target file's layout
    (its own shorthand macros where they make exactly these registrations: generate/neighbours)."""
    from mpsgen.generate import render
    from mpsgen.generate.neighbours import compact, register_macros

    if spec.template_kernel:
        from mpsgen.generate.template_kernel import host_name, instances

        return [f'template [[host_name("{host_name(spec, i)}")]]' for i in instances(spec)]
    if spec.binary_indexing:
        from mpsgen.sources.metal.binary_indexing import registrations

        return registrations(spec)
    lines = render.render_registrations(spec, metal.style_of(next(ix for ix in indexes if ix.path == metal_rel)))
    return compact(lines, spec.name, register_macros(metal_text))


def _metal_addition(text: str, metal_rel: str, spec: KernelSpec, functor: str, registrations: list[str],
                    cs: Changeset) -> str:
    """*text* with the functor and its registrations, by the writer of the file's layout."""
    from mpsgen.generate import render

    if spec.template_kernel:
        from mpsgen.sources.metal.host_name import add_template_kernel

        return add_template_kernel(text, metal_rel, spec, functor)
    if spec.binary_indexing:
        from mpsgen.sources.metal.binary_indexing import add_binary_kernel

        struct = render.render_params_struct(spec) if spec.has_params else ""  # 2.7: no header both sides read
        return add_binary_kernel(text, metal_rel, spec, functor, before_functor=struct)
    return metal.plan_metal_addition(text, metal_rel, spec, functor, registrations,
                                     available_macros=capabilities(cs).c10_macros,
                                     after_functor=render.params_typedefs(spec))


def _registered_elsewhere(table: tuple[Row, ...], indexes: list[MetalIndex], metal_texts: dict[str, str], spec: KernelSpec,
                          functor: str) -> tuple[str, tuple[Row, ...]]:
    """Where kernel spec.name is already registered with another functor (upstream's ceil, huber) for
    every input dtype the op needs ("path:line"), so the host can call it; "" when it is free or
    registered with this very functor.  Registered without some of those dtypes: refused, naming them.
    Reused, the dtype table (returned with it) shows upstream's registrations."""
    from mpsgen.generate.render import input_types
    from mpsgen.plan.dtypes import METAL_NAME, NOT_DECLARED
    from mpsgen.sources.metal.names import registered_input_types

    where = metal.registered_kernel_names(indexes).get(spec.name)
    if not where or any((f := ix.functor(spec.name)) is not None and metal.same_functor(f, functor) for ix in indexes):
        return "", table
    files = {path for path, _, _ in where}
    if spec.has_params:  # upstream's params kernel: its registrations must name mpsgen's struct aliases
        from mpsgen.generate.render import params_alias
        from mpsgen.sources.metal.names import registrations_of

        pairs = {(a[2], a[3]) for p, t in metal_texts.items() if p in files
                 for a in registrations_of(t, p, spec.name) if "_ALPHA_" in a[0] and len(a) > 3}
        have = {t for t, alias in pairs if alias == params_alias(spec, t)}
    else:
        alpha = spec.has_alpha  # the host name then ends in the alpha's type
        have = set().union(*(registered_input_types(t, p, spec.name, alpha=alpha)
                             for p, t in metal_texts.items() if p in files))
    undeclared = {METAL_NAME[r.dtype] for r in table if r.before == NOT_DECLARED}
    missing = [t for t in input_types(spec) if t not in have and t not in undeclared]
    path, line, macro = where[0]
    if missing:
        of = f" with {spec.params_struct}_<type> params" if spec.has_params else ""
        raise MpsgenError(f"kernel name '{spec.name}' is already registered by {macro} without {', '.join(missing)}{of}",
                          path=path, line=line,
                          hint=f"kernel names are global across all .metal files: if it computes {spec.name}, "
                               "extend its registrations and run again (mpsgen then calls it), or accept the loss with "
                               f"--drop-dtypes {','.join(_torch_names(missing))}; else rename or delete it")
    upstream = tuple(r if not r.after.startswith("registered") else
                     r._replace(after="registered upstream" if METAL_NAME[r.dtype] in have else "not registered",
                                registered=METAL_NAME[r.dtype] in have) for r in table)
    return f"{macro} at {Location(path, line)}", upstream


def _torch_names(metal_types: list[str]) -> list[str]:
    from mpsgen.plan.dtypes import METAL_NAME

    torch_name = {v: k for k, v in METAL_NAME.items()}
    return [torch_name.get(t, t) for t in metal_types]


def _params_header(cs: Changeset, metal_rel: str, stub: stubs.StubDecl) -> str:
    """The header the params struct goes in, as the checkout keeps the params of that kind of op
    (generate/neighbours): kernels/Activation.h for an activation's, else kernels/<Stem>.h."""
    from mpsgen.generate.neighbours import params_header

    headers = planned_texts(cs, folder_files(cs, "kernel_headers"), cs.checkout)
    return params_header(metal_rel, stub.header, headers)


def _bool_kernel_args(cs: Changeset, spec: KernelSpec, arity: str, mm_text: str) -> tuple[str, ...]:
    """What a kernel returning bool passes after its name, as the host file's bool kernels do (neighbours)."""
    if spec.result != "bool" or arity not in ("unary", "binary"):
        return ()
    from mpsgen.generate.neighbours import bool_kernel_args

    return bool_kernel_args(mm_text, capabilities(cs).host_api, arity)


def _plan_params_struct(draft: Draft, checkout: Checkout, spec: KernelSpec, metal_rel: str, mm_rel: str, opts: KernelOptions,
                        header: str, *, reused: bool = False) -> tuple[str, ...]:
    """The params struct in kernels/<Stem>.h (created when the tree has none), included by the .metal;
    what was added.  *reused*: upstream's kernel takes it, so its header must already hold this very struct."""
    from mpsgen.generate import render
    from mpsgen.sources.metal.params_header import add_struct

    rel = f"aten/src/{header}"
    struct = render.render_params_struct(spec, opts.templates_dir)
    exists = draft.exists(rel)
    new = add_struct(draft.current(rel) if exists else None, struct, spec.params_struct, path=rel,
                     purpose=f"{Path(mm_rel).name} and {Path(metal_rel).name}")
    if reused:
        if not exists or new != draft.current(rel):
            raise MpsgenError(f"kernel '{spec.name}' is registered with {spec.params_struct}, but {rel} does not "
                              f"hold it with the fields {', '.join(spec.scalars)}", path=rel,
                              hint="write the host kernel by hand")
        return ()
    added: tuple[str, ...] = ()
    if new != (draft.current(rel) if exists else None):
        draft.set_text(rel, new, f"{spec.params_struct}")
        added = (f"{rel}: struct {spec.params_struct}",)
    metal_text = draft.current(metal_rel)
    with_include = metal.add_include(metal_text, metal_rel, header)
    if with_include != metal_text:
        draft.set_text(metal_rel, with_include, f"#include <{header}>")
    return added
