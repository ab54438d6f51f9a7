"""The sample checkout builds under the real ninja, fails the way PyTorch's build would, and its
test/test_mps.py tells finished, half-done and pristine migrations apart."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from mpsgen.errors import MpsgenError
from mpsgen.tree.sample import write_sample

NINJA = shutil.which("ninja", path=str(Path(sys.executable).parent)) or shutil.which("ninja")
BINARY_OPS_MM = "aten/src/ATen/native/mps/operations/BinaryOps.mm"
BINARY_KERNEL_MM = "aten/src/ATen/native/mps/operations/BinaryKernel.mm"
BINARY_KERNEL_METAL = "aten/src/ATen/native/mps/kernels/BinaryKernel.metal"
UNARY_KERNEL_METAL = "aten/src/ATen/native/mps/kernels/UnaryKernel.metal"
YAML = "aten/src/ATen/native/native_functions.yaml"
COMMON_MPS = "torch/testing/_internal/common_mps.py"

EXPECTED_FAILURES_PRISTINE = {
    *(f"test_output_match_heaviside_mps_{d}" for d in
      ("float32", "float16", "bfloat16", "int64", "int32", "int16", "int8", "uint8", "bool")),
    *(f"test_output_match_special_log_ndtr_mps_{d}" for d in
      ("float32", "int64", "int32", "int16", "int8", "uint8", "bool")),
    "test_output_match_frac_mps_bfloat16",
    "test_output_match_logical_xor_mps_complex64",
}


# -- helpers -----------------------------------------------------------------------------------
def build(root: Path) -> subprocess.CompletedProcess:
    """`ninja -C build torch_cpu && ninja -C build install`; stdout of both steps (ninja prints errors there)."""
    assert NINJA, "ninja is not installed: pip install ninja"
    res = subprocess.run([NINJA, "-C", "build", "torch_cpu"], cwd=root, capture_output=True, text=True)
    if res.returncode == 0:
        inst = subprocess.run([NINJA, "-C", "build", "install"], cwd=root, capture_output=True, text=True)
        res = subprocess.CompletedProcess(inst.args, inst.returncode, res.stdout + inst.stdout, res.stderr + inst.stderr)
    return res


def run_tests(root: Path, *k: str) -> tuple[int, dict[str, str], str]:
    """Run test/test_mps.py -v; returns (exit code, {test name: outcome}, output)."""
    args = [sys.executable, "test/test_mps.py", "-v"]
    for pattern in k:
        args += ["-k", pattern]
    res = subprocess.run(args, cwd=root, capture_output=True, text=True)
    outcomes = {}
    for m in re.finditer(r"^(test_\w+) \(__main__\.\w+\.\w+\) \.\.\. (.+)$", res.stderr, re.M):
        outcomes[m.group(1)] = m.group(2).strip()
    return res.returncode, outcomes, res.stderr


def edit(root: Path, rel: str, old: str, new: str, count: int = 1) -> None:
    p = root / rel
    text = p.read_text(encoding="utf-8")
    assert text.count(old) >= 1, f"{old!r} not in {rel}"
    p.write_text(text.replace(old, new, count), encoding="utf-8")


def line_of(root: Path, rel: str, needle: str) -> int:
    for n, line in enumerate((root / rel).read_text(encoding="utf-8").splitlines(), 1):
        if needle in line:
            return n
    raise AssertionError(f"{needle!r} not in {rel}")


def remove_block(root: Path, rel: str, start: str) -> None:
    """Delete the function that starts with *start* up to its closing brace line, and one blank line."""
    lines = (root / rel).read_text(encoding="utf-8").splitlines(keepends=True)
    i = next(n for n, line in enumerate(lines) if line.startswith(start))
    j = next(n for n in range(i, len(lines)) if lines[n].startswith("}"))
    if j + 1 < len(lines) and not lines[j + 1].strip():
        j += 1
    (root / rel).write_text("".join(lines[:i] + lines[j + 1:]), encoding="utf-8")


def migrate_atan2_by_hand(root: Path, register: bool = True, int_kernels: bool = True) -> None:
    """What mpsgen migrate atan2 should do (migration-history.md 2a), done by hand."""
    edit(root, YAML, "    CPU, CUDA: atan2_out\n    MPS: atan2_out_mps\n", "    CPU, CUDA, MPS: atan2_out\n")
    remove_block(root, BINARY_OPS_MM, "TORCH_IMPL_FUNC(atan2_out_mps)")
    edit(root, BINARY_OPS_MM, "#include <ATen/ops/atan2_native.h>\n", "")
    functor = (
        "struct atan2_functor {\n"
        "  template <typename T, enable_if_t<is_floating_point_v<T>, bool> = true>\n"
        "  inline T operator()(const T a, const T b) {\n"
        "    return static_cast<T>(precise::atan2(float(a), float(b)));\n"
        "  }\n"
        "  template <typename T, enable_if_t<is_integral_v<T>, bool> = true>\n"
        "  inline float operator()(const T a, const T b) {\n"
        "    return precise::atan2(float(a), float(b));\n"
        "  }\n"
        "};\n\n"
    )
    edit(root, BINARY_KERNEL_METAL, "struct mul_functor {", functor + "struct mul_functor {")
    regs = "REGISTER_FLOAT_BINARY_OP(atan2);\n"
    if int_kernels:
        regs += "REGISTER_INT2FLOAT_BINARY_OP(atan2);\n"
    edit(root, BINARY_KERNEL_METAL, "REGISTER_FLOAT_BINARY_OP(hypot);\n", regs + "REGISTER_FLOAT_BINARY_OP(hypot);\n")
    edit(root, BINARY_KERNEL_MM, "static void copysign_mps_kernel",
         "static void atan2_mps_kernel(TensorIteratorBase& iter) {\n"
         "  lib.exec_binary_kernel(iter, \"atan2\");\n}\n\nstatic void copysign_mps_kernel")
    if register:
        edit(root, BINARY_KERNEL_MM, "REGISTER_DISPATCH(copysign_stub",
             "REGISTER_DISPATCH(atan2_stub, &atan2_mps_kernel)\nREGISTER_DISPATCH(copysign_stub")


@pytest.fixture()
def fresh_tree(tmp_path: Path) -> Path:
    """A new sample, never built."""
    return write_sample(tmp_path / "pytorch")


@pytest.fixture(scope="module")
def built_sample(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A new sample after `ninja -C build torch_cpu` (not installed), once per module: its build is relative
    to build/, so a copy builds where it lies, and ninja redoes only the steps a test's edits reach."""
    root = write_sample(tmp_path_factory.mktemp("built-sample") / "pytorch")
    res = subprocess.run([NINJA, "-C", "build", "torch_cpu"], cwd=root, capture_output=True, text=True)
    assert res.returncode == 0, res.stdout + res.stderr
    return root


