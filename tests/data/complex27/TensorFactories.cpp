#include <ATen/native/TensorFactories.h>
#include <ATen/native/TensorIterator.h>

namespace at::native {

DEFINE_DISPATCH(complex_stub);
DEFINE_DISPATCH(polar_stub);

static void same_floating_dtype(const Tensor& out, const Tensor& x, const Tensor& y) {
  TORCH_CHECK(isFloatingType(x.scalar_type()), "expected a floating point input");
  TORCH_CHECK(x.scalar_type() == y.scalar_type(), "both inputs must have one dtype");
  TORCH_CHECK(out.scalar_type() == toComplexType(x.scalar_type()), "out must be complex");
}

Tensor& complex_out(const Tensor& real, const Tensor& imag, Tensor& result) {
  same_floating_dtype(result, real, imag);
  auto iter = TensorIteratorConfig()
                  .add_output(result)
                  .add_const_input(real)
                  .add_const_input(imag)
                  .check_all_same_dtype(false)
                  .build();
  complex_stub(iter.device_type(), iter);
  return result;
}

Tensor& polar_out(const Tensor& abs, const Tensor& angle, Tensor& result) {
  same_floating_dtype(result, abs, angle);
  auto iter = TensorIteratorConfig()
                  .add_output(result)
                  .add_const_input(abs)
                  .add_const_input(angle)
                  .check_all_same_dtype(false)
                  .build();
  polar_stub(iter.device_type(), iter);
  return result;
}

} // namespace at::native
