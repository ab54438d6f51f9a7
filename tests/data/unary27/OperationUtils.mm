// Hand-written for mpsgen's tests in the shape of PyTorch 2.7's OperationUtils.mm: the library's
// exec_unary_kernel looks kernels up by (output, input) type and binds one optional integer after them.
#include <ATen/native/mps/OperationUtils.h>
#include <fmt/format.h>

namespace at::native::mps {

void MetalShaderLibrary::exec_unary_kernel(TensorIteratorBase& iter,
                                           const std::string& name,
                                           std::optional<int64_t> extra) {
  auto input = iter.input(0).contiguous();
  auto output = iter.output(0);
  if (output.numel() == 0) {
    return;
  }
  auto pso = getPipelineStateForFunc(
      fmt::format("{}_{}_{}", name, scalarToMetalTypeString(output), scalarToMetalTypeString(input)));
  MPSStream* stream = getCurrentMPSStream();
  dispatch_sync(stream->queue(), ^() {
    auto encoder = stream->commandEncoder();
    [encoder setComputePipelineState:pso];
    mtl_setArgs(encoder, output, input);
    if (extra) {
      mtl_setBytes(encoder, *extra, 2);
    }
    mtl_dispatch1DJob(encoder, pso, output.numel());
  });
}

} // namespace at::native::mps
