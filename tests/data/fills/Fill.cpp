// Mirrors aten/src/ATen/native/Fill.cpp of PyTorch 2.7 in shape (fill_out's output-only iterator, fill_ and
// zero_ reaching fill_stub through it), written for mpsgen's tests.
#include <ATen/native/Fill.h>
#include <ATen/TensorIterator.h>

namespace at::native {

Tensor& fill_out(Tensor& self, const Scalar& value) {
  if (self.device() == at::kCPU && self.numel() == 1) {
    return at::detail::scalar_fill(self, value);
  }
  auto iter = TensorIteratorConfig()
    .set_check_mem_overlap(false)  // filling twice writes the same value
    .check_all_same_dtype(false)
    .add_output(self)
    .resize_outputs(false)
    .build();
  fill_stub(iter.device_type(), iter, value);
  return self;
}

Tensor& fill_(Tensor& self, const Scalar& value) {
  return fill_out(self, value);
}

Tensor& fill_(Tensor& self, const Tensor& value) {
  TORCH_CHECK(value.dim() == 0, "fill_ takes a 0-dim value tensor, got ", value.dim(), " dims");
  if (self.device() != value.device()) {
    return fill_out(self, value.item());
  }
  self.copy_(value);
  return self;
}

Tensor& fill_meta_(Tensor& self, const Scalar& value) {
  return self;
}

DEFINE_DISPATCH(fill_stub);

static Tensor& zero_cpu_(Tensor& self, int64_t nelements) {
  void* ptr = self.data_ptr();
  if (nullptr == ptr) {
    return self.fill_(0);
  }
  std::memset(ptr, 0, nelements * self.dtype().itemsize());
  return self;
}

Tensor& zero_(Tensor& self) {
  int64_t nelements = c10::multiply_integers(self.sizes());
  if (self.device() == at::kCPU && self.is_non_overlapping_and_dense() && nelements < internal::GRAIN_SIZE) {
    return zero_cpu_(self, nelements);
  }
  return self.fill_(0);
}

} // namespace at::native
