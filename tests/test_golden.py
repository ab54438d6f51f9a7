"""Golden tests: `mpsgen migrate` / `new-op` on fresh sample checkouts, through the installed entry point.

Each success case's combined diff is committed under tests/golden/<case>.diff (the spec); each
refusal's one stderr line under tests/golden/refusals/<case>.txt.  Regenerate with
MPSGEN_UPDATE_GOLDEN=1 and review the files by eye before committing.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
from pathlib import Path
from typing import Callable

import pytest

GOLDEN = Path(__file__).resolve().parent / "golden"
UPDATE = os.environ.get("MPSGEN_UPDATE_GOLDEN") == "1"
from cli_support import mpsgen, tracked_bytes

# A complex asinh in real arithmetic: asinh(x + iy) = sign(x) acosh(A) + i asin(B), where
# A, B = (sqrt((1+y)^2 + x^2) +/- sqrt((1-y)^2 + x^2)) / 2.  Compiles in the sample's emulation headers.
ASINH_COMPLEX = (
    "T(precise::copysign(precise::acosh(0.5f * (precise::sqrt((1 - x.y) * (1 - x.y) + x.x * x.x) + "
    "precise::sqrt((1 + x.y) * (1 + x.y) + x.x * x.x))), x.x), precise::asin(0.5f * ("
    "precise::sqrt((1 + x.y) * (1 + x.y) + x.x * x.x) - precise::sqrt((1 - x.y) * (1 - x.y) + x.x * x.x))))"
)
HEAVISIDE = "a == 0 ? b : T(a > 0)"
LOG_NDTR = "log(c10::metal::erfc(-x * M_SQRT1_2_F) / 2)"

SUCCESS_CASES = {
    "migrate_atan2": ["migrate", "atan2"],
    "migrate_frac": ["migrate", "frac"],
    "migrate_asinh_drop_complex": ["migrate", "asinh", "--drop-complex"],
    # --no-try: these two bodies are right in the middle of the range but overflow at its ends
    # (asinh(0 + 3.4e38j), log_ndtr(-100) = -inf), which the numeric check refuses; the goldens
    # are about the edits.
    "migrate_asinh_complex_expr": ["migrate", "asinh", "--complex-expr", ASINH_COMPLEX, "--no-try"],
    "newop_heaviside": ["new-op", "heaviside", "--expr", HEAVISIDE],
    "newop_special_log_ndtr": ["new-op", "special_log_ndtr", "--expr", LOG_NDTR, "--no-try"],
}


# -- helpers (kept local: conftest.py is shared and not ours to edit) ---------------------------


def tree_bytes(root: Path) -> dict[str, bytes]:
    """Every file's bytes (and mode) outside .git: the whole-tree snapshot refusals must not change."""
    snap = {}
    for p in sorted(root.rglob("*")):
        rel = p.relative_to(root).as_posix()
        if rel == ".git" or rel.startswith(".git/") or not p.is_file():
            continue
        snap[rel] = p.read_bytes() + f"\0mode={stat.S_IMODE(p.stat().st_mode):o}".encode()
    return snap


def git(root: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, check=True).stdout


def commit_all(root: Path, message: str) -> None:
    git(root, "add", "-A")
    git(root, "-c", "user.name=t", "-c", "user.email=t@example.invalid", "commit", "-qm", message)


def check_golden(path: Path, actual: str) -> None:
    if UPDATE:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(actual.encode("utf-8"))
    assert path.is_file(), f"missing golden {path.name}: run with MPSGEN_UPDATE_GOLDEN=1 and review it"
    expected = path.read_bytes().decode("utf-8")
    assert actual == expected, f"output differs from {path.relative_to(GOLDEN.parent)}"


def edit_file(root: Path, rel: str, old: str, new: str) -> None:
    p = root / rel
    text = p.read_text(encoding="utf-8")
    assert old in text, f"{rel} does not contain {old!r}"
    p.write_text(text.replace(old, new, 1), encoding="utf-8")


# -- success cases: expected diffs -------------------------------------------------------------


