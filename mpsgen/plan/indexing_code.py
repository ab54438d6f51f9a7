"""The kernel-code phase of the indexing kind (index_fill_stub; plan/indexing_route.py), as one frozen
`IndexingCode`.

Written: the kernel template and one instance per element size (`index_fill_<N>bit`, N from the
checkout's getBitSizeString, as its masked_fill_scalar_<N>bit kernels are named), appended to the
kernels/<Stem>.metal paired with the host's .mm (Indexing.mm -> Indexing.metal, upstream's pairing);
the host kernel in the .mm that held the MPSGraph code, registered on the stub, with the stub's header.
The value reaches the kernel converted by the checkout's getMPSScalar (Scalar::to<T> per dtype, the
CPU kernel's conversion), so copying its bits serves every dtype of a size.
"""

from __future__ import annotations

from pathlib import Path

from mpsgen.errors import MpsgenError
from mpsgen.model import KernelOptions
from mpsgen.plan.dtypes import Row
from mpsgen.plan.indexing_record import DTYPES, IndexingCode, instance
from mpsgen.plan.kind_host import bfloat_guarded, dead_code_notes, host_file
from mpsgen.plan.routing import Routing
from mpsgen.plan.texts import Draft, capabilities
from mpsgen.scan.includes import includes_header
from mpsgen.sources.host import mm as host
from mpsgen.sources.host.library import runs_a_shader_library, with_library
from mpsgen.sources.metal.indexing import holds_kernel, jit_library_stem
from mpsgen.sources.native import stubs
from mpsgen.tree.changeset import Changeset
from mpsgen.tree.checkout import KERNELS_REL, Checkout

BIT_SIZE_HELPER = "getBitSizeString"  # the .mm's own where it has one: ScalarType -> "8bit" ... "64bit"
NOTES = {
    "index_fill_stub": (
        "the value reaches index_fill_<N>bit converted by getMPSScalar (Scalar::to<T>, as the CPU kernel converts it); "
        "the kernel copies its bits",
        "an index outside [-size, size) of the dim writes nothing on MPS (the CPU kernel raises IndexError; 2.7's "
        "MPSGraph scatter raised nothing either)"),
    "gather_stub": (
        "gather_<N>bit copies each element's bits; the index is int64 (2.7's gather meta refuses int32)",
        "an index outside [0, size) of the dim leaves its result element unwritten on MPS (the CPU kernel raises "
        "RuntimeError)"),
    "scatter_add_stub": (
        "scatter_add_<T>: one thread per element of self within the index's extent, summing in index order as the "
        "CPU kernel does (deterministic, no atomics; it reads the index along dim once per element of self)",
        "an index outside [0, size) of the dim adds nothing on MPS (the CPU kernel raises RuntimeError)"),
    "scatter_stub": (
        "scatter_<T> serves scatter_stub, scatter_fill_stub, scatter_reduce_stub and scatter_scalar_reduce_stub: one "
        "thread per element of self within the index's extent, applying in index order as the CPU kernel does the "
        "src elements (or the value) whose index names it: the last one (duplicates: the CPU's last, deterministic), "
        "or their sum or product (reduce='add'/'multiply'; in float for half/bfloat16, as the CPU's float buffer)",
        "an index outside [0, size) of the dim changes nothing on MPS (the CPU kernel raises RuntimeError)"),
}


