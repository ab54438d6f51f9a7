"""Dtypes read from the op (OpInfos, xfail tables, CPU meta functions, MPSGraph checks) and the
dtype-regression guard: units on strings, then the real files of the torch 2.13.0 wheel."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from mpsgen.errors import MpsgenError
from mpsgen.plan import dtypes as d
from mpsgen.sources.native import dtype_checks as checks
from mpsgen.sources.testlists import plan_common_mps
from mpsgen.sources.testlists.commonmps import ListedDtypes, add_unimplemented, listed_dtypes
from mpsgen.sources.testlists.opinfo_dtypes import evaluate, mps_dtypes

ALL_MPS = {"float32", "float16", "bfloat16", "int64", "int32", "int16", "int8", "uint8", "bool"}


def ev(src: str) -> set[str]:
    return set(evaluate(ast.parse(src, mode="eval").body))


# -- evaluating dtype expressions --------------------------------------------------------------


def test_helpers_are_evaluated_by_table():
    assert ev("all_types_and(torch.bool, torch.half, torch.bfloat16)") == ALL_MPS | {"float64"}
    assert ev("floating_types_and(torch.bfloat16, torch.float16)") == {"float32", "float64", "bfloat16", "float16"}
    assert ev("all_types_and_complex_and(torch.bool, torch.chalf)") >= {"complex64", "complex128", "complex32", "bool"}
    assert ev("custom_types(torch.float32)") == {"float32"}
    assert ev("_dispatch_dtypes((torch.float32, torch.int64))") == {"float32", "int64"}
    assert ev("floating_types() + (torch.half,)") == {"float32", "float64", "float16"}
    assert ev("all_types_and(torch.bool, *_unsigned_int_types)") >= {"uint16", "uint32", "uint64", "bool"}
    assert ev("[torch.cfloat, torch.long]") == {"complex64", "int64"}


@pytest.mark.parametrize("src", ["get_all_dtypes()", "floating_types(torch.half)", "some_list", "torch.float8_e4m3fn"])
def test_unknown_expressions_are_unresolved_not_guessed(src):
    cmi = f"op_db = [UnaryUfuncInfo('myop', dtypes={src})]\n"
    got = mps_dtypes(cmi, {}, "myop")
    assert got.refs and got.unresolved and not got.found
    assert got.unresolved[0].startswith("common_methods_invocations.py:1: ")


def test_dtypes_if_mps_wins_and_variants_and_aliases_union():
    cmi = ("op_db = [\n"
           "  UnaryUfuncInfo('myop', aliases=('myalias',), dtypes=floating_types(), dtypesIfMPS=custom_types(torch.float16),\n"
           "                 promotes_int_to_float=True),\n"
           "  UnaryUfuncInfo('myop', variant_test_name='v', dtypes=custom_types(torch.int32)),\n"
           "]\n")
    got = mps_dtypes(cmi, {}, "myop")
    assert got.declared == {"float16", "int32"} and got.promotes_int_to_float and not got.always_returns_bool
    assert [r.key for r in got.refs] == ["myop", "myopv"]
    assert mps_dtypes(cmi, {}, "myalias").declared == {"float16"}


# -- MPSGraph checks, CPU promotion ------------------------------------------------------------


def test_mpsgraph_dtype_checks():
    body = ('TORCH_IMPL_FUNC(frac_out_mps)(const Tensor& self, const Tensor& output) {\n'
            '  TORCH_CHECK(isFloatingType(self.scalar_type()), "frac_out_mps is only implemented for floating types");\n}\n')
    refused = checks.mpsgraph_refusals(body)
    assert set(refused) == set(d.INTS) | {"complex64"} and refused["int64"].startswith("TORCH_CHECK(isFloatingType(")
    assert set(checks.mpsgraph_refusals('TORCH_CHECK(self.scalar_type() != ScalarType::Long, "no int64");')) == {"int64"}
    assert set(checks.mpsgraph_refusals('TORCH_CHECK(!self.is_complex(), "no complex");')) == {"complex64"}
    assert checks.mpsgraph_refusals('TORCH_CHECK(isFloatingType(a) || isIntegralType(a, true), "x");') == {}


def test_impl_body_reads_functions_and_macro_lines():
    text = ("CREATE_MPS_STRUCTURED_UNARY_TORCH_IMPL_FUNC(asinh_out_mps, asinh)\n\n"
            "TORCH_IMPL_FUNC(frac_out_mps)\n(const Tensor& self, const Tensor& output) {\n"
            '  TORCH_CHECK(self.scalar_type() != ScalarType::BFloat16, "no bfloat16");\n  if (x) { y(); }\n}\n\n'
            "Tensor& logit_out_mps(const Tensor& self, Tensor& result) {\n  return result;\n}\n")
    assert checks.impl_body(text, "asinh_out_mps") == (1, "CREATE_MPS_STRUCTURED_UNARY_TORCH_IMPL_FUNC(asinh_out_mps, asinh)")
    line, body = checks.impl_body(text, "frac_out_mps")
    assert line == 3 and body.endswith("if (x) { y(); }\n}") and set(checks.mpsgraph_refusals(body)) == {"bfloat16"}
    assert checks.impl_body(text, "logit_out_mps") == (9, "Tensor& logit_out_mps(const Tensor& self, Tensor& result) {\n  return result;\n}")
    assert checks.impl_body(text, "sign_out_mps") is None


def test_cpu_meta_function_promotion():
    texts = {"UnaryOps.cpp": "#define X\nCREATE_UNARY_FLOAT_META_FUNC(asinh)\nTORCH_META_FUNC(frac) (const Tensor& self) {\n"
                             "  build_borrowing_unary_op(maybe_get_output(), self);\n}\n",
             "BinaryOps.cpp": "TORCH_META_FUNC2(atan2, out) (const Tensor& self, const Tensor& other) {\n"
                              "  build_borrowing_binary_float_op(maybe_get_output(), self, other);\n}\n"}
    assert checks.cpu_promotes(texts, "asinh") == "UnaryOps.cpp:2"
    assert checks.cpu_promotes(texts, "atan2") == "BinaryOps.cpp:1"
    assert checks.cpu_promotes(texts, "frac") == ""


# -- defaults, table, guard --------------------------------------------------------------------


def facts(declared, *, command="migrate", failing=None, complex_ok=False, promotes=None, refuses=None):
    from mpsgen.sources.testlists.opinfo_dtypes import OpDtypes
    from mpsgen.sources.testlists.records import OpInfoRef

    ref = OpInfoRef("op", "", "op", "op", (), "cmi.py", 7, 9, 0, "UnaryUfuncInfo")
    ops = None if declared is None else OpDtypes(frozenset(declared), bool(promotes), False, (ref,))
    return d.Facts(command, ops, ListedDtypes(failing or {}, complex_ok), promotes, "", refuses or {}, "ops.mm:3")


def test_default_groups_follow_the_op():
    assert d.default_groups(facts(ALL_MPS), None, complex_body=False, result=None) == ("float", "integer")
    assert d.default_groups(facts(ALL_MPS, promotes=True), None, complex_body=False, result=None) == ("float", "int2float")
    assert d.default_groups(facts(ALL_MPS, promotes=True), None, complex_body=False, result="bool") == ("float", "integer")
    assert d.default_groups(facts(ALL_MPS | {"complex64"}), None, complex_body=True, result=None) == ("float", "integer", "complex")
    assert d.default_groups(facts(ALL_MPS | {"complex64"}), None, complex_body=False, result=None) == ("float", "integer")
    assert d.default_groups(facts({"float32", "float64"}), None, complex_body=False, result=None) == ("float",)
    assert d.default_groups(facts(None), None, complex_body=False, result=None) is None


def test_table_before_and_after():
    f = facts(ALL_MPS | {"complex64", "float64"}, failing={"bool": "ON_MPS_XFAILLIST"}, refuses={"int64": "TORCH_CHECK(x)"})
    rows = {r.dtype: r for r in d.rows(f, ("float", "int2float"), "float")}
    assert (rows["float16"].before, rows["float16"].after, rows["float16"].served) == ("served by MPSGraph", "registered T->T", True)
    assert rows["int32"].after == "registered T->float"
    assert rows["bool"].before == "xfailed (ON_MPS_XFAILLIST)" and not rows["bool"].served
    assert rows["int64"].before == "refused by MPSGraph (TORCH_CHECK(x))" and not rows["int64"].served
    assert rows["complex64"].before == "xfailed (not in SUPPORTED_COMPLEX_OPS)"
    assert rows["float64"].after == "not registered (Metal has none)"
    assert "complex128" not in rows  # shown only when declared
    lines = d.format_rows(list(rows.values()))
    assert lines[0].startswith("float32    served by MPSGraph") and lines[0].endswith("->  registered T->T")


def test_guard_lists_what_would_be_lost_and_the_way_forward():
    f = facts(ALL_MPS | {"complex64"}, complex_ok=True)
    table = d.rows(f, ("float",), "same")
    with pytest.raises(MpsgenError) as err:
        d.guard(table, "sign", frozenset(), f)
    line = err.value.render()
    assert line.startswith("ops.mm:3: the new kernel for sign would stop serving int64, int32, int16, int8, uint8, bool, complex64")
    assert "--int-expr BODY" in line and "--complex-expr BODY" in line and "--drop-dtypes int64,int32,int16,int8,uint8,bool,complex64" in line
    d.guard(table, "sign", frozenset(d.INTS) | {"complex64"}, f)  # all dropped: accepted
    with pytest.raises(MpsgenError, match="stop serving complex64"):
        d.guard(table, "sign", frozenset(d.INTS), f)


def test_guard_does_not_fire_for_new_ops_or_xfailed_dtypes():
    new = facts(ALL_MPS, command="new-op", failing={k: "UNIMPLEMENTED_XFAILLIST" for k in ALL_MPS})
    d.guard(d.rows(new, ("float",), "same"), "heaviside", frozenset(), new)


@pytest.mark.parametrize("text, message", [
    ("float64", "Metal has no float64"), ("double", "Metal has no float64"), ("complex128", "Metal has no complex128"),
    ("floats", "unknown dtype 'floats'"), ("", "(empty)"),
])
def test_user_dtypes_refused_in_one_line(text, message):
    with pytest.raises(MpsgenError) as err:
        d.parse_user_dtypes(text)
    assert message in err.value.render() and "\n" not in err.value.render()


def test_user_dtypes_take_groups_and_torch_names():
    assert d.parse_user_dtypes("float,int64, torch.half") == (("float",), frozenset({"int64", "float16"}))
    assert d.parse_drop("int64,torch.bool,complex") == {"int64", "bool", "complex64"}
    with pytest.raises(MpsgenError, match="not a dtype MPS kernels register"):
        d.parse_drop("float64")


def test_branch_flags_for_dtypes_the_op_cannot_take():
    f = facts({"float32", "float16", "bfloat16", "float64"})
    with pytest.raises(MpsgenError) as err:
        d.check_branches(f, "frac", int_expr="x", complex_expr=None)
    assert err.value.render().startswith("cmi.py:7: --int-expr given, but frac takes no integer dtypes on MPS")
    with pytest.raises(MpsgenError, match="takes no complex dtypes"):
        d.check_branches(f, "frac", int_expr=None, complex_expr="x")
    d.check_branches(facts(None), "frac", int_expr="x", complex_expr="x")  # no OpInfo: nothing to judge


# -- the real wheel files ----------------------------------------------------------------------


@pytest.fixture(scope="module")
def real(real_testing_dir: Path):
    cmi = (real_testing_dir / "common_methods_invocations.py").read_text(encoding="utf-8")
    defs = {p.name: p.read_text(encoding="utf-8") for p in (real_testing_dir / "opinfo" / "definitions").glob("*.py")}
    return cmi, defs, (real_testing_dir / "common_mps.py").read_text(encoding="utf-8")


@pytest.mark.parametrize("op, declared, promotes", [
    ("heaviside", ALL_MPS | {"float64"}, False),
    ("asinh", ALL_MPS | {"float64", "complex64", "complex128"}, True),
    ("frac", {"float32", "float64", "float16", "bfloat16"}, False),
    ("logit", ALL_MPS | {"float64"}, True),
    ("ceil", ALL_MPS | {"float64"}, False),  # dtypesIfMPS adds bool to dtypes
    ("special_log_ndtr", ALL_MPS - {"float16", "bfloat16"} | {"float64"}, False),  # in opinfo/definitions/special.py
])
def test_real_opinfo_dtypes(real, op, declared, promotes):
    cmi, defs, _ = real
    got = mps_dtypes(cmi, defs, op)
    assert got.found and got.declared == declared and got.promotes_int_to_float is promotes


def test_every_frontier_opinfo_evaluates(real):
    cmi, defs, _ = real
    for op in ("sign", "sgn", "signbit", "trunc", "floor", "round", "logical_and", "logical_or", "logical_xor",
               "logical_not", "acosh", "atanh", "conj_physical", "nan_to_num", "atan2", "hypot", "xlogy"):
        got = mps_dtypes(cmi, defs, op)
        assert got.found, (op, got.unresolved)


def test_real_common_mps_listed_dtypes(real):
    _, _, cm = real
    heaviside = listed_dtypes(cm, ["heaviside"])
    assert set(heaviside.failing) == ALL_MPS | {"complex64"} and heaviside.failing["int64"] == "UNIMPLEMENTED_XFAILLIST"
    assert listed_dtypes(cm, ["asinh"]) == ListedDtypes({}, True)
    assert listed_dtypes(cm, ["frac"]) == ListedDtypes({}, False)


def test_real_new_op_heaviside_covers_every_declared_dtype_and_drops_the_xfail_entirely(real):
    """Issue 13: heaviside's OpInfo declares all types + bool/half/bfloat16; the default registrations
    cover them (T->T, as its CPU kernel keeps the type) and UNIMPLEMENTED_XFAILLIST loses the entry."""
    cmi, defs, cm = real
    ops = mps_dtypes(cmi, defs, "heaviside")
    f = d.Facts("new-op", ops, listed_dtypes(cm, ["heaviside"]), False)
    groups = d.default_groups(f, None, complex_body=False, result=None)
    assert groups == ("float", "integer")
    table = d.rows(f, groups, "same")
    assert all(r.after == "registered T->T" for r in table if r.dtype in ALL_MPS)
    supported = [r.dtype for r in table if r.registered]
    new, changes = plan_common_mps(cm, ["heaviside"], supported_dtypes=supported, complex_action="refuse-if-listed")
    assert [c.what for c in changes] == ['removed "heaviside" from UNIMPLEMENTED_XFAILLIST (mps_ops_modifier)']
    assert '"heaviside"' not in new and new == cm.replace('            "heaviside": None,\n', "", 1)


def test_real_common_mps_gets_an_xfail_entry_for_dropped_dtypes(real):
    _, _, cm = real
    new, changes = add_unimplemented(cm, "sign", ["int64", "bool"])
    assert changes[0].what == 'added "sign": [torch.int64, torch.bool] to UNIMPLEMENTED_XFAILLIST'
    assert listed_dtypes(new, ["sign"]).failing == {"int64": "UNIMPLEMENTED_XFAILLIST", "bool": "UNIMPLEMENTED_XFAILLIST"}
    added = [line for line in new.splitlines() if line not in cm.splitlines()]
    assert added == ['            "sign": [torch.int64, torch.bool],']


def test_without_an_opinfo_the_registrations_are_trusted():
    f = facts(None)
    rows = {r.dtype: r for r in d.rows(f, ("float",), "same")}
    assert rows["float32"].before == "served by MPSGraph (no OpInfo: assumed)" and rows["float32"].served
    assert rows["int64"].before == "unknown (no OpInfo)" and not rows["int64"].served
    d.guard(list(rows.values()), "tanh_backward", frozenset(), f)  # nothing known to lose