@pytest.fixture()
def tree(built_sample: Path, tmp_path: Path) -> Path:
    """A copy of the built sample (times kept, so what the test edits is newer than what was built from it):
    the tests below edit a file and build, and see the failing step's own error as in a first build.
    The first build from nothing: test_pristine_sample_builds_installs_and_passes (fresh_tree)."""
    dest = tmp_path / "pytorch"
    shutil.copytree(built_sample, dest, symlinks=True)
    return dest


# -- the pristine sample ----------------------------------------------------------------------
def test_pristine_sample_builds_installs_and_passes(fresh_tree: Path) -> None:
    tree = fresh_tree
    res = build(tree)
    assert res.returncode == 0, res.stdout + res.stderr
    table = json.loads((tree / "torch/lib/dispatch_table.json").read_text())
    over = table["overloads"]
    assert over["atan2.out"]["mps"]["kind"] == "mpsgraph"
    assert over["asinh.out"]["mps"]["impl"] == "asinh_out_mps"
    assert over["logical_xor.out"]["mps"]["impl"] == "logical_xor_out_mps"
    hypot = over["hypot.out"]["mps"]
    assert hypot["kind"] == "stub" and hypot["stubs"] == [{
        "stub": "hypot_stub", "host_fn": "hypot_mps_kernel", "kernels": ["hypot"],
        "file": BINARY_KERNEL_MM}]
    assert over["exp.out"]["mps"]["stubs"][0]["host_fn"] == "exp_kernel_mps"
    assert over["heaviside.out"]["mps"] is None and over["special_log_ndtr.out"]["mps"] is None
    assert over["frac.out"]["mps"]["unsupported_dtypes"] == ["BFloat16"]
    assert "exp_dense_float_long" in table["kernels"] and "exp_dense_float2_float2" in table["kernels"]
    assert (tree / "torch/lib/libtorch_cpu.so").is_file()

    code, outcomes, out = run_tests(tree)
    assert code == 0, out
    xfails = {n for n, o in outcomes.items() if o == "expected failure"}
    assert xfails == EXPECTED_FAILURES_PRISTINE
    assert {o for n, o in outcomes.items() if n not in xfails} == {"ok"}
    assert len(outcomes) == 80
    assert "test_output_match_atan2_mps_int64" in outcomes
    assert "test_output_match_asinh_mps_complex64" in outcomes
    assert "test_output_match_hypot_mps_int32" not in outcomes  # hypot's OpInfo is floating only

    # -k like upstream; a second build is a no-op for ninja.
    code, outcomes, _ = run_tests(tree, "test_output_match_atan2")
    assert code == 0 and set(outcomes) == {f"test_output_match_atan2_mps_{d}" for d in
                                           ("float32", "float16", "bfloat16", "int64", "int32", "int16",
                                            "int8", "uint8", "bool")}
    again = subprocess.run([NINJA, "-C", "build", "torch_cpu"], cwd=tree, capture_output=True, text=True)
    assert "no work to do" in again.stdout


