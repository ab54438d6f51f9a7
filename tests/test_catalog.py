"""catalog.py + templates/catalog.yaml: known bodies, defaults, and clear errors."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest

from mpsgen.generate.catalog import catalog_path, load_catalog, parse_dtypes, spec_for
from mpsgen.errors import MpsgenError

REQUIRED = {
    # still on MPSGraph in the 2.13 wheel (ceil/floor/trunc/round through REGISTER_MPS_UNARY_STUB)
    "asinh", "acosh", "atanh", "sign", "sgn", "signbit", "frac", "logit",
    "logical_and", "logical_or", "logical_xor", "logical_not",
    "ceil", "floor", "trunc", "round", "conj_physical", "logit_backward", "sigmoid_backward", "tanh_backward",
    # historical migrations
    "atan2", "hypot", "copysign", "logaddexp", "xlogy", "fmod", "remainder", "expm1", "log1p",
}
HEADERS = Path(importlib.util.find_spec("torch").origin).parent / "include" / "c10" / "metal"


def test_catalog_covers_the_required_ops():
    assert REQUIRED <= set(sorted(load_catalog()))


def test_catalog_ships_next_to_templates():
    assert catalog_path().name == "catalog.yaml" and catalog_path().parent.name == "templates"
    assert (catalog_path().parent / "__init__.py").is_file()


def test_catalog_uses_only_c10_metal_functions_that_exist():
    """Every c10::metal::f( used in a body is declared in the real wheel headers."""
    declared = "".join(p.read_text() for p in HEADERS.glob("*.h"))
    for op, entry in load_catalog().items():
        for key in ("expr", "int_expr", "complex_expr", "bool_expr"):
            for fn in re.findall(r"c10::metal::(\w+)\(", entry.get(key) or ""):
                assert re.search(rf"\b{fn}\s*\(", declared), f"{op}.{key}: c10::metal::{fn} not in headers"
        for header in entry.get("includes", []):
            assert (HEADERS.parent.parent / header).is_file(), header


def test_atan2_from_catalog():
    spec = spec_for("atan2", "binary")
    assert spec.expr == "precise::atan2(float(a), float(b))"
    assert spec.dtypes == ("float", "int2float") and spec.result == "float" and not spec.opmath


def test_hypot_tests_each_case_once_and_needs_no_stand_in():
    """The body handles infinities, NaN and zero itself: on 2.7 (no c10::metal::hypot) it was an infinity test
    around a stand-in hypot_ that tested them again."""
    from mpsgen.backfill import c10_shims
    from mpsgen.generate.render import render_functor

    spec = spec_for("hypot", "binary")
    assert c10_shims.called(spec.expr) == []  # nothing for an older checkout to stand in for
    functor = render_functor(spec)
    assert functor.count("::metal::isinf(") == 2 and functor.count("::metal::fabs(") == 2  # x and y, once each
    assert "return static_cast<T>(INFINITY);" in functor and "hi * precise::sqrt(1.0f + r * r)" in functor


def test_fmod_defaults_opmath_and_integer():
    spec = spec_for("fmod", "binary")
    assert spec.opmath and spec.dtypes == ("float", "integer") and spec.result == "same"


def test_expm1_brings_its_header_and_complex_branch():
    spec = spec_for("expm1", "unary")
    assert spec.includes == ("c10/metal/expm1f.h",)
    assert spec.complex_expr and "complex" in spec.dtypes


def test_user_expr_overrides_catalog_but_keeps_its_defaults():
    spec = spec_for("atan2", "binary", expr="::metal::atan2(float(a), float(b))")
    assert spec.expr == "::metal::atan2(float(a), float(b))" and spec.dtypes == ("float", "int2float")


def test_user_dtypes_override_catalog():
    spec = spec_for("logaddexp", "binary", dtypes="float")
    assert spec.dtypes == ("float",) and spec.complex_expr is None


def test_unknown_op_without_expr_shows_the_expected_form():
    with pytest.raises(MpsgenError) as err:
        spec_for("my_new_op", "binary")
    line = err.value.render()
    assert "no Metal body known for 'my_new_op'" in line
    # Issue 13: the hint says how to write a body, and never suggests another op's (asinh, atan2).
    assert "--expr 'T(float(a) * float(b))'" in line and "in a and b of the input type T" in line
    assert "c10/metal/utils.h" in line and "templates/catalog.yaml" in line
    assert "asinh" not in line and "atan2" not in line
    with pytest.raises(MpsgenError) as err:
        spec_for("my_new_op", "unary")
    line = err.value.render()
    assert "--expr 'x > 0 ? T(float(x) * 2.0f) : T(0)'" in line and "in x of the input type T" in line
    assert "asinh" not in line
    with pytest.raises(MpsgenError) as err:
        spec_for("my_new_op", "binary_alpha")
    assert "in a and b (and the scalar alpha)" in err.value.render()


def test_unknown_op_with_expr():
    spec = spec_for("my_new_op", "binary", expr="float(a) * float(b)", dtypes="float,int2float")
    assert spec.name == "my_new_op" and spec.result == "float" and spec.int_expr is None


def test_expr_must_use_the_arity_variables():
    with pytest.raises(MpsgenError, match="does not use b"):
        spec_for("my_new_op", "binary", expr="float(a) * 2")
    with pytest.raises(MpsgenError, match="does not use x"):
        spec_for("my_new_op", "unary", expr="float(y)")
    # x.y is a member, not the variable y; x is used
    assert spec_for("z", "unary", expr="x.y").expr == "x.y"


def test_catalog_arity_mismatch_is_refused_without_expr():
    with pytest.raises(MpsgenError, match="catalog's body for 'atan2' is binary"):
        spec_for("atan2", "unary")


@pytest.mark.parametrize("bad", ["floats", "float,cmplx", "", "int2float,integer"])
def test_bad_dtypes_are_refused(bad):
    with pytest.raises(MpsgenError) as err:
        parse_dtypes(bad)
    assert "--dtypes" in err.value.render()


def test_dtypes_parse_and_dedupe():
    assert parse_dtypes("float, int2float,float") == ("float", "int2float")
    assert parse_dtypes(["float", "complex"]) == ("float", "complex")


def test_complex_without_complex_body_is_refused():
    with pytest.raises(MpsgenError) as err:
        spec_for("atan2", "binary", dtypes="float,complex")
    assert "--complex-expr" in err.value.render()


def test_bool_result_with_int2float_is_refused():
    with pytest.raises(MpsgenError, match="returns bool"):
        spec_for("logical_and", "binary", dtypes="float,int2float")


def test_bad_kernel_name():
    with pytest.raises(MpsgenError, match="not a valid kernel name"):
        spec_for("atan2", "binary", name="atan-2")


def test_broken_user_catalog_gives_file_and_line(tmp_path):
    bad = tmp_path / "catalog.yaml"
    bad.write_text("atan2:\n  arity: binary\n  expr: [unclosed\n")
    with pytest.raises(MpsgenError) as err:
        load_catalog(str(bad))
    assert str(bad) in err.value.render()
    wrong = tmp_path / "c2.yaml"
    wrong.write_text("atan2:\n  arity: binary\n  expr: x\n  exprr: y\n")
    with pytest.raises(MpsgenError, match="unknown keys: exprr"):
        load_catalog(str(wrong))


# -- reading the file: a YAML loader, every entry validated ------------------------------------------


@pytest.mark.parametrize("text, line, message", [
    ("op:\n  expr: [a, b\n", 3, "not valid YAML"),
    ("op:\n  expr: \"x\n", 3, "not valid YAML"),
    ("op:\n  arity: unary\n   expr: x\n", 3, "not valid YAML"),
])
def test_a_catalog_that_is_not_yaml_is_one_located_error(tmp_path, text, line, message):
    bad = tmp_path / "catalog.yaml"
    bad.write_text(text)
    with pytest.raises(MpsgenError) as err:
        load_catalog(str(bad))
    assert message in err.value.render() and f"catalog.yaml:{line}:" in err.value.render()


@pytest.mark.parametrize("text, message", [
    ("op:\n  arity: unary\n  expr: 1.5\n", "expr must be text"),
    ("op:\n  arity: unary\n  expr: x\n  note: [a]\n", "note must be text"),
    ("- op\n", "must map op names to entries"),
])
def test_entries_of_the_wrong_type_are_refused(tmp_path, text, message):
    bad = tmp_path / "catalog.yaml"
    bad.write_text(text)
    with pytest.raises(MpsgenError, match=message):
        load_catalog(str(bad))


def test_block_bodies_keep_their_lines_and_render_as_statements():
    from mpsgen.generate.render import render_functor

    spec = spec_for("atanh", "unary")
    assert spec.complex_expr.startswith("// atanh(z)") and spec.complex_expr.rstrip().endswith(";")
    functor = render_functor(spec)
    assert "    const float X = ::metal::fabs(float(x.x)), Y = ::metal::fabs(float(x.y));\n" in functor
    assert "return T(::metal::copysign(" in functor and "return // atanh" not in functor
    # A float branch written as a block is not wrapped in static_cast<T>(...).
    logit = render_functor(spec_for("logit", "unary_alpha"))
    assert "static_cast<T>(// The bounds" not in logit and "return static_cast<T>(precise::log(z / (1.0f - z)));" in logit


FRONTIER = ["asinh", "acosh", "atanh", "sign", "signbit", "frac", "logit", "ceil", "floor", "trunc", "round",
            "logical_and", "logical_or", "logical_xor", "logical_not", "conj_physical", "logit_backward",
            "sigmoid_backward", "tanh_backward"]


@pytest.mark.parametrize("op", sorted(load_catalog()))
def test_every_entry_names_the_cpu_kernel_it_follows(op):
    entry = load_catalog()[op]
    assert entry["follows"].startswith("cpu/") and ".cpp " in entry["follows"]


def test_frontier_is_covered():
    assert set(FRONTIER) <= set(sorted(load_catalog()))


@pytest.mark.parametrize("op", ["asinh", "acosh", "atanh", "logical_and", "logical_or", "logical_xor",
                                "logical_not", "conj_physical"])
def test_ops_mpsgraph_served_complex_for_have_complex_branches(op):
    """In SUPPORTED_COMPLEX_OPS of the 2.13 wheel (and still in 2.14.1's after upstream's move)."""
    spec = spec_for(op, load_catalog()[op]["arity"])
    assert "complex" in spec.dtypes and spec.complex_expr
