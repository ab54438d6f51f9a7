// Hand-written for mpsgen's tests in the shape of PyTorch 2.7's operations/BinaryKernel.mm.
#define TORCH_ASSERT_ONLY_METHOD_OPERATORS
#include <ATen/native/BinaryOps.h>
#include <ATen/native/TensorIterator.h>
#include <ATen/native/mps/OperationUtils.h>
#include <fmt/format.h>

namespace at::native {
namespace mps {

static auto& lib = MetalShaderLibrary::getBundledLibrary();

// Dense kernels read (input, other, out); strided ones also a buffer of per-thread offsets.
static void binary_mps_impl(TensorIteratorBase& iter, const std::string func_name, bool supports_dense = true) {
  TORCH_CHECK(iter.common_dtype() != at::kDouble, "float64 is not supported on MPS");
  Tensor input = iter.input(0);
  Tensor other = iter.input(1);
  Tensor out = iter.output();
  MPSStream* stream = getCurrentMPSStream();
  dispatch_sync_with_rethrow(stream->queue(), ^() {
    @autoreleasepool {
      auto encoder = stream->commandEncoder();
      if (supports_dense && iter.is_contiguous()) {
        auto pso = lib.getPipelineStateForFunc(fmt::format("{}_dense_{}", func_name, scalarToMetalTypeString(input)));
        [encoder setComputePipelineState:pso];
        mtl_setArgs(encoder, input, other, out);
        mtl_dispatch1DJob(encoder, pso, iter.numel());
        return;
      }
      auto offsets = generateKernelDataOffsets(encoder, iter);
      auto pso = lib.getPipelineStateForFunc(func_name + "_" + scalarToMetalTypeString(input));
      [encoder setComputePipelineState:pso];
      mtl_setArgs(encoder, input, other, out);
      [encoder setBuffer:offsets offset:0 atIndex:3];
      mtl_dispatch1DJob(encoder, pso, iter.numel());
    }
  });
}

} // namespace mps

static void fmax_mps_kernel(TensorIteratorBase& iter) {
  mps::binary_mps_impl(iter, "fmax");
}

static void copysign_mps_kernel(TensorIteratorBase& iter) {
  mps::binary_mps_impl(iter, "copysign");
}

REGISTER_DISPATCH(fmax_stub, &fmax_mps_kernel)
REGISTER_DISPATCH(copysign_stub, &copysign_mps_kernel)

Tensor& polar_out_mps(const Tensor& abs, const Tensor& angle, Tensor& output) {
  auto iter = TensorIteratorConfig().add_output(output).add_input(abs).add_input(angle).build();
  mps::binary_mps_impl(iter, "polar");
  return output;
}
} // namespace at::native