def test_metal_kernels_compute_through_ctypes(tree: Path) -> None:
    assert build(tree).returncode == 0
    import ctypes

    lib = ctypes.CDLL(str(tree / "torch/lib/libtorch_cpu.so"))
    a, b, out = (ctypes.c_double * 2)(3.0, 0.1), (ctypes.c_double * 2)(4.0, 0.2), (ctypes.c_double * 2)()
    lib.hypot_dense_float_float(out, a, b, ctypes.c_long(2))
    assert out[0] == 5.0 and abs(out[1] - 0.2236068) < 1e-6
    lib.hypot_dense_half_half(out, a, b, ctypes.c_long(2))
    assert out[1] != pytest.approx(0.2236068, abs=1e-6) and out[1] == pytest.approx(0.2236068, abs=1e-3)
    z, zout = (ctypes.c_double * 2)(0.0, math_pi()), (ctypes.c_double * 2)()
    lib.exp_dense_float2_float2(zout, z, ctypes.c_long(1))  # e^(i*pi) = -1
    assert zout[0] == pytest.approx(-1.0, abs=1e-6) and zout[1] == pytest.approx(0.0, abs=1e-6)


def math_pi() -> float:
    import math

    return math.pi


# -- the build fails where PyTorch's would --------------------------------------------------------
def test_broken_metal_expression_is_a_gxx_error_at_the_metal_line(tree: Path) -> None:
    edit(tree, BINARY_KERNEL_METAL, "precise::sqrt(float(a) * a + float(b) * b)", "precise::sqrt(float(a) * a + )")
    line = line_of(tree, BINARY_KERNEL_METAL, "precise::sqrt(float(a) * a + )")
    res = build(tree)
    assert res.returncode != 0
    assert re.search(rf"BinaryKernel\.metal:{line}:\d+: error: expected primary-expression", res.stdout)


def test_functor_result_type_is_static_asserted(tree: Path) -> None:
    edit(tree, UNARY_KERNEL_METAL, "INSTANTIATE_UNARY_KERNELS2(float, long);",
         "INSTANTIATE_UNARY_KERNELS2(long, long);")
    res = build(tree)
    assert res.returncode != 0
    assert "Output dtype mismatch for unary op exp and input long" in res.stdout
    assert re.search(r"UnaryKernel\.metal:\d+:\d+: +required from here|UnaryKernel\.metal:\d+", res.stdout)


