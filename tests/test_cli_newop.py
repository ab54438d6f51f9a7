"""`mpsgen new-op` end to end through the installed entry point: the sample's build and tests pass."""

from __future__ import annotations

import json
from pathlib import Path


from cli_support import mpsgen, tracked_bytes
HEAVISIDE = "a == 0 ? b : T(a > 0)"
LOG_NDTR = "log(c10::metal::erfc(-x * M_SQRT1_2_F) / 2)"
COMMON_MPS = "torch/testing/_internal/common_mps.py"


def test_new_op_heaviside_builds_and_passes(tree: Path) -> None:
    result = mpsgen("-C", str(tree), "new-op", "heaviside", "--expr", HEAVISIDE, "--format", "json")
    assert result.returncode == 0, result.stdout + result.stderr
    report = json.loads(result.stdout)
    plan = report["plan"]
    assert plan["moved"] == [{"entry": "heaviside.out", "line": 114, "from": None, "to": "heaviside_out"}]
    assert plan["stub"]["name"] == "heaviside_stub" and plan["arity"] == "binary"
    assert report["build"]["ok"] is True
    tests = report["tests"]
    assert tests["ok"] is True and tests["unexpected_successes"] == []
    # Issue 13: the registrations cover every dtype the OpInfo declares (all types, bool, half, bfloat16),
    # so every dtype now passes and the UNIMPLEMENTED_XFAILLIST entry is gone entirely.
    for dtype in ("float32", "float16", "bfloat16", "int32", "int64", "uint8", "bool"):
        assert tests["by_dtype"][dtype]["passed"] == 1, dtype
    rows = {r["dtype"]: r for r in plan["dtype_table"]}
    assert rows["int32"] == {"dtype": "int32", "before": "xfailed (UNIMPLEMENTED_XFAILLIST)", "after": "registered T->T"}
    assert rows["complex64"]["after"] == "not registered"
    text = (tree / COMMON_MPS).read_text()
    assert '"heaviside"' not in text
    assert "CPU, CUDA, MPS: heaviside_out" in (tree / "aten/src/ATen/native/native_functions.yaml").read_text()


def test_new_op_special_log_ndtr_builds_and_passes(tree: Path) -> None:
    # --no-try: this body underflows to -inf for x <= -14 (torch: -5005 at -100), which the numeric
    # check refuses (tests/test_try_cli.py); this test is about the edits, build and tests.
    result = mpsgen("-C", str(tree), "new-op", "special_log_ndtr", "--expr", LOG_NDTR, "--no-try")
    assert result.returncode == 0, result.stdout + result.stderr
    out = result.stdout
    assert "added     aten/src/ATen/native/mps/operations/UnaryKernel.mm: REGISTER_UNARY_TI_DISPATCH(special_log_ndtr)" in out
    # The OpInfo declares integers and the CPU meta function builds a float op: ints register T->float.
    assert 'removed "special.log_ndtr" from UNIMPLEMENTED_XFAILLIST' in out
    assert "dtype     int64      xfailed (UNIMPLEMENTED_XFAILLIST)  ->  registered T->float" in out
    assert "build succeeded" in out
    assert "test_output_match float32                1 passed" in out
    assert "0 unexpected successes" in out and "0 failed, 0 errors" in out
    again = mpsgen("-C", str(tree), "new-op", "special_log_ndtr", "--expr", LOG_NDTR)
    assert again.returncode == 0 and again.stdout.startswith("nothing to do: special_log_ndtr is already on a native Metal kernel")


def test_new_op_refuses_an_op_with_a_legacy_mps_kernel(tree: Path) -> None:
    before = tracked_bytes(tree)
    result = mpsgen("-C", str(tree), "new-op", "frac", "--expr", "x")
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1
    assert "frac already has an MPS kernel (frac.out: frac_out_mps)" in result.stderr
    assert "mpsgen migrate frac" in result.stderr and "mpsgen status --op frac" in result.stderr
    assert tracked_bytes(tree) == before


def test_new_op_refuses_an_op_not_in_native_functions(tree: Path) -> None:
    before = tracked_bytes(tree)
    result = mpsgen("-C", str(tree), "new-op", "heavyside", "--expr", HEAVISIDE)
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1
    assert "no op family named 'heavyside'" in result.stderr and "heaviside" in result.stderr
    assert tracked_bytes(tree) == before


def test_migrate_points_an_op_without_mps_to_new_op(tree: Path) -> None:
    result = mpsgen("-C", str(tree), "migrate", "special_log_ndtr")
    assert result.returncode == 2
    assert "has no MPS kernel to migrate" in result.stderr and "mpsgen new-op special_log_ndtr" in result.stderr
