"""Test-list edits on small hand-written fixtures: layouts, quoting, CRLF, refusals."""

from __future__ import annotations

import ast
import difflib
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mpsgen.errors import MpsgenError
from mpsgen.sources.testlists import (
    entries,
    opinfo_keys,
    plan_common_mps,
    plan_opinfo_decorators,
    plan_test_lists,
    stale_keys,
)

COMMON_MPS = '''\
import torch

if torch.backends.mps.is_available():

    def mps_ops_modifier(ops):
        SUPPORTED_COMPLEX_OPS = {
            "add",
            'logaddexp',
            "sqrt",
        }
        UNIMPLEMENTED_XFAILLIST: dict[str, list | None] = {
            # Failures due to lack of op implementation on MPS backend
            "frexp": None,
            'heaviside': None,
            # 'kthvalue': None,
            "rounddecimals_0": [
                torch.uint8,
                torch.int8,  # int8 note
            ],
            "stft": [torch.float16, torch.half, torch.bfloat16],
        }
        SKIPLIST = {"heaviside": None, "other": [torch.bool]}
        return ops

    def mps_ops_grad_modifier(ops):
        XFAILLIST_GRAD = {
            "heaviside": None,  # no backward
            "frexp": [torch.float16],
        }
        return ops

    def mps_ops_error_inputs_modifier(ops):
        XFAILLIST = {"clamp_max", "heaviside"}
        return ops
'''

CMI = '''\
op_db = [
    BinaryUfuncInfo('heaviside',
                    dtypes=all_types(),
                    skips=(
                        DecorateInfo(unittest.expectedFailure, 'TestConsistency', 'test_output_match', device_type='mps'),
                        DecorateInfo(unittest.expectedFailure, 'TestCommon', 'test_out', device_type='mps'),
                    )),
    OpInfo(
        "frexp",
        decorators=[DecorateInfo(unittest.skip("Skipped!"), "TestConsistency", "test_output_grad_match"),
                    DecorateInfo(toleranceOverride({torch.float16: tol(atol=1e-3, rtol=1e-3)}),
                                 "TestConsistency", "test_output_match", device_type="mps")],
        skips=(DecorateInfo(unittest.expectedFailure, 'TestConsistency', 'test_output_match', device_type='cpu'),
               DecorateInfo(unittest.expectedFailure, 'TestConsistency', 'test_output_match',
                            device_type='mps', dtypes=(torch.float32, torch.bfloat16))),
    ),
    OpInfo('logspace', variant_test_name='tensor_overload', aliases=('logspace_alias',)),
    UnaryUfuncInfo('special.ndtri', aten_name='special_ndtri'),
    PythonRefInfo("_refs.heaviside", torch_opinfo_name="heaviside"),
]
'''


def _without(text: str, block: str) -> str:
    assert text.count(block) == 1, block
    return text.replace(block, "", 1)


def test_tables_found_by_shape_with_functions():
    found = {(e.table, e.function, e.key) for e in entries(COMMON_MPS)}
    assert ("ON_MPS_XFAILLIST", "mps_ops_modifier", "x") not in found
    assert ("UNIMPLEMENTED_XFAILLIST", "mps_ops_modifier", "heaviside") in found
    assert ("XFAILLIST", "mps_ops_error_inputs_modifier", "heaviside") in found
    assert ("SUPPORTED_COMPLEX_OPS", "mps_ops_modifier", "logaddexp") in found
    assert not any(e.key == "kthvalue" for e in entries(COMMON_MPS))  # commented out


def test_every_table_and_inline_forms():
    new, changes = plan_common_mps(COMMON_MPS, ["heaviside"])
    expected = _without(COMMON_MPS, "            'heaviside': None,\n")
    expected = expected.replace('SKIPLIST = {"heaviside": None, "other": [torch.bool]}', 'SKIPLIST = {"other": [torch.bool]}')
    expected = _without(expected, '            "heaviside": None,  # no backward\n')
    expected = expected.replace('XFAILLIST = {"clamp_max", "heaviside"}', 'XFAILLIST = {"clamp_max"}')
    assert new == expected
    assert [c.line for c in changes] == [14, 22, 27, 33]
    assert "            # 'kthvalue': None,\n" in new
    ast.parse(new)
    assert plan_common_mps(new, ["heaviside"]) == (new, [])


