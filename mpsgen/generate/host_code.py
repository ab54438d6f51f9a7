"""The host side of a kernel in operations/*.mm: the `static void x_mps_kernel(<stub signature>)`
function (one exec_*_kernel call, or a params struct filled inside AT_DISPATCH), and its
REGISTER_DISPATCH line, laid out as clang-format lays out PyTorch's .mm files."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Sequence

from mpsgen.errors import MpsgenError
from mpsgen.generate.templating import render_template
from mpsgen.model import KernelSpec

COLUMN_LIMIT = 120  # PyTorch's .clang-format, `Language: ObjC` section (.mm files)


def _wrap_call(indent: int, head: str, args: Sequence[str], tail: str, *, declaration: bool,
               brackets: str = "()") -> str:
    """Lay out ``head(args)tail`` the way clang-format does with the ObjC section of PyTorch's
    .clang-format, which governs .mm files (ColumnLimit 120, AlignAfterOpenBracket Align, no
    bin-packing): one line if it fits, else one argument per line aligned after the parenthesis.
    *brackets* "{}" lays out a braced initializer the same way (Cpp11BracedListStyle)."""
    pad, opening, closing = " " * indent, brackets[0], brackets[1]
    one = f"{pad}{head}{opening}{', '.join(args)}{closing}{tail}"
    if len(one) <= COLUMN_LIMIT:
        return one
    cont = " " * (indent + 4)
    # A call may put all its arguments on one continuation line (clang-format prefers that);
    # a declaration may not (BinPackParameters false).
    joined = f"{cont}{', '.join(args)}{closing}{tail}"
    if not declaration and len(joined) <= COLUMN_LIMIT:
        return f"{pad}{head}{opening}\n{joined}"
    align = " " * (indent + len(head) + 1)
    aligned = f"{pad}{head}{opening}" + (",\n" + align).join(args) + f"{closing}{tail}"
    if len(args) > 1 and max(len(line) for line in aligned.split("\n")) <= COLUMN_LIMIT:
        return aligned
    # Aligning does not fit: clang-format breaks after the parenthesis, one argument per line.
    return f"{pad}{head}{opening}\n{cont}" + (",\n" + cont).join(args) + f"{closing}{tail}"


def _exec_fn(arity: str) -> str:
    kind = arity.split("_")[0]
    return f"lib.exec_{kind}_kernel" + ("_with_params" if arity.endswith("_params") else "")


def exec_call_args(arity: str, kernel: str, scalar: str | None = None, *,
                   opmath: bool = False, result_args: Sequence[str] = ()) -> tuple[str, list[str]]:
    """The ``lib.exec_*_kernel`` callee and arguments for an arity (alpha forms pass the scalar; one
    riding at float says so, as upstream's polygamma says ScalarType::Int).  *result_args*: what a
    kernel returning bool passes after its name, as its neighbours do (`..., kBool`)."""
    args = ["iter", f'"{kernel}"', *result_args]
    if arity.endswith("_alpha"):
        args.append(scalar or "alpha")
        if opmath:
            args.append("at::isReducedFloatingType(iter.common_dtype()) ? kFloat : iter.common_dtype()")
    return _exec_fn(arity), args


def scalar_argument(cpp_type: str, name: str) -> str:
    """A stub's scalar as exec_*_kernel's `std::optional<Scalar> alpha` takes it."""
    return name if "Scalar" in cpp_type else f"Scalar({name})"


# An absent std::optional scalar, as the CPU kernel fills it (nan_to_num_kernel: value_or(0.),
# numeric_limits<scalar_t>::max() and ::lowest()).
_ABSENT = {"zero": "static_cast<scalar_t>(0)", "max": "std::numeric_limits<scalar_t>::max()",
           "lowest": "std::numeric_limits<scalar_t>::lowest()"}


def _converted(cpp_type: str, name: str, to: str) -> str:
    """A stub's scalar converted to the kernel's type, as CPU kernels do (`beta.to<scalar_t>()`)."""
    return f"{name}.to<{to}>()" if "Scalar" in cpp_type else f"static_cast<{to}>({name})"


def _filled(cpp_type: str, name: str, default: str) -> str:
    """An optional scalar in the input's type, its absence by the catalog's default, as the CPU kernel
    writes it: `const auto posinf_value = posinf ? static_cast<scalar_t>(*posinf) : ...max();`."""
    if default not in _ABSENT:
        raise MpsgenError(f"{name} is {cpp_type}, and the catalog gives no value for its absence",
                          hint="add param_defaults to the op's catalog entry, or write the host kernel by hand")
    return f"    const auto {name}_value = {name} ? static_cast<scalar_t>(*{name}) : {_ABSENT[default]};"


def _dispatch_macro(spec: KernelSpec) -> str:
    floats, ints = "float" in spec.dtypes, "integer" in spec.dtypes
    with_bool = ints and "bool" not in spec.skip
    if "complex" in spec.dtypes and floats:  # addcmul's complex value, passed as the kernel's float2
        if ints:
            return ("AT_DISPATCH_ALL_TYPES_AND_COMPLEX_AND3(kBool, kHalf, kBFloat16" if with_bool
                    else "AT_DISPATCH_ALL_TYPES_AND_COMPLEX_AND2(kHalf, kBFloat16")
        return "AT_DISPATCH_FLOATING_AND_COMPLEX_TYPES_AND2(kHalf, kBFloat16"
    if floats and ints:
        return "AT_DISPATCH_ALL_TYPES_AND3(kBool, kHalf, kBFloat16" if with_bool else "AT_DISPATCH_ALL_TYPES_AND2(kHalf, kBFloat16"
    if ints:
        return "AT_DISPATCH_INTEGRAL_TYPES_AND(kBool" if with_bool else "AT_DISPATCH_INTEGRAL_TYPES("
    return "AT_DISPATCH_FLOATING_TYPES_AND2(kHalf, kBFloat16"


def params_host_body(spec: KernelSpec, scalar_types: Sequence[str]) -> str:
    """The body of a params form's host kernel: the struct filled from the stub's scalars, then
    exec_*_kernel_with_params with the struct's Metal name (as upstream's elu and threshold do)."""
    struct, fn = spec.params_struct, _exec_fn(spec.arity)
    lines, value_t, init = _dispatch_opening(spec, scalar_types)
    metal = "c10::CppTypeToScalarType<opmath_t>::value" if value_t == "opmath_t" else "iter.common_dtype()"
    lines.append(_wrap_call(4, f"{struct}<{value_t}> params", init, ";", declaration=False, brackets="{}"))
    name = f'fmt::format("{struct}_{{}}", mps::scalarToMetalTypeString({metal}))'
    lines.append(_wrap_call(4, fn, ["iter", f'"{spec.name}"', "params", name], ";", declaration=False))
    lines.append("  });")
    return "\n".join(lines)


def host_kernel_name(kernel: str) -> str:
    """The host function that runs Metal kernel (or op) *kernel*: atan2 -> atan2_mps_kernel."""
    return f"{kernel}_mps_kernel"


def render_host_kernel(
    fn_name: str,
    params: str | Sequence[str],
    exec_call: str | tuple[str, Sequence[str]],
    templates_dir: str | Path | None = None,
    *,
    body: str | None = None,
) -> str:
    """``static void fn(params) {\\n  lib.exec_...(iter, "k");\\n}`` formatted like clang-format.

    *exec_call* is either the call text without ``;`` or ``(callee, args)`` from exec_call_args;
    *body* (params_host_body) replaces the one call with several lines.
    """
    plist = [p.strip() for p in params.split(",")] if isinstance(params, str) else list(params)
    head = f"static void {fn_name}"
    if len(head) + 1 > COLUMN_LIMIT:  # clang-format then breaks after the return type
        signature = "static void\n" + _wrap_call(0, fn_name, plist, " {", declaration=True)
    else:
        signature = _wrap_call(0, head, plist, " {", declaration=True)
    if body is not None:
        call = body
    else:
        callee, args = _split_call(exec_call) if isinstance(exec_call, str) else (exec_call[0], list(exec_call[1]))
        call = _wrap_call(2, callee, args, ";", declaration=False)
    return render_template("host_kernel.mm.j2", templates_dir, signature=signature, call=call, fn_name=fn_name)


def _split_call(text: str) -> tuple[str, list[str]]:
    m = re.fullmatch(r"\s*([\w:.>-]+)\((.*)\)\s*;?\s*", text, re.S)
    if not m:
        raise MpsgenError(f"not a call expression: {text!r}", hint='write it as lib.exec_binary_kernel(iter, "name")')
    return m.group(1), _split_args(m.group(2))


def _split_args(text: str) -> list[str]:
    """Split on top-level commas (not inside (), <>, [] or strings)."""
    from mpsgen.scan.brackets import split_bounds
    from mpsgen.scan.mask import mask_code

    args = [text[a:b].strip() for a, b in split_bounds(mask_code(text))]
    return args[:-1] if args and not args[-1] else args


def render_register_dispatch(
    stub: str, fn: str, semicolon: bool, ampersand: bool, templates_dir: str | Path | None = None
) -> str:
    """``REGISTER_DISPATCH(stub, &fn);`` with the file's ``&`` and ``;`` habits."""
    call = _wrap_call(0, "REGISTER_DISPATCH", [stub, f"&{fn}" if ampersand else fn], ";" if semicolon else "",
                      declaration=True)  # at namespace scope clang-format reads it as a declaration
    return render_template("register_dispatch.mm.j2", templates_dir, call=call, stub=stub, fn=fn)


