"""Test-list edits on the real common_mps.py / common_methods_invocations.py from the torch 2.13.0 wheel."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from mpsgen.errors import MpsgenError
from mpsgen.sources.testlists import opinfo_keys, plan_common_mps, plan_opinfo_decorators, plan_test_lists, stale_keys


@pytest.fixture(scope="module")
def cm(real_common_mps_path: Path) -> str:
    return real_common_mps_path.read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def cmi(real_cmi_path: Path) -> str:
    return real_cmi_path.read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def defs(real_testing_dir: Path) -> dict[str, str]:
    d = real_testing_dir / "opinfo" / "definitions"
    return {
        f"opinfo/definitions/{p.name}": p.read_text(encoding="utf-8")
        for p in sorted(d.glob("*.py"))
        if p.name != "__init__.py"
    }


def _without(text: str, block: str) -> str:
    """*text* with exactly one occurrence of *block* removed (asserting there is exactly one)."""
    assert text.count(block) == 1, block
    return text.replace(block, "", 1)


# -- OpInfo lookup ---------------------------------------------------------------------------------


def test_heaviside_opinfo(cmi, defs):
    refs = opinfo_keys(cmi, defs, "heaviside")
    assert [(r.key, r.kind, r.path) for r in refs] == [("heaviside", "BinaryUfuncInfo", "common_methods_invocations.py")]
    lines = cmi.splitlines()
    assert lines[refs[0].line - 1].strip().startswith("BinaryUfuncInfo('heaviside'")
    assert lines[refs[0].end_line - 1].rstrip().endswith(")),")  # the call closes on its last line


def test_variant_keys_have_no_separator(cmi, defs):
    assert [r.key for r in opinfo_keys(cmi, defs, "logspace")] == ["logspace", "logspacetensor_overload"]
    refs = opinfo_keys(cmi, defs, "linalg_lstsq")
    assert [(r.key, r.variant, r.aten_name, r.path) for r in refs] == [
        ("linalg.lstsq", "", "linalg_lstsq", "opinfo/definitions/linalg.py"),
        ("linalg.lstsqgrad_oriented", "grad_oriented", "linalg_lstsq", "opinfo/definitions/linalg.py"),
    ]


def test_dotted_and_aliased_names(cmi, defs):
    assert [r.name for r in opinfo_keys(cmi, defs, "special_log_ndtr")] == ["special.log_ndtr"]
    assert [r.name for r in opinfo_keys(cmi, defs, "gelu")] == ["nn.functional.gelu"]  # aten_name='gelu'
    atan2 = opinfo_keys(cmi, defs, "arctan2")  # alias
    assert [(r.name, r.aliases) for r in atan2] == [("atan2", ("arctan2",))]


def test_foreach_and_python_refs_are_not_op_db(cmi, defs):
    assert [(r.key, r.kind) for r in opinfo_keys(cmi, defs, "frac")] == [("frac", "UnaryUfuncInfo")]


def test_unknown_op_has_no_opinfo(cmi, defs):
    assert opinfo_keys(cmi, defs, "no_such_op_xyz") == []


# -- common_mps.py ---------------------------------------------------------------------------------


def test_heaviside_key_removed_byte_exact(cm):
    new, changes = plan_common_mps(cm, ["heaviside"])
    assert new == _without(cm, '            "heaviside": None,\n')
    assert [(c.line, c.what) for c in changes] == [
        (cm.splitlines().index('            "heaviside": None,') + 1,
         'removed "heaviside" from UNIMPLEMENTED_XFAILLIST (mps_ops_modifier)')
    ]
    ast.parse(new)
    assert plan_common_mps(new, ["heaviside"]) == (new, [])  # idempotent


def test_frexp_all_dtypes_removed_and_commented_entry_kept(cm):
    new, _ = plan_common_mps(cm, ["frexp", "kthvalue"])
    assert new == _without(cm, '            "frexp": None,\n')
    assert '            # "kthvalue": None,\n' in new  # commented-out entry untouched


def test_frexp_partial_dtypes_becomes_explicit_list(cm):
    new, changes = plan_common_mps(cm, ["frexp"], supported_dtypes=["float32", "float16", "bfloat16"])
    block = (
        '            "frexp": [\n'
        "                torch.uint8,\n"
        "                torch.int8,\n"
        "                torch.int16,\n"
        "                torch.int32,\n"
        "                torch.int64,\n"
        "                torch.bool,\n"
        "            ],\n"
    )
    assert new == cm.replace('            "frexp": None,\n', block, 1)
    assert "from None to [torch.uint8" in changes[0].what
    ast.parse(new)
    assert plan_common_mps(new, ["frexp"], supported_dtypes=["float32", "float16", "bfloat16"])[0] == new


def test_dtype_list_narrowed_then_deleted(cm):
    narrowed, changes = plan_common_mps(cm, ["native_batch_norm"], supported_dtypes=["uint8", "bool", "int8"])
    expected = cm.replace(
        '            "native_batch_norm": [\n'
        "                torch.uint8,\n"
        "                torch.bool,\n"
        "                torch.int8,\n"
        "                torch.int16,\n",
        '            "native_batch_norm": [\n'
        "                torch.int16,\n",
        1,
    )
    assert narrowed == expected and narrowed != cm
    assert changes[0].what.endswith("to [torch.int16, torch.int32]")
    ast.parse(narrowed)
    gone, changes = plan_common_mps(narrowed, ["native_batch_norm"], supported_dtypes=["int16", "int32"])
    assert "native_batch_norm" not in gone
    assert changes[0].what.startswith('removed "native_batch_norm"')


def test_one_line_list_narrowed_and_trailing_comment_goes_with_entry(cm):
    new, _ = plan_common_mps(
        cm, ["stft", "_upsample_bilinear2d_aa"], supported_dtypes=["float16", "uint8"], complex_action="keep"
    )
    expected = cm.replace('"stft": [torch.float16, torch.bfloat16],', '"stft": [torch.bfloat16],', 1)
    expected = _without(expected, '            "_upsample_bilinear2d_aa": [torch.uint8],  # uint8 is for CPU only\n')
    # The grad table says None (every grad dtype); float32 still fails there.
    expected = expected.replace(
        '"_upsample_bilinear2d_aa": None,  # `_upsample_bilinear2d_aa_backward_out`',
        '"_upsample_bilinear2d_aa": [torch.float32],  # `_upsample_bilinear2d_aa_backward_out`',
        1,
    )
    assert new == expected


def test_variant_key_and_both_on_mps_xfaillists(cm):
    new, changes = plan_common_mps(cm, ["linalg.lstsq", "linalg.lstsqgrad_oriented", "linalg.matrix_rank"])
    expected = _without(cm, '            "linalg.lstsq": None,\n            "linalg.lstsqgrad_oriented": None,\n')
    # linalg.matrix_rank sits in both ON_MPS_XFAILLIST tables, alone under a comment block that
    # explains only it (the next entry has its own comment), so the block goes with it.
    block = (
        "            # Failures due to lack of implementation of downstream functions on MPS backend\n"
        "            # TODO: remove these once downstream function 'aten::_linalg_svd.U' have been implemented\n"
        '            "linalg.matrix_rank": None,\n'
    )
    assert expected.count(block) == 2
    expected = expected.replace(block, "")
    assert new == expected
    assert {c.what.split(" from ")[1] for c in changes} == {
        "UNIMPLEMENTED_XFAILLIST (mps_ops_modifier)",
        "ON_MPS_XFAILLIST (mps_ops_modifier)",
        "ON_MPS_XFAILLIST (mps_ops_grad_modifier)",
    }


def test_error_inputs_set_entry_removed(cm):
    new, changes = plan_common_mps(cm, ["clamp_max"])
    assert new == _without(cm, '            "clamp_max",\n')
    assert changes[0].what == 'removed "clamp_max" from XFAILLIST (mps_ops_error_inputs_modifier)'


def test_complex_supported_op_is_refused_with_location(cm):
    with pytest.raises(MpsgenError) as err:
        plan_common_mps(cm, ["asin"])
    e = err.value
    assert e.path == "common_mps.py" and cm.splitlines()[e.line - 1].strip() == '"asin",'
    assert "complex64" in e.message and "--complex-expr" in e.hint and "--drop-complex" in e.hint
    assert "\n" not in e.render()


def test_complex_drop_and_add(cm):
    dropped, changes = plan_common_mps(cm, ["asin"], complex_action="drop")
    assert dropped == _without(cm, '            "asin",\n')
    assert changes[0].what == 'removed "asin" from SUPPORTED_COMPLEX_OPS'
    added, changes = plan_common_mps(cm, ["heaviside"], complex_action="add")
    # Inserted after the greatest smaller name ("half"), in the set's quote style and indentation.
    expected = cm.replace('            "half",\n', '            "half",\n            "heaviside",\n', 1)
    expected = _without(expected, '            "heaviside": None,\n')
    assert added == expected
    assert plan_common_mps(added, ["heaviside"], complex_action="add")[0] == added


def test_no_key_no_change(cm):
    assert plan_common_mps(cm, ["atan2"]) == (cm, [])


# -- common_methods_invocations.py -----------------------------------------------------------------

SOFTMAX_DECO = (
    "               # AssertionError: Tensor-likes are not close!\n"
    "               DecorateInfo(\n"
    "                   unittest.expectedFailure, 'TestConsistency', 'test_output_grad_match',\n"
    "                   device_type='mps', dtypes=(torch.float32,)\n"
    "               ),\n"
)


def test_output_grad_match_decorator_removed(cmi, defs):
    refs = [r for r in opinfo_keys(cmi, defs, "softmax") if r.variant == "with_dtype"]
    new, changes = plan_opinfo_decorators(cmi, refs)
    start = cmi.index("variant_test_name=\"with_dtype\",\n           aten_name='softmax'")
    at = cmi.index(SOFTMAX_DECO, start)
    assert new == cmi[:at] + cmi[at + len(SOFTMAX_DECO) :]
    assert len(changes) == 1 and "test_output_grad_match" in changes[0].what
    assert plan_opinfo_decorators(new, opinfo_keys(new, defs, "softmax"))[0] == new


def test_dtype_limited_decorator_kept_when_dtype_unsupported(cmi, defs):
    refs = [r for r in opinfo_keys(cmi, defs, "softmax") if r.variant == "with_dtype"]
    assert plan_opinfo_decorators(cmi, refs, supported_dtypes=["float16"]) == (cmi, [])


def test_heaviside_other_mps_decorators_by_option(cmi, defs):
    refs = opinfo_keys(cmi, defs, "heaviside")
    assert plan_opinfo_decorators(cmi, refs) == (cmi, [])  # no test_output_match decorators
    new, changes = plan_opinfo_decorators(cmi, refs, tests=None)
    block = cmi[cmi.index("                        # NotImplementedError: The operator 'aten::heaviside.out'") :]
    block = block[: block.index("                    )),\n    BinaryUfuncInfo('lcm',")]
    assert block.count("DecorateInfo(") == 5
    assert new == _without(cmi, block)
    assert len(changes) == 5
    assert "toleranceOverride" not in block and "TestBinaryUfuncsDevice" in new[new.index("BinaryUfuncInfo('heaviside'"):][:2000]


def test_tolerance_overrides_kept(cmi, defs):
    # atan2 has MPS toleranceOverride DecorateInfos for TestConsistency only.
    refs = opinfo_keys(cmi, defs, "atan2")
    assert plan_opinfo_decorators(cmi, refs, tests=None) == (cmi, [])


def test_whole_plan_on_real_files(cm, cmi, defs):
    plan = plan_test_lists("special_log_ndtr", common_mps_text=cm, cmi_text=cmi, definitions=defs, tests=None)
    assert set(plan.texts) == {"common_mps.py", "opinfo/definitions/special.py"}
    special = defs["opinfo/definitions/special.py"]
    block = (
        "            # The operator 'aten::special_log_ndtr.out' is not currently implemented for the MPS device\n"
        '            DecorateInfo(unittest.expectedFailure, "TestCommon", device_type="mps"),\n'
    )
    # The same pair also sits in the _refs.special.log_ndtr PythonRefInfo, which is not touched.
    first = special.index(block)
    assert plan.texts["opinfo/definitions/special.py"] == special[:first] + special[first + len(block) :]
    assert plan.texts["common_mps.py"] == _without(cm, '            "special.log_ndtr": None,\n')
    for text in plan.texts.values():
        ast.parse(text)


def test_stale_keys_on_real_files(cm, cmi, defs):
    stale = {e.key: e for e in stale_keys(cm, cmi, defs)}
    assert "heaviside" not in stale and "linalg.lstsqgrad_oriented" not in stale and "logspacetensor_overload" not in stale
    assert "symeig" in stale  # torch.symeig was removed; its xfail key names no OpInfo
    e = stale["symeig"]
    assert cm.splitlines()[e.line - 1].strip() == '"symeig": None,' and e.table == "UNIMPLEMENTED_XFAILLIST"