def plan_indexing_code(routing: Routing, checkout: Checkout, cs: Changeset, opts: KernelOptions) -> IndexingCode:
    """The kernel, and per stub the host kernel and its registration, for *routing*'s indexing stubs (scatter's
    four share one kernel); nothing set in *cs*."""
    from mpsgen.generate import indexing_kernel as render
    from mpsgen.generate.host_code import host_kernel_name, render_register_dispatch
    from mpsgen.generate.nullary_kernel import render_library
    from mpsgen.plan.kernel_code import registered_metal_kernel
    from mpsgen.plan.nullary_code import metal_stem

    indexing, stub = routing.indexing, routing.stub
    assert indexing is not None and stub is not None
    kept = registered_metal_kernel(stub, cs, checkout)
    if kept:
        return IndexingCode(stub=stub.name, kept=kept)
    name = render.KERNELS[stub.name]
    mm_rel, dead = host_file(routing, checkout, cs, name)
    metal_rel = f"{KERNELS_REL}/{metal_stem(mm_rel)}.metal"
    draft = Draft(cs)
    mm_text = draft.current(mm_rel)
    library = jit_library_stem(mm_text)
    if library is not None and library != Path(metal_rel).stem:
        raise MpsgenError(f"{Path(mm_rel).name} runs {library}.metal's library, not {Path(metal_rel).name}",
                          path=mm_rel, hint=f"register {stub.name} by hand")
    metal_text = render.render_metal(name, stub.name, opts.templates_dir, bfloat_guarded=bfloat_guarded(cs, checkout))
    if draft.exists(metal_rel):
        current = draft.current(metal_rel)
        if holds_kernel(current, name):
            raise MpsgenError(f"{Path(metal_rel).name} already holds a {name} kernel", path=metal_rel,
                              hint=f"register {stub.name} by hand")
        draft.set_text(metal_rel, current.rstrip("\n") + "\n\n" + metal_text, f"{name} kernel of {stub.name}")
    else:
        draft.set_text(metal_rel, "#include <metal_stdlib>\nusing namespace metal;\n\n" + metal_text,
                       f"{name} kernel of {stub.name}")
    dtypes = DTYPES[stub.name]
    suffixes = tuple(dict.fromkeys(instance(stub.name, d) for d in dtypes))
    added = [f"{metal_rel}: {name}<T> as {', '.join(f'{name}_{x}' for x in suffixes)}"]
    helper = any(d.name == BIT_SIZE_HELPER for d in host.definitions(mm_rel, mm_text))
    semicolon, ampersand = host.register_dispatch_style(mm_text)
    new_mm, hosts, registers = mm_text, [], []
    for each in indexing.stubs:  # one host kernel per stub, each registered on its stub
        fn = host_kernel_name(each.name.removesuffix("_stub"))
        params = stubs.host_params(each)
        hosts.append(render.render_host(fn, params, stubs.host_param_names(params), stub=each.name, name=name,
                                        dispatch=capabilities(cs).launch.dispatch, bit_size_helper=helper,
                                        templates_dir=opts.templates_dir))
        registers.append(render_register_dispatch(each.name, fn, semicolon, ampersand, opts.templates_dir))
        new_mm = host.add_host_kernel(new_mm, hosts[-1], registers[-1], path=mm_rel)
        new_mm = host.ensure_include(new_mm, each.header, path=mm_rel)
        added.append(f"{mm_rel}: {fn} + REGISTER_DISPATCH({each.name}, …)")
    if stub.iterator_type and not includes_header(new_mm, "ATen/TensorIterator.h", "ATen/native/TensorIterator.h"):
        new_mm = host.ensure_include(new_mm, "ATen/TensorIterator.h", path=mm_rel)
    if not runs_a_shader_library(new_mm):
        new_mm = with_library(new_mm, render_library(Path(metal_rel).stem, opts.templates_dir), mm_rel)
    draft.set_text(mm_rel, new_mm, f"host kernels for {', '.join(d.name for d in indexing.stubs)}")
    before = (f"MPSGraph ({', '.join(routing.legacy_kernels)})" if routing.legacy_kernels
              else f"no MPS kernel ({stub.name} unregistered)")
    rows = tuple(Row(dtype, before, f"registered ({name}_{instance(stub.name, dtype)})", bool(routing.legacy_kernels), True)
                 for dtype in dtypes)
    notes = (*NOTES[stub.name],
             *dead_code_notes(mm_rel, dead))
    return IndexingCode(kernel=name, stub=stub.name, metal_path=metal_rel, mm_path=mm_rel, metal_text=metal_text,
                        host_code="\n\n".join(hosts), register_line="\n".join(registers), rows=rows, edits=draft.edits,
                        added=tuple(added), notes=notes)