def test_host_kernel_name_without_metal_registration_fails(tree: Path) -> None:
    edit(tree, BINARY_KERNEL_MM, 'lib.exec_binary_kernel(iter, "hypot")', 'lib.exec_binary_kernel(iter, "hypott")')
    line = line_of(tree, BINARY_KERNEL_MM, '"hypott"')
    res = build(tree)
    assert res.returncode != 0
    assert re.search(rf"BinaryKernel\.mm:{line}:\d+: error: Metal kernel 'hypott' is not registered", res.stdout)


def test_unary_ti_dispatch_of_an_unregistered_kernel_fails(tree: Path) -> None:
    edit(tree, "aten/src/ATen/native/mps/operations/UnaryKernel.mm", "REGISTER_UNARY_TI_DISPATCH(expm1);",
         "REGISTER_UNARY_TI_DISPATCH(expm1);\nREGISTER_UNARY_TI_DISPATCH(frac);")
    line = line_of(tree, "aten/src/ATen/native/mps/operations/UnaryKernel.mm", "TI_DISPATCH(frac)")
    res = build(tree)
    assert res.returncode != 0
    assert re.search(rf"UnaryKernel\.mm:{line}:\d+: error: Metal kernel 'frac' is not registered", res.stdout)


def test_stub_registered_twice_fails(tree: Path) -> None:
    edit(tree, BINARY_KERNEL_MM, "REGISTER_DISPATCH(hypot_stub, &hypot_mps_kernel)",
         "REGISTER_DISPATCH(hypot_stub, &hypot_mps_kernel)\nREGISTER_DISPATCH(hypot_stub, &hypot_mps_kernel);")
    res = build(tree)
    assert res.returncode != 0
    assert "error: redefinition of 'hypot_stub__register'" in res.stdout


def test_wrong_iterator_type_fails(tree: Path) -> None:
    edit(tree, BINARY_KERNEL_MM, "REGISTER_DISPATCH(hypot_stub, &hypot_mps_kernel)",
         "REGISTER_DISPATCH(hypot_stub, &hypot_mps_kernel)\nREGISTER_DISPATCH(logical_xor_stub, &hypot_mps_kernel)")
    line = line_of(tree, BINARY_KERNEL_MM, "logical_xor_stub")
    res = build(tree)
    assert res.returncode != 0
    assert re.search(rf"BinaryKernel\.mm:{line}:1: error: no matching constructor .*'hypot_mps_kernel' takes "
                     r"'TensorIteratorBase&' but 'logical_xor_stub' expects 'TensorIterator&'", res.stdout)


def test_undeclared_stub_and_unbalanced_braces_fail(tree: Path) -> None:
    edit(tree, BINARY_KERNEL_MM, "REGISTER_DISPATCH(hypot_stub, &hypot_mps_kernel)",
         "REGISTER_DISPATCH(hypot_stub, &hypot_mps_kernel)\nREGISTER_DISPATCH(pow_tensor_scalar_stub, &hypot_mps_kernel)")
    res = build(tree)
    assert "error: use of undeclared identifier 'pow_tensor_scalar_stub'" in res.stdout
    edit(tree, BINARY_KERNEL_MM, "\nREGISTER_DISPATCH(pow_tensor_scalar_stub, &hypot_mps_kernel)", "")
    edit(tree, "aten/src/ATen/native/mps/operations/UnaryOps.mm", "  return self.numel() == 0;\n}",
         "  return self.numel() == 0; // }\n")
    res = build(tree)
    assert res.returncode != 0
    assert re.search(r"UnaryOps\.mm:\d+:\d+: error: expected '}'", res.stdout)


def test_removing_legacy_impl_without_yaml_change_fails_at_link(tree: Path) -> None:
    remove_block(tree, BINARY_OPS_MM, "TORCH_IMPL_FUNC(atan2_out_mps)")
    res = build(tree)
    assert res.returncode != 0
    assert "LINK torch_cpu" in res.stdout
    assert "ld: error: undefined symbol: at::native::atan2_out_mps" in res.stdout
    assert f"native_functions.yaml:{line_of(tree, YAML, 'MPS: atan2_out_mps')}" in res.stdout


