"""PyTorch 2.7's binary host kernels rebuild their iterator for a CPU scalar or a second dtype as the op's
shared kernel builds its own (issue 39, item 3): TensorIterator::binary_op enforces safe casting to its
output, so a bool result of float inputs (`x >= 0.5`) needs comparison_op; a float op's is binary_float_op.

The C++ snippets below are written for these tests in the shapes of PyTorch's native/*.cpp (BinaryOps.cpp's
CREATE_COMPARISON_SCALAR_TENSOR_META_FUNC and comparison_op_out, Activation.cpp's threshold meta function).
The migrations run on the sample laid out as 2.7's binary layout (tests/data/binary27)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from cli_support import mpsgen

from mpsgen.errors import MpsgenError
from mpsgen.generate.host_code import binary_mps_impl_body
from mpsgen.model import Location
from mpsgen.plan.host_iterator import host_iterator
from mpsgen.sources.native.iterator_builder import IteratorBuilder, iterator_builder, static_factories
from mpsgen.sources.native.shared_impl import find_shared_impl

NATIVE = "aten/src/ATen/native"
MPS = f"{NATIVE}/mps"
MM = f"{MPS}/operations/BinaryKernel.mm"
DATA = Path(__file__).parent / "data" / "binary27"

COMPARISONS = """
#define CREATE_COMPARISON_SCALAR_TENSOR_META_FUNC(func)                     \\
  TORCH_META_FUNC2(func, Tensor)(const Tensor& self, const Tensor& other) { \\
    const Tensor& result = maybe_get_output();                              \\
    build_borrowing_comparison_op(result, self, other);                     \\
  }                                                                         \\
                                                                            \\
  TORCH_META_FUNC2(func, Scalar)(const Tensor& self, const Scalar& other) { \\
    auto other_tensor = native::wrapped_scalar_tensor(other);               \\
    build_borrowing_except_last_argument_comparison_op(maybe_get_output(), self, other_tensor); \\
  }

CREATE_COMPARISON_SCALAR_TENSOR_META_FUNC(ge)

TORCH_META_FUNC(atan2) (const Tensor& self, const Tensor& other) {
  build_borrowing_binary_float_op(maybe_get_output(), self, other);
}

TORCH_META_FUNC2(fmod, Tensor) (const Tensor& self, const Tensor& other) {
  build_borrowing_binary_op(maybe_get_output(), self, other);
}

TORCH_META_FUNC(threshold)(const Tensor& self, const Scalar& threshold, const Scalar& value) {
  build(TensorIteratorConfig()
    .add_output(maybe_get_output())
    .add_const_input(self)
    .add_const_input(self));
}

TORCH_META_FUNC(twice)(const Tensor& self, const Tensor& other) {
  build_borrowing_binary_op(maybe_get_output(), self, other);
  build_borrowing_comparison_op(maybe_get_output(), self, other);
}

