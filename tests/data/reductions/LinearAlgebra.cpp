// Mirrors linalg_vector_norm_out of aten/src/ATen/native/LinearAlgebra.cpp of PyTorch 2.7 in shape (a
// reduction iterator handed to norm_stub with the ord), written for mpsgen's tests.
#include <ATen/native/ReduceOps.h>
#include <ATen/native/ReduceOpsUtils.h>

namespace at::native {

TORCH_IMPL_FUNC(linalg_vector_norm_out)(const Tensor& self, const Scalar& scalar_ord, OptionalIntArrayRef opt_dim, bool keepdim, std::optional<ScalarType> opt_dtype, const Tensor& result) {
  auto ord = scalar_ord.toDouble();
  auto dim = opt_dim.value_or(IntArrayRef{});
  if (self.numel() == 1) {  // one element: |x| (or x != 0) without a reduction
    ord != 0.0 ? at::abs_outf(self, const_cast<Tensor&>(result)) : at::ne_outf(self, 0, const_cast<Tensor&>(result));
    return;
  }
  auto iter = make_reduction("vector_norm", const_cast<Tensor&>(result), self, dim, keepdim, result.scalar_type());
  norm_stub(iter.device_type(), iter, ord);
}

} // namespace at::native