# What a kernel registered for input type t writes (result_of<t, functor>), per catalog result kind.
_RESULT_TYPE = {"same": "(ScalarType t) { return t; }",
                "float": "(ScalarType t) { return isIntegralType(t, /*includeBool=*/true) ? kFloat : t; }",
                "bool": "(ScalarType) { return kBool; }"}


def binary_mps_impl_body(kernel: str, result: str, *, helper: str = "binary_mps_impl", extra: str = "",
                         inputs: int = 2, iterator: str = "binary_op") -> str:
    """The body of a host kernel for PyTorch 2.7's BinaryKernel.mm.  Its binary_mps_impl reads both
    inputs in input(0)'s dtype, from the GPU, and writes the kernel's result type: a CPU scalar
    (`x.fmod(2)`) or a second dtype is cast to the iterator's common dtype first, and an output of
    another dtype (`half.atan2_(float)`) gets the result through a temporary of the result type (bool
    for a comparison); the new iterator is TensorIterator::*iterator*, built as the shared kernel builds
    its own (plan/host_iterator: comparison_op for a bool result).  *inputs* 3: the same for
    the ternary_mps_impl the change adds beside it.  A complex result (polar) needs none of it: its shared
    kernel checked both inputs share one dtype and the output is its complex type, and its iterator allows
    no CPU scalar, as 2.7's own polar_out_mps relied on."""
    if result == "complex":
        return (f"  // the shared kernel checked both inputs share one dtype; the output is its complex type\n"
                f"  mps::{helper}(iter, \"{kernel}\"{extra});")
    cpu = " || ".join(f"iter.is_cpu_scalar({k})" for k in range(1, inputs + 1))
    mixed = " || ".join(f"iter.input_dtype(0) != iter.input_dtype({k})" for k in range(1, inputs))
    cast = [f"iter.input({k}).to(device, dtype)" for k in range(inputs)]
    if inputs == 2:
        same = f"TensorIterator::{iterator}(out, {', '.join(cast)})"
    else:
        # a temporary input must be owned (TensorIteratorConfig::add_input(TensorBase&&) is deleted)
        same = "TensorIteratorConfig().add_output(out)" + "".join(f".add_owned_const_input({c})" for c in cast) + ".build()"
    which = "both inputs" if inputs == 2 else "its inputs"
    return (f"  // {helper} reads {which} as input(0)'s dtype on the GPU and writes the kernel's result type\n"
            f"  const auto result_type = []{_RESULT_TYPE[result]};\n"
            f"  const auto& output = iter.output(0);\n"
            f"  if ({cpu} || {mixed} ||\n"
            f"      output.scalar_type() != result_type(iter.input_dtype(0))) {{\n"
            f"    const auto dtype = iter.common_dtype();\n"
            f"    const auto device = output.device();\n"
            f"    Tensor out = output.scalar_type() == result_type(dtype)\n"
            f"        ? output\n"
            f"        : output.new_empty(output.sizes(), output.options().dtype(result_type(dtype)));\n"
            f"    auto same = {same};\n"
            f"    mps::{helper}(same, \"{kernel}\"{extra});\n"
            f"    if (!out.is_same(output)) {{\n"
            f"      const_cast<Tensor&>(output).copy_(out);\n"
            f"    }}\n"
            f"    return;\n"
            f"  }}\n"
            f"  mps::{helper}(iter, \"{kernel}\"{extra});")


