//  Mirrors aten/src/ATen/native/mps/operations/Indexing.mm of PyTorch 2.7 in shape (its library, the
//  bit-size helper, an MPSGraph index_fill_ and its Scalar overload calling it), written for mpsgen's tests.
#define TORCH_ASSERT_ONLY_METHOD_OPERATORS
#include <ATen/native/mps/OperationUtils.h>

#include <ATen/native/IndexKernel.h>

#ifndef AT_PER_OPERATOR_HEADERS
#include <ATen/Functions.h>
#include <ATen/NativeFunctions.h>
#else
#include <ATen/ops/index_fill_native.h>
#endif

namespace at::native {
namespace mps {

#ifndef PYTORCH_JIT_COMPILE_SHADERS
static auto& lib = MetalShaderLibrary::getBundledLibrary();
#else
#include <ATen/native/mps/Indexing_metallib.h>
#endif

static std::string getBitSizeString(ScalarType scalar_type) {
  size_t scalarBitSize = c10::elementSize(scalar_type) * 8;
  return std::to_string(scalarBitSize) + "bit";
}

static void index_kernel_mps(TensorIteratorBase& iter, IntArrayRef index_size, IntArrayRef index_stride) {
  auto pso = lib.getPipelineStateForFunc("index_select_" + getBitSizeString(iter.dtype()));
  (void)pso;
}
} // namespace mps

Tensor& index_fill_mps_(Tensor& self, int64_t dim, const Tensor& index, const Tensor& source) {
  using namespace mps;
  MPSStream* stream = getCurrentMPSStream();
  struct CachedGraph : public MPSCachedGraph {
    CachedGraph(MPSGraph* graph) : MPSCachedGraph(graph) {}
    MPSGraphTensor* outputTensor_ = nil;
  };
  @autoreleasepool {
    string key = "index_fill_mps_" + getTensorsStringKey({self, index, source});
    auto cachedGraph = LookUpOrCreateCachedGraph<CachedGraph>(key, [&](auto mpsGraph, auto newCachedGraph) {
      newCachedGraph->outputTensor_ = mpsGraphRankedPlaceHolder(mpsGraph, self);
    });
    Placeholder outputPlaceholder = Placeholder(cachedGraph->outputTensor_, self);
    runMPSGraph(stream, cachedGraph->graph(), dictionaryFromPlaceholders(outputPlaceholder), outputPlaceholder);
  }
  return self;
}

Tensor& index_fill_mps_(Tensor& self, int64_t dim, const Tensor& index, const Scalar& source) {
  return self.index_fill_(dim, index, mps::wrapped_scalar_tensor_mps(source, self.device()));
}

REGISTER_DISPATCH(index_stub, &mps::index_kernel_mps)
} // namespace at::native
