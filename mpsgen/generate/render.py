"""Render Metal functors, REGISTER_* lines and host code from jinja2 templates (the shipped ones
without jinja2: builtin_templates).

Pure text in, text out.  The functor shape follows c10/metal conventions: one
``operator()`` per dtype family, selected with ``enable_if_t``; floating inputs
compute in float and cast back, integral inputs of math ops return float.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path
from typing import NamedTuple, Sequence

from mpsgen.errors import MpsgenError

# KernelSpec, MetalStyle and the kernel vocabularies moved to model.py; imported here under their
# old names too, for the modules that still import them from render.
from mpsgen.model import ARITIES, DTYPE_TOKENS, RESULTS, KernelSpec, MetalStyle  # noqa: F401

# Input variables each arity's expression is written in (its scalars are optional).
_INPUTS = {"unary": ("x",), "binary": ("a", "b"), "ternary": ("a", "b", "c")}
VARIABLES = {arity: _INPUTS[arity.split("_")[0]] for arity in ARITIES}

FLOAT_TYPES = ("float", "half", "bfloat")
INT_TYPES = ("long", "int", "short", "char", "uchar", "bool")
COMPLEX_TYPES = ("float2", "half2")
COLUMN_LIMIT = 120  # PyTorch's .clang-format, `Language: ObjC` section (.mm files)


class Overload(NamedTuple):
    trait: str | None
    ret: str
    body: str

    @property
    def statements(self) -> bool:
        """A catalog body may be a block of statements ending in `return ...;` instead of an expression."""
        return is_statement_block(self.body)


def is_statement_block(body: str) -> bool:
    return re.search(r"(?<!\w)return\b", body) is not None and body.rstrip().endswith(";")


# -- templates ---------------------------------------------------------------------------


def default_templates_dir() -> Path:
    """The packaged templates (mpsgen.templates when installed, else <repo>/templates)."""
    try:
        import mpsgen.templates  # a plain package folder (importlib.resources costs ~10 ms of imports)

        return Path(mpsgen.templates.__file__).parent
    except ModuleNotFoundError:
        return Path(__file__).resolve().parents[2] / "templates"


def _environment(templates_dir: str | Path | None):
    if templates_dir is not None and not Path(templates_dir).is_dir():
        raise MpsgenError("templates folder not found", path=templates_dir, hint="pass --templates DIR with *.j2 files")
    return _cached_environment(str(templates_dir) if templates_dir is not None else None)


@functools.lru_cache(maxsize=8)
def _cached_environment(templates_dir: str | None):
    import jinja2

    search = [str(default_templates_dir())]
    if templates_dir is not None:
        search.insert(0, templates_dir)  # a user file overrides the packaged one of the same name
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(search),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=False,
        autoescape=False,
    )


def _render(template: str, templates_dir: str | Path | None, **values: object) -> str:
    if templates_dir is None:  # the shipped templates, unedited, need no jinja2
        from mpsgen.generate.builtin_templates import render_builtin

        text = render_builtin(template, default_templates_dir(), values)
        if text is not None:
            return text.rstrip("\n")
    import jinja2

    env = _environment(templates_dir)
    try:
        return env.get_template(template).render(**values).rstrip("\n")
    except jinja2.TemplateSyntaxError as err:
        raise MpsgenError(f"template syntax error: {err.message}", path=err.filename or template, line=err.lineno) from None
    except jinja2.UndefinedError as err:
        raise MpsgenError(
            f"template uses an unknown variable ({err.message})",
            path=template,
            hint=f"variables available: {', '.join(sorted(values))}",
        ) from None


# -- functor -----------------------------------------------------------------------------


def functor_overloads(spec: KernelSpec) -> list[Overload]:
    """One overload per dtype family; identical overloads collapse into one template."""
    complex_ = "complex" in spec.dtypes
    bool_branch = spec.bool_expr is not None
    f_trait = "c10::metal::is_scalar_floating_point_v<T>" if complex_ else "is_floating_point_v<T>"
    i_trait = "c10::metal::is_scalar_integral_v<T>" if complex_ else "is_integral_v<T>"
    if bool_branch:
        i_trait += " && !is_same_v<T, bool>"
    to_bool = spec.result == "bool"
    out: list[Overload] = []
    if "float" in spec.dtypes:
        body = spec.expr if to_bool or is_statement_block(spec.expr) else f"static_cast<T>({spec.expr})"
        out.append(Overload(f_trait, "bool" if to_bool else "T", body))
    int_expr = spec.int_expr or spec.expr
    if "int2float" in spec.dtypes:
        out.append(Overload(i_trait, "float", int_expr))
    elif "integer" in spec.dtypes:
        body = int_expr if to_bool or is_statement_block(int_expr) else f"static_cast<T>({int_expr})"
        out.append(Overload(i_trait, "bool" if to_bool else "T", body))
    if bool_branch:
        ret = "float" if "int2float" in spec.dtypes else ("bool" if to_bool else "T")
        out.append(Overload("is_same_v<T, bool>", ret, str(spec.bool_expr)))
    if complex_:
        out.append(Overload("c10::metal::is_complex_v<T>", "bool" if to_bool else "T", str(spec.complex_expr)))
    if len(out) > 1 and len({(o.ret, o.body) for o in out}) == 1:
        out = [Overload(None, out[0].ret, out[0].body)]
    return out


def _functor_params(spec: KernelSpec) -> tuple[str, str]:
    """(template parameters, operator() parameters): the tensors' values, then the alpha scalar under
    its own name, or the params struct."""
    values = ", ".join(f"const T {v}" for v in VARIABLES[spec.arity])
    if spec.has_alpha:
        return "typename T, typename T2", f"{values}, const T2 {spec.scalars[0] if spec.scalars else 'alpha'}"
    if spec.has_params:
        return "typename T, typename P", f"{values}, const P params"
    return "typename T", values


def _with_params_unpacked(spec: KernelSpec, overloads: list[Overload]) -> list[Overload]:
    """Params forms: each field gets its own name first, so bodies use `threshold`, not `params.threshold`."""
    unpack = "".join(f"const auto {n} = params.{n};\n" for n in spec.scalars)
    out = []
    for o in overloads:
        body = o.body if o.statements else f"return {o.body};"
        out.append(o._replace(body=unpack + body))
    return out


def render_functor(spec: KernelSpec, templates_dir: str | Path | None = None) -> str:
    """``struct <name>_functor { ... };`` (no trailing newline)."""
    tparams, params = _functor_params(spec)
    overloads = functor_overloads(spec)
    if spec.has_params:
        overloads = _with_params_unpacked(spec, overloads)
    return _render(
        "functor.metal.j2",
        templates_dir,
        name=spec.name,
        tparams=tparams,
        params=params,
        overloads=overloads,
        spec=spec,
    )


# -- params struct (a header shared by host and kernel) ------------------------------------


def scalar_type_for(spec: KernelSpec, metal_type: str) -> str:
    """The Metal type a scalar reaches the kernel in for inputs of *metal_type*: the input's own
    (param_type scalar, as `.to<scalar_t>()`), or its opmath type (float for half and bfloat)."""
    return "float" if spec.param_type == "opmath" and metal_type in FLOAT_TYPES else metal_type


def params_types(spec: KernelSpec) -> list[str]:
    """The Metal types the params struct is instantiated with."""
    fams = [("float", FLOAT_TYPES), ("integer", INT_TYPES)]
    return list(dict.fromkeys(scalar_type_for(spec, t) for fam, types in fams if fam in spec.dtypes
                              for t in _kept(spec, types)))


def params_alias(spec: KernelSpec, metal_type: str) -> str:
    """The struct's name as registrations and the host spell it for inputs of *metal_type*: ThresholdParams_float."""
    return f"{spec.params_struct}_{scalar_type_for(spec, metal_type)}"


