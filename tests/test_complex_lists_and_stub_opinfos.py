"""A stub's dtype facts come from the OpInfos that pass the arguments selecting it (div_trunc: the
trunc_rounding variant), and a key in 2.7's AFTER_MACOS_14_0_SUPPORTED_COMPLEX_OPS counts as complex
MPSGraph served (issue 41)."""

from __future__ import annotations

import ast
import dataclasses

import pytest

from mpsgen.errors import MpsgenError, Refusal
from mpsgen.plan import dtypes as d
from mpsgen.sources.testlists import plan_common_mps
from mpsgen.sources.testlists.commonmps import ListedDtypes, listed_dtypes
from mpsgen.sources.testlists.opinfo_dtypes import mps_dtypes, sets_argument

CMI = '''op_db = [
    BinaryUfuncInfo('div',
                    variant_test_name='no_rounding_mode',
                    dtypes=all_types_and_complex_and(torch.bool, torch.half, torch.bfloat16),
                    promotes_int_to_float=True),
    BinaryUfuncInfo('div',
                    variant_test_name='trunc_rounding',
                    dtypes=all_types_and(torch.half, torch.bfloat16),
                    sample_kwargs=lambda device, dtype, input:
                        ({"rounding_mode": "trunc"}, {"rounding_mode": "trunc"})),
    BinaryUfuncInfo('gcd', dtypes=integral_types()),
]
'''
LISTS = '''def mps_ops_modifier(ops):
    SUPPORTED_COMPLEX_OPS = {
        'add',
    }

    AFTER_MACOS_14_0_SUPPORTED_COMPLEX_OPS = {
        'cos',
        'divno_rounding_mode',
    }

    UNIMPLEMENTED_XFAILLIST = {
        'divtrunc_rounding': [torch.float16],
        'gcd': None,
    }
'''
FLOATS, INTS = ("float32", "float16", "bfloat16"), ("int64", "int32", "int16", "int8", "uint8")


def _call(text: str, name: str) -> ast.Call:
    return next(n for n in ast.walk(ast.parse(text)) if isinstance(n, ast.Call)
                and any(k.arg == "variant_test_name" and k.value.value == name for k in n.keywords))


def test_what_an_opinfo_passes_for_an_argument():
    assert sets_argument(_call(CMI, "trunc_rounding"), "rounding_mode") == "trunc"
    assert sets_argument(_call(CMI, "no_rounding_mode"), "rounding_mode") is None
    elsewhere = CMI.replace("sample_kwargs=lambda device, dtype, input:\n", "sample_kwargs=trunc_kwargs, x=\\\n")
    assert sets_argument(_call(elsewhere, "trunc_rounding"), "rounding_mode") is False


def test_a_stubs_dtypes_are_read_from_the_opinfos_passing_its_arguments():
    assert "complex64" in mps_dtypes(CMI, {}, "div").declared  # the family: every variant
    trunc = mps_dtypes(CMI, {}, "div", fixed=(("rounding_mode", "trunc"),))
    assert [r.key for r in trunc.refs] == ["divtrunc_rounding"] and not {"complex64", "bool"} & trunc.declared
    assert [r.key for r in mps_dtypes(CMI, {}, "div", fixed=(("rounding_mode", None),)).refs] == ["divno_rounding_mode"]
    assert len(mps_dtypes(CMI, {}, "div", fixed=(("rounding_mode", "floor"),)).refs) == 2  # none says: all count


def test_the_eras_other_complex_set_is_complex_mpsgraph_served():
    listed = listed_dtypes(LISTS, ["divno_rounding_mode"], path="test_mps.py")
    assert listed == ListedDtypes({}, False, "AFTER_MACOS_14_0_SUPPORTED_COMPLEX_OPS")
    with pytest.raises(MpsgenError) as err:
        plan_common_mps(LISTS, ["divno_rounding_mode"], supported_dtypes=FLOATS, path="test_mps.py")
    assert err.value.kind is Refusal.LOSES_COMPLEX and err.value.line == 8
    assert err.value.message.startswith('"divno_rounding_mode" is in AFTER_MACOS_14_0_SUPPORTED_COMPLEX_OPS: ')


def test_the_before_column_reads_the_eras_other_complex_set():
    from mpsgen.sources.testlists.opinfo_dtypes import OpDtypes

    ops = mps_dtypes(CMI, {}, "div", fixed=(("rounding_mode", None),))
    assert isinstance(ops, OpDtypes)
    after = d.Facts("migrate", ops, listed_dtypes(LISTS, ["divno_rounding_mode"], path="test_mps.py"), True)
    row = next(r for r in d.rows(after, ("float", "int2float", "complex"), "float") if r.dtype == "complex64")
    assert row.before == "served by MPSGraph from macOS 14.0 (AFTER_MACOS_14_0_SUPPORTED_COMPLEX_OPS)" and row.served
    nowhere = dataclasses.replace(after, listed=ListedDtypes({}, False))
    row = next(r for r in d.rows(nowhere, ("float",), "float") if r.dtype == "complex64")
    assert row.before == "xfailed (not in SUPPORTED_COMPLEX_OPS)" and not row.served