def test_leftover_structured_impl_after_yaml_change_fails(tree: Path) -> None:
    edit(tree, YAML, "    CPU, CUDA: atan2_out\n    MPS: atan2_out_mps\n", "    CPU, CUDA, MPS: atan2_out\n")
    res = build(tree)
    assert res.returncode != 0
    line = line_of(tree, BINARY_OPS_MM, "TORCH_IMPL_FUNC(atan2_out_mps)")
    assert re.search(rf"BinaryOps\.mm:{line}:\d+: error: unknown class name 'structured_atan2_out_mps'", res.stdout)


def test_stub_registered_in_two_files_is_reported(tree: Path) -> None:
    edit(tree, "aten/src/ATen/native/mps/operations/UnaryKernel.mm", "REGISTER_UNARY_TI_DISPATCH(exp);",
         "REGISTER_UNARY_TI_DISPATCH(exp);\n#include <ATen/native/BinaryOps.h>\n"
         "static void hypot2_kernel(TensorIteratorBase& iter) { lib.exec_binary_kernel(iter, \"hypot\"); }\n"
         "REGISTER_DISPATCH(hypot_stub, &hypot2_kernel);")
    res = build(tree)
    assert res.returncode == 0, res.stdout
    assert "ld: warning: stub 'hypot_stub' is registered for MPS in more than one file" in res.stdout


# -- migrations: finished, half-done, new op with its xfail left behind ----------------------------
def test_manual_atan2_migration_builds_and_passes(tree: Path) -> None:
    migrate_atan2_by_hand(tree)
    res = build(tree)
    assert res.returncode == 0, res.stdout
    route = json.loads((tree / "torch/lib/dispatch_table.json").read_text())["overloads"]["atan2.out"]["mps"]
    assert route["kind"] == "stub" and route["stubs"][0]["host_fn"] == "atan2_mps_kernel"
    assert route["stubs"][0]["kernels"] == ["atan2"]
    code, outcomes, out = run_tests(tree, "test_output_match_atan2")
    assert code == 0, out
    assert len(outcomes) == 9 and set(outcomes.values()) == {"ok"}


def test_half_done_migration_without_stub_registration_fails_tests(tree: Path) -> None:
    migrate_atan2_by_hand(tree, register=False)
    assert build(tree).returncode == 0
    code, outcomes, out = run_tests(tree, "test_output_match_atan2")
    assert code != 0
    assert set(outcomes.values()) == {"ERROR"}
    assert "atan2_stub: no kernel registered for device 'MPS'" in out


def test_half_done_migration_without_int_kernels_fails_int_tests(tree: Path) -> None:
    migrate_atan2_by_hand(tree, int_kernels=False)
    assert build(tree).returncode == 0
    code, outcomes, out = run_tests(tree, "test_output_match_atan2")
    assert code != 0
    failing = {n for n, o in outcomes.items() if o != "ok"}
    assert failing == {f"test_output_match_atan2_mps_{d}" for d in ("int64", "int32", "int16", "int8", "uint8", "bool")}
    assert "no Metal kernel 'atan2_dense_*_long'" in out


def test_migration_that_loses_complex_fails(tree: Path) -> None:
    # asinh moved to a Metal kernel registered for real dtypes only: complex64 stays promised by
    # SUPPORTED_COMPLEX_OPS, so its test must fail.
    edit(tree, YAML, "    CPU, CUDA: asinh_out\n    MPS: asinh_out_mps\n", "    CPU, CUDA, MPS: asinh_out\n")
    edit(tree, "aten/src/ATen/native/mps/operations/UnaryOps.mm",
         "CREATE_MPS_STRUCTURED_UNARY_TORCH_IMPL_FUNC(asinh_out_mps, asinh)\n", "")
    edit(tree, UNARY_KERNEL_METAL, "#define INSTANTIATE_UNARY_KERNELS2",
         "DEFINE_UNARY_FLOATING_FUNCTOR(asinh);\n\n#define INSTANTIATE_UNARY_KERNELS2")
    edit(tree, UNARY_KERNEL_METAL, "  REGISTER_UNARY_OP(exp, DTYPE1, DTYPE0);          \\\n",
         "  REGISTER_UNARY_OP(asinh, DTYPE1, DTYPE0);        \\\n  REGISTER_UNARY_OP(exp, DTYPE1, DTYPE0);          \\\n")
    edit(tree, "aten/src/ATen/native/mps/operations/UnaryKernel.mm", "REGISTER_UNARY_TI_DISPATCH(exp);",
         "REGISTER_UNARY_TI_DISPATCH(asinh);\nREGISTER_UNARY_TI_DISPATCH(exp);")
    res = build(tree)
    assert res.returncode == 0, res.stdout
    code, outcomes, out = run_tests(tree, "test_output_match_asinh")
    assert code != 0
    assert {n for n, o in outcomes.items() if o != "ok"} == {"test_output_match_asinh_mps_complex64"}


