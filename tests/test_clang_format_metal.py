"""The lines mpsgen adds to a kernels/*.metal file are laid out by clang-format with the checkout's own
.clang-format, as PyTorch's lintrunner lays out mps/**/*.metal, and no other line changes.

The tree: the scalar-ops tree with a small .clang-format of PyTorch's kind (80 columns, a break after
an open bracket), written here; threshold's functor line is 95 columns as rendered.
"""

from __future__ import annotations

import difflib
import shutil
import subprocess
from pathlib import Path

from scalar_ops_tree import NATIVE, migrate, read

STYLE = """BasedOnStyle: Google
ColumnLimit: 80
AlignAfterOpenBracket: AlwaysBreak
BinPackArguments: false
BinPackParameters: false
"""
METAL = f"{NATIVE}/mps/kernels/BinaryKernel.metal"


def _with_style(root: Path) -> None:
    (root / ".clang-format").write_text(STYLE)
    subprocess.run(["git", "add", "-A"], cwd=root, check=True)
    subprocess.run(["git", "commit", "-qm", "style"], cwd=root, check=True)


def test_the_added_functor_is_laid_out_by_the_checkouts_clang_format(scalar_tree: Path):
    assert shutil.which("clang-format"), "clang-format is a test dependency (pyproject [test])"
    _with_style(scalar_tree)
    before = read(scalar_tree, METAL)
    result = migrate(scalar_tree, "threshold", "--no-try")
    assert result.returncode == 0, result.stderr
    after = read(scalar_tree, METAL)
    assert "    return static_cast<T>(\n        c10::metal::opmath_t<T>(a) <= threshold ? static_cast<T>(value) : b);" in after
    added = [ln for ln in after.splitlines() if ln not in before.splitlines()]
    assert added and max(len(ln) for ln in added) <= 80
    ops = difflib.SequenceMatcher(None, before.splitlines(), after.splitlines(), autojunk=False).get_opcodes()
    assert {tag for tag, *_ in ops} == {"equal", "insert"}  # lines were only added: none that was there changed
    check = subprocess.run(["clang-format", "--style=file", f"--assume-filename={scalar_tree / METAL}"],
                           input=after, capture_output=True, text=True, check=True).stdout
    lines_added = set(added)
    assert [ln for ln in check.splitlines() if ln in lines_added] == added  # clang-format leaves them as they are


def test_without_a_clang_format_file_the_functor_stays_as_rendered(scalar_tree: Path):
    result = migrate(scalar_tree, "threshold", "--no-try")
    assert result.returncode == 0, result.stderr
    assert "    return static_cast<T>(c10::metal::opmath_t<T>(a) <= threshold ? static_cast<T>(value) : b);" in \
        read(scalar_tree, METAL)
