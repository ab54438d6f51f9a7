"""Render Metal functors, REGISTER_* lines and host code from jinja2 templates.

Pure text in, text out.  The functor shape follows c10/metal conventions: one
``operator()`` per dtype family, selected with ``enable_if_t``; floating inputs
compute in float and cast back, integral inputs of math ops return float.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Sequence

from mpsgen.errors import MpsgenError

# KernelSpec, MetalStyle and the kernel vocabularies moved to model.py, the template machinery to
# templating.py and the host code to host_code.py; imported here under their old names too, for the
# modules that still import them from render.
from mpsgen.generate.host_code import (  # noqa: F401
    COLUMN_LIMIT,
    exec_call_args,
    params_host_body,
    render_host_kernel,
    render_register_dispatch,
    scalar_argument,
)
from mpsgen.generate.templating import default_templates_dir, render_template  # noqa: F401
from mpsgen.model import ARITIES, DTYPE_TOKENS, RESULTS, VARIABLES, KernelSpec, MetalStyle  # noqa: F401
from mpsgen.records import NamedTuple

FLOAT_TYPES = ("float", "half", "bfloat")
INT_TYPES = ("long", "int", "short", "char", "uchar", "bool")
COMPLEX_TYPES = ("float2", "half2")


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


# -- functor -----------------------------------------------------------------------------


def functor_overloads(spec: KernelSpec, c10_traits: bool = True) -> list[Overload]:
    """One overload per dtype family a registration instantiates (gcd's bool body goes unrendered when
    bool is not registered); identical overloads collapse into one template.  *c10_traits*: the
    checkout's c10/metal/utils.h defines is_complex_v and is_scalar_*_v (2.8 and newer: its
    Capabilities); without them a functor selects its overloads with Metal's own traits."""
    registered = set(input_types(spec))
    complex_ = "complex" in spec.dtypes
    floats = "float" in spec.dtypes and bool(registered & set(FLOAT_TYPES))
    bool_branch = spec.bool_expr is not None and "bool" in registered
    ints = bool(registered & (set(INT_TYPES) - ({"bool"} if bool_branch else set())))  # bool: its own body, or theirs
    # Metal's is_floating_point_v/is_integral_v hold for vectors too: beside a complex branch the
    # scalar ones need is_scalar_v, which c10/metal spells is_scalar_*_v from 2.8 on.
    if not complex_:
        f_trait, i_trait = "is_floating_point_v<T>", "is_integral_v<T>"
    elif c10_traits:
        f_trait, i_trait = "c10::metal::is_scalar_floating_point_v<T>", "c10::metal::is_scalar_integral_v<T>"
    else:
        f_trait, i_trait = "is_floating_point_v<T> && is_scalar_v<T>", "is_integral_v<T> && is_scalar_v<T>"
    if bool_branch:
        i_trait += " && !is_same_v<T, bool>"
    to_bool = spec.result == "bool"
    out: list[Overload] = []
    if floats and spec.result == "complex":  # complex(real, imag): the body builds the vector
        out.append(Overload(f_trait, "c10::metal::vec2type_t<T>", spec.expr))
    elif floats and spec.result == "int32":  # frexp's exponent: the body returns int
        out.append(Overload(f_trait, "int", spec.expr))
    elif floats:
        body = spec.expr if to_bool or is_statement_block(spec.expr) else f"static_cast<T>({spec.expr})"
        out.append(Overload(f_trait, "bool" if to_bool else "T", body))
    int_expr = spec.int_expr or spec.expr
    if "int2float" in spec.dtypes and ints:
        out.append(Overload(i_trait, "float", int_expr))
    elif "integer" in spec.dtypes and ints:
        body = int_expr if to_bool or is_statement_block(int_expr) else f"static_cast<T>({int_expr})"
        out.append(Overload(i_trait, "bool" if to_bool else "T", body))
    if bool_branch:
        ret = "float" if "int2float" in spec.dtypes else ("bool" if to_bool else "T")
        out.append(Overload("is_same_v<T, bool>", ret, str(spec.bool_expr)))
    if complex_:
        trait = "c10::metal::is_complex_v<T>" if c10_traits else "is_same_v<T, float2> || is_same_v<T, half2>"
        out.append(Overload(trait, "bool" if to_bool else "T", str(spec.complex_expr)))
    if len(out) > 1 and len({(o.ret, o.body) for o in out}) == 1:
        out = [Overload(None, out[0].ret, out[0].body)]
    return out


def _functor_params(spec: KernelSpec) -> tuple[str, str]:
    """(template parameters, operator() parameters): the tensors' values, then the alpha scalar under
    its own name, or the params struct."""
    values = ", ".join(f"const T /*{v}*/" if v in spec.unused else f"const T {v}" for v in VARIABLES[spec.arity])
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


