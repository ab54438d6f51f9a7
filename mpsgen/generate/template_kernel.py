"""Kernels in the early-2025 TEMPLATE_HOST_NAME layout (PyTorch 2.6-2.7 UnaryKernel.metal).

That file has no REGISTER_UNARY_OP: each op is a template kernel ``op_kernel<T0, T1>`` (output,
input) instantiated by ``template [[host_name("op_" #DTYPE0 "_" #DTYPE1)]]`` declarations, and
complex inputs go to ``op_complex_kernel<T0>`` on ``vec2type_t<T0>``, looked up as
``op_complex_float_float`` (2.7's exec_unary_kernel).  mpsgen's kernels apply the op's functor,
so the numeric check runs the very code the kernel calls.  A kernel with scalars takes them as
2.7's round_decimals_kernel takes its ndigits, a ``constant`` argument after the input (one scalar
under its own name, several in the op's params struct), instantiated through a macro of its own.

Pure text in, text out; sources/metal/host_name.py places it.
"""

from __future__ import annotations

from typing import Sequence

from mpsgen.errors import MpsgenError
from mpsgen.model import KernelSpec
from mpsgen.records import NamedTuple

COLUMN_LIMIT = 80


class Instance(NamedTuple):
    """One instantiation: the Metal output and input types (2.7's INSTANTIATE_*(DTYPE0, DTYPE1) order)."""

    out: str
    inp: str
    complex_: bool = False
    alpha: str = ""  # the type the kernel's scalar argument has (a kernel with scalars)


def alpha_name(spec: KernelSpec) -> str:
    """The kernel's scalar argument: the one scalar under its own name, several as `params`; "" for none."""
    if not spec.scalars:
        return ""
    return "params" if spec.has_params else spec.scalars[0]


def _alpha_line(spec: KernelSpec, type_: str, indent: str = "    ") -> list[str]:
    return [f"{indent}constant {type_}& {alpha_name(spec)} [[buffer(2)]],"] if spec.scalars else []


def _kernel(tparams: str, name: str, out_type: str, in_type: str, value: str, alpha: Sequence[str] = ()) -> str:
    """One kernel in the file's own signature: output, input, (the scalar argument,) the thread's index."""
    return "\n".join([f"template <{tparams}>",
                      f"kernel void {name}(",
                      f"    device {out_type}* output [[buffer(0)]],",
                      f"    constant {in_type}* input [[buffer(1)]],",
                      *alpha,
                      "    uint index [[thread_position_in_grid]]) {",
                      f"  output[index] = {value};",
                      "}"])


def scalar_kernel(spec: KernelSpec) -> str:
    n = spec.name
    if spec.scalars:
        return _kernel("typename T0, typename T1, typename T2", f"{n}_kernel", "T0", "T1",
                       f"static_cast<T0>({n}_functor()(input[index], {alpha_name(spec)}))", _alpha_line(spec, "T2"))
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
    from mpsgen.generate.render import INT_TYPES, kept_types, output_type, scalar_type_for

    def alpha(fam: str, t: str) -> str:  # as the host fills it: the input's type (or opmath), float for int2float
        if not spec.scalars:
            return ""
        scalar = "float" if fam == "int2float" else scalar_type_for(spec, t)
        return f"{spec.params_struct}<{scalar}>" if spec.has_params else scalar

    out: list[Instance] = []
    for fam, types in (("float", ("bfloat", "half", "float")), ("int2float", INT_TYPES), ("integer", INT_TYPES)):
        if fam in spec.dtypes:
            out += [Instance(output_type(spec, t, fam), t, alpha=alpha(fam, t)) for t in kept_types(spec, types)]
    if "complex" in spec.dtypes:
        if spec.scalars:
            raise MpsgenError(f"{spec.name} takes scalars and complex inputs: mpsgen writes its template kernel for "
                              "real types only", hint="pass --drop-dtypes complex64, or write the kernel by hand")
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
                *_alpha_line(spec, "DTYPEA", "      "),
                "      uint id [[thread_position_in_grid]])"]
        head = f"#define {own_macro_name(spec)}(DTYPE0, DTYPE1{', DTYPEA' if spec.scalars else ''})"
    return align_backslashes([head, *body])


def own_macro_calls(spec: KernelSpec) -> list[str]:
    """The calls of the op's own macros, bfloat behind the file's `__METAL_VERSION__ >= 310` guard."""
    lines: list[str] = []
    for inst in instances(spec):
        if inst.complex_:
            lines.append(f"{own_macro_name(spec, True)}({inst.inp});")
            continue
        alpha = f", {inst.alpha}" if inst.alpha else ""
        call = f"{own_macro_name(spec)}({inst.out}, {inst.inp}{alpha});"
        lines += ["#if __METAL_VERSION__ >= 310", call, "#endif"] if "bfloat" in (inst.out, inst.inp) else [call]
    return lines


def own_block(spec: KernelSpec, functor: str) -> list[str]:
    """Functor, kernels, macros and calls, for the end of the file (2.7 adds sinc and round_decimals so)."""
    from mpsgen.generate.render import render_params_struct

    # 2.7's Metal build sees no header the host shares: the params struct is the file's own
    parts = [*([render_params_struct(spec)] if spec.has_params else []), functor, *kernels(spec)]
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
            alpha = f"constant {inst.alpha}& {alpha_name(spec)} [[buffer(2)]], " if inst.alpha else ""
            out.append(f'template [[host_name("{name}")]] kernel void {spec.name}_kernel('
                       f"device {inst.out}* output [[buffer(0)]], constant {inst.inp}* input [[buffer(1)]], "
                       f"{alpha}uint id [[thread_position_in_grid]]);")
    return out
