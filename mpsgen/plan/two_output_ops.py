"""Ops returning two tensors (frexp, _prelu_kernel_backward).  Where the checkout already registers
upstream's kernels writing both outputs (2026's frexp_dense_<T> / frexp_strided_<T>), the change is
their host: a file-local helper binding the iterator's outputs and input (written once, from the names
the checkout's OperationUtils.h and MetalShaderLibrary.h declare), the op's host kernel and its
REGISTER_DISPATCH.  Where none does, but the catalog has a body per output (`<family>_<output>`, the
output named as the shared kernel's add_output names it: _prelu_kernel_backward_grad_self), each output
gets its own one-output kernel (plan/split_outputs.py).  Otherwise the op is refused in one line that
says where its iterator's outputs are built: mpsgen's functors and registration macros carry one output."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Callable

from mpsgen.errors import MpsgenError
from mpsgen.model import KernelOptions, KernelSpec, Location
from mpsgen.plan.texts import capabilities, folder_files, mentioning, planned_texts
from mpsgen.records import NamedTuple
from mpsgen.scan import words
from mpsgen.sources.native import stubs
from mpsgen.sources.native_yaml.facts import Entry
from mpsgen.tree.changeset import Changeset
from mpsgen.tree.checkout import NATIVE_REL, OPERATIONS_REL, YAML_REL, Checkout

if TYPE_CHECKING:
    from mpsgen.plan.kernel_choice import KernelChoice
    from mpsgen.plan.kernel_code import KernelCode
    from mpsgen.sources.host.launch import Launch
    from mpsgen.sources.metal.two_output_kernels import TwoOutputKernels

# upstream's two-output kernels are registered once per layout: <family>_dense_<T>, <family>_strided_<T>
_LAYOUTS = ("dense", "strided")


class IteratorOutputs(NamedTuple):
    """The `add_output` calls of the shared kernel's TensorIteratorConfig."""

    number: int
    at: Location  # the first
    names: tuple[str, ...]  # what each passes ("" for an expression)


def iterator_outputs(family: str, shared: tuple[str, ...], cs: Changeset,
                     checkout: Checkout) -> IteratorOutputs | None:
    """The outputs the shared kernel's iterator is built with, when it has several; None otherwise."""
    from mpsgen.sources.native.iterator_operands import add_output_calls

    native = planned_texts(cs, folder_files(cs, "native_sources"), checkout)
    for kernel in shared:
        sources = mentioning(native, kernel) or mentioning(native, family)
        impl = stubs.find_shared_impl(sources, kernel)
        if impl is None or impl.path not in sources:
            continue
        calls = add_output_calls(sources[impl.path], impl.line, impl.end_line)
        if len(calls) > 1:
            return IteratorOutputs(len(calls), Location(impl.path, calls[0][0]), tuple(name for _, name in calls))
    return None


def refuse_outputs(family: str, entry: Entry, returns: str, built: IteratorOutputs | None,
                   cs: Changeset, checkout: Checkout) -> MpsgenError:
    """The one-line refusal for *entry* returning *returns* (a tuple): where its iterator's outputs are
    built (*built*), and upstream's kernels of the family's name that already write them, if any."""
    from mpsgen.sources.metal.names import names_in

    what = f"{entry.name} returns {returns}: mpsgen writes kernels with one output"
    if built:
        what += f" (its iterator has {built.number} outputs, {built.at})"
    metal = planned_texts(cs, folder_files(cs, "metal_files"), checkout)
    found: dict[str, set[str]] = {layout: set() for layout in _LAYOUTS}
    first: Location | None = None
    for path, text in mentioning(metal, family).items():
        for name in names_in(text, path):
            for layout in _LAYOUTS:
                prefix = f"{family}_{layout}_"
                if name.name.startswith(prefix) and "_" not in name.name[len(prefix):]:
                    found[layout].add(name.name[len(prefix):])
                    first = first or name.location
    types = found["dense"] & found["strided"]
    if first is not None and types:
        listed = ", ".join(sorted(types))
        return MpsgenError(
            f"{what}; {first} registers upstream's kernels {family}_dense_<T>/{family}_strided_<T> ({listed}) "
            "writing both, but this checkout's MetalShaderLibrary.h has no exec_*_kernel binding two outputs",
            path=YAML_REL, line=entry.line,
            hint=f"write {family}_mps_kernel by hand: bind output(0), output(1) and input(0) as those kernels' "
                 "parameters declare, then REGISTER_DISPATCH its stub")
    if built:
        bodies = " and ".join(f"{family}_{name or '<output>'}" for name in built.names)
        return MpsgenError(what, path=YAML_REL, line=entry.line,
                           hint=f"give each output a catalog body ({bodies}: one kernel per output), or write the "
                                "kernel by hand")
    return MpsgenError(what, path=YAML_REL, line=entry.line,
                       hint="write the kernel by hand (c10/metal has no multiple-output registration macro)")


def output_kernels(family: str, built: IteratorOutputs | None, catalogued: Callable[[str], bool]) -> tuple[str, ...]:
    """The kernels of an op whose shared kernel's iterator has several outputs (*built*), one per output
    in add_output order (`<family>_<output>`), when each output is named and *catalogued* has a body for
    each; () otherwise."""
    if built is None or not all(built.names):
        return ()
    names = tuple(f"{family}_{name}" for name in built.names)
    return names if len(set(names)) == len(names) and all(catalogued(n) for n in names) else ()


# The names the helper's text uses, and the headers of the checkout that must declare them.
_HELPER_NAMES = {"mps/OperationUtils.h": ("bind_iter_tensors", "mtl_setArgs", "mtl_dispatch1DJob",
                                          "scalarToMetalTypeString"),
                 "mps/MetalShaderLibrary.h": ("getPipelineStateForFunc",)}
