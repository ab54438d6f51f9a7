"""The kernel-code phase of the nullary kind (fill_stub; plan/nullary_route.py), as one frozen `NullaryCode`.

Written: a kernels/<Stem>.metal of its own (`<name>_dense_<T>` storing the value over a dense output's
storage, `<name>_strided_<T>` through its sizes and strides), created beside the host's .mm as upstream
pairs them (ConstantOps.mm -> ConstantKernel.metal: a trailing `Ops` becomes `Kernel`); the host kernel in
the .mm that held the MPSGraph code, with the library declaration of that .metal and the stub's header.
The value reaches the kernel converted by the checkout's getMPSScalar (Scalar::to<T> per dtype, the CPU
kernel's conversion); a value of all-zero bits on a dense output is a blit fill, as the MPSGraph code's
zero path was.
"""

from __future__ import annotations

from pathlib import Path

from mpsgen.errors import MpsgenError
from mpsgen.model import KernelOptions
from mpsgen.plan.dtypes import Row
from mpsgen.plan.nullary_record import DTYPES, NullaryCode
from mpsgen.plan.kind_host import bfloat_guarded, dead_code_notes, host_file
from mpsgen.plan.routing import Routing
from mpsgen.plan.texts import Draft, capabilities
from mpsgen.scan.includes import includes_header
from mpsgen.sources.host import mm as host
from mpsgen.sources.host.library import runs_a_shader_library, with_library
from mpsgen.sources.native import stubs
from mpsgen.tree.changeset import Changeset
from mpsgen.tree.checkout import KERNELS_REL, Checkout



def metal_stem(mm_path: str) -> str:
    """The .metal stem paired with a host .mm: ConstantOps -> ConstantKernel (upstream's pairing), else the same."""
    stem = Path(mm_path).stem
    return stem[: -len("Ops")] + "Kernel" if stem.endswith("Ops") and len(stem) > 3 else stem


def plan_nullary_code(routing: Routing, checkout: Checkout, cs: Changeset, opts: KernelOptions) -> NullaryCode:
    """The kernels, the host kernel and its registration for *routing*'s nullary stub (nothing set in *cs*)."""
    from mpsgen.generate import nullary_kernel as render
    from mpsgen.generate.host_code import host_kernel_name, render_register_dispatch
    from mpsgen.plan.kernel_code import registered_metal_kernel

    nullary, stub = routing.nullary, routing.stub
    assert nullary is not None and stub is not None
    kept = registered_metal_kernel(stub, cs, checkout)
    if kept:  # zero_ once fill_ moved: only its dispatch and MPSGraph code go
        return NullaryCode(kept=kept, value=nullary.value)
    name = nullary.owner
    # every `*_mps(_)` left in that file: zero_mps_ is fill's too (the 2026-shaped tree's ConstantOps.mm)
    mm_rel, dead = host_file(routing, checkout, cs, name, lambda n: n.endswith(("_mps", "_mps_")))
    metal_rel = f"{KERNELS_REL}/{metal_stem(mm_rel)}.metal"
    draft = Draft(cs)
    mm_text = draft.current(mm_rel)
    if runs_a_shader_library(mm_text):
        raise MpsgenError(f"{Path(mm_rel).name} already runs a shader library: the {name} kernels would need a "
                          "file of that library", path=mm_rel, hint=f"register {stub.name} by hand")
    metal_text = render.render_metal(name, stub.name, bfloat_guarded=bfloat_guarded(cs, checkout),
                                     templates_dir=opts.templates_dir)
    added: list[str] = []
    if draft.exists(metal_rel):
        if f'"{name}_dense_"' not in draft.current(metal_rel):
            raise MpsgenError(f"{Path(metal_rel).name} exists and holds no {name}_dense_<T> kernels", path=metal_rel,
                              hint=f"mpsgen writes the {name} kernels into a file of their own; register "
                                   f"{stub.name} by hand")
        metal_text = draft.current(metal_rel)
    else:
        draft.set_text(metal_rel, metal_text, f"{name}_dense/{name}_strided kernels of {stub.name}")
        added.append(f"{metal_rel}: {name}_dense_<T>, {name}_strided_<T> ({len(render.METAL_TYPES) + 1} dtypes)")
    fn = host_kernel_name(name)
    params = stubs.host_params(stub, ("value",))
    iterator = params.split(",", 1)[0].split()[-1]
    host_text = render.render_host(fn, params, op=f"{name}_", name=name, value="value",
                                   dispatch=capabilities(cs).launch.dispatch,
                                   templates_dir=opts.templates_dir).replace("iter.tensor(0)", f"{iterator}.tensor(0)")
    semicolon, ampersand = host.register_dispatch_style(mm_text)
    register_line = render_register_dispatch(stub.name, fn, semicolon, ampersand, opts.templates_dir)
    new_mm = host.add_host_kernel(mm_text, host_text, register_line, path=mm_rel)
    new_mm = host.ensure_include(new_mm, stub.header, path=mm_rel)  # Fill.h declares TensorIterator only
    if not includes_header(new_mm, "ATen/TensorIterator.h", "ATen/native/TensorIterator.h"):
        new_mm = host.ensure_include(new_mm, "ATen/TensorIterator.h", path=mm_rel)
    new_mm = with_library(new_mm, render.render_library(Path(metal_rel).stem, opts.templates_dir), mm_rel)
    draft.set_text(mm_rel, new_mm, f"host kernel for {stub.name}")
    added.append(f"{mm_rel}: {fn} + REGISTER_DISPATCH({stub.name}, …), the {Path(metal_rel).stem} library")
    before = (f"MPSGraph ({', '.join(routing.legacy_kernels)})" if routing.legacy_kernels
              else f"no MPS kernel ({stub.name} unregistered)")
    rows = tuple(Row(dtype, before, f"registered ({metal})", bool(routing.legacy_kernels), True)
                 for dtype, metal in DTYPES.items())
    notes = (f"the value reaches {name}_dense_<T>/{name}_strided_<T> converted by getMPSScalar (Scalar::to<T>, "
             "as the CPU kernel converts it); a dense output and a value of all-zero bits: a blit fill",
             *dead_code_notes(mm_rel, dead))
    return NullaryCode(kernel=name, metal_path=metal_rel, mm_path=mm_rel, metal_text=metal_text, host_code=host_text,
                       register_line=register_line, rows=rows, edits=draft.edits, added=tuple(added), notes=notes,
                       value=nullary.value)



