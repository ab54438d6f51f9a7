"""mpsgen try, through the Python API: planted wrong bodies fail naming the right dtype, the
comparison rules, compile errors mapped onto the expression, refusals, the cache, the GPU shader."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from try_support import SAMPLE_HEADERS, failing, run, table, wheel_headers

from mpsgen.generate import catalog, render
from mpsgen.emulate import compare, gpu
from mpsgen.emulate.numerics import check_kernel
from mpsgen.emulate.compile import ToolMissing, registrations
from mpsgen.emulate.reference import NoReference
from mpsgen.errors import MpsgenError

FLOATS = {"float32", "float16", "bfloat16"}
INTS = {"int64", "int32", "int16", "int8", "uint8", "bool"}


# -- planted wrong bodies --------------------------------------------------------------------------


def test_sign_error_in_the_integer_branch_fails_only_the_integer_dtypes() -> None:
    result = run("asinh", "unary", int_expr="-precise::asinh(float(x))")
    assert failing(result) == INTS
    assert all(r.ok for r in result.rows if r.dtype in FLOATS)
    int32 = next(r for r in result.rows if r.dtype == "int32")
    assert int32.first_mismatches and int32.first_mismatches[0].expected.lstrip("-") == \
        int32.first_mismatches[0].got.lstrip("-")


def test_integer_overflow_fails_the_wide_integer_dtypes_only() -> None:
    # Multiplying in short wraps where torch's int64/int32 multiplication does not.
    result = run("mul", "binary", expr="a * b", int_expr="short(a) * short(b)", dtypes="float,integer")
    assert failing(result) == {"int64", "int32"}, table(result)
    row = next(r for r in result.rows if r.dtype == "int64")
    assert row.mismatches > 10 and not row.first_mismatches[0].got == row.first_mismatches[0].expected


def test_missing_nan_propagation_fails_the_float_dtypes() -> None:
    result = run("maximum", "binary", expr="a > b ? a : b", dtypes="float,integer")
    assert failing(result) == FLOATS, table(result)
    f32 = next(r for r in result.rows if r.dtype == "float32")
    assert any("nan" in m.inputs for m in f32.first_mismatches)
    assert all(m.expected == "nan" and m.got != "nan" for m in f32.first_mismatches)


def test_wrong_complex_branch_fails_only_complex() -> None:
    good = catalog.spec_for("expm1", "unary").complex_expr
    assert good is not None
    wrong = good.replace(", precise::exp", ", -precise::exp")  # conjugated imaginary part
    result = run("expm1", "unary", "sample", complex_expr=wrong)
    assert failing(result) == {"complex64", "complex32"}, table(result)


def test_lost_negative_zero_of_a_unary_op_fails() -> None:
    # 0 - x gives +0.0 for x = +0.0 where neg gives -0.0 (the sign follows from the input).
    result = run("neg", "unary", expr="T(0) - x", dtypes="float")
    assert failing(result) == FLOATS
    assert next(r for r in result.rows if r.dtype == "float32").first_mismatches[0].expected == "-0.0"


def test_catalog_atan2_agrees_on_the_wheel_headers_in_every_dtype() -> None:
    result = run("atan2", "binary", "wheel")
    assert result.ok, table(result)
    assert [r.dtype for r in result.rows] == ["float32", "float16", "bfloat16", *sorted(INTS, key=list(
        ["int64", "int32", "int16", "int8", "uint8", "bool"]).index)]
    assert next(r for r in result.rows if r.dtype == "int64").out_dtype == "float32"


# -- comparison rules -------------------------------------------------------------------------------


def test_compare_rules() -> None:
    nan, inf = math.nan, math.inf
    row = compare.compare("float32", "float32", [(1,), (2,), (3,), (4,), (5,)],
                          [nan, inf, -0.0, 1.0, 0.0], [nan, inf, -0.0, 1.0 + 1e-6, -0.0])
    assert row.ok and row.values == 5
    assert not compare.compare("float32", "float32", [(1,)], [-0.0], [0.0]).ok
    assert compare.compare("float32", "float32", [(1,)], [-0.0], [0.0], signed_zero=False).ok
    assert not compare.compare("float32", "float32", [(1,)], [inf], [-inf]).ok
    assert not compare.compare("float32", "float32", [(1,)], [1.0], [1.0001]).ok
    assert compare.compare("float16", "float16", [(1,)], [1.0], [1.0009765625]).ok  # one half ULP
    assert not compare.compare("int64", "int64", [(1,)], [2**62], [2**62 + 1]).ok
    second = compare.compare("float32", "float32", [(1,)], [nan], [0.5], second_opinion=lambda i: 0.5)
    assert second.ok and "scalar CPU path" in second.note
    # equal values (compared without their tolerance) and complex parts: no error; the worst is the mismatch
    mixed = compare.compare("float32", "float32", [(1,), (2,), (3,)], [2.0, 0.0, 3.0], [2.0, 0.0, 3.5])
    assert (mixed.mismatches, mixed.max_abs_error, mixed.worst_input) == (1, 0.5, "3")
    exact = compare.compare("complex64", "complex64", [(1,), (2,)], [complex(1, -0.0), complex(inf, 2)],
                            [complex(1, 0.0), complex(inf, 2)])
    assert exact.ok and (exact.max_abs_error, exact.max_ulp_error) == (0.0, 0.0)
    assert not compare.compare("complex64", "complex64", [(1,)], [complex(nan, 1)], [complex(1, 1)]).ok


def test_the_worst_case_columns_describe_one_element() -> None:
    """The largest absolute error (1e6 off at 1e12, well inside rtol) and the element furthest out of
    tolerance (0.5 off at 0) are different elements: the row shows the second one's error and inputs."""
    row = compare.compare("float32", "float32", [(1e12, 7.0), (0.0, -3.0)], [1e12, 0.0], [1e12 + 1e6, 0.5])
    assert row.worst_input == "0.0, -3.0"
    assert row.max_abs_error == 0.5 and row.max_ulp_error > 1e6  # that element's, not the 1e6 of the first