def params_typedefs(spec: KernelSpec) -> list[str]:
    """The names registrations give the struct's instances (``typedef ThresholdParams<float>
    ThresholdParams_float;``), written after the functor as upstream's nan_to_num does."""
    if not spec.has_params:
        return []
    return [f"typedef {spec.params_struct}<{t}> {params_alias(spec, t)};" for t in params_types(spec)]


def render_params_struct(spec: KernelSpec, templates_dir: str | Path | None = None) -> str:
    """``template <typename T> struct XParams { T a; T b; };`` for kernels/<Stem>.h (no trailing newline)."""
    return _render("params_struct.h.j2", templates_dir, name=spec.params_struct, fields=list(spec.scalars),
                   op=spec.name)


# -- registrations -----------------------------------------------------------------------


def _end(style: MetalStyle) -> str:
    return ";" if style.semicolon else ""


def render_registrations(spec: KernelSpec, style: MetalStyle) -> list[str]:
    """REGISTER_* lines in the target file's style (no indentation, no newline).

    Lines meant for the body of ``INSTANTIATE_UNARY_KERNELS2`` use ``DTYPE1, DTYPE0``;
    lines for ``INSTANTIATE_UNARY_KERNELS_VEC2`` use ``DTYPE##2``; metal.py places them.
    """
    if spec.arity == "unary":
        return _unary_registrations(spec, style)
    if spec.arity == "binary":
        return _binary_registrations(spec, style)
    return _alpha_or_ternary_registrations(spec, style)


