//  Hand-written for mpsgen's tests: renorm.out's MPS-only kernel, a TORCH_IMPL_FUNC that calls its
//  file's helper of the same name, in the shape of aten/src/ATen/native/mps/operations/RenormKernel.mm.
#define TORCH_ASSERT_ONLY_METHOD_OPERATORS
#include <ATen/native/mps/OperationUtils.h>
#include <ATen/ops/renorm_native.h>

namespace at::native {
namespace {

using namespace mps;

void renorm_out_mps(const Tensor& self, const Scalar& p, int64_t dim, const Scalar& maxnorm, const Tensor& out) {
  @autoreleasepool {
    auto cachedGraph = LookUpOrCreateCachedGraph<MPSUnaryCachedGraph>("renorm", [&](auto mpsGraph, auto newGraph) {
      newGraph->outputTensor_ = [mpsGraph identityWithTensor:mpsGraphRankedPlaceHolder(mpsGraph, self) name:nil];
    });
    (void)cachedGraph;
  }
}

} // namespace

TORCH_IMPL_FUNC(renorm_out_mps)
(const Tensor& self, const Scalar& p, int64_t dim, const Scalar& maxnorm, const Tensor& out) {
  renorm_out_mps(self, p, dim, maxnorm, out);
}
} // namespace at::native
