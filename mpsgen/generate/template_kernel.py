"""Kernels in the early-2025 TEMPLATE_HOST_NAME layout (PyTorch 2.6-2.7 UnaryKernel.metal).

That file has no REGISTER_UNARY_OP: each op is a template kernel ``op_kernel<T0, T1>`` (output,
input) instantiated by ``template [[host_name("op_" #DTYPE0 "_" #DTYPE1)]]`` declarations, and
complex inputs go to ``op_complex_kernel<T0>`` on ``vec2type_t<T0>``, looked up as
``op_complex_float_float`` (2.7's exec_unary_kernel).  mpsgen's kernels apply the op's functor,
so the numeric check runs the very code the kernel calls.

Pure text in, text out; sources/metal_host_name.py places it.
"""

from __future__ import annotations

from typing import NamedTuple

from mpsgen.model import KernelSpec

COLUMN_LIMIT = 80


class Instance(NamedTuple):
    """One instantiation: the Metal output and input types (2.7's INSTANTIATE_*(DTYPE0, DTYPE1) order)."""

    out: str
    inp: str
    complex_: bool = False


def _kernel(tparams: str, name: str, out_type: str, in_type: str, value: str) -> str:
    """One kernel in the file's own signature: output, input, the thread's index."""
    return (f"template <{tparams}>\n"
            f"kernel void {name}(\n"
            f"    device {out_type}* output [[buffer(0)]],\n"
            f"    constant {in_type}* input [[buffer(1)]],\n"
            f"    uint index [[thread_position_in_grid]]) {{\n"
            f"  output[index] = {value};\n"
            f"}}")


def scalar_kernel(spec: KernelSpec) -> str:
    n = spec.name
    return _kernel("typename T0, typename T1", f"{n}_kernel", "T0", "T1",
                   f"static_cast<T0>({n}_functor()(input[index]))")


def _complex_out(spec: KernelSpec, dtype: str) -> str:
    """What a complex kernel writes: bool for a bool result (exec_unary_kernel's name for it has no
    output type: <op>_complex_float_float), else the complex type."""
    return "bool" if spec.result == "bool" else f"vec2type_t<{dtype}>"


def complex_kernel(spec: KernelSpec) -> str:
    # In float2: the file's own VEC2 list instantiates short (ComplexHalf's storage) beside float.
    n = spec.name
    value = f"{n}_functor()(float2(input[index]))"
    return _kernel("typename T0", f"{n}_complex_kernel", _complex_out(spec, "T0"), "vec2type_t<T0>",
                   value if spec.result == "bool" else f"vec2type_t<T0>({value})")


def kernels(spec: KernelSpec) -> list[str]:
    """The kernel definitions *spec* needs (each without a trailing newline)."""
    out = []
    if any(fam != "complex" for fam in spec.dtypes):
        out.append(scalar_kernel(spec))
    if "complex" in spec.dtypes:
        out.append(complex_kernel(spec))
    return out


def instances(spec: KernelSpec) -> list[Instance]:
    """Every (output, input) pair the registrations cover, float family first, as the file lists them."""
    from mpsgen.generate.render import INT_TYPES, kept_types, output_type

    out: list[Instance] = []
    for fam, types in (("float", ("bfloat", "half", "float")), ("int2float", INT_TYPES), ("integer", INT_TYPES)):
        if fam in spec.dtypes:
            out += [Instance(output_type(spec, t, fam), t) for t in kept_types(spec, types)]
    if "complex" in spec.dtypes:
        out.append(Instance("float", "float", complex_=True))
    return out


def host_name(spec: KernelSpec, inst: Instance) -> str:
    """The name exec_unary_kernel looks up: op_<out>_<in>, op_complex_float_float."""
    middle = "_complex" if inst.complex_ else ""
    return f"{spec.name}{middle}_{inst.out}_{inst.inp}"


def declaration_head(prefix: str, out_arg: str, in_arg: str, function: str, indent: str = "  ") -> list[str]:
    """``template [[host_name("prefix" #OUT "_" #IN)]] kernel void function(`` wrapped as clang-format
    does at 80 columns with a trailing `` \\`` (the head on one line when it fits)."""
    head = f'{indent}template [[host_name("{prefix}" #{out_arg} "_" #{in_arg})]] kernel void'
    if len(f"{head} {function}(") + 2 <= COLUMN_LIMIT:
        return [f"{head} {function}("]
    return [head, f"{indent}{function}("]