def _out(spec: KernelSpec, in_type: str, family: str) -> str:
    if spec.result == "bool":
        return "bool"
    if family == "int2float":
        return "float"
    return in_type


def _kept(spec: KernelSpec, types: Sequence[str]) -> list[str]:
    return [t for t in types if t not in spec.skip]


def _unary_registrations(spec: KernelSpec, style: MetalStyle) -> list[str]:
    end, n = _end(style), spec.name
    lines: list[str] = []
    in_macro = style.has_unary_kernels2 and spec.result != "bool" and not spec.skip
    if in_macro and "float" in spec.dtypes and "int2float" in spec.dtypes:
        # INSTANTIATE_UNARY_KERNELS2 covers float/half/bfloat and every integer type -> float.
        lines.append(f"REGISTER_UNARY_OP({n}, DTYPE1, DTYPE0);")
    else:
        for fam, types in (("float", FLOAT_TYPES), ("int2float", INT_TYPES)):
            if fam in spec.dtypes:
                lines += [f"REGISTER_UNARY_OP({n}, {t}, {_out(spec, t, fam)}){end}" for t in _kept(spec, types)]
    if "integer" in spec.dtypes:
        lines += [f"REGISTER_UNARY_OP({n}, {t}, {_out(spec, t, 'integer')}){end}" for t in _kept(spec, INT_TYPES)]
    if "complex" in spec.dtypes:
        if style.has_unary_vec2 and spec.result != "bool":
            lines.append(f"REGISTER_UNARY_OP({n}, DTYPE##2, DTYPE##2);")
        else:
            lines += [f"REGISTER_UNARY_OP({n}, {t}, {_out(spec, t, 'complex')}){end}" for t in COMPLEX_TYPES]
    return lines


def _require_three_argument_binary_ops(style: MetalStyle) -> None:
    if style.binary_op_args == 2:
        raise MpsgenError(
            "this .metal file uses the early-2025 two-argument REGISTER_BINARY_OP(NAME, DTYPE); mpsgen writes the "
            "three-argument form only",
            path=style.path,
            line=style.binary_op_args_line,
            hint="update the file to the c10/metal REGISTER_BINARY_OP(NAME, IN, OUT) scheme first",
        )


