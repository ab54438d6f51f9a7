"""The texts of the indexing kind (plan/indexing_code.py): index_fill_stub's kernel template and its
per-element-size instances, appended to the host's kernels/<Stem>.metal, and the host kernel registered
on the stub; from templates/index_fill_*.j2."""

from __future__ import annotations

from pathlib import Path

from mpsgen.generate.templating import render_template

# (getBitSizeString's suffix, the Metal type of that size): the kernel copies a value's bits, so one
# instance per element size serves every dtype of that size (2.7's masked_fill_scalar_<N>bit do the same)
BIT_SIZES = (("8bit", "char"), ("16bit", "short"), ("32bit", "int"), ("64bit", "long"))


def register_macro(name: str) -> str:
    return f"REGISTER_{name.upper()}_OP"


# per stub, the roles of the host kernel's parameters in the stub's order (the templates' names for them)
ROLES = {"index_fill_stub": ("iter", "dim", "dim_size", "dim_stride", "value"),
         "gather_stub": ("result", "input", "dim", "index"),  # `self` is render()'s own
         "scatter_add_stub": ("input", "dim", "index", "src"),
         "scatter_stub": ("input", "dim", "index", "src"),
         "scatter_fill_stub": ("input", "dim", "index", "value"),
         "scatter_reduce_stub": ("input", "dim", "index", "src", "reduce"),
         "scatter_scalar_reduce_stub": ("input", "dim", "index", "value", "reduce")}
# per stub, the Metal kernel (and its templates' prefix) that serves it
KERNELS = {"index_fill_stub": "index_fill", "gather_stub": "gather", "scatter_add_stub": "scatter_add",
           **dict.fromkeys(("scatter_stub", "scatter_fill_stub", "scatter_reduce_stub", "scatter_scalar_reduce_stub"),
                           "scatter")}
# Metal types a kernel that computes is instantiated for (scalarToMetalTypeString's names); bfloat only
# where the Metal version has it (the checkout's c10/metal guards it so)
METAL_TYPES = ("float", "half", "long", "int", "short", "char", "uchar", "bool", "float2")
BFLOAT = "bfloat"


def render_metal(name: str, stub: str, templates_dir: str | Path | None, *, bfloat_guarded: bool = False) -> str:
    """The kernel template and its `REGISTER_<NAME>_OP(...)` lines (per element size, or per Metal type with
    bfloat under `__METAL_VERSION__ >= 310` where *bfloat_guarded*), to append to a .metal."""
    types = METAL_TYPES if bfloat_guarded else (*METAL_TYPES, BFLOAT)
    return render_template(f"{name}_kernel.metal.j2", templates_dir, name=name, stub=stub,
                           macro=register_macro(name), sizes=BIT_SIZES, types=types,
                           guarded=(BFLOAT,) if bfloat_guarded else ()) + "\n"


def render_host(fn: str, params: str, names: tuple[str, ...], *, stub: str, name: str, dispatch: str,
                bit_size_helper: bool, templates_dir: str | Path | None) -> str:
    """`static void fn(params)` from templates/<kernel>_host.mm.j2 (scatter's told `from_value` and `reduces`):
    *names* are the host parameters' names in the stub's order; the kernel's
    element-size suffix from the .mm's getBitSizeString where it has one (*bit_size_helper*), else inline."""

    def bits(tensor: str) -> str:
        return (f"getBitSizeString({tensor}.scalar_type())" if bit_size_helper
                else f'std::to_string({tensor}.element_size() * 8) + "bit"')

    roles = ROLES[stub]
    return render_template(f"{name}_host.mm.j2", templates_dir, fn=fn, params=params, op=f"{name}_", name=name,
                           stub=stub, dispatch=dispatch, bits=bits, from_value="value" in roles, reduces="reduce" in roles,
                           **dict(zip(roles, names)))