@pytest.mark.parametrize("case", sorted(SUCCESS_CASES))
def test_success_case_matches_golden_diff(case: str, tree: Path, tmp_path: Path, pristine_sample: Path) -> None:
    args = SUCCESS_CASES[case]
    before = tree_bytes(tree)

    dry = mpsgen("-C", str(tree), *args, "--dry-run", "--format", "json")
    assert dry.returncode == 0, dry.stderr
    report = json.loads(dry.stdout)
    assert tree_bytes(tree) == before, "--dry-run wrote to the tree"
    check_golden(GOLDEN / f"{case}.diff", report["diff"])
    assert report["applied"] is False and report["plan"]["files"]

    applied = mpsgen("-C", str(tree), *args, "--no-build", "--no-test")
    assert applied.returncode == 0, applied.stderr
    assert "applied:" in applied.stdout

    # The golden diff applied with git to another fresh copy gives exactly the same tree.
    other = tmp_path / "other"
    shutil.copytree(pristine_sample, other, symlinks=True)
    patch = tmp_path / "golden.patch"
    patch.write_text(report["diff"], encoding="utf-8", newline="")
    subprocess.run(["git", "apply", "--whitespace=nowarn", str(patch)], cwd=other, check=True)
    assert tree_bytes(tree) == tree_bytes(other)

    # Idempotent: a second run says so, exits 0 and writes nothing.
    after = tree_bytes(tree)
    again = mpsgen("-C", str(tree), *args, "--no-build", "--no-test")
    assert again.returncode == 0, again.stderr
    assert again.stdout.startswith("nothing to do: ")
    assert tree_bytes(tree) == after


def test_asinh_drop_complex_removes_it_from_supported_complex_ops() -> None:
    diff = (GOLDEN / "migrate_asinh_drop_complex.diff").read_text(encoding="utf-8")
    assert '-            "asinh",\n' in diff
    assert "is_complex_v" not in diff  # no complex branch, no vec2 registrations


def test_asinh_complex_expr_adds_complex_kernels() -> None:
    diff = (GOLDEN / "migrate_asinh_complex_expr.diff").read_text(encoding="utf-8")
    assert "enable_if_t<c10::metal::is_complex_v<T>, bool> = true>" in diff
    assert "+  REGISTER_UNARY_OP(asinh, DTYPE##2, DTYPE##2); \\" in diff
    assert "common_mps.py" not in diff  # asinh stays in SUPPORTED_COMPLEX_OPS


# -- refusals: one line on stderr, exit 2, no file changed --------------------------------------


def _several_stubs(root: Path) -> list[str]:
    # Several stubs get a kernel each (plan/multistub.py); one that no header declares is refused.
    edit_file(root, "aten/src/ATen/native/UnaryOps.cpp", "result.fill_(false);", "signbit_bool_stub(device_type(), *this);")
    return ["migrate", "signbit"]


def _extra_stub_args(root: Path) -> list[str]:
    # Like sub calling add_stub(device_type(), *this, -alpha): a stub shared with another op.
    edit_file(root, "aten/src/ATen/native/BinaryOps.cpp",
              "  atan2_stub(device_type(), *this);", "  add_stub(device_type(), *this, -alpha);")
    return ["migrate", "atan2"]


def _no_stub(root: Path) -> list[str]:
    edit_file(root, "aten/src/ATen/native/BinaryOps.cpp",
              "  atan2_stub(device_type(), *this);", "  result.copy_(self);")
    return ["migrate", "atan2"]


def _unknown_op(root: Path) -> list[str]:
    return ["migrate", "atan3"]


def _no_body(root: Path) -> list[str]:
    # An op neither the catalog nor --expr gives a Metal body: the sample's log_ndtr, renamed throughout.
    for path in root.rglob("*"):
        if path.is_file() and path.suffix in (".yaml", ".cpp", ".h", ".py"):
            text = path.read_text(encoding="utf-8")
            if "log_ndtr" in text:
                path.write_text(text.replace("log_ndtr", "log_ntr"), encoding="utf-8")
    return ["new-op", "special_log_ntr"]


def _kernel_name_clash(root: Path) -> list[str]:
    edit_file(root, "aten/src/ATen/native/mps/kernels/UnaryKernel.metal",
              "#define INSTANTIATE_UNARY_KERNELS2",
              "struct frac_functor {\n  template <typename T>\n  inline T operator()(const T x) {\n"
              "    return x;\n  }\n};\n\nREGISTER_UNARY_OP(frac, float, float);\n\n"
              "#define INSTANTIATE_UNARY_KERNELS2")
    return ["migrate", "frac"]


def _mps_impl_runs_metal(root: Path) -> list[str]:
    edit_file(root, "aten/src/ATen/native/mps/operations/UnaryOps.mm",
              '  TORCH_CHECK(isFloatingType(self.scalar_type()), "frac_out_mps',
              '  lib.exec_unary_kernel(self, output, "frac");\n'
              '  TORCH_CHECK(isFloatingType(self.scalar_type()), "frac_out_mps')
    return ["migrate", "frac"]