def test_inline_first_item_removed():
    new, _ = plan_common_mps(COMMON_MPS, ["clamp_max"])
    assert 'XFAILLIST = {"heaviside"}' in new and new.count("\n") == COMMON_MPS.count("\n")


def test_narrowing_aliases_and_item_comments():
    new, changes = plan_common_mps(COMMON_MPS, ["stft", "rounddecimals_0"], supported_dtypes=["half", "int8"])
    expected = COMMON_MPS.replace('"stft": [torch.float16, torch.half, torch.bfloat16],', '"stft": [torch.bfloat16],')
    expected = _without(expected, "                torch.int8,  # int8 note\n")
    assert new == expected
    assert [c.what for c in changes] == [
        'narrowed "rounddecimals_0" in UNIMPLEMENTED_XFAILLIST (mps_ops_modifier) to [torch.uint8]',
        'narrowed "stft" in UNIMPLEMENTED_XFAILLIST (mps_ops_modifier) to [torch.bfloat16]',
    ]


def test_none_in_grad_table_uses_grad_dtypes():
    new, _ = plan_common_mps(COMMON_MPS, ["heaviside"], supported_dtypes=["float16", "float32", "int32"])
    assert '"heaviside": None,  # no backward' not in new  # both grad dtypes supported: deleted
    # the forward table keeps what still fails, complex64 excluded (SUPPORTED_COMPLEX_OPS covers it)
    assert (
        "            'heaviside': [\n                torch.uint8,\n                torch.int8,\n"
        "                torch.int16,\n                torch.int64,\n                torch.bfloat16,\n"
        "                torch.bool,\n            ],\n            # 'kthvalue': None,\n"
    ) in new


def test_complex_refusal_names_the_set_entry():
    with pytest.raises(MpsgenError) as err:
        plan_common_mps(COMMON_MPS, ["logaddexp"], path="torch/testing/_internal/common_mps.py")
    assert err.value.render().startswith("torch/testing/_internal/common_mps.py:8: \"logaddexp\" is in SUPPORTED_COMPLEX_OPS")


def test_complex_add_keeps_quote_style_and_place():
    new, changes = plan_common_mps(COMMON_MPS, ["aardvark", "mul"], complex_action="add")
    assert '        SUPPORTED_COMPLEX_OPS = {\n            "aardvark",\n            "add",\n' in new
    assert "            'logaddexp',\n            'mul',\n            \"sqrt\",\n" in new
    assert [c.what for c in changes] == ['added "aardvark" to SUPPORTED_COMPLEX_OPS', 'added "mul" to SUPPORTED_COMPLEX_OPS']


def test_complex_add_counts_complex64_supported():
    text = 'def mps_ops_modifier(ops):\n    SUPPORTED_COMPLEX_OPS = {"add"}\n    UNDEFINED_XFAILLIST = {"cumsum": [torch.complex64]}\n'
    new, _ = plan_common_mps(text, ["cumsum"], complex_action="add")
    assert new == 'def mps_ops_modifier(ops):\n    SUPPORTED_COMPLEX_OPS = {"add", "cumsum"}\n    UNDEFINED_XFAILLIST = {}\n'
    kept, _ = plan_common_mps(text, ["cumsum"], complex_action="drop")
    assert kept == text


def test_crlf_kept_and_used_for_new_lines():
    crlf = COMMON_MPS.replace("\n", "\r\n")
    new, _ = plan_common_mps(crlf, ["frexp"], supported_dtypes=["float32"], complex_action="keep")
    assert "\n" not in new.replace("\r\n", "")
    assert '            "frexp": [\r\n                torch.uint8,\r\n' in new
    assert new.replace("\r\n", "\n") == plan_common_mps(COMMON_MPS, ["frexp"], supported_dtypes=["float32"],
                                                        complex_action="keep")[0]


