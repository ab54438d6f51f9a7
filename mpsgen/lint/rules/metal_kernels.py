"""Rules on kernel names between operations/*.mm and kernels/*.metal (names are global in the metallib)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, Iterator

from mpsgen.lint.finding import Basis, Finding, bases
from mpsgen.lint.rules import ERROR, WARNING, rule

if TYPE_CHECKING:
    from mpsgen.lint.inventory import Inventory
    from mpsgen.sources.metal.names import MetalName

_NAME = re.compile(r"[A-Za-z_]\w*")
_VECTOR = re.compile(r"[a-z]+2")


@rule("MPS007", "host-kernel-unregistered", ERROR,
      "a kernel name an operations/*.mm passes to exec_*_kernel is registered by no kernels/*.metal (a runtime error)")
def host_kernel_unregistered(inv: "Inventory") -> Iterator[Finding]:
    """A runtime error: the host asks the metallib for a kernel that is not in it.

    `lib.exec_unary_kernel(iter, "exp")` (and the binary/ternary forms, and
    REGISTER_UNARY_TI_DISPATCH(exp)) look up `exp` plus a dtype/layout suffix; PyTorch fails with
    "Failed to create function state object" on the first call.  A name counts as registered in
    every layout: a c10/metal `REGISTER_*_OP(exp, ...)` line, a `template [[host_name("exp_" #T0 "_"
    #T1)]]` instantiation (through the file's own macros), or a plain `kernel void exp(...)`.
    The host's forms of every era are read: `binary_mps_impl(iter, "fmax")` (2.6-2.7),
    `getPipelineStateForFunc("name")` or `("name_" + type)`, and a file's own macro running
    `#NAME` (REGISTER_UNARY_TI_DISPATCH).  A name whose REGISTER_* lines all register two-lane
    vector types (float2, half2: how complex tensors run) is reported too: a real tensor fails.
    Names built at run time (fmt::format, a variable) and .mm files with inline shader sources are
    not checked.

    Fix: register the kernel in kernels/<Stem>.metal (a functor and its REGISTER_* lines), or fix
    the name.
    """
    names = inv.metal_names
    for mm, calls in inv.host_calls.items():
        stems = inv.metal_stems(mm)
        for call in calls:
            if not _NAME.fullmatch(call.kernel):
                continue
            where = names.where(call.kernel)
            vector_only = _vector_only(inv, call.kernel, where)
            if vector_only:
                yield host_kernel_unregistered.finding(
                    mm, call.line,
                    f"kernel '{call.kernel}' is run here but kernels/*.metal register it only for "
                    f"{', '.join(vector_only)} (complex) inputs, so a real tensor fails",
                    col=call.col,
                    hint=f"restore its REGISTER_* lines for the real dtypes in kernels/{stems[0]}.metal",
                    rests_on=bases([Basis(n.path, n.line) for n in where], _metal_files_first(inv, stems)),
                )
            if where:
                continue
            yield host_kernel_unregistered.finding(
                mm, call.line,
                f"kernel '{call.kernel}' is run here but no kernels/*.metal registers it",
                col=call.col,
                hint=f"add a {call.kernel}_functor and its REGISTER_* lines to kernels/{stems[0]}.metal, "
                "or fix the name",
                rests_on=_metal_files_first(inv, stems),  # names are global: any .metal could register it
            )


@rule("MPS008", "functor-unregistered", WARNING,
      "a functor (struct NAME_functor) in a .metal file that no REGISTER_* line instantiates")
def functor_unregistered(inv: "Inventory") -> Iterator[Finding]:
    """Unfinished or leftover Metal code: a functor from which no kernel is built.

    A `struct x_functor` (or a DEFINE_*_FUNCTOR(x)) that no registration names and no other code
    of the .metal files uses compiles to nothing: a migration that wrote the functor but not its
    `REGISTER_*_OP(x, ...)` lines, or one whose registrations were deleted.

    Fix: add the REGISTER_* lines for it, or delete it.
    """
    names = inv.metal_names
    uses = inv.functor_uses
    for ix in inv.metal_indexes:
        for f in ix.functors:
            if names.where(f.name):
                continue
            if uses.get(f.name, 0) > (0 if f.macro else 1):
                continue  # used by a hand-written kernel or another functor
            yield functor_unregistered.finding(
                ix.path, f.line,
                f"{f.name}_functor is never registered, so no kernel is built from it",
                hint=f"add REGISTER_*_OP({f.name}, ...) lines for it, or delete it",
                rests_on=inv.metal_files,  # a registration or use in another .metal would do
            )


@rule("MPS009", "kernel-stem-mismatch", ERROR,
      "a kernel is registered in a .metal whose stem differs from the .mm that runs it (breaks JIT-shader builds)")
def kernel_stem_mismatch(inv: "Inventory") -> Iterator[Finding]:
    """A runtime error in JIT-shader builds (PYTORCH_JIT_COMPILE_SHADERS).

    Such a build compiles, for operations/X.mm, only the shaders of its `<Stem>_metallib.h`
    includes (kernels/X.metal by default), so a kernel registered only in another .metal is
    missing at run time there, although the default metallib build works.

    Fix: move the functor and its registrations to kernels/<Stem>.metal of the calling .mm.
    """
    names = inv.metal_names
    seen: set[tuple[str, str]] = set()
    for mm, calls in inv.host_calls.items():
        stems = inv.metal_stems(mm)
        for call in calls:
            where = names.where(call.kernel) if _NAME.fullmatch(call.kernel) else ()
            if not where or (call.kernel, mm) in seen or any(Path(n.path).stem in stems for n in where):
                continue
            seen.add((call.kernel, mm))
            first = where[0]
            yield kernel_stem_mismatch.finding(
                first.path, first.line,
                f"kernel '{call.kernel}' is registered in {Path(first.path).name} but run from {mm}:{call.line}, "
                f"whose JIT-shader build only sees {', '.join(s + '.metal' for s in stems)}",
                hint=f"move {call.kernel}_functor and its registrations to kernels/{stems[0]}.metal",
                rests_on=bases([Basis(mm, call.line)], _metal_files_first(inv, stems)),
            )


def _vector_only(inv: "Inventory", kernel: str, where: tuple["MetalName", ...]) -> tuple[str, ...]:
    """The dtypes of *kernel* when every registration is a REGISTER_* line of a two-lane vector type
    (float2, half2: how complex tensors run); () otherwise, or when some registration is another form."""
    if not where or not all(n.suffixed for n in where):
        return ()
    dtypes = inv.registered_dtypes.get(kernel, frozenset())
    return tuple(sorted(dtypes)) if dtypes and all(_VECTOR.fullmatch(d) for d in dtypes) else ()


def _metal_files_first(inv: "Inventory", stems: tuple[str, ...]) -> tuple[Basis, ...]:
    """Every kernels/*.metal, those of *stems* (where the registration belongs) first."""
    own = [p for p in inv.metal_files if Path(p).stem in stems]
    return bases(own, inv.metal_files)
