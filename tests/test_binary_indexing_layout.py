"""migrate into PyTorch 2.7's binary layout (tests/data/binary27, hand-written in the real files' shape):
the functor, the .metal's own REGISTER_BINARY_INDEXING_OP lines, and a host kernel through BinaryKernel.mm's
binary_mps_impl, where MetalShaderLibrary.h has no exec_binary_kernel.  Upstream's own binary kernels of that
time have this shape: xlog1py (pytorch/pytorch#147687, February 2025) added xlog1py_functor after the file's
functors, REGISTER_BINARY_INDEXING_OP(xlog1py, float|half) with bfloat in the METAL_VERSION block, and
`static void xlog1py_mps_kernel(TensorIteratorBase& iter)` calling mps::binary_mps_impl(iter, "xlog1py")
with `REGISTER_DISPATCH(xlog1py_stub, &xlog1py_mps_kernel)` in the file's run."""

from __future__ import annotations

import difflib
import re
import shutil
import subprocess
from pathlib import Path

from cli_support import emulated_compile_errors, mpsgen, tracked_bytes

DATA = Path(__file__).parent / "data" / "binary27"
MPS = "aten/src/ATen/native/mps"
METAL = f"{MPS}/kernels/BinaryKernel.metal"
MM = f"{MPS}/operations/BinaryKernel.mm"


def _lay_2_7_binary(tree: Path) -> Path:
    shutil.copy(DATA / "BinaryKernel.metal", tree / METAL)
    shutil.copy(DATA / "BinaryKernel.mm", tree / MM)
    shutil.copy(DATA / "MetalShaderLibrary.h", tree / MPS / "MetalShaderLibrary.h")
    subprocess.run(["git", "add", "-A"], cwd=tree, check=True, capture_output=True)
    subprocess.run(["git", "commit", "-qm", "2.7 binary"], cwd=tree, check=True, capture_output=True)
    return tree


def test_atan2_in_the_2_7_binary_layout(tree: Path) -> None:
    root = _lay_2_7_binary(tree)
    metal_before, mm_before = (root / METAL).read_text(), (root / MM).read_text()
    errors_before = emulated_compile_errors(root / METAL, root)
    result = mpsgen("-C", str(root), "migrate", "atan2", "--no-build", "--no-test")
    assert result.returncode == 0, result.stdout + result.stderr
    assert re.search(r"numeric check: \d+ dtype\(s\) agree with torch\.atan2", result.stdout), result.stdout
    metal, mm = (root / METAL).read_text(), (root / MM).read_text()

    # The functor follows the file's last functor, before the kernel templates and macros.
    assert metal.index("struct copysign_functor") < metal.index("struct atan2_functor") < metal.index("// Future")
    assert "c10::metal::is_" not in metal  # 2.7's c10/metal has no such traits; Metal's own are used
    # One registration per input type after the plain run, bfloat inside the METAL_VERSION block.
    plain = re.findall(r"^REGISTER_BINARY_INDEXING_OP\(atan2, (\w+)\);$", metal, re.M)
    assert plain == ["float", "half", "long", "int", "short", "char", "uchar", "bool", "bfloat"]
    block = metal[metal.index("#if __METAL_VERSION__ >= 310"):metal.index("#endif")]
    assert "REGISTER_BINARY_INDEXING_OP(atan2, bfloat);" in block
    assert metal.index("REGISTER_BINARY_INDEXING_OP(atan2, bool);") < metal.index("#if __METAL_VERSION__ >= 310")
    assert "REGISTER_BINARY_OP(atan2" not in metal and "REGISTER_FLOAT_BINARY_OP" not in metal
    # Every line that was there is still there, in order: only insertions.
    ops = difflib.SequenceMatcher(None, metal_before.splitlines(), metal.splitlines(), autojunk=False).get_opcodes()
    assert {tag for tag, *_ in ops} == {"equal", "insert"}
    assert emulated_compile_errors(root / METAL, root) == errors_before

    # Host: the era's binary_mps_impl, with a CPU scalar or second dtype cast first; REGISTER_DISPATCH
    # punctuated like the file's own, in its run (before polar_out_mps).
    assert 'mps::binary_mps_impl(iter, "atan2");' in mm
    assert 'mps::binary_mps_impl(same, "atan2");' in mm
    assert "iter.is_cpu_scalar(1) || iter.is_cpu_scalar(2) || iter.input_dtype(0) != iter.input_dtype(1) ||" in mm
    # atan2's kernel writes float for integer inputs: an output of another dtype gets it through a temporary
    assert "const auto result_type = [](ScalarType t) { return isIntegralType(t, /*includeBool=*/true) ? kFloat : t; };" in mm
    assert "output.scalar_type() != result_type(iter.input_dtype(0))) {" in mm
    assert "const_cast<Tensor&>(output).copy_(out);" in mm
    assert "lib.exec_binary_kernel" not in mm
    assert "REGISTER_DISPATCH(atan2_stub, &atan2_mps_kernel)\n" in mm
    assert mm.index("REGISTER_DISPATCH(copysign_stub") < mm.index("REGISTER_DISPATCH(atan2_stub") \
        < mm.index("Tensor& polar_out_mps")
    assert mm.index("static void copysign_mps_kernel") < mm.index("static void atan2_mps_kernel") \
        < mm.index("REGISTER_DISPATCH(fmax_stub")
    ops = difflib.SequenceMatcher(None, mm_before.splitlines(), mm.splitlines(), autojunk=False).get_opcodes()
    assert {tag for tag, *_ in ops} == {"equal", "insert"}
    assert "TORCH_IMPL_FUNC(atan2_out_mps)" not in (root / MPS / "operations" / "BinaryOps.mm").read_text()

    before = tracked_bytes(root)
    again = mpsgen("-C", str(root), "migrate", "atan2", "--no-build", "--no-test")
    assert tracked_bytes(root) == before, again.stdout + again.stderr


