//  Hand-written for mpsgen's tests: an MPSGraph where kernel registered for where_kernel, in the
//  shape of aten/src/ATen/native/mps/operations/TensorCompare.mm.
#define TORCH_ASSERT_ONLY_METHOD_OPERATORS
#include <ATen/native/TensorCompare.h>
#include <ATen/native/mps/OperationUtils.h>

namespace at::native {

static void where_kernel_mps(TensorIterator& iter) {
  const auto& condition = iter.input(0);
  const auto& self = iter.input(1);
  const auto& other = iter.input(2);
  auto& out = iter.output(0);
  using CachedGraph = mps::MPSBinaryCachedGraph;
  @autoreleasepool {
    std::string key = "where_self_out_mps:" + mps::getTensorsStringKey({condition, self, other});
    auto cachedGraph = mps::LookUpOrCreateCachedGraph<CachedGraph>(key, [&](auto mpsGraph, auto newCachedGraph) {
      MPSGraphTensor* conditionTensor = mps::mpsGraphRankedPlaceHolder(mpsGraph, condition);
      MPSGraphTensor* selfTensor = mps::mpsGraphRankedPlaceHolder(mpsGraph, self);
      MPSGraphTensor* otherTensor = mps::mpsGraphRankedPlaceHolder(mpsGraph, other);
      newCachedGraph->outputTensor_ = [mpsGraph selectWithPredicateTensor:conditionTensor
                                                       truePredicateTensor:selfTensor
                                                      falsePredicateTensor:otherTensor
                                                                      name:nil];
    });
    (void)cachedGraph;
    (void)out;
  }
}

REGISTER_DISPATCH(where_kernel, &where_kernel_mps)

} // namespace at::native
