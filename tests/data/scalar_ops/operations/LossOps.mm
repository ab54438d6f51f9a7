//  Copyright © 2022 Apple Inc.
#define TORCH_ASSERT_ONLY_METHOD_OPERATORS
#include <ATen/native/mps/OperationUtils.h>

#ifndef AT_PER_OPERATOR_HEADERS
#include <ATen/Functions.h>
#include <ATen/NativeFunctions.h>
#else
#include <ATen/ops/huber_loss_native.h>
#endif

namespace at::native {
namespace mps {

static std::string reductionToString(int64_t reduction) {
  switch (reduction) {
    case Reduction::Mean:
      return "Mean";
    case Reduction::Sum:
      return "Sum";
    default:
      return "None";
  }
}

} // namespace mps

Tensor& huber_loss_out_mps(const Tensor& input, const Tensor& target, int64_t reduction, double delta, Tensor& output) {
  using namespace mps;
  std::string op_name = __func__;
  MPSStream* stream = getCurrentMPSStream();
  @autoreleasepool {
    std::string key = op_name + ":" + reductionToString(reduction) + ":" + std::to_string(delta) +
        getTensorsStringKey({input, target});
    auto cachedGraph = LookUpOrCreateCachedGraph<MPSBinaryCachedGraph>(key, [&](auto mpsGraph, auto newCachedGraph) {
      newCachedGraph->inputTensor_ = mpsGraphRankedPlaceHolder(mpsGraph, input);
      newCachedGraph->otherTensor_ = mpsGraphRankedPlaceHolder(mpsGraph, target);
      newCachedGraph->outputTensor_ = [mpsGraph subtractionWithPrimaryTensor:newCachedGraph->inputTensor_
                                                             secondaryTensor:newCachedGraph->otherTensor_
                                                                        name:nil];
    });
    Placeholder inputPlaceholder = Placeholder(cachedGraph->inputTensor_, input);
    Placeholder targetPlaceholder = Placeholder(cachedGraph->otherTensor_, target);
    Placeholder outputPlaceholder = Placeholder(cachedGraph->outputTensor_, output);
    runMPSGraph(stream, cachedGraph->graph(), dictionaryFromPlaceholders(inputPlaceholder, targetPlaceholder),
                outputPlaceholder);
  }
  return output;
}

Tensor huber_loss_mps(const Tensor& input, const Tensor& target, int64_t reduction, double delta) {
  TORCH_CHECK(delta > 0, "huber_loss does not support non-positive values for delta.")
  Tensor output = at::empty(input.sizes(), input.scalar_type(), std::nullopt, kMPS, std::nullopt, std::nullopt);
  return huber_loss_out_mps(input, target, reduction, delta, output);
}

} // namespace at::native