def _binary_registrations(spec: KernelSpec, style: MetalStyle) -> list[str]:
    end, n = _end(style), spec.name
    _require_three_argument_binary_ops(style)
    base = "REGISTER_OPMATH_BINARY_OP" if spec.opmath else "REGISTER_BINARY_OP"
    lines: list[str] = []

    def family(local_macro: str, fam: str, types: Sequence[str]) -> None:
        if spec.result != "bool" and local_macro in style.local_macros and not set(types) & set(spec.skip):
            lines.append(f"{local_macro}({n}){end}")
        else:
            macro = base if fam != "int2float" else "REGISTER_BINARY_OP"
            lines.extend(f"{macro}({n}, {t}, {_out(spec, t, fam)}){end}" for t in _kept(spec, types))

    if "float" in spec.dtypes:
        family("REGISTER_OPMATH_FLOAT_BINARY_OP" if spec.opmath else "REGISTER_FLOAT_BINARY_OP", "float", FLOAT_TYPES)
    if "int2float" in spec.dtypes:
        family("REGISTER_INT2FLOAT_BINARY_OP", "int2float", INT_TYPES)
    if "integer" in spec.dtypes:
        family("REGISTER_INTEGER_BINARY_OP", "integer", INT_TYPES)
    if "complex" in spec.dtypes:
        lines += [f"{base}({n}, {t}, {_out(spec, t, 'complex')}){end}" for t in COMPLEX_TYPES]
    if spec.result == "bool" and style.castout:
        # As the file's own comparison ops do: each bool kernel and its castout twin, dtype by dtype.
        lines = [twin for line in lines for twin in (line, line.replace(f"{base}(", "REGISTER_BINARY_CASTOUT_OP(", 1))]
    return lines


_ALPHA_MACROS = {1: "REGISTER_UNARY_ALPHA_OP", 2: "REGISTER_BINARY_ALPHA_OP", 3: "REGISTER_TERNARY_ALPHA_OP"}


def _alpha_or_ternary_registrations(spec: KernelSpec, style: MetalStyle) -> list[str]:
    end, n = _end(style), spec.name
    if spec.inputs > 1:  # the same file: its registrations sit in that scheme's blocks
        _require_three_argument_binary_ops(style)
    fams = [("float", FLOAT_TYPES), ("int2float", INT_TYPES), ("integer", INT_TYPES), ("complex", COMPLEX_TYPES)]
    lines: list[str] = []
    for fam, types in fams:
        if fam not in spec.dtypes:
            continue
        for t in _kept(spec, types):
            out = _out(spec, t, fam)
            if spec.arity == "ternary":
                macro = "REGISTER_OPMATH_TERNARY_OP" if spec.opmath else "REGISTER_TERNARY_OP"
                lines.append(f"{macro}({n}, {t}, {out}){end}")
                continue
            if spec.has_params:
                alpha = params_alias(spec, t)
            else:
                # The alpha scalar arrives in the input's dtype (float for ints promoted to float,
                # and for half/bfloat when it rides at opmath).
                alpha = "float" if fam == "int2float" else scalar_type_for(spec, t)
            macro = _ALPHA_MACROS[spec.inputs]
            if spec.opmath and spec.inputs == 3:
                macro = "REGISTER_OPMATH_TERNARY_ALPHA_OP"
            lines.append(f"{macro}({n}, {t}, {alpha}, {out}){end}")
    return lines


# -- host code (operations/*.mm) -----------------------------------------------------------


def _wrap_call(indent: int, head: str, args: Sequence[str], tail: str, *, declaration: bool) -> str:
    """Lay out ``head(args)tail`` the way clang-format does with the ObjC section of PyTorch's
    .clang-format, which governs .mm files (ColumnLimit 120, AlignAfterOpenBracket Align, no
    bin-packing): one line if it fits, else one argument per line aligned after the parenthesis."""
    pad = " " * indent
    one = f"{pad}{head}({', '.join(args)}){tail}"
    if len(one) <= COLUMN_LIMIT:
        return one
    cont = " " * (indent + 4)
    # A call may put all its arguments on one continuation line (clang-format prefers that);
    # a declaration may not (BinPackParameters false).
    joined = f"{cont}{', '.join(args)}){tail}"
    if not declaration and len(joined) <= COLUMN_LIMIT:
        return f"{pad}{head}(\n{joined}"
    align = " " * (indent + len(head) + 1)
    aligned = f"{pad}{head}(" + (",\n" + align).join(args) + f"){tail}"
    if len(args) > 1 and max(len(line) for line in aligned.split("\n")) <= COLUMN_LIMIT:
        return aligned
    # Aligning does not fit: clang-format breaks after the parenthesis, one argument per line.
    return f"{pad}{head}(\n{cont}" + (",\n" + cont).join(args) + f"){tail}"


