"""The texts of the reduction kind (plan/reduction_code.py): kernels/ReduceOps.metal (one threadgroup per output
element, simd_* reductions, an op struct per reduction and its registrations), the host kernels registered on
the reduce stubs; from templates/*.j2 (the simdgroup helpers a 2.7 c10/metal/reduction_utils.h lacks are
backfill/simd_helpers').

The table of reductions (each one's stub, reference op and accumulation types) is generate/reduction_ops.py's,
apart so that check's frontier reads it without this module's patterns and templates.
"""

from __future__ import annotations

import re
from pathlib import Path

from mpsgen.errors import MpsgenError
from mpsgen.generate.reduction_ops import REDUCTIONS
from mpsgen.generate.templating import render_template

BFLOAT = "bfloat"
ORDER = tuple(op.name for op in REDUCTIONS.values())  # the file's op order, whatever order they were migrated in
BY_NAME = {op.name: op for op in REDUCTIONS.values()}
METAL_FILE = "ReduceOps.metal"  # upstream's name for the kernels of operations/ReduceOps.mm
HELPER = "reduce_mps_impl"  # the host helper every reduction's host kernel calls
NORM_HELPER = "reduce_norm_mps_impl"  # norm_stub's: the input may be complex, the ord passed as p
STRUCTS = ("sum_op", "mean_op", "nansum_op", "max_op", "min_op", "all_op", "any_op", "norm_op", "aminmax_op")
NORM_CLASSES = ("zero", "one", "two", "inf", "neg_inf", "p")  # the CPU norm kernel's ord classes: a kernel each
_MACRO_COMMENT = "// NAME_<T> (reduce_<op>_<T>):"
_REGISTERED = re.compile(r'^REGISTER_(?:REDUCTION\(reduce_(\w+), (\w+)|NORM\(reduce_(norm), (\w+)|AMINMAX\(reduce_(aminmax)), '
                         r'(\w+)\);', re.MULTILINE)


def registered_ops(metal: str) -> tuple[str, ...]:
    """The reductions a kernels/ReduceOps.metal text registers, in the file's order."""
    return tuple(dict.fromkeys(op for op, _, _ in registrations(metal)))


def registrations(metal: str) -> tuple[tuple[str, str, str], ...]:
    """(op, struct, Metal type) of each REGISTER_REDUCTION line, and of each REGISTER_NORM line ("norm",
    norm_<class>_op, T)."""
    return tuple((m.group(1), m.group(2), m.group(6)) if m.group(1) else
                 ("norm", f"norm_{m.group(4)}_op", m.group(6)) if m.group(3) else ("aminmax", "aminmax_op", m.group(6))
                 for m in _REGISTERED.finditer(metal))


def _structs(ops: tuple[str, ...] | list[str]) -> tuple[str, ...]:
    """The op structs *ops* need, in the file's order (mean_op and nansum_op derive from sum_op; aminmax folds
    with min_op and max_op)."""
    wanted = {BY_NAME[n].struct for n in ops} | ({"sum_op"} if {"mean", "nansum"} & set(ops) else set()) \
        | ({"max_op", "min_op"} if "aminmax" in ops else set())
    return tuple(s for s in STRUCTS if s in wanted)


def _registrations(ops: list[str], bfloat_guarded: bool, templates_dir: str | Path | None) -> str:
    plain = {n: tuple(p for p in BY_NAME[n].types if not (bfloat_guarded and p[0] == BFLOAT)) for n in ops}
    guarded = {n: tuple(p for p in BY_NAME[n].types if bfloat_guarded and p[0] == BFLOAT) for n in ops}
    return render_template("reduction_registrations.metal.j2", templates_dir, ops=ops, registrations=plain,
                           guarded=guarded, structs={n: BY_NAME[n].struct for n in ops}, classes=NORM_CLASSES)