def _non_utf8(root: Path) -> list[str]:
    p = root / "aten/src/ATen/native/mps/operations/BinaryOps.mm"
    p.write_bytes(p.read_bytes().replace(b"// ", b"// caf\xe9 ", 1))
    return ["migrate", "atan2"]


def _dirty(root: Path) -> list[str]:
    p = root / "aten/src/ATen/native/mps/operations/BinaryOps.mm"
    p.write_bytes(p.read_bytes() + b"// local change\n")
    return ["migrate", "atan2", "--no-build", "--no-test"]


def _read_only(root: Path) -> list[str]:
    p = root / "aten/src/ATen/native/mps/operations/BinaryOps.mm"
    p.chmod(0o444)
    return ["migrate", "atan2", "--no-build", "--no-test"]


def _asinh_complex(root: Path) -> list[str]:
    # The catalog's asinh has a complex branch (issue 13); a user body without one loses complex64.
    return ["migrate", "asinh", "--expr", "precise::asinh(float(x))"]


def _newop_on_legacy(root: Path) -> list[str]:
    return ["new-op", "atan2", "--expr", "precise::atan2(float(a), float(b))"]


def _newop_unknown(root: Path) -> list[str]:
    return ["new-op", "no_such_op", "--expr", "x"]


# case -> (setup: edits a copy of the sample and returns the mpsgen arguments, commit the setup?)
REFUSALS: dict[str, tuple[Callable[[Path], list[str]], bool]] = {
    "asinh_complex_unsettled": (_asinh_complex, False),
    "several_stubs": (_several_stubs, True),
    "extra_stub_args": (_extra_stub_args, True),
    "no_stub": (_no_stub, True),
    "unknown_op": (_unknown_op, False),
    "no_body": (_no_body, False),
    "kernel_name_clash": (_kernel_name_clash, True),
    "non_utf8": (_non_utf8, True),
    "dirty_file": (_dirty, False),
    "read_only_file": (_read_only, False),
    "newop_on_legacy_mps": (_newop_on_legacy, False),
    "newop_not_in_yaml": (_newop_unknown, False),
}


@pytest.mark.parametrize("case", sorted(REFUSALS))
def test_refusal_matches_golden_and_writes_nothing(case: str, tree: Path) -> None:
    setup, commit = REFUSALS[case]
    args = setup(tree)
    if commit:
        commit_all(tree, f"setup: {case}")
    before = tree_bytes(tree)
    result = mpsgen("-C", str(tree), *args)
    assert result.returncode == 2, (result.stdout, result.stderr)
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("mpsgen: error: "), result.stderr
    assert "Traceback" not in result.stderr
    assert tree_bytes(tree) == before, "a refusal changed the tree"
    assert not (tree / ".mpsgen").exists() or not any((tree / ".mpsgen").rglob("pending*"))
    check_golden(GOLDEN / "refusals" / f"{case}.txt", lines[0].replace(str(tree), "<TREE>") + "\n")


def test_a_legacy_kernel_running_bespoke_metal_is_replaced_and_the_summary_says_so(tree: Path) -> None:
    """2.7's bitwise_and_out_mps ran its own shaders, not the stub: moving the op deletes it like MPSGraph
    code (as upstream did), and the summary names what ran before."""
    _mps_impl_runs_metal(tree)
    commit_all(tree, "setup")
    result = mpsgen("-C", str(tree), "migrate", "frac", "--no-build", "--no-test", "--dry-run")
    assert result.returncode == 0, result.stderr
    assert "TORCH_IMPL_FUNC frac_out_mps (bespoke Metal, not through the stub)" in result.stdout
    assert "float32    served by bespoke Metal" in result.stdout
    assert '-  lib.exec_unary_kernel(self, output, "frac");' in result.stdout


def test_refusal_not_a_checkout(tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    result = mpsgen("-C", str(empty), "migrate", "atan2")
    assert result.returncode == 2
    assert list(empty.iterdir()) == []
    line = result.stderr.replace(str(empty), "<DIR>")
    assert line.count("\n") == 1
    check_golden(GOLDEN / "refusals" / "not_a_checkout.txt", line)
    # Found by walking up from the working folder too.
    result = mpsgen("migrate", "atan2", cwd=empty)
    assert result.returncode == 2 and "not inside a PyTorch checkout" in result.stderr
