"""Dtypes through the installed entry point on the sample: the per-dtype table, the guard, --dtypes,
--drop-dtypes and the branch flags (issue 13).  Refusals write nothing."""

from __future__ import annotations

import json
from pathlib import Path

from cli_support import mpsgen, tracked_bytes

ASINH_REAL_ONLY = "precise::asinh(float(x))"


def refused(tree: Path, *args: str) -> str:
    before = tracked_bytes(tree)
    result = mpsgen("-C", str(tree), *args, "--no-build", "--no-test")
    assert result.returncode == 2, result.stdout + result.stderr
    assert result.stderr.startswith("mpsgen: error: ") and result.stderr.count("\n") == 1, result.stderr
    assert tracked_bytes(tree) == before
    return result.stderr


def test_plan_json_has_the_per_dtype_table(tree: Path) -> None:
    result = mpsgen("-C", str(tree), "migrate", "asinh", "--dry-run", "--format", "json")
    assert result.returncode == 0, result.stderr
    plan = json.loads(result.stdout)["plan"]
    rows = {r["dtype"]: (r["before"], r["after"]) for r in plan["dtype_table"]}
    assert rows["float16"] == ("served by MPSGraph", "registered T->T")
    assert rows["int64"] == ("served by MPSGraph", "registered T->float")
    assert rows["complex64"] == ("served by MPSGraph", "registered T->T")  # the catalog's complex branch
    assert rows["float64"] == ("declared, but Metal has none", "not registered (Metal has none)")
    assert plan["dtypes"] == ["float", "int2float", "complex"]
    assert "REGISTER_UNARY_OP(asinh, DTYPE##2, DTYPE##2);" in json.loads(result.stdout)["diff"]


def test_text_summary_prints_the_table(tree: Path) -> None:
    result = mpsgen("-C", str(tree), "migrate", "frac", "--dry-run")
    assert result.returncode == 0, result.stderr
    # The sample's frac_out_mps checks `!= ScalarType::BFloat16`: MPSGraph never served bfloat16.
    assert "  dtype     bfloat16   refused by MPSGraph (TORCH_CHECK(self.scalar_type() != ScalarType::BFloat16))" in result.stdout
    assert "  dtype     float16    served by MPSGraph" in result.stdout
    assert "  dtype     int64      not declared by the OpInfo" in result.stdout


def test_losing_a_served_dtype_is_refused(tree: Path) -> None:
    err = refused(tree, "migrate", "asinh", "--expr", ASINH_REAL_ONLY)
    assert "would stop serving complex64 on MPS" in err and "--complex-expr BODY" in err
    err = refused(tree, "migrate", "atan2", "--dtypes", "float")
    assert "would stop serving int64, int32, int16, int8, uint8, bool on MPS" in err
    assert "a --dtypes that covers" in err and "--drop-dtypes int64,int32,int16,int8,uint8,bool" in err


def test_a_half_done_family_is_refused_without_saying_mpsgraph_serves_it(tree: Path) -> None:
    # hypot's yaml already shares hypot_out with MPS; without its REGISTER_DISPATCH nothing runs it on MPS
    # (`status`: "stub unregistered"): the dtypes its OpInfo declares are not "served by MPSGraph today".
    mm = tree / "aten/src/ATen/native/mps/operations/BinaryKernel.mm"
    text = mm.read_text()
    assert "REGISTER_DISPATCH(hypot_stub, &hypot_mps_kernel)\n" in text
    mm.write_text(text.replace("REGISTER_DISPATCH(hypot_stub, &hypot_mps_kernel)\n", ""))
    err = refused(tree, "migrate", "hypot", "--dtypes", "float32")
    assert ("the new kernel for hypot would not serve float16, bfloat16 on MPS, which its OpInfo declares; nothing "
            "serves hypot on MPS today (hypot_stub is unregistered: MPS raises at run time)") in err
    assert "MPSGraph" not in err and "--drop-dtypes float16,bfloat16 to leave them out" in err
    result = mpsgen("-C", str(tree), "migrate", "hypot", "--dtypes", "float32", "--drop-dtypes", "float16,bfloat16",
                    "--dry-run", "--format", "json", "--allow-dirty")
    assert result.returncode == 0, result.stderr
    rows = {r["dtype"]: r["before"] for r in json.loads(result.stdout)["plan"]["dtype_table"]}
    assert rows["float32"] == rows["float16"] == "no MPS kernel (hypot_stub unregistered)"
    # a family MPSGraph serves keeps its wording
    assert "which MPSGraph serves today" in refused(tree, "migrate", "atan2", "--dtypes", "float32")


