"""`mpsgen try` and the numeric check of migrate/new-op, through the installed entry point."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from cli_support import mpsgen, tracked_bytes


def test_try_atan2_on_a_fresh_sample_agrees(tree: Path) -> None:
    result = mpsgen("-C", str(tree), "try", "atan2")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].startswith("mpsgen try atan2: emulated Metal (") and "torch.atan2 (CPU)" in lines[0]
    assert lines[1].split() == ["dtype", "values", "mismatches", "worst:", "abs", "err", "ULP", "input"]
    rows = {line.split()[0]: line.split() for line in lines[2:11]}
    assert set(rows) == {"float32", "float16", "bfloat16", "int64->float32", "int32->float32", "int16->float32",
                         "int8->float32", "uint8->float32", "bool->float32"}
    assert all(r[2] == "0" for r in rows.values())
    assert lines[-1] == "all dtypes agree"
    again = mpsgen("-C", str(tree), "try", "atan2")
    assert again.returncode == 0 and "[cached]" in again.stdout.splitlines()[0]
    assert again.stdout.splitlines()[1:] == lines[1:]
    assert subprocess.run(["git", "status", "--porcelain"], cwd=tree, capture_output=True, text=True).stdout == ""


def test_try_with_a_wrong_body_exits_1_naming_float32(tree: Path) -> None:
    result = mpsgen("-C", str(tree), "try", "atan2", "--expr", "a + b")
    assert result.returncode == 1, result.stderr
    assert "MISMATCH float32: atan2(" in result.stdout
    assert result.stdout.splitlines()[-1].startswith("mismatches in float32, float16, bfloat16")
    data = json.loads(mpsgen("-C", str(tree), "try", "atan2", "--expr", "a + b", "--format", "json").stdout)
    f32 = next(d for d in data["dtypes"] if d["dtype"] == "float32")
    assert data["ok"] is False and f32["ok"] is False and f32["mismatches"] > 0
    assert f32["first_mismatches"][0]["expected"] != f32["first_mismatches"][0]["got"]


def test_try_an_op_already_on_metal_uses_the_catalog_body(tree: Path) -> None:
    result = mpsgen("-C", str(tree), "try", "hypot", "--format", "json")
    assert result.returncode == 0, result.stdout + result.stderr
    report = json.loads(result.stdout)
    assert [d["dtype"] for d in report["dtypes"]] == ["float32", "float16", "bfloat16"]
    # The sample's hypot registration (no `;`, after one with) cannot be planned again in place: the check
    # falls back to the catalog's body and says why.
    assert report["checked"].startswith("the catalog's body, not the kernel in the tree, which could not be "
                                        "planned again (aten/src/ATen/native/mps/operations/BinaryKernel.mm:57: ")


def test_an_expression_that_does_not_compile_exits_2_pointing_into_it(tree: Path) -> None:
    result = mpsgen("-C", str(tree), "try", "atan2", "--expr", "precise::nosuch(float(a), float(b))")
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.startswith("mpsgen: error: --expr:1:10: error: ") and "nosuch" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1 and "Traceback" not in result.stderr


def test_no_compiler_exits_2_in_one_line(tree: Path, tmp_path: Path) -> None:
    env = {**os.environ, "CXX": str(tmp_path / "no-such-g++")}
    result = mpsgen("-C", str(tree), "try", "atan2", env=env)
    assert result.returncode == 2
    assert len(result.stderr.strip().splitlines()) == 1 and "install g++ or clang++" in result.stderr
    bare = {k: v for k, v in os.environ.items() if k != "CXX"} | {"PATH": str(tmp_path)}
    result = mpsgen("-C", str(tree), "try", "atan2", env=bare)
    assert result.returncode == 2 and "no C++ compiler found" in result.stderr


def test_no_torch_exits_2_naming_pip_install_torch(tree: Path, tmp_path: Path) -> None:
    blocker = (
        "import sys\n"
        "class NoTorch:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name == 'torch' or name.startswith('torch.'):\n"
        "            raise ImportError('blocked for the test')\n"
        "sys.meta_path.insert(0, NoTorch())\n"
        "from mpsgen.cli import main\n"
        "sys.argv = ['mpsgen'] + sys.argv[1:]\n"
        "main()\n"
    )
    env = {**os.environ, "MPSGEN_CACHE_DIR": str(tmp_path / "cache")}
    result = subprocess.run([sys.executable, "-c", blocker, "-C", str(tree), "try", "atan2"], capture_output=True,
                            text=True, env=env, timeout=120)
    assert result.returncode == 2, result.stderr
    assert result.stderr.strip() == ("mpsgen: error: the numeric check needs PyTorch, which is not installed "
                                     "(hint: pip install torch)")


def test_migrate_refuses_a_wrong_body_before_writing(tree: Path) -> None:
    before = tracked_bytes(tree)
    result = mpsgen("-C", str(tree), "migrate", "atan2", "--expr", "a + b", "--no-build", "--no-test")
    assert result.returncode == 1
    assert "MISMATCH float32: atan2(" in result.stdout and "nothing written" in result.stdout
    assert tracked_bytes(tree) == before
    skipped = mpsgen("-C", str(tree), "migrate", "atan2", "--expr", "a + b", "--no-build", "--no-test", "--no-try")
    assert skipped.returncode == 0 and "numeric check" not in skipped.stdout
    assert tracked_bytes(tree) != before


def test_migrate_checks_then_applies_a_right_body(tree: Path) -> None:
    result = mpsgen("-C", str(tree), "migrate", "atan2", "--no-build", "--no-test")
    assert result.returncode == 0, result.stderr
    assert "numeric check: 9 dtype(s) agree with torch.atan2 (emulated Metal (" in result.stdout
    assert "applied:" in result.stdout


def test_new_op_without_a_compiler_says_the_check_was_skipped(tree: Path, tmp_path: Path) -> None:
    env = {**os.environ, "CXX": str(tmp_path / "no-such-g++")}
    result = mpsgen("-C", str(tree), "new-op", "heaviside", "--expr", "a == 0 ? b : T(a > 0)", "--no-build",
                    "--no-test", env=env)
    assert result.returncode == 0, result.stderr
    skipped = [line for line in result.stdout.splitlines() if line.startswith("numeric check skipped:")]
    assert len(skipped) == 1 and "no-such-g++ was not found" in skipped[0]


def test_migrate_refuses_a_body_that_does_not_compile_before_writing(tree: Path) -> None:
    before = tracked_bytes(tree)
    result = mpsgen("-C", str(tree), "migrate", "atan2", "--expr", "precise::atan2(float(a), float(b)) +")
    assert result.returncode == 2 and tracked_bytes(tree) == before
    assert result.stderr.startswith("mpsgen: error: --expr:1:37: error: expected primary-expression")
    assert "--no-try skips this check" in result.stderr


def test_an_unclosed_unary_expr_gets_the_compilers_error_not_a_layout_refusal(tmp_path):
    """The functor with the typo is compiled before it is placed: on a file where the unclosed bracket
    would swallow the next statement, the user still reads the compiler's error and its column."""
    from mpsgen.errors import MpsgenError
    from mpsgen.generate.expr_check import balanced, require_compilable
    from mpsgen.generate.render import render_functor
    from mpsgen.model import KernelOptions, KernelSpec
    import pytest

    assert balanced("f(a[1], {b})") and not balanced("f(a[1)]") and balanced('g(")")')
    spec = KernelSpec("asinh", "unary", "precise::asinh(float(x)", dtypes=("float",))
    functor = render_functor(spec)
    root = Path(__file__).resolve().parent.parent / "fixtures" / "sample"
    with pytest.raises(MpsgenError) as err:
        require_compilable(spec, functor, KernelOptions(op="asinh", expr=spec.expr), root)
    assert "error: expected ')'" in err.value.render() and "functor line 4:" in err.value.render()
    require_compilable(spec._replace(expr="x"), render_functor(spec._replace(expr="x")),
                       KernelOptions(op="asinh", expr="x"), root)  # a balanced body is left to the numeric check