def _exec_fn(arity: str) -> str:
    kind = arity.split("_")[0]
    return f"lib.exec_{kind}_kernel" + ("_with_params" if arity.endswith("_params") else "")


def exec_call_args(arity: str, kernel: str, scalar: str | None = None, *,
                   opmath: bool = False) -> tuple[str, list[str]]:
    """The ``lib.exec_*_kernel`` callee and arguments for an arity (alpha forms pass the scalar; one
    riding at float says so, as upstream's polygamma says ScalarType::Int)."""
    args = ["iter", f'"{kernel}"']
    if arity.endswith("_alpha"):
        args.append(scalar or "alpha")
        if opmath:
            args.append("at::isReducedFloatingType(iter.common_dtype()) ? kFloat : iter.common_dtype()")
    return _exec_fn(arity), args


def scalar_argument(cpp_type: str, name: str) -> str:
    """A stub's scalar as exec_*_kernel's `std::optional<Scalar> alpha` takes it."""
    return name if "Scalar" in cpp_type else f"Scalar({name})"


def _converted(cpp_type: str, name: str, to: str) -> str:
    """A stub's scalar converted to the kernel's type, as CPU kernels do (`beta.to<scalar_t>()`)."""
    return f"{name}.to<{to}>()" if "Scalar" in cpp_type else f"static_cast<{to}>({name})"


def _dispatch_macro(spec: KernelSpec) -> str:
    floats, ints = "float" in spec.dtypes, "integer" in spec.dtypes
    with_bool = ints and "bool" not in spec.skip
    if floats and ints:
        return "AT_DISPATCH_ALL_TYPES_AND3(kBool, kHalf, kBFloat16" if with_bool else "AT_DISPATCH_ALL_TYPES_AND2(kHalf, kBFloat16"
    if ints:
        return "AT_DISPATCH_INTEGRAL_TYPES_AND(kBool" if with_bool else "AT_DISPATCH_INTEGRAL_TYPES("
    return "AT_DISPATCH_FLOATING_TYPES_AND2(kHalf, kBFloat16"


def params_host_body(spec: KernelSpec, scalar_types: Sequence[str]) -> str:
    """The body of a params form's host kernel: the struct filled from the stub's scalars, then
    exec_*_kernel_with_params with the struct's Metal name (as upstream's elu and threshold do)."""
    struct, fn = spec.params_struct, _exec_fn(spec.arity)
    head = _dispatch_macro(spec)
    sep = "" if head.endswith("(") else ", "
    lines = [f'  {head}{sep}iter.common_dtype(), "{spec.name}_mps", [&]() {{']
    if spec.param_type == "opmath":  # float for half and bfloat, as the CPU kernel computes them
        lines.append("    using opmath_t = at::opmath_type<scalar_t>;")
        value_t, metal = "opmath_t", "c10::CppTypeToScalarType<opmath_t>::value"
    else:
        value_t, metal = "scalar_t", "iter.common_dtype()"
    init = ", ".join(_converted(t, n, value_t) for t, n in zip(scalar_types, spec.scalars))
    name = f'fmt::format("{struct}_{{}}", mps::scalarToMetalTypeString({metal}))'
    lines.append(f"    {struct}<{value_t}> params{{{init}}};")
    lines.append(_wrap_call(4, fn, ["iter", f'"{spec.name}"', "params", name], ";", declaration=False))
    lines.append("  });")
    return "\n".join(lines)


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
    return _render("host_kernel.mm.j2", templates_dir, signature=signature, call=call, fn_name=fn_name)


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
    return _render("register_dispatch.mm.j2", templates_dir, call=call, stub=stub, fn=fn)
