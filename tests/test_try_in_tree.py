"""`mpsgen try OP` on an op already on Metal checks the kernel in the tree: the functor lifted from the
.metal, with the dtypes, scalars and argument binding planning the op reads from the tree (the op
planned again as new-op with its stub's registration set aside: plan/in_tree.py)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from cli_support import mpsgen, tracked_bytes
from scalar_ops_tree import NATIVE, migrate

METAL = f"{NATIVE}/mps/kernels/BinaryKernel.metal"
CHECKED = f"checked: the kernel in the tree, threshold_functor at {METAL}:"


def test_try_after_migrate_checks_the_scalar_kernel_now_in_the_tree(scalar_tree: Path) -> None:
    assert migrate(scalar_tree, "threshold").returncode == 0
    subprocess.run(["git", "commit", "-qam", "threshold"], cwd=scalar_tree, check=True)
    files = tracked_bytes(scalar_tree)
    r = mpsgen("try", "threshold", cwd=scalar_tree)
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout.startswith(CHECKED), r.stdout
    assert "vs torch.ops.aten.threshold (CPU)" in r.stdout and "all dtypes agree" in r.stdout
    rows = [ln.split()[0] for ln in r.stdout.splitlines()[2:] if ln.startswith("  ") and ln.split()[1].isdigit()]
    assert rows == ["float32", "float16", "bfloat16", "int64", "int32", "int16", "int8", "uint8", "bool"]
    assert tracked_bytes(scalar_tree) == files  # nothing written, the registration set aside only in memory

    # It is the tree's text that runs: a wrong comparison written into the .metal is found.
    path = scalar_tree / METAL
    text = path.read_text()
    assert text.count("<= threshold ? static_cast<T>(value) : b") == 1
    path.write_text(text.replace("<= threshold ? static_cast<T>(value) : b", "< threshold ? static_cast<T>(value) : b"))
    wrong = mpsgen("try", "threshold", "--format", "json", cwd=scalar_tree)
    assert wrong.returncode == 1, wrong.stdout + wrong.stderr
    report = json.loads(wrong.stdout)
    assert report["checked"].startswith(CHECKED.removeprefix("checked: ")) and report["ok"] is False
    assert all(d["mismatches"] > 0 for d in report["dtypes"]), report

    # threshold_backward runs threshold's kernel with (self, grad) and value 0: checked as such.
    path.write_text(text)
    assert migrate(scalar_tree, "threshold_backward").returncode == 0
    r = mpsgen("try", "threshold_backward", cwd=scalar_tree)
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout.startswith(CHECKED) and "vs torch.ops.aten.threshold_backward (CPU)" in r.stdout
    assert "all dtypes agree" in r.stdout


def test_try_after_migrate_of_a_plain_kernel_its_expr_and_a_host_of_another_name(scalar_tree: Path) -> None:
    assert migrate(scalar_tree, "atan2").returncode == 0
    r = mpsgen("try", "atan2", cwd=scalar_tree)
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout.startswith(f"checked: the kernel in the tree, atan2_functor at {METAL}:")
    assert "vs torch.atan2 (CPU)" in r.stdout and "all dtypes agree" in r.stdout
    given = mpsgen("try", "atan2", "--expr", "a + b", cwd=scalar_tree)  # the user's body, not the tree's
    assert given.returncode == 1 and not given.stdout.startswith("checked:")

    # a host that runs a kernel of another name: refused in one line
    mm = scalar_tree / f"{NATIVE}/mps/operations/BinaryKernel.mm"
    text = mm.read_text()
    assert text.count('"atan2"') == 1
    mm.write_text(text.replace('"atan2"', '"atan2_fast"'))
    r = mpsgen("try", "atan2", cwd=scalar_tree)
    assert r.returncode == 2 and r.stdout == ""
    assert len(r.stderr.strip().splitlines()) == 1
    assert "runs kernel 'atan2_fast', not 'atan2'" in r.stderr and "BinaryKernel.mm:" in r.stderr


def test_try_after_a_migration_that_dropped_dtypes_checks_the_dtypes_the_tree_registers(scalar_tree: Path) -> None:
    r = mpsgen("migrate", "atan2", "--dtypes", "float", "--drop-dtypes", "int64,int32,int16,int8,uint8,bool",
               "--no-build", "--no-test", cwd=scalar_tree)
    assert r.returncode == 0, r.stdout + r.stderr
    tried = mpsgen("try", "atan2", "--format", "json", cwd=scalar_tree)
    assert tried.returncode == 0, tried.stdout + tried.stderr
    report = json.loads(tried.stdout)
    assert report["checked"].startswith("the kernel in the tree, atan2_functor")
    assert [d["dtype"] for d in report["dtypes"]] == ["float32", "float16", "bfloat16"] and report["ok"]
