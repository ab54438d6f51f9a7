//  Mirrors aten/src/ATen/native/mps/operations/ScatterGather.mm of PyTorch 2.7 in shape (MPSGraph gather and
//  scatter, no shader library), written for mpsgen's tests.
#define TORCH_ASSERT_ONLY_METHOD_OPERATORS
#include <ATen/native/TensorAdvancedIndexing.h>
#include <ATen/native/mps/OperationUtils.h>

#ifndef AT_PER_OPERATOR_HEADERS
#include <ATen/Functions.h>
#include <ATen/NativeFunctions.h>
#else
#include <ATen/ops/gather_native.h>
#include <ATen/ops/scatter_add_native.h>
#include <ATen/ops/scatter_native.h>
#endif

namespace at::native {

TORCH_IMPL_FUNC(gather_out_mps)
(const Tensor& self_arg, int64_t dim, const Tensor& index, bool sparse_grad, const Tensor& output) {
  using namespace mps;
  if (self_arg.numel() == 0 || index.numel() == 0) {
    return;
  }
  struct CachedGraph : public MPSCachedGraph {
    CachedGraph(MPSGraph* graph) : MPSCachedGraph(graph) {}
    MPSGraphTensor* outputTensor_ = nil;
  };
  @autoreleasepool {
    string key = "gather_out_mps" + getTensorsStringKey({self_arg, index, output});
    auto cachedGraph = LookUpOrCreateCachedGraph<CachedGraph>(key, [&](auto mpsGraph, auto newCachedGraph) {
      newCachedGraph->outputTensor_ = mpsGraphRankedPlaceHolder(mpsGraph, output);
    });
    Placeholder outputPlaceholder = Placeholder(cachedGraph->outputTensor_, output);
    runMPSGraph(getCurrentMPSStream(), cachedGraph->graph(), dictionaryFromPlaceholders(outputPlaceholder),
                outputPlaceholder);
  }
}

static void scatter_mps_general(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  using namespace mps;
  struct CachedGraph : public MPSCachedGraph {
    CachedGraph(MPSGraph* graph) : MPSCachedGraph(graph) {}
  };
}

TORCH_IMPL_FUNC(scatter_src_out_mps)
(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src, const Tensor& output) {
  scatter_mps_general(output, dim, index, src);
}

TORCH_IMPL_FUNC(scatter_value_out_mps)
(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value, const Tensor& output) {
  auto src = at::empty(index.sizes(), self.scalar_type(), std::nullopt, kMPS, std::nullopt, std::nullopt);
  src.fill_(value);
  scatter_mps_general(output, dim, index, src);
}

TORCH_IMPL_FUNC(scatter_add_mps_out)
(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src, const Tensor& output) {
  scatter_mps_general(output, dim, index, src);
}

} // namespace at::native
