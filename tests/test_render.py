"""render.py: functors, registrations and host code; clang-format and tree-sitter checks."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from mpsgen.errors import MpsgenError
from mpsgen.sources.metal.edit import MetalStyle
from mpsgen.sources.metal.index import metal_style
from mpsgen.generate.render import (
    KernelSpec,
    exec_call_args,
    functor_overloads,
    render_functor,
    render_host_kernel,
    render_register_dispatch,
    render_registrations,
)

DATA = Path(__file__).parent / "data"
CLANG_FORMAT_STYLE = DATA / ".clang-format"

BINARY_STYLE = MetalStyle(
    path="kernels/BinaryKernel.metal",
    local_macros=frozenset(
        {"REGISTER_FLOAT_BINARY_OP", "REGISTER_INT2FLOAT_BINARY_OP", "REGISTER_INTEGER_BINARY_OP",
         "REGISTER_OPMATH_FLOAT_BINARY_OP"}
    ),
    binary_op_args=3,
    binary_op_args_line=None,
    has_unary_kernels2=False,
    has_unary_vec2=False,
    semicolon=True,
)
BARE_STYLE = MetalStyle("k.metal", frozenset(), 3, None, False, False, True)
UNARY_STYLE = MetalStyle("kernels/UnaryKernel.metal", frozenset(), 3, None, True, True, True)

ATAN2 = KernelSpec(
    name="atan2", arity="binary", expr="precise::atan2(float(a), float(b))",
    dtypes=("float", "int2float"), result="float",
)


def test_atan2_functor_has_float_and_int_to_float_overloads():
    text = render_functor(ATAN2)
    assert text == (
        "struct atan2_functor {\n"
        "  template <typename T, enable_if_t<is_floating_point_v<T>, bool> = true>\n"
        "  inline T operator()(const T a, const T b) {\n"
        "    return static_cast<T>(precise::atan2(float(a), float(b)));\n"
        "  }\n"
        "  template <typename T, enable_if_t<is_integral_v<T>, bool> = true>\n"
        "  inline float operator()(const T a, const T b) {\n"
        "    return precise::atan2(float(a), float(b));\n"
        "  }\n"
        "};"
    )


def test_complex_branch_uses_scalar_traits_and_complex_overload():
    spec = KernelSpec("logaddexp", "binary", "c10::metal::logaddexp(float(a), float(b))",
                      complex_expr="c10::metal::logaddexp(a, b)", dtypes=("float", "int2float", "complex"),
                      result="float")
    text = render_functor(spec)
    assert "enable_if_t<c10::metal::is_scalar_floating_point_v<T>, bool>" in text
    assert "enable_if_t<c10::metal::is_scalar_integral_v<T>, bool>" in text
    assert "enable_if_t<c10::metal::is_complex_v<T>, bool> = true>\n  inline T operator()(const T a, const T b) {\n" \
           "    return c10::metal::logaddexp(a, b);" in text


def test_identical_overloads_collapse_into_one_template():
    spec = KernelSpec("logical_and", "binary", "a && b", dtypes=("float", "integer"), result="bool")
    assert functor_overloads(spec) == [functor_overloads(spec)[0]]
    assert render_functor(spec) == (
        "struct logical_and_functor {\n  template <typename T>\n  inline bool operator()(const T a, const T b) {\n"
        "    return a && b;\n  }\n};"
    )


def test_bool_overload_excludes_bool_from_integral_branch():
    spec = KernelSpec("xlogy", "binary", "c10::metal::xlogy(float(a), float(b))", bool_expr="(a && !b) ? -INFINITY : 0",
                      dtypes=("float", "int2float"), result="float")
    text = render_functor(spec)
    assert "is_integral_v<T> && !is_same_v<T, bool>" in text
    assert "enable_if_t<is_same_v<T, bool>, bool> = true>\n  inline float operator()" in text


def test_no_overload_for_a_dtype_no_registration_instantiates():
    """gcd registers the integers but not bool (its OpInfo has none): its bool body is dead code, not rendered;
    a float body whose every float type is skipped goes the same way."""
    gcd = KernelSpec("gcd", "binary", "a % b", bool_expr="a || b", dtypes=("integer",), skip=("bool",))
    text = render_functor(gcd)
    assert "a || b" not in text and "is_same_v<T, bool>" not in text
    assert text == ("struct gcd_functor {\n  template <typename T, enable_if_t<is_integral_v<T>, bool> = true>\n"
                    "  inline T operator()(const T a, const T b) {\n    return static_cast<T>(a % b);\n  }\n};")
    with_bool = render_functor(gcd._replace(skip=()))
    assert "enable_if_t<is_same_v<T, bool>, bool> = true>\n  inline T operator()(const T a, const T b) {\n" \
           "    return a || b;" in with_bool and "is_integral_v<T> && !is_same_v<T, bool>" in with_bool
    only_bool = gcd._replace(skip=("long", "int", "short", "char", "uchar"))
    assert [o.trait for o in functor_overloads(only_bool)] == ["is_same_v<T, bool>"]
    no_float = KernelSpec("op", "binary", "float(a)", int_expr="a + b", dtypes=("float", "integer"),
                          skip=("float", "half", "bfloat"))
    assert [o.body for o in functor_overloads(no_float)] == ["static_cast<T>(a + b)"]


@pytest.mark.parametrize(
    ("arity", "signature"),
    [
        ("unary", "template <typename T, enable_if_t<is_floating_point_v<T>, bool> = true>\n  inline T operator()(const T x)"),
        ("unary_alpha", "template <typename T, typename T2, enable_if_t<is_floating_point_v<T>, bool> = true>\n"
                        "  inline T operator()(const T x, const T2 alpha)"),
        ("binary_alpha", "inline T operator()(const T a, const T b, const T2 alpha)"),
        ("ternary", "inline T operator()(const T a, const T b, const T c)"),
    ],
)
def test_functor_parameters_follow_arity(arity, signature):
    assert signature in render_functor(KernelSpec("op", arity, "a", dtypes=("float",)))


def test_user_templates_override_by_file_name(tmp_path):
    (tmp_path / "functor.metal.j2").write_text("// mine\nstruct {{ name }}_functor {};\n")
    assert render_functor(ATAN2, templates_dir=tmp_path) == "// mine\nstruct atan2_functor {};"
    # files the user did not override still come from the package
    assert render_register_dispatch("atan2_stub", "atan2_mps_kernel", False, True, templates_dir=tmp_path) == (
        "REGISTER_DISPATCH(atan2_stub, &atan2_mps_kernel)"
    )


def test_user_template_with_unknown_variable_is_a_user_error(tmp_path):
    (tmp_path / "functor.metal.j2").write_text("struct {{ nmae }}_functor {};\n")
    with pytest.raises(MpsgenError, match="unknown variable") as err:
        render_functor(ATAN2, templates_dir=tmp_path)
    assert "name" in err.value.render()


def test_missing_templates_dir_is_a_user_error(tmp_path):
    with pytest.raises(MpsgenError, match="templates folder not found"):
        render_functor(ATAN2, templates_dir=tmp_path / "nope")


# -- registrations -----------------------------------------------------------------------------


def test_binary_registrations_are_explicit_lines_the_planner_compacts():
    """render writes every registration; generate/neighbours puts the file's shorthands in (tests/test_neighbours.py)."""
    lines = render_registrations(ATAN2, BINARY_STYLE)
    assert lines[:3] == ["REGISTER_BINARY_OP(atan2, float, float);", "REGISTER_BINARY_OP(atan2, half, half);",
                         "REGISTER_BINARY_OP(atan2, bfloat, bfloat);"]
    assert "REGISTER_BINARY_OP(atan2, bool, float);" in lines and len(lines) == 9