#define CREATE_COMPARISON_SCALAR_TENSOR_IMPL_FUNC(func)             \\
  TORCH_IMPL_FUNC(func##_Tensor_out)                                \\
  (const Tensor& self, const Tensor& other, const Tensor& result) { \\
    func##_stub(device_type(), *this);                              \\
  }

CREATE_COMPARISON_SCALAR_TENSOR_IMPL_FUNC(ge)

TORCH_IMPL_FUNC(atan2_out) (const Tensor& self, const Tensor& other, const Tensor& result) {
  atan2_stub(device_type(), *this);
}

#define CREATE_BINARY_TORCH_IMPL_FUNC(func_out, func_stub)                                     \\
TORCH_IMPL_FUNC(func_out) (const Tensor& self, const Tensor& other, const Tensor& result) {  \\
  func_stub(device_type(), *this);                                                           \\
}

CREATE_BINARY_TORCH_IMPL_FUNC(fmod_out, fmod_stub)
CREATE_BINARY_TORCH_IMPL_FUNC(twice_out, twice_stub)

TORCH_IMPL_FUNC(threshold_out)(const Tensor& self, const Scalar& threshold, const Scalar& value, const Tensor& result) {
  threshold_stub(device_type(), *this, threshold, value);
}

template <typename OutImpl>
Tensor& comparison_op_out(Tensor& result, const Tensor& self, const Scalar& other, OutImpl& out_impl) {
  return out_impl(result, self, wrapped_scalar_tensor(other));
}

template <typename Stub>
Tensor& comparison_op_out(Tensor& result, const Tensor& self, const Tensor& other, Stub& stub) {
  auto iter = TensorIterator::comparison_op(result, self, other);
  stub(iter.device_type(), iter);
  return result;
}

Tensor& logical_xor_out(const Tensor& self, const Tensor& other, Tensor& result) {
  return comparison_op_out(result, self, other, logical_xor_stub);
}
"""
SOURCES = {f"{NATIVE}/BinaryOps.cpp": COMPARISONS}


def _builder(kernel: str, entry: str) -> IteratorBuilder | None:
    impl = find_shared_impl(SOURCES, kernel)
    assert impl is not None, kernel
    return iterator_builder(SOURCES, impl, entry, impl.stubs[0] if impl.stubs else None)


def _line_of(text: str, needle: str) -> int:
    return text[: text.index(needle)].count("\n") + 1


def test_each_kind_is_read_where_the_shared_kernel_builds_it():
    ge = _builder("ge_Tensor_out", "ge.Tensor_out")  # a meta function a macro defines
    assert ge is not None and (ge.kind, ge.call, ge.within) == ("comparison", "build_borrowing_comparison_op",
                                                                 "ge's meta function")
    assert ge.line == _line_of(COMPARISONS, "build_borrowing_comparison_op(result")
    atan2 = _builder("atan2_out", "atan2.out")
    assert atan2 is not None and (atan2.kind, atan2.call) == ("binary_float", "build_borrowing_binary_float_op")
    fmod = _builder("fmod_out", "fmod.Tensor_out")
    assert fmod is not None and (fmod.kind, fmod.call) == ("binary", "build_borrowing_binary_op")
    # not structured: the helper its stub is passed to, of that helper's overloads the one that builds
    xor = _builder("logical_xor_out", "logical_xor.out")
    assert xor is not None and (xor.kind, xor.call, xor.within) == ("comparison", "TensorIterator::comparison_op",
                                                                    "comparison_op_out")
    assert xor.line == _line_of(COMPARISONS, "auto iter = TensorIterator::comparison_op")
    threshold = _builder("threshold_out", "threshold.out")
    assert threshold is not None and threshold.kind == "config"
    assert _builder("twice_out", "twice.out") is None  # two kinds: mpsgen cannot say which


def test_the_factory_follows_the_builder():
    at = Location(f"{NATIVE}/BinaryOps.cpp", 3)
    comparison = IteratorBuilder("comparison", "build_borrowing_comparison_op", "ge's meta function", at.file, 4)
    assert host_iterator(comparison, "bool", None, at).factory == "comparison_op"
    float_op = comparison._replace(kind="binary_float", call="build_borrowing_binary_float_op")
    assert host_iterator(float_op, "float", None, at).factory == "binary_float_op"
    config = comparison._replace(kind="config", call="TensorIteratorConfig()")
    # inputs cast to one dtype and an output of the result's type: binary_op's safe-casting check holds ...
    assert host_iterator(config, "same", None, at).factory == "binary_op"
    assert host_iterator(None, "float", None, at).factory == "binary_op"
    # ... except for a bool output of other inputs, which binary_op refuses
    with pytest.raises(MpsgenError, match="returns bool") as refused:
        host_iterator(None, "bool", None, at)
    assert (refused.value.path, refused.value.line) == (at.file, at.line)
    with pytest.raises(MpsgenError, match=r"builds it with TensorIteratorConfig\(\)"):
        host_iterator(config, "bool", None, at)
    # a checkout's TensorIterator.h that lacks the factory
    header = "  static TensorIterator binary_op(\n      TensorBase& out,\n      const TensorBase& a);\n"
    assert static_factories(header) == {"binary_op"}
    with pytest.raises(MpsgenError, match="declares no static comparison_op"):
        host_iterator(comparison, "bool", static_factories(header), at)


def test_the_body_builds_the_iterator_it_is_given():
    body = binary_mps_impl_body("ge", "bool", iterator="comparison_op")
    assert "    auto same = TensorIterator::comparison_op(out, iter.input(0).to(device, dtype), " \
           "iter.input(1).to(device, dtype));\n" in body
    assert "const auto result_type = [](ScalarType) { return kBool; };" in body  # the temporary is bool
    assert "binary_op" not in body


def _lay_2_7_binary(tree: Path) -> Path:
    shutil.copy(DATA / "BinaryKernel.metal", tree / MPS / "kernels" / "BinaryKernel.metal")
    shutil.copy(DATA / "BinaryKernel.mm", tree / MM)
    shutil.copy(DATA / "MetalShaderLibrary.h", tree / MPS / "MetalShaderLibrary.h")
    # the sample spells atan2's meta function TORCH_META_FUNC2(atan2, out); PyTorch 2.7 TORCH_META_FUNC(atan2)
    cpp = tree / NATIVE / "BinaryOps.cpp"
    cpp.write_text(cpp.read_text().replace("TORCH_META_FUNC2(atan2, out)", "TORCH_META_FUNC(atan2)"))
    subprocess.run(["git", "add", "-A"], cwd=tree, check=True, capture_output=True)
    subprocess.run(["git", "commit", "-qm", "2.7 binary"], cwd=tree, check=True, capture_output=True)
    return tree


@pytest.mark.parametrize(("op", "factory", "read_at"), [
    ("logical_xor", "comparison_op", "comparison_op_out builds it with TensorIterator::comparison_op at "
                                     f"{NATIVE}/BinaryOps.cpp:"),
    ("atan2", "binary_float_op", f"atan2's meta function builds it with build_borrowing_binary_float_op at "
                                 f"{NATIVE}/BinaryOps.cpp:"),
])
def test_a_2_7_host_rebuilds_the_iterator_as_the_op_builds_it(tree: Path, op: str, factory: str, read_at: str):
    root = _lay_2_7_binary(tree)
    result = mpsgen("-C", str(root), "migrate", op, "--no-build", "--no-test", "--no-try")
    assert result.returncode == 0, result.stdout + result.stderr
    mm = (root / MM).read_text()
    body = mm[mm.index(f"static void {op}_mps_kernel"):mm.index(f"REGISTER_DISPATCH({op}_stub")]
    assert f"    auto same = TensorIterator::{factory}(out, iter.input(0).to(device, dtype), " in body
    assert "TensorIterator::binary_op" not in body
    # the summary (and so --all's PR text) says which host path no check ran
    note = next(ln for ln in result.stdout.splitlines() if "is not exercised by the numeric check" in ln)
    assert f"{op}_mps_kernel's path for a CPU scalar, a second input dtype or an output of another dtype" in note
    assert f"(TensorIterator::{factory}: {read_at}" in note and f"runs {op}_functor only" in note
