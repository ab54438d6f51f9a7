"""Each OpInfo key's test-list edits follow its own OpInfo and the kernels serving it (issue 41): div's
trunc_rounding variant is div_trunc's alone (no complex, so no SUPPORTED_COMPLEX_OPS entry); gcd's xfail of
every dtype goes rather than becoming one of float dtypes its OpInfo never runs."""

from __future__ import annotations

from test_complex_lists_and_stub_opinfos import CMI, FLOATS, INTS, LISTS

from mpsgen.sources.testlists import plan_common_mps, plan_test_lists

DIV_TRUE = ((("rounding_mode", None),), FLOATS + INTS + ("bool", "complex64"))
DIV_TRUNC = ((("rounding_mode", "trunc"),), FLOATS + INTS)


def test_each_key_gets_its_own_kernels_complex_and_dtypes():
    plan = plan_test_lists("div", common_mps_text=LISTS, cmi_text=CMI, definitions={}, complex_action="add",
                           kernels=[DIV_TRUE, DIV_TRUNC], common_mps_path="test_mps.py", cmi_path="cmi.py")
    text = plan.texts["test_mps.py"]
    assert "    SUPPORTED_COMPLEX_OPS = {\n        'add',\n        'divno_rounding_mode',\n    }" in text
    assert "divtrunc_rounding" not in text and "AFTER_MACOS_14_0_SUPPORTED_COMPLEX_OPS = {\n        'cos',\n    }" in text
    assert [str(c).split(": ", 1)[1] for c in plan.changes] == [
        'added "divno_rounding_mode" to SUPPORTED_COMPLEX_OPS',
        'removed "divno_rounding_mode" from AFTER_MACOS_14_0_SUPPORTED_COMPLEX_OPS (mps_ops_modifier)',
        'removed "divtrunc_rounding" from UNIMPLEMENTED_XFAILLIST (mps_ops_modifier)',
    ]
    # one set of dtypes for every key, as before: trunc_rounding would be marked complex-supported too
    old = plan_test_lists("div", common_mps_text=LISTS, cmi_text=CMI, definitions={}, complex_action="add",
                          kernels=[((), DIV_TRUE[1])], common_mps_path="test_mps.py", cmi_path="cmi.py")
    assert "'divtrunc_rounding',\n" not in old.texts["test_mps.py"]  # its OpInfo runs no complex: left alone


def test_an_xfail_of_every_dtype_goes_when_the_kernel_serves_every_dtype_the_opinfo_tests():
    gcd = plan_test_lists("gcd", common_mps_text=LISTS, cmi_text=CMI, definitions={}, kernels=[((), INTS)],
                          common_mps_path="test_mps.py", cmi_path="cmi.py")
    assert [str(c).split(": ", 1)[1] for c in gcd.changes] == ['removed "gcd" from UNIMPLEMENTED_XFAILLIST (mps_ops_modifier)']
    text, _ = plan_common_mps(LISTS, ["gcd"], supported_dtypes=INTS, path="test_mps.py", declared=INTS)
    assert "'gcd'" not in text
    # what the OpInfo tests unknown: every MPS dtype the kernel lacks stays xfailed
    text, _ = plan_common_mps(LISTS, ["gcd"], supported_dtypes=INTS, path="test_mps.py")
    assert "'gcd': [torch.float32, torch.bfloat16, torch.float16, torch.bool]," in text


ERROR_INPUTS = '''def mps_ops_error_inputs_modifier(ops):
    XFAILLIST = {
        # Exceptions are not raised
        'gather',
        'clamp_min',

        # MPS does not support tensor dimensions > 16
        'amax',
        'amin',
    }
'''


def test_an_error_inputs_xfail_for_a_limit_of_mps_tensors_stays():
    # amax's error inputs build a 65-dim tensor, which MPS refuses to create before any kernel runs: 2.13 keeps
    # the entry after moving amax to Metal.  gather's entry (the MPSGraph kernel raised nothing) goes.
    for key, kept in (("amax", True), ("gather", False)):
        text, changes = plan_common_mps(ERROR_INPUTS, [key], supported_dtypes=FLOATS, path="common_mps.py")
        assert (f"'{key}',\n" in text) == kept
        assert [c.what for c in changes] == ([] if kept else [f'removed "{key}" from XFAILLIST '
                                                                  "(mps_ops_error_inputs_modifier)"])
    text, _ = plan_common_mps(ERROR_INPUTS, ["amax", "gather", "clamp_min"], supported_dtypes=FLOATS,
                              path="common_mps.py")
    # the emptied block goes with its heading; the kept block keeps its own
    assert "Exceptions are not raised" not in text
    assert "        # MPS does not support tensor dimensions > 16\n        'amax',\n        'amin',\n    }" in text
