"""The texts of the nullary kind (plan/nullary_code.py): the kernels/<Stem>.metal holding a dense and a
strided kernel per dtype that store the one value they are passed, the host kernel registered on the
stub, and the shader-library declaration a .mm that ran no Metal yet needs; from templates/*.j2."""

from __future__ import annotations

from pathlib import Path

from mpsgen.generate.templating import render_template

# Metal element types (scalarToMetalTypeString's names) the kernels are instantiated for, in order;
# bfloat only where the Metal version has it (the checkout's c10/metal guards it so).
METAL_TYPES = ("float", "half", "long", "int", "short", "char", "uchar", "bool", "float2", "half2")
BFLOAT = "bfloat"


def register_macro(name: str) -> str:
    return f"REGISTER_{name.upper()}_OP"


def render_metal(name: str, stub: str, *, bfloat_guarded: bool, templates_dir: str | Path | None) -> str:
    """The whole .metal file: `<name>_dense_<T>` and `<name>_strided_<T>` for every Metal type."""
    types = METAL_TYPES if bfloat_guarded else (*METAL_TYPES, BFLOAT)
    return render_template("nullary_kernel.metal.j2", templates_dir, name=name, stub=stub, macro=register_macro(name),
                           types=types, guarded=(BFLOAT,) if bfloat_guarded else ()) + "\n"


def render_host(fn: str, params: str, *, op: str, name: str, value: str, dispatch: str,
                templates_dir: str | Path | None) -> str:
    """`static void fn(params)` filling iter's output with *value* (an expression of the host's parameters),
    its encoder run through *dispatch* (dispatch_sync_with_rethrow where the checkout declares it)."""
    return render_template("nullary_host.mm.j2", templates_dir, fn=fn, params=params, op=op, name=name, value=value,
                           dispatch=dispatch)


def render_library(stem: str, templates_dir: str | Path | None) -> str:
    """The `lib` a .mm runs kernels/<stem>.metal's kernels from."""
    return render_template("shader_library.mm.j2", templates_dir, stem=stem)
