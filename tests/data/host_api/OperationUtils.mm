// A hand-written stand-in for aten/src/ATen/native/mps/OperationUtils.mm in its 2026 shape: only the
// two MetalShaderLibrary members the ternary alpha form is modeled on, cut to the lines that matter
// (the binary alpha path; the ternary kernel's recursion, name, bindings and dispatch).
#include <ATen/native/mps/OperationUtils.h>

namespace at::native::mps {

void MetalShaderLibrary::exec_binary_kernel(TensorIteratorBase& iter,
                                            const std::string& name,
                                            std::optional<c10::Scalar> alpha,
                                            std::optional<c10::ScalarType> scalar_arg_type,
                                            std::optional<c10::ScalarType> natural_output_dtype,
                                            std::optional<uint32_t> ilp_threshold) {
  if (!iter.can_use_32bit_indexing()) {
    for (auto&& sub_iter : iter.with_32bit_indexing()) {
      exec_binary_kernel(sub_iter, name, alpha, scalar_arg_type, natural_output_dtype, ilp_threshold);
    }
    return;
  }
  Tensor out = iter.output();
  const bool cast_needed = iter.input(0).scalar_type() != iter.input(1).scalar_type();
  const auto alpha_type =
      scalar_arg_type.has_value() ? scalar_arg_type.value() : (cast_needed ? out.scalar_type() : iter.common_dtype());
  const auto alpha_suffix = alpha.has_value() ? fmt::format("_{}", scalarToMetalTypeString(alpha_type)) : "";
  const auto kernel_name = fmt::format("{}_dense_{}{}", name, scalarToMetalTypeString(out), alpha_suffix);
  MPSStream* mpsStream = getCurrentMPSStream();
  dispatch_sync_with_rethrow(mpsStream->queue(), ^() {
    @autoreleasepool {
      auto computeEncoder = mpsStream->commandEncoder();
      auto binaryPSO = getPipelineStateForFunc(kernel_name);
      [computeEncoder setComputePipelineState:binaryPSO];
      bind_iter_tensors(computeEncoder, iter);
      if (alpha) {
        mtl_setArgs<3>(computeEncoder, getMPSScalar(*alpha, alpha_type));
      }
      mtl_dispatch1DJob(computeEncoder, binaryPSO, iter.numel());
    }
  });
}

void MetalShaderLibrary::exec_ternary_kernel(TensorIteratorBase& iter, const std::string& name) {
  // TODO: a note of this function's authors,
  // continued on a second line
  TORCH_CHECK(iter.output().scalar_type() != at::kDouble, "float64 is not supported on MPS");
  // Decompose 64-bit tensor into 32-bit ones
  if (!iter.can_use_32bit_indexing()) {
    for (auto&& sub_iter : iter.with_32bit_indexing()) {
      exec_ternary_kernel(sub_iter, name);
    }
    return;
  }
  Tensor input = iter.input(0);
  Tensor out = iter.output();
  MPSStream* mpsStream = getCurrentMPSStream();
  const auto cast_needed = input.scalar_type() != out.scalar_type();
  const auto suffix = iter.is_contiguous() ? "dense" : "strided"; // FIXME: another of their notes
  const auto kernel_name = cast_needed
      ? fmt::format("{}_{}_cast_{}", name, suffix, scalarToMetalTypeString(out))
      : fmt::format("{}_{}_{}_{}", name, suffix, scalarToMetalTypeString(out), scalarToMetalTypeString(input));
  dispatch_sync_with_rethrow(mpsStream->queue(), ^() {
    @autoreleasepool {
      auto computeEncoder = mpsStream->commandEncoder();
      auto ternaryPSO = getPipelineStateForFunc(kernel_name);
      [computeEncoder setComputePipelineState:ternaryPSO];
      bind_iter_tensors(computeEncoder, iter);
      if (!iter.is_contiguous()) {
        mtl_setArgs<4>(computeEncoder, iter.shape(), iter.strides(0), iter.ndim());
      }
      mtl_dispatch1DJob(computeEncoder, ternaryPSO, iter.numel());
    }
  });
}

} // namespace at::native::mps