def render_functor(spec: KernelSpec, templates_dir: str | Path | None = None, *, c10_traits: bool = True) -> str:
    """``struct <name>_functor { ... };`` (no trailing newline); *c10_traits* as functor_overloads'."""
    tparams, params = _functor_params(spec)
    overloads = functor_overloads(spec, c10_traits)
    if spec.has_params:
        overloads = _with_params_unpacked(spec, overloads)
    text = render_template(
        "functor.metal.j2",
        templates_dir,
        name=spec.name,
        tparams=tparams,
        params=params,
        overloads=overloads,
        spec=spec,
    )
    if not spec.shims:
        return text
    from mpsgen.backfill.c10_shims import member_functions

    head, _, rest = text.partition("\n")  # the stand-ins open the struct, before its operator()s
    members = "\n".join("\n".join("  " + ln if ln else ln for ln in m.split("\n")) for m in member_functions(spec.shims))
    return f"{head}\n{members}\n{rest}"


# -- params struct (a header shared by host and kernel) ------------------------------------


def scalar_type_for(spec: KernelSpec, metal_type: str) -> str:
    """The Metal type a scalar reaches the kernel in for inputs of *metal_type*: the input's own
    (param_type scalar, as `.to<scalar_t>()`), or its opmath type (float for half and bfloat)."""
    return "float" if spec.param_type == "opmath" and metal_type in FLOAT_TYPES else metal_type


def params_types(spec: KernelSpec) -> list[str]:
    """The Metal types the params struct is instantiated with."""
    fams = [("float", FLOAT_TYPES), ("integer", INT_TYPES)]
    return list(dict.fromkeys(scalar_type_for(spec, t) for fam, types in fams if fam in spec.dtypes
                              for t in kept_types(spec, types)))


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
    return render_template("params_struct.h.j2", templates_dir, name=spec.params_struct, fields=list(spec.scalars),
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


def output_type(spec: KernelSpec, in_type: str, family: str) -> str:
    if spec.result == "bool":
        return "bool"
    if spec.result == "complex":
        return f"{in_type}2"
    if spec.result == "int32":
        return "int"
    if family == "int2float":
        return "float"
    return in_type


def kept_types(spec: KernelSpec, types: Sequence[str]) -> list[str]:
    return [t for t in types if t not in spec.skip]


def input_types(spec: KernelSpec) -> list[str]:
    """The Metal input types *spec*'s registrations cover."""
    families = {"float": FLOAT_TYPES, "int2float": INT_TYPES, "integer": INT_TYPES, "complex": COMPLEX_TYPES}
    return [t for fam in spec.dtypes for t in kept_types(spec, families[fam])]


def _unary_registrations(spec: KernelSpec, style: MetalStyle) -> list[str]:
    end, n = _end(style), spec.name
    lines: list[str] = []
    in_macro = style.has_unary_kernels2 and spec.result not in ("bool", "int32") and not spec.skip
    if in_macro and "float" in spec.dtypes and "int2float" in spec.dtypes:
        # INSTANTIATE_UNARY_KERNELS2 covers float/half/bfloat and every integer type -> float.
        lines.append(f"REGISTER_UNARY_OP({n}, DTYPE1, DTYPE0);")
    else:
        for fam, types in (("float", FLOAT_TYPES), ("int2float", INT_TYPES)):
            if fam in spec.dtypes:
                lines += [f"REGISTER_UNARY_OP({n}, {t}, {output_type(spec, t, fam)}){end}" for t in kept_types(spec, types)]
    if "integer" in spec.dtypes:
        lines += [f"REGISTER_UNARY_OP({n}, {t}, {output_type(spec, t, 'integer')}){end}" for t in kept_types(spec, INT_TYPES)]
    if "complex" in spec.dtypes:
        if style.has_unary_vec2 and spec.result != "bool":
            lines.append(f"REGISTER_UNARY_OP({n}, DTYPE##2, DTYPE##2);")
        else:
            lines += [f"REGISTER_UNARY_OP({n}, {t}, {output_type(spec, t, 'complex')}){end}" for t in COMPLEX_TYPES]
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

    # Explicit lines: the planner puts the file's own shorthand macros (REGISTER_FLOAT_BINARY_OP(NAME),
    # REGISTER_COMPARISON_OP(NAME), ...) in place of the runs they make exactly (generate/neighbours).
    def family(fam: str, types: Sequence[str]) -> None:
        macro = base if fam == "float" else "REGISTER_BINARY_OP"  # an integer's opmath type is itself
        lines.extend(f"{macro}({n}, {t}, {output_type(spec, t, fam)}){end}" for t in kept_types(spec, types))

    for fam, types in (("float", FLOAT_TYPES), ("int2float", INT_TYPES), ("integer", INT_TYPES)):
        if fam in spec.dtypes:
            family(fam, types)
    if "complex" in spec.dtypes:
        lines += [f"{base}({n}, {t}, {output_type(spec, t, 'complex')}){end}" for t in COMPLEX_TYPES]
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
        for t in kept_types(spec, types):
            out = output_type(spec, t, fam)
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


