//  Mirrors aten/src/ATen/native/mps/operations/ConstantOps.mm of PyTorch 2.7 in shape (MPSGraph fill,
//  a fillBuffer helper, the three yaml kernels), written for mpsgen's tests.
#define TORCH_ASSERT_ONLY_METHOD_OPERATORS
#include <ATen/native/mps/OperationUtils.h>

#ifndef AT_PER_OPERATOR_HEADERS
#include <ATen/Functions.h>
#include <ATen/NativeFunctions.h>
#else
#include <ATen/ops/fill_native.h>
#include <ATen/ops/view_as_real.h>
#include <ATen/ops/zero_native.h>
#endif

namespace at::native {

static Tensor& fill_scalar_mps_impl(Tensor& self, const Scalar& value) {
  using namespace mps;
  if (self.numel() == 0) {
    return self;
  }
  struct CachedGraph : public MPSCachedGraph {
    CachedGraph(MPSGraph* graph) : MPSCachedGraph(graph) {}
    MPSGraphTensor* outputTensor_ = nil;
  };
  @autoreleasepool {
    string key = "fill_scalar_mps_impl" + getTensorsStringKey(self);
    auto cachedGraph = LookUpOrCreateCachedGraph<CachedGraph>(key, [&](auto mpsGraph, auto newCachedGraph) {
      newCachedGraph->outputTensor_ = mpsGraphScalarPlaceHolder(mpsGraph, getMPSDataType(self.scalar_type()));
    });
    runMPSGraph(getCurrentMPSStream(), cachedGraph->graph(), nil, nil);
  }
  return self;
}

// false when fillBuffer() cannot fill the tensor
static bool fill_mps_tensor_(Tensor& self, uint8_t value) {
  if (self.is_contiguous()) {
    MPSStream* stream = getCurrentMPSStream();
    stream->fill(mps::getMTLBufferStorage(self), value, self.nbytes(), self.storage_offset() * self.itemsize());
    return true;
  }
  return false;
}

Tensor& fill_scalar_mps(Tensor& self, const Scalar& value) {
  if (isComplexType(self.scalar_type())) {
    auto self_as_real = at::view_as_real(self);
    fill_scalar_mps_impl(self_as_real.select(self.dim(), 0), value);
    fill_scalar_mps_impl(self_as_real.select(self.dim(), 1), 0.0f);
    return self;
  }
  if (value.toDouble() == 0.0 && fill_mps_tensor_(self, 0) == true)
    return self;
  return fill_scalar_mps_impl(self, value);
}

Tensor& fill_tensor_mps_(Tensor& self, const Tensor& value) {
  TORCH_CHECK(value.dim() == 0, "fill_ takes a 0-dim value tensor, got ", value.dim(), " dims");
  return fill_scalar_mps(self, value.item());
}

Tensor& zero_mps_(Tensor& self) {
  return fill_scalar_mps(self, 0.0f);
}

} // namespace at::native
