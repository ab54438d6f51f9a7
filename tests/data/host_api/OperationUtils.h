// A hand-written stand-in for aten/src/ATen/native/mps/OperationUtils.h in its 2.13 shape: the
// binary *_with_params template (cut to its params path), the sibling exec_ternary_kernel_with_params
// is modeled on.
#pragma once
#include <ATen/native/mps/MetalShaderLibrary.h>

namespace at::native::mps {

template <typename T>
void MetalShaderLibrary::exec_binary_kernel_with_params(TensorIteratorBase& iter,
                                                        const std::string& name,
                                                        T params,
                                                        const std::string& params_type_name) {
  using namespace mps;
  if (!iter.can_use_32bit_indexing()) {
    for (auto&& sub_iter : iter.with_32bit_indexing()) {
      exec_binary_kernel_with_params(sub_iter, name, params, params_type_name);
    }
    return;
  }
  Tensor input = iter.input(0);
  Tensor out = iter.output();
  MPSStream* mpsStream = getCurrentMPSStream();
  const auto kernel_name =
      fmt::format("{}_dense_{}_{}_{}", name, scalarToMetalTypeString(out), scalarToMetalTypeString(input), params_type_name);
  dispatch_sync_with_rethrow(mpsStream->queue(), ^() {
    @autoreleasepool {
      auto computeEncoder = mpsStream->commandEncoder();
      auto binaryPSO = getPipelineStateForFunc(kernel_name);
      [computeEncoder setComputePipelineState:binaryPSO];
      bind_iter_tensors(computeEncoder, iter);
      mtl_setArgs<3>(computeEncoder, params);
      mtl_dispatch1DJob(computeEncoder, binaryPSO, iter.numel());
    }
  });
}

} // namespace at::native::mps