def test_binary_registrations_expand_when_macros_are_missing_and_follow_semicolon_habit():
    style = MetalStyle("k.metal", frozenset(), 3, None, False, False, False)
    lines = render_registrations(ATAN2, style)
    assert lines[:3] == ["REGISTER_BINARY_OP(atan2, float, float)", "REGISTER_BINARY_OP(atan2, half, half)",
                         "REGISTER_BINARY_OP(atan2, bfloat, bfloat)"]
    assert "REGISTER_BINARY_OP(atan2, bool, float)" in lines and len(lines) == 9


def test_complex_binary_lines():
    spec = KernelSpec("logaddexp", "binary", "e", complex_expr="c", dtypes=("float", "complex"))
    assert render_registrations(spec, BINARY_STYLE)[-2:] == [
        "REGISTER_BINARY_OP(logaddexp, float2, float2);", "REGISTER_BINARY_OP(logaddexp, half2, half2);"]


def test_complex_result_builds_its_vector_and_registers_the_complex_output():
    # complex(real, imag), polar(abs, angle): T inputs, T's complex type out (2.13 registers polar so)
    spec = KernelSpec("complex", "binary", "c10::metal::vec2type_t<T>(a, b)", dtypes=("float",), result="complex",
                      skip=("bfloat",))
    assert "  inline c10::metal::vec2type_t<T> operator()(const T a, const T b) {\n" \
           "    return c10::metal::vec2type_t<T>(a, b);\n" in render_functor(spec)
    assert render_registrations(spec, BINARY_STYLE) == [
        "REGISTER_BINARY_OP(complex, float, float2);", "REGISTER_BINARY_OP(complex, half, half2);"]
    from mpsgen.generate.host_code import binary_mps_impl_body

    # no same-dtype fallback: the shared kernel checked the inputs, and a float temporary cannot take float2
    assert binary_mps_impl_body("complex", "complex").endswith('\n  mps::binary_mps_impl(iter, "complex");')
    assert "result_type" not in binary_mps_impl_body("complex", "complex")


