// Hand-written for mpsgen's tests: PyTorch 2.7's MetalShaderLibrary.h declares exec_unary_kernel only
// (two-input kernels run through BinaryKernel.mm's own binary_mps_impl).
#pragma once
namespace at::native::mps {
class MetalShaderLibrary {
 public:
  void exec_unary_kernel(
      TensorIteratorBase& iter,
      const std::string& name,
      std::optional<int64_t> extra = std::nullopt);
};
} // namespace at::native::mps
