"""The kernel-code phase of the reduction kind (a reduce stub; plan/reduction_route.py), as one frozen
`ReductionCode`.

Written: kernels/ReduceOps.metal (upstream's name for the kernels of operations/ReduceOps.mm): the kernel
template, the op's struct and its `reduce_<name>_<T>` registrations, the file created by the first reduction
migrated and extended by the next; the host kernel in the .mm that held the MPSGraph code (the helper
`reduce_mps_impl` they all call, once), with the library declaration of that .metal and the stub's header;
and c10::metal's simd_sum/simd_max/simd_min in c10/metal/reduction_utils.h where the checkout lacks them.
"""

from __future__ import annotations

from pathlib import Path

from mpsgen.errors import MpsgenError
from mpsgen.model import KernelOptions
from mpsgen.plan.dtypes import Row
from mpsgen.plan.reduction_record import DTYPES, ReductionCode
from mpsgen.plan.kind_host import bfloat_guarded, dead_code_notes, host_file
from mpsgen.plan.routing import Routing
from mpsgen.plan.texts import Draft, capabilities
from mpsgen.scan.includes import includes_header
from mpsgen.sources.host import mm as host
from mpsgen.sources.host.library import runs_a_shader_library, with_library
from mpsgen.backfill import simd_helpers
from mpsgen.sources.native import stubs
from mpsgen.tree.changeset import Changeset
from mpsgen.tree.checkout import KERNELS_REL, Checkout


