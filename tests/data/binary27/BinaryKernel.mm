// Hand-written for mpsgen's tests in the shape of PyTorch 2.7's operations/BinaryKernel.mm.
#define TORCH_ASSERT_ONLY_METHOD_OPERATORS
#include <ATen/native/BinaryOps.h>
#include <ATen/native/TensorIterator.h>
#include <ATen/native/mps/OperationUtils.h>
#include <fmt/format.h>

namespace at::native {
namespace mps {

static auto& lib = MetalShaderLibrary::getBundledLibrary();

static void binary_mps_impl(TensorIteratorBase& iter, const std::string func_name, bool supports_dense = true) {
  TORCH_CHECK(iter.common_dtype() != at::kDouble, "float64 is not supported on MPS");
  const auto kernel_name = fmt::format("{}_dense_{}", func_name, scalarToMetalTypeString(iter.input(0)));
  auto binaryPSO = lib.getPipelineStateForFunc(kernel_name);
  mtl_dispatch1DJob(binaryPSO, iter.numel());
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
