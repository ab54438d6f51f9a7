"""`mpsgen migrate` end to end through the installed entry point, on fresh sample checkouts.

These run the sample's real ninja build and its real test/test_mps.py (a few seconds per build).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from cli_support import MPSGEN, mpsgen, tracked_bytes
BROKEN_ATAN2 = "precise::atan2(float(a), float(b)) +"  # a syntax error the build must report


def git(root: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, check=True).stdout


def test_migrate_atan2_full_pipeline_then_second_run_is_a_no_op(tree: Path) -> None:
    result = mpsgen("-C", str(tree), "migrate", "atan2")
    assert result.returncode == 0, result.stdout + result.stderr
    out = result.stdout
    assert "dispatch  atan2.out (line 150): MPS atan2_out_mps -> atan2_out" in out
    assert "removed   aten/src/ATen/native/mps/operations/BinaryOps.mm:81: TORCH_IMPL_FUNC atan2_out_mps" in out
    assert "build succeeded" in out
    assert "tests: 9 passed, 0 failed, 0 errors" in out
    assert "0 unexpected successes" in out
    yaml = (tree / "aten/src/ATen/native/native_functions.yaml").read_text()
    assert "CPU, CUDA, MPS: atan2_out" in yaml and "atan2_out_mps" not in yaml
    # The installed dispatch table (written by the sample's real build) routes atan2.out to the stub.
    table = json.loads((tree / "torch/lib/dispatch_table.json").read_text())
    assert "atan2" in json.dumps(table)

    before = tracked_bytes(tree)
    again = mpsgen("-C", str(tree), "migrate", "atan2", "--format", "json")
    assert again.returncode == 0, again.stderr
    report = json.loads(again.stdout)
    assert report["plan"]["nothing_to_do"].startswith("atan2 is already on a native Metal kernel")
    assert report["applied"] is False and report["exit_code"] == 0
    assert tracked_bytes(tree) == before


def test_migrate_frac_json_report_with_build_and_tests(tree: Path) -> None:
    result = mpsgen("-C", str(tree), "migrate", "frac", "--format", "json")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)  # stdout is only the JSON; progress went to stderr
    assert report["exit_code"] == 0 and report["applied"] is True
    assert report["plan"]["moved"] == [{"entry": "frac.out", "line": 105, "from": "frac_out_mps", "to": "frac_out"}]
    assert report["plan"]["kernel"] == "frac" and report["plan"]["arity"] == "unary"
    assert report["build"]["ok"] is True and report["build"]["errors"] == []
    tests = report["tests"]
    assert tests["ok"] is True and tests["unexpected_successes"] == []
    # The bfloat16 xfail went with the test-list edit, so bfloat16 now simply passes.
    assert tests["by_dtype"]["bfloat16"]["passed"] == 1
    assert set(tests["by_dtype"]) == {"float32", "float16", "bfloat16"}
    cmi = (tree / "torch/testing/_internal/common_methods_invocations.py").read_text()
    assert "device_type='mps', dtypes=(torch.bfloat16,)" not in cmi
    assert "build succeeded" in result.stderr


def test_broken_kernel_expression_fails_the_build_and_leaves_the_edits(tree: Path, pristine_sample: Path) -> None:
    # --no-try, --no-compile: the numeric check and the compile check would refuse the body before
    # writing (tests/test_try_cli.py, tests/test_compile_metal.py); this test is about the build failing
    # on edits that are in place.
    result = mpsgen("-C", str(tree), "migrate", "atan2", "--expr", BROKEN_ATAN2, "--no-try", "--no-compile")
    assert result.returncode == 1, result.stdout + result.stderr
    out = result.stdout
    assert "build failed" in out
    # The compiler's error, located in the edited .metal file.
    assert "errors in the files mpsgen edited:" in out
    assert "aten/src/ATen/native/mps/kernels/BinaryKernel.metal:" in out and "error:" in out
    assert "the edits are in place" in out and "mpsgen undo" in out
    assert "tests:" not in out  # the tests never ran
    assert "precise::atan2(float(a), float(b)) +" in (tree / "aten/src/ATen/native/mps/kernels/BinaryKernel.metal").read_text()

    undo = mpsgen("-C", str(tree), "undo")
    assert undo.returncode == 0, undo.stderr
    assert tracked_bytes(tree) == tracked_bytes(pristine_sample)


def test_dry_run_prints_the_diff_and_writes_nothing(tree: Path) -> None:
    before = tracked_bytes(tree)
    result = mpsgen("-C", str(tree), "migrate", "frac", "--dry-run")
    assert result.returncode == 0, result.stderr
    assert "+    CPU, CUDA, MPS: frac_out\n" in result.stdout
    assert "-TORCH_IMPL_FUNC(frac_out_mps)\n" in result.stdout
    assert result.stdout.rstrip().endswith("dry run: nothing written")
    assert tracked_bytes(tree) == before
    assert git(tree, "status", "--porcelain") == ""


def test_print_shows_the_generated_code_and_touches_nothing(tree: Path) -> None:
    before = tracked_bytes(tree)
    result = mpsgen("-C", str(tree), "migrate", "atan2", "--print")
    assert result.returncode == 0, result.stderr
    assert "struct atan2_functor {" in result.stdout
    assert "static void atan2_mps_kernel(TensorIteratorBase& iter)" in result.stdout
    assert "REGISTER_DISPATCH(atan2_stub, &atan2_mps_kernel)\n" in result.stdout  # the file's last line has no ;
    assert tracked_bytes(tree) == before and git(tree, "status", "--porcelain") == ""


def test_branch_and_commit_name_the_op_and_overloads(tree: Path) -> None:
    result = mpsgen("-C", str(tree), "migrate", "frac", "--branch", "mps-frac", "--commit")
    assert result.returncode == 0, result.stdout + result.stderr
    assert git(tree, "rev-parse", "--abbrev-ref", "HEAD").strip() == "mps-frac"
    message = git(tree, "log", "-1", "--format=%B")
    assert "frac" in message and "frac.out" in message
    changed = set(git(tree, "show", "--name-only", "--format=", "HEAD").split())
    assert changed == {
        "aten/src/ATen/native/native_functions.yaml",
        "aten/src/ATen/native/mps/kernels/UnaryKernel.metal",
        "aten/src/ATen/native/mps/operations/UnaryKernel.mm",
        "aten/src/ATen/native/mps/operations/UnaryOps.mm",
        "torch/testing/_internal/common_methods_invocations.py",
    }
    assert git(tree, "status", "--porcelain", "--untracked-files=no") == ""


def test_missing_build_folder_is_a_clear_error_before_any_write(tree: Path) -> None:
    shutil.rmtree(tree / "build")
    snapshot = source_bytes_present(tree)  # build/ files are gone on purpose
    result = mpsgen("-C", str(tree), "migrate", "atan2")
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1
    assert "build folder not found; nothing was written" in result.stderr and "--no-build" in result.stderr
    assert source_bytes_present(tree) == snapshot
    # --no-build skips the build (and the build folder) entirely.
    ok = mpsgen("-C", str(tree), "migrate", "atan2", "--no-build", "--no-test")
    assert ok.returncode == 0, ok.stderr
    assert "build" not in ok.stdout.split("applied:")[1]


def source_bytes_present(root: Path) -> dict[str, bytes]:
    files = subprocess.run(["git", "ls-files", "-z"], cwd=root, capture_output=True, check=True).stdout
    return {rel: (root / rel).read_bytes() for rel in files.decode().split("\0") if rel and (root / rel).is_file()}


def test_missing_ninja_is_a_clear_error_before_any_write(tree: Path, tmp_path: Path) -> None:
    bin_dir = tmp_path / "bin"  # a PATH with git but without ninja
    bin_dir.mkdir()
    (bin_dir / "git").symlink_to(shutil.which("git"))
    before = tracked_bytes(tree)
    result = mpsgen("-C", str(tree), "migrate", "atan2", env=dict(os.environ, PATH=str(bin_dir)))
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1
    assert "`ninja` not found on PATH" in result.stderr and "--no-build" in result.stderr
    assert tracked_bytes(tree) == before and git(tree, "status", "--porcelain") == ""


def test_unexpected_success_prints_the_removing_edit_and_exits_1(tree: Path) -> None:
    # An MPS xfail mpsgen's plan does not own (no test name: it covers the whole class), so the
    # new bfloat16 kernel makes it an unexpected success.
    cmi = tree / "torch/testing/_internal/common_methods_invocations.py"
    text = cmi.read_text()
    old = "DecorateInfo(unittest.expectedFailure, 'TestConsistency', 'test_output_match',\n"
    assert old in text
    cmi.write_text(text.replace(old, "DecorateInfo(unittest.expectedFailure, 'TestConsistency',\n", 1))
    git(tree, "-c", "user.name=t", "-c", "user.email=t@example.invalid", "commit", "-qam", "class-wide xfail")

    result = mpsgen("-C", str(tree), "migrate", "frac")
    assert result.returncode == 1, result.stdout + result.stderr
    out = result.stdout
    assert "UNEXPECTED SUCCESS: test_output_match_frac_mps_bfloat16" in out
    assert "these expected failures now pass; this edit removes them (not applied):" in out
    assert "--- a/torch/testing/_internal/common_methods_invocations.py" in out
    assert "-                       DecorateInfo(unittest.expectedFailure, 'TestConsistency',\n" in out
    assert "-                                    device_type='mps', dtypes=(torch.bfloat16,)),\n" in out
    assert "mpsgen undo" in out
    # The offered edit is not applied.
    assert "device_type='mps', dtypes=(torch.bfloat16,)" in cmi.read_text()


def test_ctrl_c_during_the_build_stops_the_child_and_names_the_tree_state(tree: Path, tmp_path: Path) -> None:
    pid_file = tmp_path / "child.pid"
    sleeper = f"{sys.executable} -c \"import os, time; open('{pid_file}', 'w').write(str(os.getpid())); time.sleep(30)\""
    proc = subprocess.Popen([*MPSGEN, "-C", str(tree), "migrate", "atan2", "--build-cmd", sleeper],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while not (pid_file.is_file() and pid_file.read_text()):
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "the build command never started"
        time.sleep(0.05)
    child = int(pid_file.read_text())
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 1, out + err
    text = out + err
    assert "interrupted" in text.lower()
    assert "the edits were applied before the interruption and are still in place" in text
    assert "mpsgen undo" in text
    with pytest.raises(ProcessLookupError):
        os.kill(child, 0)  # the build child is gone
    # The tree is the applied change (journal intact): undo restores it.
    assert "atan2_functor" in (tree / "aten/src/ATen/native/mps/kernels/BinaryKernel.metal").read_text()
    assert mpsgen("-C", str(tree), "undo").returncode == 0
    assert git(tree, "status", "--porcelain", "--untracked-files=no") == ""