def test_registrations_follow_the_rendered_register_lines() -> None:
    regs = registrations(catalog.spec_for("logaddexp", "binary"))
    assert [(r.in_type, r.out_type) for r in regs][:4] == [("float", "float"), ("half", "half"),
                                                           ("bfloat", "bfloat"), ("long", "float")]
    assert ("float2", "float2") in [(r.in_type, r.out_type) for r in regs]
    fmod = registrations(catalog.spec_for("fmod", "binary"))
    assert all(r.opmath for r in fmod if r.in_type in ("float", "half", "bfloat"))


# -- errors -------------------------------------------------------------------------------------------


def test_an_expression_that_does_not_compile_is_mapped_onto_the_expression() -> None:
    with pytest.raises(MpsgenError) as err:
        run("atan2", "binary", expr="precise::nosuch(float(a), float(b))")
    text = err.value.render()
    assert text.startswith("--expr:1:10: error: ") and "nosuch" in text
    assert "precise::nosuch(float(a), float(b))" in text  # the hint quotes the expression


def test_a_missing_compiler_is_one_line_naming_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CXX", "/nonexistent/g++")
    with pytest.raises(ToolMissing) as err:
        run("atan2", "binary")
    assert "CXX=/nonexistent/g++ was not found" in err.value.render() and "g++" in err.value.hint


def test_an_op_torch_cannot_run_with_these_inputs_is_refused() -> None:
    with pytest.raises(MpsgenError) as err:
        run("clamp", "unary", expr="x")
    assert "cannot call the reference torch.clamp on float32 tensors" in err.value.render()
    with pytest.raises(NoReference) as missing:
        run("nosuchop", "unary", expr="x")
    assert "no torch reference for 'nosuchop'" in missing.value.render()


# -- cache and GPU shader -----------------------------------------------------------------------------


def test_builds_and_results_are_cached_by_content(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MPSGEN_CACHE_DIR", str(tmp_path))
    spec = catalog.spec_for("frac", "unary")
    first = check_kernel(spec, render.render_functor(spec), op="frac", include_root=SAMPLE_HEADERS)
    again = check_kernel(spec, render.render_functor(spec), op="frac", include_root=SAMPLE_HEADERS)
    assert not first.cached and again.cached and again.rows == first.rows
    assert len(list(tmp_path.glob("*.so"))) == 1
    other = catalog.spec_for("frac", "unary", expr="float(x) - ::metal::floor(float(x))")
    changed = check_kernel(other, render.render_functor(other), op="frac", include_root=SAMPLE_HEADERS)
    assert not changed.cached and len(list(tmp_path.glob("*.so"))) == 2
    assert not changed.ok  # floor differs from trunc for negative inputs


def test_gpu_shader_inlines_the_headers_and_holds_the_same_functor() -> None:
    spec = catalog.spec_for("atan2", "binary")
    functor = render.render_functor(spec)
    source = gpu.shader_source(spec, functor, wheel_headers())
    assert functor in source
    assert "#include <c10/metal" not in source and "inline float hypot(float a_, float b_)" in source
    assert "kernel void mpsgen_try_float_long(device float* out [[buffer(0)]], constant long* a [[buffer(1)]]" \
        in source
    assert source.count("kernel void mpsgen_try_") == len(registrations(spec))
    assert not gpu.available()  # Linux: the emulated path runs


@pytest.mark.parametrize("headers", ["sample", "wheel"])
def test_a_functor_whose_result_type_breaks_its_registration_is_refused(headers: str) -> None:
    from try_support import include_root

    spec = catalog.spec_for("atan2", "binary")
    functor = render.render_functor(spec).replace("inline float operator()", "inline T operator()")
    with pytest.raises(MpsgenError) as err:
        check_kernel(spec, functor, op="atan2", include_root=include_root(headers))
    assert err.value.render().startswith("the functor does not fit its registration: static assertion failed")


def test_alpha_and_ternary_arities_run_every_registered_dtype() -> None:
    add = run("add", "binary_alpha", expr="float(a) + float(alpha) * float(b)", dtypes="float")
    assert {r.dtype for r in add.rows} == FLOATS and all(r.values > 4 * 1000 for r in add.rows)
    assert add.ok, table(add)
    wrong = run("add", "binary_alpha", expr="float(a) + float(b)", dtypes="float")
    assert failing(wrong) == FLOATS
    # The one-sided lerp formula differs from torch's two-sided one only where b - a is infinite.
    lerp = run("lerp", "ternary", expr="float(a) + float(c) * (float(b) - float(a))", dtypes="float")
    assert {r.dtype for r in lerp.rows} == FLOATS and all(r.values > 1000 for r in lerp.rows)
    assert failing(lerp) == FLOATS
    assert all(any(v in ("inf", "-inf") for v in m.inputs) for r in lerp.rows for m in r.first_mismatches)
