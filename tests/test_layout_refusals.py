"""`mpsgen migrate` refuses layouts and files it cannot edit correctly: exit 2, one line naming
file:line, nothing written."""

from __future__ import annotations

from pathlib import Path

from cli_support import mpsgen, tracked_bytes

DATA = Path(__file__).parent / "data" / "metal"
KERNELS = "aten/src/ATen/native/mps/kernels"
OPS = "aten/src/ATen/native/mps/operations"


def _commit(tree: Path) -> None:
    import subprocess

    subprocess.run(["git", "add", "-A"], cwd=tree, check=True, capture_output=True)
    subprocess.run(["git", "commit", "-qm", "layout"], cwd=tree, check=True, capture_output=True)


def test_unterminated_comment_in_an_edited_mm_is_refused_with_its_line(tree: Path) -> None:
    mm = tree / OPS / "UnaryKernel.mm"
    text = mm.read_text()
    lines = text.splitlines(True)
    lines.insert(3, "/* a comment that never ends\n")
    mm.write_text("".join(lines))
    _commit(tree)
    before = tracked_bytes(tree)
    result = mpsgen("-C", str(tree), "migrate", "frac", "--no-build", "--no-test")
    assert result.returncode == 2, result.stdout + result.stderr
    assert f"{OPS}/UnaryKernel.mm:4: cannot scan this file: unterminated /* comment" in result.stderr
    assert "Traceback" not in result.stderr
    assert tracked_bytes(tree) == before


def test_unbalanced_brace_in_an_edited_metal_is_refused_with_its_line(tree: Path) -> None:
    metal = tree / KERNELS / "UnaryKernel.metal"
    lines = metal.read_text().splitlines(True)
    k = next(i for i, ln in enumerate(lines) if ln.startswith("struct exp_functor"))
    lines.insert(k, "struct broken_functor {\n")
    metal.write_text("".join(lines))
    _commit(tree)
    before = tracked_bytes(tree)
    result = mpsgen("-C", str(tree), "migrate", "frac", "--no-build", "--no-test")
    assert result.returncode == 2, result.stdout + result.stderr
    (line,) = [ln for ln in result.stderr.splitlines() if ln.startswith("mpsgen: error:")]
    assert f"{KERNELS}/UnaryKernel.metal:{k + 1}: " in line and "(hint:" in line
    assert tracked_bytes(tree) == before