def plan_reduction_code(routing: Routing, checkout: Checkout, cs: Changeset, opts: KernelOptions) -> ReductionCode:
    """The kernels, the host kernel and its registration for *routing*'s reduce stub (nothing set in *cs*)."""
    from mpsgen.generate import reduction_kernel as render
    from mpsgen.generate.host_code import host_kernel_name, render_register_dispatch
    from mpsgen.generate.nullary_kernel import render_library
    from mpsgen.plan.kernel_code import registered_metal_kernel

    reduction, stub = routing.reduction, routing.stub
    assert reduction is not None and stub is not None
    kept = registered_metal_kernel(stub, cs, checkout)
    if kept:
        return ReductionCode(kept=kept)
    op, name = reduction.op, reduction.op.name
    mm_rel, dead = host_file(routing, checkout, cs, name)
    metal_rel = f"{KERNELS_REL}/{render.METAL_FILE}"
    guarded = bfloat_guarded(cs, checkout)
    draft = Draft(cs)
    added: list[str] = []
    if draft.exists(metal_rel):
        old = draft.current(metal_rel)
        if name in render.registered_ops(old):
            raise MpsgenError(f"{render.METAL_FILE} registers {op.kernels} already, but {stub.name} runs no Metal "
                              "kernel", path=metal_rel, hint=f"register {stub.name} by hand")
        metal_text = render.with_reduction(old, name, bfloat_guarded=guarded, templates_dir=opts.templates_dir,
                                           path=metal_rel)
    else:
        metal_text = render.render_metal([name], bfloat_guarded=guarded, templates_dir=opts.templates_dir)
    draft.set_text(metal_rel, metal_text, f"{op.kernels} kernels of {stub.name}")
    added.append(f"{metal_rel}: {op.kernels} ({len(op.types)} dtypes, accumulated as the CPU does)")
    utils_rel = simd_helpers.REL
    if draft.exists(utils_rel):
        utils = draft.current(utils_rel)
        if not simd_helpers.has_simd_helpers(utils):
            helpers = simd_helpers.render_simd_helpers(bfloat_guarded=guarded, templates_dir=opts.templates_dir)
            draft.set_text(utils_rel, simd_helpers.with_simd_helpers(utils, helpers, utils_rel),
                           "c10::metal simd_sum/simd_max/simd_min")
            added.append(f"{utils_rel}: c10::metal::simd_sum, simd_max, simd_min (2.13's helpers)")
    else:
        raise MpsgenError(f"{utils_rel} not found: the reduction kernels include it", path=utils_rel,
                          hint=f"register {stub.name} by hand")
    mm_text = draft.current(mm_rel)
    if runs_a_shader_library(mm_text) and not any(h in mm_text for h in (render.HELPER, render.NORM_HELPER,
                                                                          render.AMINMAX_HELPER)):
        raise MpsgenError(f"{Path(mm_rel).name} already runs a shader library: the reduction kernels would need a "
                          "file of that library", path=mm_rel, hint=f"register {stub.name} by hand")
    fn = host_kernel_name(name)
    dispatch = capabilities(cs).launch.dispatch
    semicolon, ampersand = host.register_dispatch_style(mm_text)
    register_line = render_register_dispatch(stub.name, fn, semicolon, ampersand, opts.templates_dir)
    if reduction.also is not None:  # aminmax: both stubs' host kernels, the helper laying out their tensors
        also = reduction.also
        also_fn = host_kernel_name(also.name.removesuffix("_stub"))
        params = ", ".join(f"{t} {n}" for t, n in zip(stub.params, ("self", "dim", "keepdim", "min", "max")))
        also_params = ", ".join(f"{t} {n}" for t, n in zip(also.params, ("self", "min", "max")))
        helper_needed = not any(d.name == render.AMINMAX_HELPER for d in host.definitions(mm_rel, mm_text))
        host_text = render.render_aminmax_host(fn, params, also_fn, also_params, helper_needed=helper_needed,
                                               dispatch=dispatch, templates_dir=opts.templates_dir)
        new_mm = host.add_host_kernel(mm_text, host_text, register_line, path=mm_rel)
        also_line = render_register_dispatch(also.name, also_fn, semicolon, ampersand, opts.templates_dir)
        new_mm = host.add_host_kernel(new_mm, host_text, also_line, path=mm_rel)  # the code is there: the line
        register_line += "\n" + also_line
        added.append(f"{mm_rel}: {also_fn} + REGISTER_DISPATCH({also.name}, …)")
    else:
        params = stubs.host_params(stub, (op.scalar,) if op.scalar else ())
        iterator = params.split(",", 1)[0].split()[-1]
        host_text = render.render_host(fn, params, iterator, name, templates_dir=opts.templates_dir, scalar=op.scalar)
        helper, render_helper = ((render.NORM_HELPER, render.render_norm_helper) if name == "norm"
                                 else (render.HELPER, render.render_helper))
        if not any(d.name == helper for d in host.definitions(mm_rel, mm_text)):
            host_text = render_helper(dispatch=dispatch, templates_dir=opts.templates_dir) + "\n\n" + host_text
        new_mm = host.add_host_kernel(mm_text, host_text, register_line, path=mm_rel)
    new_mm = host.ensure_include(new_mm, stub.header, path=mm_rel)
    if reduction.also is None and not includes_header(new_mm, "ATen/TensorIterator.h", "ATen/native/TensorIterator.h"):
        new_mm = host.ensure_include(new_mm, "ATen/TensorIterator.h", path=mm_rel)
    if not runs_a_shader_library(new_mm):
        new_mm = with_library(new_mm, render_library(Path(metal_rel).stem, opts.templates_dir), mm_rel)
    draft.set_text(mm_rel, new_mm, f"host kernel for {stub.name}")
    added.append(f"{mm_rel}: {fn} + REGISTER_DISPATCH({stub.name}, …)")
    before = (f"MPSGraph ({', '.join(routing.legacy_kernels)})" if routing.legacy_kernels
              else f"no MPS kernel ({stub.name} unregistered)")
    rows = tuple(Row(DTYPES[t], before, f"registered ({t}, accumulated in {a})", bool(routing.legacy_kernels), True)
                 for t, a in op.types)
    groups = op.groups or tuple(g for g, there in (("float", True), ("integer", any(t == "long" for t, _ in op.types)),
                                      ("complex", any(t == "float2" for t, _ in op.types))) if there)
    notes = (f"{op.kernels}: a threadgroup per output element, simd_* then threadgroup reductions, "
             f"accumulated as {op.reference}'s CPU kernel does",
             *dead_code_notes(mm_rel, dead))
    return ReductionCode(kernel=f"reduce_{name}", name=name, metal_path=metal_rel, mm_path=mm_rel, metal_text=metal_text,
                         host_code=host_text, register_line=register_line, rows=rows, edits=draft.edits,
                         added=tuple(added), notes=notes, groups=groups)