def test_complex_inputs_get_float2_and_half2_registrations_in_the_2_7_layout(tree: Path) -> None:
    # binary_mps_impl names kernels by input(0)'s Metal type, float2 for complex64: the functor's complex
    # overload serves binary_dense<float2, F>.
    cmi = tree / "torch/testing/_internal/common_methods_invocations.py"
    text = cmi.read_text()
    old = "dtypes=all_types_and(torch.bool, torch.bfloat16, torch.half),\n                    promotes_int_to_float"
    assert old in text  # atan2's OpInfo, declaring complex64 as well
    cmi.write_text(text.replace(old, old.replace("all_types_and(", "all_types_and_complex_and("), 1))
    root = _lay_2_7_binary(tree)
    result = mpsgen("-C", str(root), "migrate", "atan2", "--no-build", "--no-test", "--no-try",
                    "--complex-expr", "T(a.x, b.y)")
    assert result.returncode == 0, result.stdout + result.stderr
    metal = (root / METAL).read_text()
    assert re.findall(r"^REGISTER_BINARY_INDEXING_OP\(atan2, (\w+2)\);$", metal, re.M) == ["float2", "half2"]
    functor = metal[metal.index("struct atan2_functor"):metal.index("// Future")]
    assert "is_complex_v<T>, bool> = true>" in functor  # the sample's c10/metal/utils.h has the trait
    assert "return T(a.x, b.y);" in functor


def test_bfloat_lines_outside_a_metal_version_block_are_refused(tree: Path) -> None:
    # mpsgen puts a bfloat registration only inside the file's own `#if __METAL_VERSION__ >= 310` block.
    root = _lay_2_7_binary(tree)
    metal = root / METAL
    metal.write_text(metal.read_text().replace("#if __METAL_VERSION__ >= 310\n", "").replace("#endif\n", ""))
    subprocess.run(["git", "commit", "-qam", "no guard"], cwd=root, check=True, capture_output=True)
    before = tracked_bytes(root)
    result = mpsgen("-C", str(root), "migrate", "atan2", "--no-build", "--no-test", "--no-try")
    assert result.returncode == 2, result.stdout + result.stderr
    (line,) = result.stderr.splitlines()
    assert line.startswith(f"mpsgen: error: {METAL}:1: no `#if __METAL_VERSION__ >= 310` block"), line
    assert "--drop-dtypes bfloat16" in line
    assert tracked_bytes(root) == before
