"""How real PRs are made (issue 15), through the installed entry point on fresh sample checkouts:
several ops in one change, successive runs without a commit, an undo stack, one overload at a time.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

from cli_support import mpsgen, tracked_bytes

YAML = "aten/src/ATen/native/native_functions.yaml"
BINARY_OPS = "aten/src/ATen/native/mps/operations/BinaryOps.mm"
BINARY_KERNEL_MM = "aten/src/ATen/native/mps/operations/BinaryKernel.mm"
BINARY_METAL = "aten/src/ATen/native/mps/kernels/BinaryKernel.metal"
POW_SPLIT = Path(__file__).resolve().parent / "data" / "pow_split"
def git(root: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, check=True).stdout


def all_bytes(root: Path) -> dict[str, bytes]:
    """Every file outside .git, journals excluded (they live in .git/mpsgen)."""
    return {p.relative_to(root).as_posix(): p.read_bytes()
            for p in sorted(root.rglob("*")) if p.is_file() and ".git" not in p.relative_to(root).parts}


def one_line_error(result: subprocess.CompletedProcess[str]) -> str:
    assert result.returncode == 2, result.stdout + result.stderr
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("mpsgen: error: "), result.stderr
    assert "Traceback" not in result.stderr
    return lines[0]


# -- successive runs and the undo stack ----------------------------------------------------------


def test_atan2_then_frac_without_a_commit_then_two_undos_restore_the_pristine_tree(
        tree: Path, pristine_sample: Path) -> None:
    first = mpsgen("-C", str(tree), "migrate", "atan2")
    assert first.returncode == 0, first.stdout + first.stderr
    second = mpsgen("-C", str(tree), "migrate", "frac")
    assert second.returncode == 0, second.stdout + second.stderr  # atan2's uncommitted edits are mpsgen's own
    assert "tests: 3 passed, 0 failed" in second.stdout
    yaml = (tree / YAML).read_text()
    assert "CPU, CUDA, MPS: atan2_out" in yaml and "CPU, CUDA, MPS: frac_out" in yaml
    assert "atan2_out_mps" not in yaml and "frac_out_mps" not in yaml

    undo = mpsgen("-C", str(tree), "undo")
    assert undo.returncode == 0, undo.stderr
    assert f"restored {YAML}" in undo.stdout and f"restored {BINARY_OPS}" not in undo.stdout  # frac's files only
    yaml = (tree / YAML).read_text()
    assert "CPU, CUDA, MPS: atan2_out" in yaml and "MPS: frac_out_mps" in yaml

    undo = mpsgen("-C", str(tree), "undo")
    assert undo.returncode == 0, undo.stderr
    assert f"restored {BINARY_OPS}" in undo.stdout
    assert tracked_bytes(tree) == tracked_bytes(pristine_sample)
    assert git(tree, "status", "--porcelain", "--untracked-files=no") == ""
    assert mpsgen("-C", str(tree), "undo").stdout == "nothing to undo\n"
    assert not (tree / ".git" / "mpsgen").exists()


def test_a_hand_edit_between_runs_is_still_dirty(tree: Path) -> None:
    assert mpsgen("-C", str(tree), "migrate", "atan2", "--no-build", "--no-test").returncode == 0
    with open(tree / YAML, "a") as fh:
        fh.write("# my note\n")
    before = all_bytes(tree)
    line = one_line_error(mpsgen("-C", str(tree), "migrate", "frac", "--no-build", "--no-test"))
    assert line.startswith(f"mpsgen: error: {YAML}: has uncommitted changes")
    assert all_bytes(tree) == before


def test_undo_refuses_naming_a_file_edited_since_and_restores_nothing(tree: Path) -> None:
    for op in ("atan2", "frac"):
        assert mpsgen("-C", str(tree), "migrate", op, "--no-build", "--no-test").returncode == 0
    assert mpsgen("-C", str(tree), "undo").returncode == 0  # frac never touched BinaryOps.mm
    with open(tree / BINARY_OPS, "a") as fh:
        fh.write("// my edit\n")
    before = all_bytes(tree)
    line = one_line_error(mpsgen("-C", str(tree), "undo"))
    assert line.startswith(f"mpsgen: error: {BINARY_OPS}: was edited after mpsgen applied the last change")
    assert all_bytes(tree) == before


def test_a_damaged_journal_in_the_stack_is_refused_before_any_restore(tree: Path) -> None:
    for op in ("atan2", "frac"):
        assert mpsgen("-C", str(tree), "migrate", op, "--no-build", "--no-test").returncode == 0
    older = tree / ".git" / "mpsgen" / "stack" / "0001.json"
    raw = json.loads(older.read_text())
    raw["files"][0]["old"] = "not base64!"
    older.write_text(json.dumps(raw))
    before = all_bytes(tree)
    line = one_line_error(mpsgen("-C", str(tree), "undo"))
    assert f"{older}: the mpsgen journal is damaged" in line and "delete this journal file" in line
    assert all_bytes(tree) == before  # not even the intact top change was undone

    (tree / ".git" / "mpsgen" / "last.json").write_text("{not json")
    line = one_line_error(mpsgen("-C", str(tree), "undo"))
    assert "last.json: cannot read the mpsgen journal" in line
    assert all_bytes(tree) == before


# -- several ops, one change ---------------------------------------------------------------------


def test_migrate_atan2_frac_is_one_change_one_build_one_test_run(tree: Path) -> None:
    result = mpsgen("-C", str(tree), "migrate", "atan2", "frac", "--branch", "mps-two", "--commit")
    assert result.returncode == 0, result.stdout + result.stderr
    out = result.stdout
    assert "mpsgen migrate atan2:" in out and "mpsgen migrate frac:" in out
    assert out.count("build succeeded") == 1
    assert out.count("\ntests: ") == 1 and "tests: 12 passed, 0 failed, 0 errors" in out  # 9 atan2 + 3 frac
    assert "applied: 8 file(s) changed" in out
    message = git(tree, "log", "-1", "--format=%B")
    assert message.startswith("[MPS] Migrate atan2 and frac from MPSGraph to native Metal kernels\n")
    assert "- atan2.out\n" in message and "- frac.out\n" in message
    assert git(tree, "status", "--porcelain", "--untracked-files=no") == ""
    changed = set(git(tree, "show", "--name-only", "--format=", "HEAD").split())
    assert {YAML, BINARY_OPS, "aten/src/ATen/native/mps/operations/UnaryOps.mm"} <= changed and len(changed) == 8
    again = mpsgen("-C", str(tree), "migrate", "frac", "atan2")
    assert again.returncode == 0 and again.stdout.startswith("nothing to do: frac is already on a native Metal")


def test_group_dry_run_json_lists_every_op(tree: Path) -> None:
    result = mpsgen("-C", str(tree), "migrate", "atan2", "frac", "--dry-run", "--format", "json")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["plan"]["ops"] == ["atan2", "frac"]
    assert [m["entry"] for m in report["plan"]["moved"]] == ["atan2.out", "frac.out"]
    assert [p["files"] for p in report["plans"]][1] == [
        "aten/src/ATen/native/mps/kernels/UnaryKernel.metal", "aten/src/ATen/native/mps/operations/UnaryKernel.mm",
        "aten/src/ATen/native/mps/operations/UnaryOps.mm", YAML,
        "torch/testing/_internal/common_methods_invocations.py"]
    assert report["diff"].count(f"diff --git a/{YAML}") == 1  # one combined diff
    assert "+    CPU, CUDA, MPS: atan2_out\n" in report["diff"] and "+    CPU, CUDA, MPS: frac_out\n" in report["diff"]


def test_a_refused_op_refuses_the_whole_group_and_writes_nothing(tree: Path) -> None:
    before = all_bytes(tree)
    # heaviside has no MPS kernel to migrate (asinh, refused here before, now has a catalog complex body).
    line = one_line_error(mpsgen("-C", str(tree), "migrate", "atan2", "heaviside", "frac"))
    assert "heaviside has no MPS kernel to migrate" in line
    assert "while planning `mpsgen migrate heaviside`" in line
    assert "while planning the group `mpsgen migrate atan2 heaviside frac` (nothing is written for any op)" in line
    assert all_bytes(tree) == before and not (tree / ".git" / "mpsgen").exists()


def test_an_unexpected_success_of_the_second_op_offers_its_xfail_removal(tree: Path) -> None:
    # A class-wide MPS xfail of frac (as in test_cli_migrate) that frac's new kernel makes pass.
    cmi = tree / "torch/testing/_internal/common_methods_invocations.py"
    text = cmi.read_text()
    old = "DecorateInfo(unittest.expectedFailure, 'TestConsistency', 'test_output_match',\n"
    cmi.write_text(text.replace(old, "DecorateInfo(unittest.expectedFailure, 'TestConsistency',\n", 1))
    git(tree, "-c", "user.name=t", "-c", "user.email=t@example.invalid", "commit", "-qam", "class-wide xfail")
    result = mpsgen("-C", str(tree), "migrate", "atan2", "frac")
    assert result.returncode == 1, result.stdout + result.stderr
    out = result.stdout
    assert "UNEXPECTED SUCCESS: test_output_match_frac_mps_bfloat16" in out
    assert "these expected failures now pass; this edit removes them (not applied):" in out
    assert "-                                    device_type='mps', dtypes=(torch.bfloat16,)),\n" in out


def test_new_op_for_two_ops_in_one_change(tree: Path) -> None:
    # heaviside and special_log_ndtr need --expr, which names one op's kernel: one run each, stacked.
    line = one_line_error(mpsgen("-C", str(tree), "new-op", "heaviside", "special_log_ndtr", "--expr", "x"))
    assert "--expr describe one op's kernel, but 2 ops were named" in line
    assert mpsgen("-C", str(tree), "new-op", "heaviside", "--expr", "a == 0 ? b : T(a > 0)",
                  "--no-build", "--no-test").returncode == 0
    # --no-try: this naive body underflows for large |x| (mpsgen try refuses it); the test is about stacking.
    result = mpsgen("-C", str(tree), "new-op", "special_log_ndtr", "--expr",
                    "log(c10::metal::erfc(-x * M_SQRT1_2_F) / 2)", "--no-try")
    assert result.returncode == 0, result.stdout + result.stderr
    yaml = (tree / YAML).read_text()
    assert "CPU, CUDA, MPS: heaviside_out" in yaml and "CPU, CUDA, MPS: special_log_ndtr_out" in yaml


# -- bad input -----------------------------------------------------------------------------------


def test_the_same_op_twice_is_refused(tree: Path) -> None:
    before = all_bytes(tree)
    line = one_line_error(mpsgen("-C", str(tree), "migrate", "atan2", "frac", "atan2"))
    assert line.startswith(f"mpsgen: error: {YAML}:150: 'atan2' is named twice")
    line = one_line_error(mpsgen("-C", str(tree), "migrate", "frac", "torch.frac"))
    assert "'torch.frac' is named twice: it selects the same op as 'frac'" in line
    assert all_bytes(tree) == before


def test_an_overload_that_does_not_exist_names_the_close_ones(tree: Path) -> None:
    before = all_bytes(tree)
    line = one_line_error(mpsgen("-C", str(tree), "migrate", "atan2.ot"))
    assert line == (f"mpsgen: error: {YAML}:150: atan2 has no overload 'ot' (hint: closest names: atan2.out)")
    line = one_line_error(mpsgen("-C", str(tree), "migrate", "frac", "frac.Tensor"))
    assert "frac has no overload 'Tensor'" in line and "frac.out" in line
    assert all_bytes(tree) == before


# -- one overload at a time: the pow split ---------------------------------------------------------


def add_pow_family(root: Path) -> None:
    """The pow family as in the 2026 tree before #195585: Tensor_Scalar_out shared and registered,
    Tensor_Tensor_out on MPSGraph, Scalar_out on its own kernel that calls no stub."""
    native = root / "aten/src/ATen/native"
    shutil.copy(POW_SPLIT / "Pow.h", native / "Pow.h")
    shutil.copy(POW_SPLIT / "Pow.cpp", native / "Pow.cpp")
    with open(native / "native_functions.yaml", "a") as fh:
        fh.write((POW_SPLIT / "native_functions.yaml").read_text())
    ops = root / BINARY_OPS
    text = ops.read_text().replace("#include <ATen/ops/atan2_native.h>\n",
                                   "#include <ATen/ops/atan2_native.h>\n#include <ATen/ops/pow_native.h>\n")
    end = text.rindex("} // namespace at::native")
    ops.write_text(text[:end] + (POW_SPLIT / "BinaryOps.mm").read_text().lstrip("\n") + "\n" + text[end:])
    kernel = root / BINARY_KERNEL_MM
    text = kernel.read_text().replace("#include <ATen/native/BinaryOps.h>\n",
                                      "#include <ATen/native/BinaryOps.h>\n#include <ATen/native/Pow.h>\n")
    end = text.rindex("} // namespace at::native")
    kernel.write_text(text[:end] + (POW_SPLIT / "BinaryKernel.mm").read_text() + text[end:])
    metal = root / BINARY_METAL  # pow_scalar, the kernel pow.Tensor_Scalar_out's stub runs
    text = metal.read_text().replace("#define REGISTER_INTEGER_BINARY_OP",
                                     (POW_SPLIT / "BinaryKernel.metal").read_text() + "#define REGISTER_INTEGER_BINARY_OP")
    metal.write_text(text.replace("REGISTER_OPMATH_FLOAT_BINARY_OP(mul);\n",
                                  "REGISTER_OPMATH_FLOAT_BINARY_OP(mul);\nREGISTER_FLOAT_BINARY_OP(pow_scalar);\n"))
    git(root, "add", "-A")
    git(root, "-c", "user.name=t", "-c", "user.email=t@example.invalid", "commit", "-qm", "pow family")


def test_migrate_one_overload_keeps_the_others_on_their_kernels(tree: Path) -> None:
    add_pow_family(tree)
    before_yaml = (tree / YAML).read_text()
    # The sample's real build (test_mps.py has no pow reference, so no tests).
    result = mpsgen("-C", str(tree), "migrate", "pow.Tensor_Tensor_out", "--no-test", "--commit")
    assert result.returncode == 0, result.stdout + result.stderr
    out = result.stdout
    assert "build succeeded" in out
    assert "mpsgen migrate pow (pow.Tensor_Tensor_out, pow.Tensor_Tensor, pow_.Tensor only):" in out
    assert "dispatch  pow.Tensor_Tensor_out" in out and "MPS pow_tensor_tensor_out_mps -> pow_Tensor_Tensor_out" in out
    yaml = (tree / YAML).read_text()
    removed = [l for l in before_yaml.splitlines() if l not in yaml.splitlines()]
    added = [l for l in yaml.splitlines() if l not in before_yaml.splitlines()]
    assert removed == ["    CPU, CUDA: pow_Tensor_Tensor_out", "    MPS: pow_tensor_tensor_out_mps"]
    assert added == ["    CPU, CUDA, MPS: pow_Tensor_Tensor_out"]
    assert "    MPS: pow_Scalar_out_mps\n" in yaml  # the other overload stays on its kernel
    mm = (tree / BINARY_OPS).read_text()
    assert "pow_tensor_tensor_out_mps" not in mm and "TORCH_IMPL_FUNC(pow_Scalar_out_mps)" in mm
    assert "#include <ATen/ops/pow_native.h>" in mm  # still needed by pow_Scalar_out_mps
    host = (tree / BINARY_KERNEL_MM).read_text()
    assert "REGISTER_DISPATCH(pow_tensor_tensor_stub, &pow_mps_kernel);" in host
    assert "REGISTER_DISPATCH(pow_tensor_scalar_stub, &pow_tensor_scalar_mps_kernel);" in host
    assert "struct pow_functor" in (tree / BINARY_METAL).read_text()
    message = git(tree, "log", "-1", "--format=%B")
    assert message.startswith("[MPS] Migrate pow.Tensor_Tensor_out from MPSGraph to a native Metal kernel\n")
    assert "- pow.Tensor_Tensor_out\n" in message and "pow.Scalar_out" not in message

    again = mpsgen("-C", str(tree), "migrate", "pow.Tensor_Tensor_out", "--no-build", "--no-test")
    assert again.returncode == 0 and again.stdout.startswith("nothing to do: pow is already on a native Metal kernel")
    # The deliberate split (pow.Scalar_out on its own kernel, which calls no stub) is no finding for check.
    checked = mpsgen("-C", str(tree), "check", "--format", "json")
    assert [f["code"] for f in json.loads(checked.stdout)["findings"] if f["code"] == "MPS001"] == []


def test_migrating_the_whole_pow_family_moves_the_overloads_with_a_stub_and_names_the_one_left(tree: Path) -> None:
    add_pow_family(tree)
    result = mpsgen("-C", str(tree), "migrate", "pow", "--no-build", "--no-test")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "dispatch  pow.Tensor_Tensor_out" in result.stdout
    assert "pow.Scalar_out" in result.stdout and "calls no DispatchStub" in result.stdout  # the note
    yaml = (tree / YAML).read_text()
    assert "    CPU, CUDA, MPS: pow_Tensor_Tensor_out\n" in yaml and "    MPS: pow_Scalar_out_mps\n" in yaml
    # A second run: what could move has moved, the rest calls no stub (was: "different stubs").
    again = mpsgen("-C", str(tree), "migrate", "pow", "--no-build", "--no-test")
    assert again.returncode == 0, again.stdout + again.stderr
    assert again.stdout.startswith("nothing to do: pow is already on a native Metal kernel (pow_tensor_tensor_stub "
                                   f"registered at {BINARY_KERNEL_MM}:")
    assert "pow_tensor_scalar_stub registered at" in again.stdout
    # and `try pow` checks the kernel the migration wrote (Tensor_Tensor_out's: its two tensors)
    tried = mpsgen("-C", str(tree), "try", "pow")
    assert tried.returncode == 0, tried.stdout + tried.stderr
    assert tried.stdout.startswith(f"checked: the kernel in the tree, pow_functor at {BINARY_METAL}:")
    assert "vs torch.pow (CPU)" in tried.stdout and "all dtypes agree" in tried.stdout


def test_both_pow_stubs_get_kernels_while_the_stubless_overload_is_kept(tree: Path) -> None:
    """As on the 2.7 checkout: Tensor_Tensor_out and Tensor_Scalar_out both on MPSGraph, so each stub gets a
    kernel of its own; the second stub's plan keeps the family's selection (pow.Scalar_out stays)."""
    add_pow_family(tree)
    yaml = (tree / YAML).read_text().replace("    CPU, CUDA, MPS: pow_Tensor_Scalar_out\n",
                                             "    CPU, CUDA: pow_Tensor_Scalar_out\n    MPS: pow_tensor_scalar_out_mps\n")
    (tree / YAML).write_text(yaml)
    kernel = (tree / BINARY_KERNEL_MM).read_text()
    (tree / BINARY_KERNEL_MM).write_text(kernel.replace("REGISTER_DISPATCH(pow_tensor_scalar_stub, &pow_tensor_scalar_mps_kernel);\n", ""))
    ops = (tree / BINARY_OPS).read_text()
    graph = ("TORCH_IMPL_FUNC(pow_tensor_scalar_out_mps)(const Tensor& base, const Scalar& exp, const Tensor& output) {\n"
             "  mps::binaryOpScalar(base, exp, output, \"power\", nil);\n}\n\n")
    (tree / BINARY_OPS).write_text(ops.replace("TORCH_IMPL_FUNC(pow_Scalar_out_mps)", graph + "TORCH_IMPL_FUNC(pow_Scalar_out_mps)"))
    git(tree, "commit", "-qam", "pow.Tensor_Scalar_out on MPSGraph")
    # the overload alone (upstream's 2.7 -> 2.13 move of pow) gets its stub's body, as the family run names it
    alone = mpsgen("-C", str(tree), "migrate", "pow.Tensor_Scalar_out", "--no-build", "--no-test", "--no-try",
                   "--dry-run")
    assert alone.returncode == 0, alone.stdout + alone.stderr
    assert "dispatch  pow.Tensor_Scalar_out" in alone.stdout and "pow.Tensor_Tensor_out" not in alone.stdout
    assert "pow_tensor_scalar_mps_kernel + REGISTER_DISPATCH(pow_tensor_scalar_stub" in alone.stdout
    result = mpsgen("-C", str(tree), "migrate", "pow", "--no-build", "--no-test", "--no-try")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "kept pow.Scalar_out on pow_Scalar_out_mps" in result.stdout
    yaml = (tree / YAML).read_text()
    assert "    CPU, CUDA, MPS: pow_Tensor_Scalar_out\n" in yaml and "    MPS: pow_Scalar_out_mps\n" in yaml
    host = (tree / BINARY_KERNEL_MM).read_text() + (tree / "aten/src/ATen/native/mps/operations/UnaryKernel.mm").read_text()
    assert "REGISTER_DISPATCH(pow_tensor_tensor_stub, &pow_mps_kernel)" in host
    assert "REGISTER_DISPATCH(pow_tensor_scalar_stub, &pow_tensor_scalar_mps_kernel);" in host and "pow_tensor_scalar_out_mps" not in (tree / BINARY_OPS).read_text()


def test_a_commit_after_runs_without_one_takes_their_edits_and_names_them(tree: Path) -> None:
    assert mpsgen("-C", str(tree), "migrate", "atan2", "--no-build", "--no-test").returncode == 0
    result = mpsgen("-C", str(tree), "migrate", "frac", "--no-build", "--no-test", "--commit")
    assert result.returncode == 0, result.stdout + result.stderr
    message = git(tree, "log", "-1", "--format=%B")
    assert message.startswith("[MPS] Migrate frac from MPSGraph to a native Metal kernel\n")
    assert "Also in this commit, the earlier uncommitted runs:\n- mpsgen migrate atan2 (atan2.out)\n" in message
    assert git(tree, "status", "--porcelain", "--untracked-files=no") == ""  # atan2's BinaryOps.mm too
    assert BINARY_OPS in git(tree, "show", "--name-only", "--format=", "HEAD").split()

    result = mpsgen("-C", str(tree), "migrate", "signbit", "--no-build", "--no-test", "--commit")
    assert result.returncode == 0, result.stdout + result.stderr
    message = git(tree, "log", "-1", "--format=%B")
    assert "signbit.out" in message and "earlier" not in message and "atan2" not in message
