"""The nullary kind (fill_stub): `migrate fill_ zero_` on the sample laid with 2.7-shaped fill files
(tests/data/fills: Fill.h, Fill.cpp, ConstantOps.mm and the yaml entries, written after the real files'
shapes), the reader that finds the stub through fill_out, the numeric check, and the statement check
that lets a whole function be replaced in one file."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from cli_support import mpsgen, tracked_bytes

from mpsgen.scan.statements import first_broken_statement
from mpsgen.sources.native.nullary import nullary_reach

DATA = Path(__file__).parent / "data" / "fills"
NATIVE = "aten/src/ATen/native"
MM = f"{NATIVE}/mps/operations/ConstantOps.mm"
METAL = f"{NATIVE}/mps/kernels/ConstantKernel.metal"
YAML = f"{NATIVE}/native_functions.yaml"
FAST = ("--no-build", "--no-test", "--no-try", "--no-compile")


def _lay(root: Path, fill_h: str | None = None) -> Path:
    (root / NATIVE / "Fill.h").write_text(fill_h or (DATA / "Fill.h").read_text())
    (root / NATIVE / "Fill.cpp").write_text((DATA / "Fill.cpp").read_text())
    (root / MM).write_text((DATA / "ConstantOps.mm").read_text())
    entries = (DATA / "native_functions.yaml").read_text().split("\n", 1)[1]  # without its header comment
    (root / YAML).write_text((root / YAML).read_text() + entries)
    subprocess.run(["git", "add", "-A"], cwd=root, check=True)
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "fills"], cwd=root, check=True)
    return root


def test_fill_and_zero_move_to_fill_stubs_metal_kernels(tree: Path) -> None:
    root = _lay(tree)
    r = mpsgen("migrate", "fill_", "zero_", *FAST, cwd=root)
    assert r.returncode == 0, r.stdout + r.stderr
    yaml = (root / YAML).read_text()
    assert yaml.count("    CPU, CUDA, MPS: fill_\n") == 2 and "    CPU, CUDA, MPS: zero_\n" in yaml
    assert "fill_scalar_mps" not in yaml and "zero_mps_" not in yaml
    assert "fill_ (aten/src/ATen/native/Fill.cpp:22) -> fill_out (aten/src/ATen/native/Fill.cpp:8) -> fill_stub" in r.stdout
    assert "zero_ (aten/src/ATen/native/Fill.cpp:50) -> fill_ (" in r.stdout  # zero_ planned first: it calls fill's

    mm = (root / MM).read_text()
    for gone in ("fill_scalar_mps", "fill_tensor_mps_", "zero_mps_", "fill_mps_tensor_", "CachedGraph",
                 "// false when fillBuffer()", "ATen/ops/zero_native.h", "view_as_real"):
        assert gone not in mm, gone
    assert f"{MM}: #include <ATen/ops/view_as_real.h> (used only by fill_scalar_mps)" in r.stdout
    assert "static void fill_mps_kernel(TensorIterator& iter, const c10::Scalar& value) {" in mm
    assert "REGISTER_DISPATCH(fill_stub, &fill_mps_kernel);" in mm
    assert "#include <ATen/native/Fill.h>" in mm and "#include <ATen/TensorIterator.h>" in mm
    assert ("namespace at::native {\n\n#ifndef PYTORCH_JIT_COMPILE_SHADERS\n"
            "static auto& lib = mps::MetalShaderLibrary::getBundledLibrary();\n#else\n"
            "#include <ATen/native/mps/ConstantKernel_metallib.h>\n#endif\n") in mm
    # the value as the CPU kernel converts it; strided outputs through their sizes and strides
    assert "mtl_setBytes(computeEncoder, getMPSScalar(value, self.scalar_type()), 1);" in mm
    assert "mtl_setArgs<2>(computeEncoder, self.sizes(), self.strides(), static_cast<uint32_t>(self.dim()));" in mm

    metal = (root / METAL).read_text()
    assert "kernel void fill_dense(" in metal and "kernel void fill_strided(" in metal
    for t in ("float", "half", "long", "int", "short", "char", "uchar", "bool", "float2", "half2", "bfloat"):
        assert f"REGISTER_FILL_OP({t});" in metal, t

    # a second run: nothing to do, nothing written
    before = tracked_bytes(root)
    again = mpsgen("migrate", "fill_", "zero_", *FAST, cwd=root)
    assert again.returncode == 0, again.stderr
    assert "fill is already on a native Metal kernel" in again.stdout and "zero is already" in again.stdout
    assert tracked_bytes(root) == before and (root / METAL).read_text() == metal


def test_fill_alone_points_zero_mps_at_at_fill_and_zero_follows(tree: Path) -> None:
    root = _lay(tree)
    r = mpsgen("migrate", "fill_", *FAST, cwd=root)
    assert r.returncode == 0, r.stdout + r.stderr
    mm = (root / MM).read_text()
    assert "Tensor& zero_mps_(Tensor& self) {\n  return at::fill_(self, 0.0f);\n}" in mm
    z = mpsgen("migrate", "zero_", *FAST, cwd=root)  # fill_stub now runs Metal: only zero_'s dispatch moves
    assert z.returncode == 0, z.stderr
    assert "function zero_mps_ (a call of an at:: op only)" in z.stdout
    assert "fill_stub is already registered for MPS" in z.stdout
    assert "zero_mps_" not in (root / MM).read_text() and "    CPU, CUDA, MPS: zero_\n" in (root / YAML).read_text()


def test_a_legacy_kernel_doing_more_than_redispatching_is_still_refused(tree: Path) -> None:
    root = _lay(tree)
    assert mpsgen("migrate", "fill_", *FAST, cwd=root).returncode == 0
    mm = (root / MM).read_text().replace("  return at::fill_(self, 0.0f);", "  self.mul_(0);\n  return at::fill_(self, 0.0f);")
    (root / MM).write_text(mm)
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qam", "more"], cwd=root, check=True)
    z = mpsgen("migrate", "zero_", *FAST, cwd=root)
    assert z.returncode == 2 and "cannot tell whether zero_mps_ runs MPSGraph or Metal" in z.stderr


def test_a_stub_taking_more_than_the_value_is_no_fill(tree: Path) -> None:
    two = (DATA / "Fill.h").read_text().replace("const c10::Scalar&)", "const c10::Scalar&, double)")
    root = _lay(tree, two)
    before = tracked_bytes(root)
    r = mpsgen("migrate", "fill_", *FAST, cwd=root)
    assert r.returncode == 2 and r.stderr.count("\n") == 1, r.stderr
    assert "fill_.Scalar is not a pointwise op" in r.stderr
    # the hint names every kind mpsgen writes, not "elementwise only"
    assert "hint: mpsgen writes Metal kernels for pointwise ops and for the fill, indexing, random and reduction " \
        "stubs" in r.stderr
    assert tracked_bytes(root) == before


def test_reach_follows_calls_and_dispatched_ops_and_needs_an_output_only_iterator() -> None:
    text = (DATA / "Fill.cpp").read_text()
    sources = {f"{NATIVE}/Fill.cpp": text}
    ops = {"fill_": "fill_"}.get
    zero = nullary_reach(lambda _: sources, "zero_", ops)
    assert zero is not None and zero.stub == "fill_stub" and zero.literal == "0"
    assert [h.split(" ")[0] for h in zero.hops] == ["zero_", "fill_", "fill_out"]  # not zero_cpu_'s CPU shortcut
    with_input = {f"{NATIVE}/Fill.cpp": text.replace(".add_output(self)", ".add_output(self)\n    .add_input(self)")}
    assert nullary_reach(lambda _: with_input, "fill_", ops) is None
    # a kernel that fills its output on the way to other work (2.7's isin_Tensor_Tensor_out) is no fill
    isin = text + ("\nTensor& isin_out(const Tensor& e, const Tensor& t, Tensor& out) {\n  out.fill_(false);\n"
                   "  isin_sorting(e, t, out);\n  return out;\n}\n")
    assert nullary_reach(lambda _: {f"{NATIVE}/Fill.cpp": isin}, "isin_out", ops) is None


def test_status_lists_fill_and_zero_as_candidates_of_the_nullary_kind(tree: Path) -> None:
    root = _lay(tree)
    r = mpsgen("-C", str(root), "status", "--op", "zero")
    assert r.returncode == 0, r.stderr
    assert "frontier: candidate" in r.stdout
    assert ("zero_ (zero_mps_): candidate: zero_ (aten/src/ATen/native/Fill.cpp:50) -> fill_ "
            "(aten/src/ATen/native/Fill.cpp:22) -> fill_out (aten/src/ATen/native/Fill.cpp:8) -> fill_stub: "
            "an iterator of its output only (the nullary kind)") in r.stdout


def test_whole_functions_replaced_in_one_file_break_no_statement() -> None:
    old = "namespace n {\nstatic int f(int a) {\n  using namespace m;\n  return a;\n}\n} // namespace n\n"
    new = "namespace n {\nstatic void g(int b) {\n  using namespace m;\n  h(b);\n}\n} // namespace n\n"
    assert first_broken_statement(old, new) is None
    broken = old.replace("static int f(int a)", "static int f(int a, int b)")  # written into a statement
    assert first_broken_statement(old, broken) == 2


@pytest.mark.parametrize("wrong", [False, True])
def test_fill_check_agrees_and_catches_a_wrong_strided_kernel(tmp_path: Path, wrong: bool) -> None:
    from mpsgen.emulate.fill_check import check_fill
    from mpsgen.generate.nullary_kernel import render_metal

    metal = render_metal("fill", "fill_stub", bfloat_guarded=False, templates_dir=None)
    if wrong:  # the thread's index instead of its element's offset
        metal = metal.replace("  output[offset] = value;", "  output[index] = value;")
    root = Path(__file__).resolve().parents[1] / "fixtures" / "sample"
    result = check_fill("fill", metal, root)
    assert result.ok is not wrong
    if wrong:
        assert all(r.mismatches and "(strided)" in r.first_mismatches[0].inputs[0] for r in result.rows)
        assert all("(dense)" not in m.inputs[0] for r in result.rows for m in r.first_mismatches)
    else:
        assert [r.dtype for r in result.rows] == ["float32", "float16", "bfloat16", "int64", "int32", "int16",
                                                   "int8", "uint8", "bool", "complex64"]