def own_macro_name(spec: KernelSpec, complex_: bool = False) -> str:
    return f"INSTANTIATE_{spec.name.upper()}{'_COMPLEX' if complex_ else ''}_KERNEL"


def own_macro(spec: KernelSpec, complex_: bool) -> list[str]:
    """A macro of the op's own, as 2.7's INSTANTIATE_SINC_KERNEL: for instantiation lists that
    INSTANTIATE_UNARY_KERNELS2 (bfloat, half, float, every integer -> float) does not match."""
    n = spec.name
    if complex_:
        body = [*declaration_head(f"{n}_complex_", "DTYPE", "DTYPE", f"{n}_complex_kernel<DTYPE>"),
                f"      device {_complex_out(spec, 'DTYPE')}* output [[buffer(0)]],",
                "      constant vec2type_t<DTYPE>* input [[buffer(1)]],",
                "      uint id [[thread_position_in_grid]])"]
        head = f"#define {own_macro_name(spec, True)}(DTYPE)"
    else:
        body = [*declaration_head(f"{n}_", "DTYPE0", "DTYPE1", f"{n}_kernel"),
                "      device DTYPE0* output [[buffer(0)]],",
                "      constant DTYPE1* input [[buffer(1)]],",
                "      uint id [[thread_position_in_grid]])"]
        head = f"#define {own_macro_name(spec)}(DTYPE0, DTYPE1)"
    return align_backslashes([head, *body])


def own_macro_calls(spec: KernelSpec) -> list[str]:
    """The calls of the op's own macros, bfloat behind the file's `__METAL_VERSION__ >= 310` guard."""
    lines: list[str] = []
    for inst in instances(spec):
        if inst.complex_:
            lines.append(f"{own_macro_name(spec, True)}({inst.inp});")
            continue
        call = f"{own_macro_name(spec)}({inst.out}, {inst.inp});"
        lines += ["#if __METAL_VERSION__ >= 310", call, "#endif"] if "bfloat" in (inst.out, inst.inp) else [call]
    return lines


def own_block(spec: KernelSpec, functor: str) -> list[str]:
    """Functor, kernels, macros and calls, for the end of the file (2.7 adds sinc and round_decimals so)."""
    parts = [functor, *kernels(spec)]
    if any(fam != "complex" for fam in spec.dtypes):
        parts.append("\n".join(own_macro(spec, False)))
    if "complex" in spec.dtypes:
        parts.append("\n".join(own_macro(spec, True)))
    parts.append("\n".join(own_macro_calls(spec)))
    return "\n\n".join(parts).split("\n")


def align_backslashes(lines: list[str], column: int | None = None) -> list[str]:
    """Every line but the last ends in `` \\`` one past the longest line, as PyTorch's clang-format
    (AlignEscapedNewlines: Left) puts it, or at *column* (the macro's own) when that is further right."""
    content = [ln.rstrip("\\").rstrip() for ln in lines]
    longest = max(len(c) for c in content[:-1]) if len(content) > 1 else 0
    width = max(longest + 1, column or 0)
    return [c.ljust(width) + "\\" if k < len(content) - 1 else c for k, c in enumerate(content)]


def explicit_instantiations(spec: KernelSpec) -> list[str]:
    """Each instance as a plain declaration (what the macros expand to), for the numeric check's build."""
    out = []
    for inst in instances(spec):
        name = host_name(spec, inst)
        if inst.complex_:
            out.append(f'template [[host_name("{name}")]] kernel void {spec.name}_complex_kernel<{inst.inp}>('
                       f"device {_complex_out(spec, inst.inp)}* output [[buffer(0)]], "
                       f"constant vec2type_t<{inst.inp}>* input [[buffer(1)]], uint id [[thread_position_in_grid]]);")
        else:
            out.append(f'template [[host_name("{name}")]] kernel void {spec.name}_kernel('
                       f"device {inst.out}* output [[buffer(0)]], constant {inst.inp}* input [[buffer(1)]], "
                       "uint id [[thread_position_in_grid]]);")
    return out
