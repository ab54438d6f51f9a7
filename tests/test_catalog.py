"""catalog.py + templates/catalog.yaml: known bodies, defaults, and clear errors."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest

from mpsgen.generate.catalog import catalog_path, known_ops, load_catalog, parse_dtypes, spec_for
from mpsgen.errors import MpsgenError

REQUIRED = {
    # still on MPSGraph in the 2.13 wheel
    "asinh", "acosh", "atanh", "sign", "sgn", "signbit", "frac", "logit",
    "logical_and", "logical_or", "logical_xor", "logical_not",
    # historical migrations
    "atan2", "hypot", "copysign", "logaddexp", "xlogy", "fmod", "remainder", "expm1", "log1p",
}
HEADERS = Path(importlib.util.find_spec("torch").origin).parent / "include" / "c10" / "metal"


def test_catalog_covers_the_required_ops():
    assert REQUIRED <= set(known_ops())


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
    assert "--expr 'precise::atan2(float(a), float(b))'" in line and "a, b" in line
    with pytest.raises(MpsgenError) as err:
        spec_for("my_new_op", "unary")
    assert "--expr 'precise::asinh(float(x))'" in err.value.render()


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