def test_the_note_on_dropped_dtypes_says_what_ran_on_mps_before(tree: Path) -> None:
    # An xfail entry already failing for the op: mpsgen leaves adding the dropped dtypes to it to the user.
    lists = tree / "torch/testing/_internal/common_mps.py"
    text = lists.read_text()
    assert '            "nn.functional.grid_sample": [torch.float32],' in text
    lists.write_text(text.replace('            "nn.functional.grid_sample": [torch.float32],',
                                  '            "nn.functional.grid_sample": [torch.float32],\n'
                                  '            "hypot": [torch.int64],\n            "atan2": [torch.int64],'))

    def notes(op: str, dtypes: str, drop: str) -> list[str]:
        result = mpsgen("-C", str(tree), "migrate", op, "--dtypes", dtypes, "--drop-dtypes", drop,
                        "--dry-run", "--format", "json", "--allow-dirty")
        assert result.returncode == 0, result.stderr
        return [n for n in json.loads(result.stdout)["plan"]["notes"] if "xfail entry by hand" in n]

    # MPSGraph runs atan2's int32 ... bool today: the kernel stops running them
    assert notes("atan2", "float", "int32,int16,int8,uint8,bool") == \
        ['int32, int16, int8, uint8, bool no longer run on MPS: add them to "atan2"\'s xfail entry by hand']
    # a half-done family (hypot_stub unregistered): nothing runs hypot on MPS today, so nothing stops
    mm = tree / "aten/src/ATen/native/mps/operations/BinaryKernel.mm"
    mm.write_text(mm.read_text().replace("REGISTER_DISPATCH(hypot_stub, &hypot_mps_kernel)\n", ""))
    assert notes("hypot", "float32", "float16,bfloat16") == ["float16, bfloat16 do not run on MPS today (hypot_stub is unregistered) and the new "
                              'kernel leaves them out: add them to "hypot"\'s xfail entry by hand']


def test_drop_dtypes_accepts_the_loss_and_keeps_them_xfailed(tree: Path) -> None:
    result = mpsgen("-C", str(tree), "migrate", "atan2", "--dtypes", "float", "--drop-dtypes",
                    "int64,int32,int16,int8,uint8,bool", "--dry-run", "--format", "json")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert '+            "atan2": [\n' in report["diff"] and "+                torch.int64,\n" in report["diff"]
    assert "REGISTER_INT2FLOAT_BINARY_OP(atan2)" not in report["diff"]
    result = mpsgen("-C", str(tree), "migrate", "asinh", "--expr", ASINH_REAL_ONLY, "--drop-dtypes", "complex64",
                    "--dry-run", "--format", "json")
    assert result.returncode == 0, result.stderr
    assert '-            "asinh",\n' in json.loads(result.stdout)["diff"]  # out of SUPPORTED_COMPLEX_OPS


def test_dropping_one_dtype_registers_the_rest_one_by_one(tree: Path) -> None:
    result = mpsgen("-C", str(tree), "migrate", "asinh", "--drop-dtypes", "int64", "--print")
    assert result.returncode == 0, result.stderr
    assert "REGISTER_UNARY_OP(asinh, int, float);" in result.stdout
    assert "REGISTER_UNARY_OP(asinh, long, float);" not in result.stdout and "DTYPE1, DTYPE0" not in result.stdout


def test_bad_dtypes_are_one_line_errors(tree: Path) -> None:
    assert "--dtypes: Metal has no float64" in refused(tree, "migrate", "atan2", "--dtypes", "float32,float64")
    assert "--dtypes: unknown dtype 'int65'" in refused(tree, "migrate", "atan2", "--dtypes", "int65")
    assert "--drop-dtypes: 'float64'" in refused(tree, "migrate", "atan2", "--drop-dtypes", "float64")


def test_branch_flags_for_dtypes_the_op_cannot_take(tree: Path) -> None:
    err = refused(tree, "migrate", "frac", "--int-expr", "x")
    assert "--int-expr given, but frac takes no integer dtypes on MPS" in err
    assert err.startswith("mpsgen: error: torch/testing/_internal/common_methods_invocations.py:")
    assert "takes no complex dtypes on MPS" in refused(tree, "migrate", "atan2", "--complex-expr", "a")
    err = refused(tree, "migrate", "atan2", "--dtypes", "float", "--int-expr", "float(a) + float(b)")
    assert "--int-expr given, but the registrations for atan2 (float) have no integer types" in err


def test_dtypes_by_torch_name(tree: Path) -> None:
    result = mpsgen("-C", str(tree), "migrate", "frac", "--dtypes", "float32,float16,bfloat16", "--print")
    assert result.returncode == 0, result.stderr
    assert "REGISTER_UNARY_OP(frac, half, half);" in result.stdout