def render_metal(ops: tuple[str, ...] | list[str], *, bfloat_guarded: bool, templates_dir: str | Path | None) -> str:
    """kernels/ReduceOps.metal registering *ops* (in ORDER), bfloat behind the Metal version where the
    checkout's c10/metal guards it so."""
    chosen = [name for name in ORDER if name in ops]
    structs = render_template("reduction_structs.metal.j2", templates_dir, structs=_structs(chosen))
    return render_template("reduction_kernel.metal.j2", templates_dir, structs=structs,
                           registrations=_registrations(chosen, bfloat_guarded, templates_dir)) + "\n"


def with_reduction(text: str, name: str, *, bfloat_guarded: bool, templates_dir: str | Path | None,
                   path: str) -> str:
    """A kernels/ReduceOps.metal *text* mpsgen wrote, with reduction *name*'s op structs it lacks (before the
    REGISTER_REDUCTION macro's comment) and its registrations (at the end)."""
    at = text.find(_MACRO_COMMENT)
    if at < 0:
        raise MpsgenError(f"{Path(path).name} holds no REGISTER_REDUCTION macro of mpsgen's reduction kernels",
                          path=path, hint=f"register the {name} kernels by hand")
    missing = tuple(s for s in _structs([name]) if not re.search(rf"^struct {s}\b", text, re.MULTILINE))
    structs = render_template("reduction_structs.metal.j2", templates_dir, structs=missing).strip("\n")
    head = text[:at].rstrip("\n") + ("\n\n" + structs if structs else "") + "\n\n"
    tail = text[at:].rstrip("\n") + "\n" + _registrations([name], bfloat_guarded, templates_dir).rstrip("\n") + "\n"
    return head + tail


def render_helper(*, dispatch: str, templates_dir: str | Path | None) -> str:
    """The host helper `reduce_mps_impl(iter, name)` every reduction's host kernel calls, its encoder run
    through *dispatch* (dispatch_sync_with_rethrow where the checkout declares it)."""
    return render_template("reduction_helper.mm.j2", templates_dir, helper=HELPER, dispatch=dispatch,
                           metal_file=METAL_FILE)


def render_norm_helper(*, dispatch: str, templates_dir: str | Path | None) -> str:
    """The host helper `reduce_norm_mps_impl(iter, name, p)` norm_stub's host kernel calls (the reduce
    helper's layout; an input of the output's dtype or its complex type, and the ord)."""
    return render_template("reduction_norm_helper.mm.j2", templates_dir, helper=NORM_HELPER, dispatch=dispatch,
                           metal_file=METAL_FILE)


AMINMAX_HELPER = "aminmax_mps_impl"  # aminmax's two host kernels lay the tensors out through it


def render_aminmax_host(fn: str, params: str, also_fn: str, also_params: str, *, helper_needed: bool, dispatch: str,
                        templates_dir: str | Path | None) -> str:
    """aminmax_stub's and aminmax_allreduce_stub's host kernels (`fn(params)`, `also_fn(also_params)`), after the
    helper laying out their tensors when the .mm lacks it."""
    def names(ps: str) -> list[str]:
        return [re.sub(r".*[\s&*]", "", p.strip()) for p in ps.split(",")]

    return render_template("reduction_aminmax_host.mm.j2", templates_dir, helper=AMINMAX_HELPER, fn=fn, params=params,
                           names=names(params), also_fn=also_fn, also_params=also_params, also_names=names(also_params),
                           helper_needed=helper_needed, dispatch=dispatch, metal_file=METAL_FILE).rstrip("\n")


def render_host(fn: str, params: str, iterator: str, op: str, *, templates_dir: str | Path | None,
                scalar: str = "") -> str:
    """`static void fn(params)` running reduce_<op>_<T> on the stub's iterator through the helper (norm: the
    kernel of the ord's class through the norm helper)."""
    if op == "norm":
        return render_template("reduction_norm_host.mm.j2", templates_dir, helper=NORM_HELPER, fn=fn, params=params,
                               iterator=iterator, ord=scalar)
    return render_template("reduction_host.mm.j2", templates_dir, helper=HELPER, fn=fn, params=params,
                           iterator=iterator, op=op)

