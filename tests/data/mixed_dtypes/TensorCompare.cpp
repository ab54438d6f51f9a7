// Hand-written for mpsgen's tests: where.self_out's shared kernel in the shape of
// aten/src/ATen/native/TensorCompare.cpp (promote, then an iterator over inputs of different dtypes).
#define TORCH_ASSERT_ONLY_METHOD_OPERATORS
#include <ATen/native/TensorCompare.h>
#include <ATen/native/TensorIterator.h>

namespace at::native {

DEFINE_DISPATCH(where_kernel); // NOLINT(cppcoreguidelines-avoid-non-const-global-variables)

Tensor& where_self_out(const Tensor& condition, const Tensor& self, const Tensor& other, Tensor& out) {
  const auto result_type = at::native::result_type(self, other);
  Tensor self_ = self.to(result_type);
  Tensor other_ = other.to(result_type);
  Tensor condition_ = condition;
  TORCH_CHECK(condition_.scalar_type() == ScalarType::Bool, "where expected condition to be a boolean tensor");
  auto iter = at::TensorIteratorConfig()
                  .check_all_same_dtype(false)
                  .add_output(out)
                  .add_const_input(condition_)
                  .add_const_input(self_)
                  .add_const_input(other_)
                  .build();
  where_kernel(iter.device_type(), iter);
  return out;
}

Tensor where(const Tensor& condition, const Tensor& self, const Tensor& other) {
  auto result_type = at::native::result_type(self, other);
  Tensor ret = at::empty({0}, self.options().dtype(result_type));
  at::native::where_self_out(condition, self, other, ret);
  return ret;
}

} // namespace at::native