def test_non_ascii_before_key_on_same_line():
    text = 'T = {"café": None, "heaviside": None}  # naïve\n'
    assert plan_common_mps(text, ["heaviside"], complex_action="keep")[0] == 'T = {"café": None}  # naïve\n'
    # Outside a function with SUPPORTED_COMPLEX_OPS nothing else xfails complex64, so it stays listed.
    assert plan_common_mps(text, ["heaviside"])[0] == 'T = {"café": None, "heaviside": [torch.complex64]}  # naïve\n'


def test_refusals():
    with pytest.raises(MpsgenError, match="not valid Python") as err:
        plan_common_mps("X = {\n  'a': None,\n", ["a"], path="cm.py")
    assert err.value.path == "cm.py"
    with pytest.raises(MpsgenError, match="neither None nor a list") as err:
        plan_common_mps('X = {\n    "a": SOME_LIST,\n}\n', ["a"])
    assert err.value.line == 2
    with pytest.raises(MpsgenError, match="not a torch dtype"):
        plan_common_mps('X = {"a": [torch.float32, my_dtype]}\n', ["a"], supported_dtypes=["float32"])
    with pytest.raises(MpsgenError, match="unknown dtype 'flaot32'"):
        plan_common_mps(COMMON_MPS, ["heaviside"], supported_dtypes=["flaot32"])
    with pytest.raises(MpsgenError, match="line endings"):
        plan_common_mps("X = {'a': None}\rY = 1\n", ["a"])


# -- OpInfos ---------------------------------------------------------------------------------------


def test_opinfo_lookup_forms():
    assert [(r.key, r.line, r.end_line) for r in opinfo_keys(CMI, {}, "heaviside")] == [("heaviside", 2, 7)]
    frexp = opinfo_keys(CMI, {}, "frexp")
    assert [(r.key, r.line, r.end_line, r.kind) for r in frexp] == [("frexp", 8, 16, "OpInfo")]
    assert [r.key for r in opinfo_keys(CMI, {}, "logspace_alias")] == ["logspacetensor_overload"]
    assert [r.key for r in opinfo_keys(CMI, {}, "special_ndtri")] == ["special.ndtri"]


def test_definitions_files_are_searched():
    defs = {"opinfo/definitions/special.py": "op_db = [\n    UnaryUfuncInfo(\n        'special.zeta',\n    ),\n]\n"}
    refs = opinfo_keys(CMI, defs, "special_zeta")
    assert [(r.key, r.path, r.line) for r in refs] == [("special.zeta", "opinfo/definitions/special.py", 2)]


def test_decorators_default_tests():
    refs = opinfo_keys(CMI, {}, "heaviside") + opinfo_keys(CMI, {}, "frexp")
    new, changes = plan_opinfo_decorators(CMI, refs)
    expected = _without(
        CMI,
        "                        DecorateInfo(unittest.expectedFailure, 'TestConsistency', 'test_output_match', device_type='mps'),\n",
    )
    # first item of a list that starts on the bracket's line: the next item moves up; the tolerance stays
    expected = expected.replace(
        '        decorators=[DecorateInfo(unittest.skip("Skipped!"), "TestConsistency", "test_output_grad_match"),\n'
        "                    DecorateInfo(toleranceOverride(",
        "        decorators=[DecorateInfo(toleranceOverride(",
    )
    # last item of a two-item tuple: the tuple keeps its comma; the cpu one stays
    expected = expected.replace(
        "device_type='cpu'),\n"
        "               DecorateInfo(unittest.expectedFailure, 'TestConsistency', 'test_output_match',\n"
        "                            device_type='mps', dtypes=(torch.float32, torch.bfloat16))),\n",
        "device_type='cpu'),),\n",
    )
    assert new == expected
    assert [c.line for c in changes] == [5, 10, 14]
    ast.parse(new)
    assert plan_opinfo_decorators(new, opinfo_keys(new, {}, "heaviside") + opinfo_keys(new, {}, "frexp")) == (new, [])


def test_decorator_dtypes_narrowed():
    refs = opinfo_keys(CMI, {}, "frexp")
    new, changes = plan_opinfo_decorators(CMI, refs, supported_dtypes=["float32"])
    assert new.count("dtypes=(torch.bfloat16,))") == 1  # one-item tuple keeps its comma
    assert "narrowed DecorateInfo(expectedFailure, 'TestConsistency', 'test_output_match', mps)" in changes[-1].what
    ast.parse(new)