def ternary_cond_mps_impl_body(kernel: str, *, helper: str = "ternary_cond_mps_impl") -> str:
    """The body of 2.7's where host kernel: *helper* reads the condition (input 0) in its own type and the
    other two inputs in input(1)'s, writing that type.  A CPU scalar, inputs of two dtypes or an output of
    another goes through an iterator of the output's dtype; the condition is never cast."""
    inputs = "iter.input_dtype(1) != iter.input_dtype(2) || output.scalar_type() != iter.input_dtype(1)"
    cpu = " || ".join(f"iter.is_cpu_scalar({k})" for k in range(1, 4))
    cast = "".join(f".add_owned_const_input(iter.input({k}).to(device, dtype))" for k in (1, 2))
    return (f"  // {helper} reads the condition in its own dtype and the other inputs as input(1)'s on the GPU\n"
            f"  const auto& output = iter.output(0);\n"
            f"  if ({cpu} || {inputs}) {{\n"
            f"    const auto dtype = output.scalar_type();\n"
            f"    const auto device = output.device();\n"
            f"    auto same = TensorIteratorConfig()\n"
            f"                    .check_all_same_dtype(false)\n"
            f"                    .add_output(output)\n"
            f"                    .add_owned_const_input(iter.input(0).to(device)){cast}\n"
            f"                    .build();\n"
            f"    mps::{helper}(same, \"{kernel}\");\n"
            f"    return;\n"
            f"  }}\n"
            f"  mps::{helper}(iter, \"{kernel}\");")


