"""nan_to_num: three std::optional<double> scalars whose absence the CPU kernel fills per dtype (0, the
type's max, its lowest), reaching a params struct; integers and bool never reach the stub
(nan_to_num_out copies them and returns).  Written fresh on the scalar-ops tree, and on a tree that
already has upstream's NanToNumParams kernel (2026) only the host side is written, calling it.

The tree: the scalar-ops tree (sample + the 2.13 wheel's yaml, lists and MetalShaderLibrary.h) with
nan_to_num's CPU function, stub declaration and MPSGraph kernel added in the real files' shapes.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from cli_support import mpsgen, tracked_bytes

from scalar_ops_tree import NATIVE, migrate as _migrate, read as _read

CPU = """
Tensor& nan_to_num_out(const Tensor& self,
    std::optional<double> nan,
    std::optional<double> pos_inf,
    std::optional<double> neg_inf,
    Tensor& result) {
  TORCH_CHECK(
      self.scalar_type() == result.scalar_type(),
      "nan_to_num: dtype of out: ",
      result.scalar_type(),
      " should be same as input: ",
      self.scalar_type());

  if (c10::isIntegralType(self.scalar_type(), /*includeBool=*/true)) {
    at::native::resize_output(result, self.sizes());
    result.copy_(self);
    return result;
  }

  auto iter = TensorIterator::unary_op(result, self);
  nan_to_num_stub(iter.device_type(), iter, nan, pos_inf, neg_inf);
  return result;
}

DEFINE_DISPATCH(nan_to_num_stub);
"""

STUB = """DECLARE_DISPATCH(
    void (*)(
        TensorIteratorBase&,
        std::optional<double>,
        std::optional<double>,
        std::optional<double>),
    nan_to_num_stub)
"""

MPSGRAPH = """
Tensor& nan_to_num_out_mps(const Tensor& self,
                           std::optional<double> nan,
                           std::optional<double> pos_inf,
                           std::optional<double> neg_inf,
                           Tensor& result) {
  using namespace mps;
  @autoreleasepool {
    auto cachedGraph = LookUpOrCreateCachedGraph<CachedGraph>(key, [&](auto mpsGraph, auto newCachedGraph) {
      newCachedGraph->outputTensor = [mpsGraph selectWithPredicateTensor:isNaN
                                                     truePredicateTensor:newCachedGraph->nanReplacementTensor
                                                    falsePredicateTensor:newCachedGraph->selfTensor
                                                                    name:nil];
    });
    runMPSGraph(getCurrentMPSStream(), cachedGraph->graph(), feeds, outputPlaceholder);
  }
  return result;
}
"""

# 2026's UnaryKernel.h and UnaryKernel.metal hold upstream's kernel (the shapes of pytorch#189489).
UPSTREAM_HEADER = """#pragma once

template <typename T>
struct NanToNumParams {
  T nan;
  T posinf;
  T neginf;
};
"""

UPSTREAM_KERNEL = """
struct nan_to_num_functor {
  template <typename T>
  inline T operator()(const T x, const NanToNumParams<float> params) {
    return ::metal::isnan(float(x))
        ? static_cast<T>(params.nan)
        : (::metal::isinf(float(x)) ? static_cast<T>(float(x) > 0.0f ? params.posinf : params.neginf) : x);
  }
};