def test_two_argument_register_binary_op_is_refused_with_location():
    style = MetalStyle("kernels/BinaryKernel.metal", frozenset({"REGISTER_BINARY_OP"}), 2, 14, False, False, True)
    with pytest.raises(MpsgenError) as err:
        render_registrations(ATAN2, style)
    assert err.value.render().startswith("kernels/BinaryKernel.metal:14: ")


def test_unary_registrations_inside_instantiate_macros():
    spec = KernelSpec("expm1", "unary", "e", complex_expr="c", dtypes=("float", "int2float", "complex"), result="float")
    assert render_registrations(spec, UNARY_STYLE) == [
        "REGISTER_UNARY_OP(expm1, DTYPE1, DTYPE0);", "REGISTER_UNARY_OP(expm1, DTYPE##2, DTYPE##2);"]


def test_unary_registrations_without_instantiate_macros_are_explicit():
    spec = KernelSpec("expm1", "unary", "e", complex_expr="c", dtypes=("float", "int2float", "complex"), result="float")
    lines = render_registrations(spec, BARE_STYLE)
    assert lines[0] == "REGISTER_UNARY_OP(expm1, float, float);"
    assert "REGISTER_UNARY_OP(expm1, long, float);" in lines
    assert lines[-2:] == ["REGISTER_UNARY_OP(expm1, float2, float2);", "REGISTER_UNARY_OP(expm1, half2, half2);"]


def test_unary_bool_result_registers_bool_outputs():
    spec = KernelSpec("signbit", "unary", "signbit(x)", dtypes=("float", "integer"), result="bool")
    lines = render_registrations(spec, UNARY_STYLE)
    assert lines[0] == "REGISTER_UNARY_OP(signbit, float, bool);"
    assert all(line.endswith(", bool);") for line in lines) and len(lines) == 9


def test_alpha_and_ternary_registrations():
    ua = KernelSpec("logit", "unary_alpha", "x", dtypes=("float", "int2float"), result="float")
    lines = render_registrations(ua, UNARY_STYLE)
    assert lines[0] == "REGISTER_UNARY_ALPHA_OP(logit, float, float, float);"
    assert "REGISTER_UNARY_ALPHA_OP(logit, long, float, float);" in lines
    ba = KernelSpec("add_alpha", "binary_alpha", "a + alpha * b", dtypes=("float",))
    assert render_registrations(ba, BINARY_STYLE) == [
        f"REGISTER_BINARY_ALPHA_OP(add_alpha, {t}, {t}, {t});" for t in ("float", "half", "bfloat")]
    tern = KernelSpec("lerp", "ternary", "a + c * (b - a)", dtypes=("float",), opmath=True)
    assert render_registrations(tern, BINARY_STYLE)[0] == "REGISTER_OPMATH_TERNARY_OP(lerp, float, float);"


# -- host code ---------------------------------------------------------------------------------


def test_host_kernel_binary():
    assert render_host_kernel("atan2_mps_kernel", "TensorIteratorBase& iter", 'lib.exec_binary_kernel(iter, "atan2")') == (
        'static void atan2_mps_kernel(TensorIteratorBase& iter) {\n  lib.exec_binary_kernel(iter, "atan2");\n}'
    )


def test_host_kernel_alpha_passes_the_scalar():
    text = render_host_kernel("lerp_scalar_mps_kernel", ["TensorIteratorBase& iter", "const Scalar& weight"],
                              exec_call_args("binary_alpha", "lerp_alpha", "weight"))
    assert 'lib.exec_binary_kernel(iter, "lerp_alpha", weight);' in text
    assert exec_call_args("ternary", "lerp") == ("lib.exec_ternary_kernel", ["iter", '"lerp"'])
    assert exec_call_args("unary_alpha", "logit")[1] == ["iter", '"logit"', "alpha"]


def test_register_dispatch_keeps_file_habits():
    assert render_register_dispatch("atan2_stub", "atan2_mps_kernel", False, True) == (
        "REGISTER_DISPATCH(atan2_stub, &atan2_mps_kernel)")
    assert render_register_dispatch("exp_stub", "exp_kernel_mps", True, False) == (
        "REGISTER_DISPATCH(exp_stub, exp_kernel_mps);")


