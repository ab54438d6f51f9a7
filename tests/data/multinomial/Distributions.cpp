// Mirrors the multinomial part of PyTorch 2.7's aten/src/ATen/native/Distributions.cpp (a shared kernel
// calling its stub itself, its no-replacement path built from at:: ops), cut down for mpsgen's tests.
#include <ATen/native/UnaryOps.h>

namespace at::native {

DEFINE_DISPATCH(multinomial_with_replacement_stub);

Tensor& multinomial_out(const Tensor& self,
    int64_t n_sample,
    bool with_replacement,
    std::optional<Generator> gen,
    Tensor& result) {
  TORCH_CHECK(n_sample > 0, "cannot sample n_sample <= 0 samples");
  result.resize_({self.size(0), n_sample});
  if (!with_replacement || n_sample == 1) {
    auto is_valid = ((self.max() < INFINITY) & (self.min() >= 0));
    at::_assert_async(is_valid, "probability tensor contains either `inf`, `nan` or element < 0");
    Tensor q = at::empty_like(self).exponential_(1, std::move(gen));
    at::div_out(q, self, q);
    Tensor vals = at::empty(result.sizes(), self.options());
    at::topk_out(vals, result, q, n_sample);
    return result;
  }
  multinomial_with_replacement_stub(
      result.device().type(), result, self, n_sample, gen);
  return result;
}

Tensor multinomial(
    const Tensor& self,
    int64_t n_sample,
    bool with_replacement,
    std::optional<Generator> gen) {
  Tensor result = at::empty({0}, self.options().dtype(kLong));
  native::multinomial_out(self, n_sample, with_replacement, std::move(gen), result);
  return result;
}

} // namespace at::native