def _dispatch_opening(spec: KernelSpec, scalar_types: Sequence[str]) -> tuple[list[str], str, list[str]]:
    """AT_DISPATCH's opening line, `using opmath_t` when the scalars ride at opmath, each optional scalar
    filled; the scalars' type (opmath_t or scalar_t) and each one converted to it."""
    head = _dispatch_macro(spec)
    sep = "" if head.endswith("(") else ", "
    lines = [f'  {head}{sep}iter.common_dtype(), "{spec.name}_mps", [&]() {{']
    value_t = "scalar_t"
    if spec.param_type == "opmath":  # float for half and bfloat, as the CPU kernel computes them
        lines.append("    using opmath_t = at::opmath_type<scalar_t>;")
        value_t = "opmath_t"
    defaults = spec.param_defaults or ("none",) * len(spec.scalars)
    init = []
    for cpp_type, name, default in zip(scalar_types, spec.scalars, defaults):
        if "optional" in cpp_type:
            lines.append(_filled(cpp_type, name, default))
            cpp_type, name = "scalar_t", f"{name}_value"
        init.append(_converted(cpp_type, name, value_t))
    return lines, value_t, init


def _alpha_values(spec: KernelSpec, scalar_types: Sequence[str]) -> tuple[list[str], str]:
    """The opening of AT_DISPATCH and the lines filling the scalar (or the op's params struct) in the type
    its kernel was registered with: opmath_t or scalar_t; and the local's name."""
    lines, value_t, init = _dispatch_opening(spec, scalar_types)
    if spec.has_params:
        lines.append(_wrap_call(4, f"const {spec.params_struct}<{value_t}> params", init, ";", declaration=False,
                                brackets="{}"))
        return lines, "params"
    # one scalar: in the kernel's type once, passed on as the alpha argument
    local = f"{spec.scalars[0]}_value"  # an optional one was filled under that name above, in scalar_t
    if "optional" in scalar_types[0] and value_t != "scalar_t":
        local = f"{spec.scalars[0]}_{value_t}"
    if local != f"{spec.scalars[0]}_value" or "optional" not in scalar_types[0]:
        lines.append(f"    const {value_t} {local} = {init[0]};")
    return lines, local


def binary_alpha_mps_impl_body(spec: KernelSpec, scalar_types: Sequence[str], helper: str, *,
                               iterator: str = "binary_op") -> str:
    """PyTorch 2.7: binary_mps_impl_body inside AT_DISPATCH, calling *helper* (the file's
    binary_alpha_mps_impl) with the scalar, or the op's params struct, in the type its kernel was
    registered with (sources/metal_binary_indexing.alpha_type)."""
    lines, local = _alpha_values(spec, scalar_types)
    inputs = 3 if spec.arity.startswith("ternary") else 2
    body = binary_mps_impl_body(spec.name, spec.result, helper=helper, extra=f", {local}", inputs=inputs,
                                iterator=iterator)
    lines += [f"  {line}" if line else line for line in body.split("\n")]
    lines.append("  });")
    return "\n".join(lines)


def unary_alpha_mps_impl_body(spec: KernelSpec, scalar_types: Sequence[str], helper: str) -> str:
    """PyTorch 2.7: *helper* (the file's unary_alpha_mps_impl) called inside AT_DISPATCH with the scalar,
    or the op's params struct, in the type its template kernel was instantiated with (template_kernel)."""
    lines, local = _alpha_values(spec, scalar_types)
    lines += [f'    {helper}(iter, "{spec.name}", {local});', "  });"]
    return "\n".join(lines)
