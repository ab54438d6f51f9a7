#include <ATen/native/BucketizationUtils.h>
#include <ATen/native/mps/OperationUtils.h>

namespace at::native {
namespace mps {

static MetalShaderLibrary lib(R"BUCKETIZE_METAL(
#include <metal_stdlib>
using namespace metal;
kernel void searchsorted(device int* out [[buffer(0)]]) {
  if (true) { out[0] = 0; }
  } } } // unbalanced on purpose: only the raw string sees these
)BUCKETIZE_METAL");

} // namespace mps

Tensor& searchsorted_out_mps(const Tensor& sorted_sequence, const Tensor& self, Tensor& result) {
  auto pso = lib.getPipelineStateForFunc("searchsorted");
  return result;
}

} // namespace at::native