HELPER = "exec_two_outputs_kernel"


def upstream_two_outputs(family: str, built: IteratorOutputs | None, cs: Changeset,
                         checkout: Checkout) -> TwoOutputKernels | None:
    """upstream's kernels writing the op's two outputs, when the shared kernel's iterator holds two
    (*built*) and the checkout's headers declare every name the host helper uses; None otherwise
    (the op is then refused by refuse_outputs)."""
    from mpsgen.sources.metal.two_output_kernels import find_two_output_kernels, strided_takes_shape_strides_ndim

    if built is None or built.number != 2:
        return None
    metal = planned_texts(cs, folder_files(cs, "metal_files"), checkout)
    kernels = find_two_output_kernels(mentioning(metal, family), family)
    if kernels is None or not kernels.call or not strided_takes_shape_strides_ndim(metal[kernels.path], family):
        return None
    for header, names in _HELPER_NAMES.items():
        rel = f"{NATIVE_REL}/{header}"
        text = cs.current(rel) if cs.exists(rel) else ""
        if any(not words.names(text, n) for n in names):
            return None
    return kernels


def plan_two_output_code(choice: KernelChoice, kernels: TwoOutputKernels, cs: Changeset, checkout: Checkout,
                         opts: KernelOptions) -> KernelCode:
    """The host side of upstream's two-output kernels: a file-local helper binding the iterator's three
    tensors as exec_ternary_kernel binds its four (written once, reused), the op's host kernel calling it
    and REGISTER_DISPATCH; no Metal.  The dtype table is upstream's registrations."""
    from mpsgen.generate import host_code
    from mpsgen.plan import dtypes as dtype_plan
    from mpsgen.plan.kernel_code import KernelCode
    from mpsgen.plan.result import Rendered
    from mpsgen.plan.texts import Draft
    from mpsgen.sources.host import mm as host

    stub, family = choice.stub, choice.family
    if stub.iterator_type != "TensorIteratorBase" or choice.shape.scalars or choice.shape.inputs != 1:
        raise MpsgenError(f"{family}'s two-output kernels take one input and no scalar, but {stub.name} passes "
                          f"{choice.shape.inputs} input(s) and {len(choice.shape.scalars)} scalar(s)",
                          path=kernels.path, line=kernels.line, hint="write the host kernel by hand")
    facts = dtype_plan.read_facts(choice, cs, checkout)
    skip = {d for d in dtype_plan.FLOATS if dtype_plan.METAL_NAME[d] not in kernels.types}
    if choice.command == "new-op" and facts.declared is not None:
        skip |= set(dtype_plan.FLOATS) - set(facts.declared)
    spec = KernelSpec(family, "unary", expr=f"{kernels.call}(x, e)", dtypes=("float",), two_outputs=True,
                      skip=tuple(dtype_plan.METAL_NAME[d] for d in dtype_plan.FLOATS if d in skip))
    table = [r._replace(after="registered upstream", registered=True) if r.after.startswith("registered") else r
             for r in dtype_plan.rows(facts, spec.dtypes, spec.result, skip)]
    dtype_plan.guard(table, family, frozenset(), facts)
    mm_rel = f"{OPERATIONS_REL}/{Path(kernels.path).stem}.mm"
    if not cs.exists(mm_rel):
        raise MpsgenError(f"{Path(mm_rel).name} not found", path=mm_rel,
                          hint=f"the host of {Path(kernels.path).name}'s kernels lives in the .mm of its stem")
    draft = Draft(cs)
    mm_text = draft.current(mm_rel)
    fn = host_code.host_kernel_name(family)
    host_text = host_code.render_host_kernel(fn, ["TensorIteratorBase& iter"], (HELPER, ["iter", f'"{family}"']),
                                             opts.templates_dir)
    semicolon, ampersand = host.register_dispatch_style(mm_text)
    register_line = host_code.render_register_dispatch(stub.name, fn, semicolon, ampersand, opts.templates_dir)
    new_mm = host.add_host_kernel(mm_text, host_text, register_line, path=mm_rel)
    added = [f"{mm_rel}: {fn} + REGISTER_DISPATCH({stub.name}, …)"]
    if not host.defines_static_void(new_mm, HELPER):
        at = new_mm.index(f"static void {fn}(")
        nl = "\r\n" if "\r\n" in mm_text else "\n"
        new_mm = new_mm[:at] + _helper_text(opts.templates_dir, capabilities(cs).launch).replace("\n", nl) + nl + nl + new_mm[at:]
        added.insert(0, f"{mm_rel}: {HELPER} (binds two outputs and an input, as exec_ternary_kernel binds its tensors)")
    new_mm = host.ensure_include(new_mm, stub.header, path=mm_rel)
    new_mm = host.ensure_include(new_mm, "fmt/format.h", path=mm_rel)
    draft.set_text(mm_rel, new_mm, f"host kernel for {stub.name}")
    notes = (f"kernels '{family}_dense_<T>'/'{family}_strided_<T>' are registered upstream ({kernels.shown()}) "
             f"for {', '.join(kernels.types)}, writing both outputs: reused, no Metal written",)
    rendered = Rendered("", (), host_text, register_line, kernels.path, mm_rel)
    return KernelCode(spec, rendered, tuple(table), (), draft.edits, tuple(added), (), notes,
                      reused_kernel=kernels.shown(), two_outputs=kernels)


def _helper_text(templates_dir: str | None, launch: Launch) -> str:
    from mpsgen.generate.templating import render_template

    return render_template("two_outputs_helper.mm.j2", templates_dir, helper=HELPER, launch=launch)
