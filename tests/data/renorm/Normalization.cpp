// Hand-written for mpsgen's tests: renorm.out's shared kernel in the shape of
// aten/src/ATen/native/Normalization.cpp (norms computed first, then a one-input iterator over them
// for renorm's own helper stub).
#define TORCH_ASSERT_ONLY_METHOD_OPERATORS
#include <ATen/native/Normalization.h>
#include <ATen/native/TensorIterator.h>

namespace at::meta {

TORCH_META_FUNC(renorm)(const Tensor& self, const Scalar& p, int64_t dim, const Scalar& maxnorm) {
  TORCH_CHECK(maxnorm.toDouble() >= 0.0, "renorm: expected maxnorm to be >= 0 but got ", maxnorm.toDouble());
  set_output_raw_strided(0, self.sizes(), {}, self.options());
}

} // namespace at::meta

namespace at::native {

DEFINE_DISPATCH(renorm_scale_factor_stub);

TORCH_IMPL_FUNC(renorm_out)
(const Tensor& self, const Scalar& p, int64_t dim, const Scalar& maxnorm, const Tensor& out) {
  DimVector reduce_dims(self.dim());
  std::iota(reduce_dims.begin(), reduce_dims.end(), 0);
  reduce_dims.erase(reduce_dims.begin() + c10::maybe_wrap_dim(dim, self.dim()));
  Tensor norm = at::linalg_vector_norm(self, p.toDouble(), reduce_dims, /*keepdim=*/true);
  Tensor factor = at::empty(norm.sizes(), self.options());
  auto iter = TensorIteratorConfig().add_output(factor).add_input(norm).build();
  renorm_scale_factor_stub(iter.device_type(), iter, maxnorm.toDouble());
  at::mul_outf(self, factor, const_cast<Tensor&>(out));
}

} // namespace at::native
