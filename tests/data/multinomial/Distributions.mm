//  Mirrors the multinomial part of PyTorch 2.7's operations/Distributions.mm (an MPSGraph kernel and the
//  host function calling it), cut down for mpsgen's tests.
#include <ATen/mps/MPSGeneratorImpl.h>
#include <ATen/native/mps/OperationUtils.h>

namespace at::native {

static Tensor& multinomial_with_replacement_mps_kernel(const Tensor& self,
                                                       const int64_t n_sample,
                                                       std::optional<Generator> generator,
                                                       Tensor& result) {
  using namespace mps;
  MPSGraph* mpsGraph = make_mps_graph();
  MPSGraphTensor* probs = mpsGraphRankedPlaceHolder(mpsGraph, self);
  (void)probs;
  return result;
}

Tensor& multinomial_out_mps(const Tensor& self,
                            int64_t n_sample,
                            bool with_replacement,
                            std::optional<Generator> gen,
                            Tensor& result) {
  result.resize_({self.size(0), n_sample});
  return multinomial_with_replacement_mps_kernel(self, n_sample, gen, result);
}

Tensor multinomial_mps(const Tensor& self, int64_t n_sample, bool with_replacement, std::optional<Generator> gen) {
  Tensor result = at::empty({0}, self.options().dtype(kLong));
  multinomial_out_mps(self, n_sample, with_replacement, gen, result);
  return result;
}

} // namespace at::native