def test_new_op_with_xfail_still_listed_is_an_unexpected_success(tree: Path) -> None:
    edit(tree, YAML, "    CPU, CUDA: heaviside_out\n", "    CPU, CUDA, MPS: heaviside_out\n")
    edit(tree, BINARY_KERNEL_METAL, "struct mul_functor {",
         "struct heaviside_functor {\n  template <typename T>\n  inline T operator()(const T a, const T b) {\n"
         "    return a == 0 ? b : static_cast<T>(a > 0);\n  }\n};\n\nstruct mul_functor {")
    edit(tree, BINARY_KERNEL_METAL, "REGISTER_FLOAT_BINARY_OP(hypot);",
         "REGISTER_FLOAT_BINARY_OP(heaviside);\nREGISTER_INTEGER_BINARY_OP(heaviside);\nREGISTER_FLOAT_BINARY_OP(hypot);")
    edit(tree, BINARY_KERNEL_MM, "static void copysign_mps_kernel",
         "static void heaviside_mps_kernel(TensorIteratorBase& iter) {\n"
         "  lib.exec_binary_kernel(iter, \"heaviside\");\n}\n\nstatic void copysign_mps_kernel")
    edit(tree, BINARY_KERNEL_MM, "REGISTER_DISPATCH(hypot_stub, &hypot_mps_kernel)",
         "REGISTER_DISPATCH(hypot_stub, &hypot_mps_kernel)\nREGISTER_DISPATCH(heaviside_stub, &heaviside_mps_kernel)")
    assert build(tree).returncode == 0
    code, outcomes, _ = run_tests(tree, "test_output_match_heaviside")
    assert code != 0 and set(outcomes.values()) == {"unexpected success"} and len(outcomes) == 9
    edit(tree, COMMON_MPS, '            "heaviside": None,\n', "")
    code, outcomes, out = run_tests(tree, "test_output_match_heaviside")
    assert code == 0, out
    assert set(outcomes.values()) == {"ok"}


# -- mpsgen sample ------------------------------------------------------------------------------
def test_write_sample_makes_one_clean_commit(tmp_path: Path) -> None:
    import git

    root = write_sample(tmp_path / "pt")
    repo = git.Repo(root)
    commits = list(repo.iter_commits())
    assert len(commits) == 1 and commits[0].author.name == "mpsgen"
    assert not repo.is_dirty(untracked_files=True)
    tracked = set(repo.git.ls_files().splitlines())
    assert {YAML, BINARY_OPS_MM, "build/build.ninja", "build/toolchain/mmcc.py", "c10/metal/indexing.h",
            "test/test_mps.py", ".gitignore", COMMON_MPS} <= tracked
    assert not any(t.startswith(("build/obj", "torch/lib")) for t in tracked)


def test_build_outputs_are_ignored_by_git(fresh_tree: Path) -> None:
    import git

    tree = fresh_tree

    assert build(tree).returncode == 0
    assert run_tests(tree, "test_output_match_exp_mps_float32")[0] == 0
    assert not git.Repo(tree).is_dirty(untracked_files=True)


def test_write_sample_refuses_a_non_empty_destination(tmp_path: Path) -> None:
    (tmp_path / "busy").mkdir()
    (tmp_path / "busy" / "x.txt").write_text("keep me")
    with pytest.raises(MpsgenError) as err:
        write_sample(tmp_path / "busy")
    assert "not an empty folder" in err.value.render() and "busy" in err.value.render()
    assert [p.name for p in (tmp_path / "busy").iterdir()] == ["x.txt"]
    (tmp_path / "empty").mkdir()
    assert (write_sample(tmp_path / "empty") / YAML).is_file()  # an empty folder is fine
