"""The scalar-ops tree: the sample checkout with the torch 2.13 wheel's native_functions.yaml, test lists
and MetalShaderLibrary.h, and tests/data/scalar_ops (hand-written Activation/PointwiseOps/Loss sources
and MPSGraph .mm files in the real files' shapes) laid over it, committed in git.  conftest.py's
`scalar_tree` fixture gives each test a copy of one laid per session."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from cli_support import mpsgen

DATA = Path(__file__).resolve().parent / "data" / "scalar_ops"
NATIVE = "aten/src/ATen/native"
LIBRARY_H = f"{NATIVE}/mps/MetalShaderLibrary.h"

# What BinaryOps.h and Loss.cpp hold for the two losses the sample lacks (real shapes, cut).
LOSS_STUBS = """using structured_binary_fn_double = void(*)(TensorIteratorBase&, double);
DECLARE_DISPATCH(structured_binary_fn_double, smooth_l1_stub)
DECLARE_DISPATCH(structured_binary_fn, mse_stub)
"""
LOSS_IMPLS = """
TORCH_META_FUNC(smooth_l1_loss)
(const Tensor& input, const Tensor& target, const int64_t reduction, double beta) {
  TORCH_CHECK(beta >= 0, "smooth_l1_loss does not support negative values for beta.")
  // TODO: Reduce this extra TensorIterator construction for Reduction::Mean & Sum.
  // We do another TensorIterator construction in the IMPL for the two cases.
  build_borrowing_binary_op(maybe_get_output(), input, target);
  if (reduction == Reduction::None) {
    return;
  }
  TORCH_INTERNAL_ASSERT(reduction == Reduction::Mean || reduction == Reduction::Sum);
  maybe_get_output().resize_({});
}

TORCH_META_FUNC(mse_loss)
(const Tensor& input, const Tensor& target, const int64_t reduction) {
  build_borrowing_binary_op(maybe_get_output(), input, target);
  if (reduction == Reduction::None) {
    return;
  }
  TORCH_INTERNAL_ASSERT(reduction == Reduction::Mean || reduction == Reduction::Sum);
  maybe_get_output().resize_({});
}

TORCH_IMPL_FUNC(smooth_l1_loss_out)
(const Tensor& input, const Tensor& target, int64_t reduction, double beta, const Tensor& result) {
  if (reduction != Reduction::None) {
    Tensor loss;
    auto iter = TensorIterator::borrowing_binary_op(loss, input, target);
    smooth_l1_stub(iter.device_type(), iter, beta);
    result.copy_(apply_loss_reduction(iter.output(), reduction));
  } else {
    smooth_l1_stub(device_type(), *this, beta);
  }
}

TORCH_IMPL_FUNC(mse_loss_out)
(const Tensor& input, const Tensor& target, int64_t reduction, const Tensor& result) {
  if (reduction != Reduction::None) {
    Tensor loss;
    auto iter = TensorIterator::borrowing_binary_op(loss, input, target);
    mse_stub(iter.device_type(), iter);
    result.copy_(apply_loss_reduction(iter.output(), reduction));
  } else {
    mse_stub(device_type(), *this);
  }
}
"""
SUB_OUT = """TORCH_IMPL_FUNC(sub_out) (
  const Tensor& self, const Tensor& other, const Scalar& alpha, const Tensor& result
) {
  add_stub(device_type(), *this, -alpha);
  TORCH_INTERNAL_ASSERT(result.scalar_type() == output().dtype());
}

"""


def commit_all(root: Path) -> None:
    for args in (["init", "-q"], ["add", "-A"], ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "x"]):
        subprocess.run(["git", *args], cwd=root, check=True)


def lay_scalar_ops(root: Path, wheel_include: Path) -> Path:
    for f in (DATA / "native").iterdir():
        shutil.copyfile(f, root / NATIVE / f.name)
    for f in (DATA / "operations").iterdir():
        shutil.copyfile(f, root / NATIVE / "mps" / "operations" / f.name)
    shutil.copyfile(wheel_include / "ATen/native/mps/MetalShaderLibrary.h", root / LIBRARY_H)
    binary_h = root / NATIVE / "BinaryOps.h"
    binary_h.write_text(binary_h.read_text().replace("\n} // namespace at::native", LOSS_STUBS + "\n} // namespace at::native"))
    binary = root / NATIVE / "BinaryOps.cpp"  # sub.out's shared kernel, as upstream writes it
    binary.write_text(binary.read_text().replace("DEFINE_DISPATCH(add_stub);", SUB_OUT + "DEFINE_DISPATCH(add_stub);", 1))
    loss = root / NATIVE / "Loss.cpp"
    loss.write_text(loss.read_text().replace("\nTensor huber_loss(", LOSS_IMPLS + "\nTensor huber_loss(", 1))
    return root


def migrate(root: Path, op: str, *flags: str) -> subprocess.CompletedProcess[str]:
    return mpsgen("migrate", op, "--no-build", "--no-test", *flags, cwd=root)


def read(root: Path, rel: str) -> str:
    return (root / rel).read_text()