typedef NanToNumParams<float> NanToNumParams_float;
REGISTER_UNARY_ALPHA_OP(nan_to_num, float, NanToNumParams_float, float);
REGISTER_UNARY_ALPHA_OP(nan_to_num, half, NanToNumParams_float, half);
REGISTER_UNARY_ALPHA_OP(nan_to_num, bfloat, NanToNumParams_float, bfloat);
"""

UNARY_MM = f"{NATIVE}/mps/operations/UnaryKernel.mm"
HEADER = f"{NATIVE}/mps/kernels/UnaryKernel.h"
METAL = f"{NATIVE}/mps/kernels/UnaryKernel.metal"


def _lay(root: Path) -> None:
    native = root / NATIVE
    cpu = native / "UnaryOps.cpp"
    cpu.write_text(cpu.read_text().replace("DEFINE_DISPATCH(abs_stub);\n", CPU.lstrip("\n") + "DEFINE_DISPATCH(abs_stub);\n", 1))
    header = native / "UnaryOps.h"
    header.write_text(header.read_text().replace("DECLARE_DISPATCH(unary_fn, abs_stub)\n",
                                                 "DECLARE_DISPATCH(unary_fn, abs_stub)\n" + STUB, 1))
    mm = native / "mps/operations/UnaryOps.mm"
    text = mm.read_text()
    end = text.rindex("} // namespace at::native")
    mm.write_text(text[:end] + MPSGRAPH.lstrip("\n") + "\n" + text[end:])
    subprocess.run(["git", "add", "-A"], cwd=root, check=True)
    subprocess.run(["git", "commit", "-qm", "nan_to_num on MPSGraph"], cwd=root, check=True)


def test_nan_to_num_gets_a_params_kernel_with_the_cpu_kernels_defaults(scalar_tree: Path):
    _lay(scalar_tree)
    result = _migrate(scalar_tree, "nan_to_num")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    for dtype in ("int64", "uint8", "bool"):
        line = next(ln for ln in out.splitlines() if f"dtype     {dtype} " in ln)
        assert "handled by nan_to_num_out at aten/src/ATen/native/UnaryOps.cpp:" in line, line
    assert "numeric check: 3 dtype(s) agree with" in out  # float32, float16, bfloat16, before writing
    header = _read(scalar_tree, HEADER)
    assert "template <typename T>\nstruct NanToNumParams {\n  T nan;\n  T posinf;\n  T neginf;\n};" in header
    metal = _read(scalar_tree, METAL)
    assert "#include <ATen/native/mps/kernels/UnaryKernel.h>" in metal
    assert "REGISTER_UNARY_ALPHA_OP(nan_to_num, half, NanToNumParams_float, half)" in metal
    host = _read(scalar_tree, UNARY_MM)
    for line in ("    const auto nan_value = nan ? static_cast<scalar_t>(*nan) : static_cast<scalar_t>(0);",
                 "    const auto posinf_value = posinf ? static_cast<scalar_t>(*posinf) : std::numeric_limits<scalar_t>::max();",
                 "    const auto neginf_value = neginf ? static_cast<scalar_t>(*neginf) : std::numeric_limits<scalar_t>::lowest();",
                 "REGISTER_DISPATCH(nan_to_num_stub, &nan_to_num_mps_kernel);"):
        assert line in host, line
    assert max(len(line) for line in host.splitlines()) <= 120  # clang-format's column limit
    assert "nan_to_num_out_mps" not in _read(scalar_tree, f"{NATIVE}/mps/operations/UnaryOps.mm")
    assert "    CPU, CUDA, MPS, MTIA: nan_to_num_out\n" in _read(scalar_tree, f"{NATIVE}/native_functions.yaml")


def _lay_upstream(root: Path, kernel: str) -> None:
    (root / HEADER).write_text(UPSTREAM_HEADER)
    metal = root / METAL
    metal.write_text(metal.read_text().replace("using namespace metal;\n",
                                               "#include <ATen/native/mps/kernels/UnaryKernel.h>\nusing namespace metal;\n", 1)
                     + kernel)
    subprocess.run(["git", "add", "-A"], cwd=root, check=True)
    subprocess.run(["git", "commit", "-qm", "upstream's nan_to_num kernel"], cwd=root, check=True)


def test_upstreams_params_kernel_is_called_when_its_struct_and_aliases_are_mpsgens(scalar_tree: Path):
    _lay(scalar_tree)
    _lay_upstream(scalar_tree, UPSTREAM_KERNEL)
    before = {p: _read(scalar_tree, p) for p in (HEADER, METAL)}
    result = _migrate(scalar_tree, "nan_to_num")
    assert result.returncode == 0, result.stderr
    # upstream's functor is what MPS will run: the numeric check lifts it out of the file and runs it
    assert "numeric check: 3 dtype(s) agree with torch.ops.aten.nan_to_num" in result.stdout
    assert {p: _read(scalar_tree, p) for p in before} == before  # no Metal, no header written
    host = _read(scalar_tree, UNARY_MM)
    assert 'lib.exec_unary_kernel_with_params(' in host and '"nan_to_num",' in host
    assert 'fmt::format("NanToNumParams_{}", mps::scalarToMetalTypeString(' in host


def test_upstreams_params_kernel_with_other_fields_is_refused(scalar_tree: Path):
    _lay(scalar_tree)
    (scalar_tree / HEADER).write_text(UPSTREAM_HEADER.replace("T posinf;", "T pos_inf;"))
    metal = scalar_tree / METAL
    metal.write_text(metal.read_text() + UPSTREAM_KERNEL)
    subprocess.run(["git", "add", "-A"], cwd=scalar_tree, check=True)
    subprocess.run(["git", "commit", "-qm", "a differently named struct"], cwd=scalar_tree, check=True)
    result = mpsgen("migrate", "nan_to_num", "--no-build", "--no-test", cwd=scalar_tree)
    assert result.returncode == 2 and result.stdout == ""
    assert f"{HEADER}:4: struct NanToNumParams already exists with other fields" in result.stderr


def test_the_numeric_check_also_leaves_each_optional_scalar_out():
    """posinf=None reaches torch as None and the kernel as the input type's max (the CPU kernel's default)."""
    from types import SimpleNamespace

    from mpsgen.emulate.bound import Absent, scalar_cases
    from mpsgen.generate.catalog import spec_for

    spec = spec_for("nan_to_num", "unary_params", scalars=("nan", "posinf", "neginf"))
    assert spec.param_defaults == ("zero", "max", "lowest")
    binding = SimpleNamespace(scalars=("arg:1", "arg:2", "arg:3"))
    cases = scalar_cases(binding, spec, "half")
    absent = {(k, float(v)) for case in cases for k, v in enumerate(case) if isinstance(v, Absent)}
    assert absent == {(0, 0.0), (1, 65504.0), (2, -65504.0)}
    assert (Absent(0.0), Absent(65504.0), Absent(-65504.0)) in cases  # all three left out at once
    assert len(cases) == 6 ** 3  # five values and "absent" per scalar


def test_an_upstream_kernel_that_disagrees_with_the_cpu_is_not_wired_up(scalar_tree: Path):
    """A kernel of that name that replaces NaN but leaves the infinities: refused, nothing written."""
    _lay(scalar_tree)
    nan_only = UPSTREAM_KERNEL.replace(
        "(::metal::isinf(float(x)) ? static_cast<T>(float(x) > 0.0f ? params.posinf : params.neginf) : x)", "x")
    _lay_upstream(scalar_tree, nan_only)
    before = tracked_bytes(scalar_tree)
    result = _migrate(scalar_tree, "nan_to_num")
    assert result.returncode == 1
    assert "MISMATCH float32: nan_to_num(inf" in result.stdout
    assert "the nan_to_num kernel disagrees with the CPU: nothing written" in result.stdout
    assert tracked_bytes(scalar_tree) == before