def test_all_mps_decorators_by_option():
    new, changes = plan_opinfo_decorators(CMI, opinfo_keys(CMI, {}, "heaviside"), tests=None)
    assert "'TestCommon', 'test_out', device_type='mps'" not in new
    assert "skips=(\n                    ))," in new
    assert len(changes) == 2


def test_decorator_outside_a_list_is_refused():
    text = "op_db = [OpInfo('x', decorators=DecorateInfo(unittest.expectedFailure, 'TestConsistency', 'test_output_match'))]\n"
    with pytest.raises(MpsgenError, match="not an item of a list or tuple") as err:
        plan_opinfo_decorators(text, opinfo_keys(text, {}, "x", cmi_path="cmi.py"), path="cmi.py")
    assert err.value.line == 1


def test_stale_refs_are_refused():
    refs = opinfo_keys(CMI, {}, "heaviside")
    with pytest.raises(MpsgenError, match="not at line 2 any more"):
        plan_opinfo_decorators("\n" + CMI, refs)


def test_stale_keys_fixture():
    stale = [(e.key, e.table, e.line) for e in stale_keys(COMMON_MPS, CMI, {})]
    assert ("other", "SKIPLIST", 22) in stale
    assert not any(k in ("heaviside", "frexp") for k, _, _ in stale)


def test_plan_test_lists_on_sample_like_tree(tmp_path: Path):
    plan = plan_test_lists("heaviside", common_mps_text=COMMON_MPS, cmi_text=CMI, definitions={})
    assert set(plan.texts) == {"common_mps.py", "common_methods_invocations.py"}
    assert [r.key for r in plan.refs] == ["heaviside"]
    assert len(plan.changes) == 5
    for text in plan.texts.values():
        ast.parse(text)


# -- property: any set of keys, on the real file -----------------------------------------------------


@pytest.fixture(scope="module")
def real_cm(real_common_mps_path: Path) -> str:
    return real_common_mps_path.read_text(encoding="utf-8")


@settings(max_examples=25, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_property_removal_on_real_file(real_cm, data):
    all_entries = entries(real_cm)
    keys = data.draw(st.sets(st.sampled_from(sorted({e.key for e in all_entries})), max_size=6))
    new, changes = plan_common_mps(real_cm, keys, complex_action="keep")
    ast.parse(new)
    after = [(e.table, e.function, e.key) for e in entries(new)]
    expected = [(e.table, e.function, e.key) for e in all_entries
                if e.key not in keys or e.table.startswith("SUPPORTED_")]
    assert after == expected
    assert len(changes) == len(all_entries) - len(after) + 0
    assert plan_common_mps(new, keys, complex_action="keep") == (new, [])
    # Only whole lines were deleted: every other line of the original is still there, in order.
    ops = difflib.SequenceMatcher(None, real_cm.splitlines(True), new.splitlines(True), autojunk=False).get_opcodes()
    assert {tag for tag, *_ in ops} <= {"equal", "delete"}


@pytest.mark.parametrize(
    ("src", "index", "expected"),
    [
        ("(A, B)", 0, "(B,)"),
        ("(A, B)", 1, "(A,)"),
        ("(\n    A,\n    B\n)", 0, "(\n    B,\n)"),
        ("[A, B, C]", 1, "[A, C]"),
        ("[A, B]", 1, "[A]"),
        ("[\n    A,  # a\n    # about B\n    B,\n]", 1, "[\n    A,  # a\n]"),
        ("[\n    # about A and B\n    A,\n    B,\n]", 0, "[\n    # about A and B\n    B,\n]"),
    ],
)
def test_remove_item_layouts(src, index, expected):
    from mpsgen.sources.testlists._source import Lines, remove_item

    node = ast.parse(src, mode="eval").body
    lines = Lines(src)
    new = remove_item(src, [lines.span(e) for e in node.elts], index, len(src) - 1, is_tuple=isinstance(node, ast.Tuple))
    assert new == expected
    assert type(ast.parse(new, mode="eval").body) is type(node)
