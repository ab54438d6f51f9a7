#pragma once
// The declarations of the 2026 tree's OperationUtils.h that a two-output host uses (a fixture).
namespace at::native::mps {
std::string scalarToMetalTypeString(const c10::ScalarType& scalar_type);
static inline void bind_iter_tensors(id<MTLComputeCommandEncoder> encoder, const TensorIteratorBase& iter);
template <unsigned idx = 0, typename T>
static inline void mtl_setArgs(id<MTLComputeCommandEncoder> encoder, const T& val);
static inline void mtl_dispatch1DJob(id<MTLComputeCommandEncoder> encoder, id<MTLComputePipelineState> cplState,
                                     uint32_t length);
void dispatch_sync_with_rethrow(dispatch_queue_t queue, void (^block)());
} // namespace at::native::mps