def _clang_format(text: str) -> str:
    exe = shutil.which("clang-format")
    assert exe, "clang-format (pip package) must be installed for this test"
    result = subprocess.run(
        [exe, f"--style=file:{CLANG_FORMAT_STYLE}", "--assume-filename=operations/BinaryKernel.mm"],
        input=text, capture_output=True, text=True, check=True,
    )
    return result.stdout


def _host_cases() -> str:
    """Host code for kernel names of every length from 1 to 76, in one .mm text: long enough that the
    alpha host kernel's declaration wraps at PyTorch's ObjC column limit (120), aligned after its
    parenthesis.  (Names whose *call* passes 120 columns, ~80 characters, are left out: clang-format
    picks among layouts by penalties there, and PyTorch's longest kernel names are about 30.)"""
    parts = []
    for n in range(1, 77, 3):
        name = ("op_" * 30)[:n].strip("_") or "o"
        for arity in ("unary", "binary", "binary_alpha", "ternary"):
            params = ["TensorIteratorBase& iter"] + (["const Scalar& alpha"] if arity.endswith("alpha") else [])
            parts.append(render_host_kernel(f"{name}_mps_kernel", params, exec_call_args(arity, name)))
        for semicolon in (True, False):
            for amp in (True, False):
                parts.append(render_register_dispatch(f"{name}_stub", f"{name}_mps_kernel", semicolon, amp))
    return "\n\n".join(parts) + "\n"


def test_rendered_host_code_is_clang_format_clean():
    text = _host_cases()
    assert text.count("static void") == 104
    # The wrapped declaration form is covered: a parameter aligned under the first one.
    assert any(line.startswith(" " * 40) and line.strip() == "const Scalar& alpha) {" for line in text.splitlines())
    assert _clang_format(text) == text


def test_clang_format_check_can_fail():
    # The check is real: badly laid out code is changed by clang-format.
    bad = 'static void f(TensorIteratorBase& iter) { lib.exec_binary_kernel(iter,"f"); }\n'
    assert _clang_format(bad) != bad


# -- tree-sitter --------------------------------------------------------------------------------


def count_errors(text: str) -> int:
    import tree_sitter
    import tree_sitter_cpp

    parser = tree_sitter.Parser(tree_sitter.Language(tree_sitter_cpp.language()))
    tree = parser.parse(text.encode("utf-8"))
    count, stack = 0, [tree.root_node]
    while stack:
        node = stack.pop()
        count += node.is_error or node.is_missing
        stack.extend(node.children)
    return count


def test_every_catalog_functor_parses_as_cpp():
    from mpsgen.generate.catalog import load_catalog, spec_for

    for op in sorted(load_catalog()):
        spec = spec_for(op, load_catalog()[op]["arity"])
        text = render_functor(spec)
        assert text.startswith(f"struct {op}_functor {{") and text.endswith("};")
        assert count_errors(text) == 0, op


def test_error_counter_sees_errors():
    assert count_errors("struct x_functor { inline T operator()(const T a { return a; } };") > 0


def test_bool_kernels_get_castout_twins_where_the_file_registers_them():
    # 2026 BinaryKernel.metal: REGISTER_COMPARISON_OP(eq) pairs each `eq, T, bool` kernel with its
    # castout twin, so `torch.logical_xor(a, b, out=float_tensor)` finds a kernel.
    spec = KernelSpec("logical_xor", "binary", "bool(a) != bool(b)", dtypes=("float", "complex"), result="bool")
    castout = BINARY_STYLE._replace(castout=True)
    assert render_registrations(spec, castout)[:4] == [
        "REGISTER_BINARY_OP(logical_xor, float, bool);",
        "REGISTER_BINARY_CASTOUT_OP(logical_xor, float, bool);",
        "REGISTER_BINARY_OP(logical_xor, half, bool);",
        "REGISTER_BINARY_CASTOUT_OP(logical_xor, half, bool);",
    ]
    assert render_registrations(spec, castout)[-1] == "REGISTER_BINARY_CASTOUT_OP(logical_xor, half2, bool);"
    assert not any("CASTOUT" in line for line in render_registrations(spec, BINARY_STYLE))
    same_type = KernelSpec("hypot", "binary", "precise::hypot(a, b)", dtypes=("float",))
    assert not any("CASTOUT" in line for line in render_registrations(same_type, castout))


def test_the_castout_habit_is_read_from_the_file():
    text = ("#define REGISTER_COMPARISON_OP(NAME) \\\n  REGISTER_BINARY_OP(NAME, float, bool); \\\n"
            "  REGISTER_BINARY_CASTOUT_OP(NAME, float, bool)\nREGISTER_COMPARISON_OP(eq);\n")
    assert metal_style(text, "kernels/BinaryKernel.metal").castout
    assert not metal_style("REGISTER_BINARY_OP(eq, float, bool);\n", "kernels/BinaryKernel.metal").castout
