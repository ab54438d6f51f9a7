#define TORCH_ASSERT_ONLY_METHOD_OPERATORS
#include <ATen/ExpandUtils.h>
#include <ATen/TensorIndexing.h>
#include <ATen/mps/MPSProfiler.h>
#include <ATen/native/BinaryOps.h>
#include <ATen/native/Lerp.h>
#include <ATen/native/Pow.h>
#include <ATen/native/TensorFactories.h>
#include <ATen/native/TensorIterator.h>
#include <ATen/native/mps/OperationUtils.h>
#include <ATen/native/mps/operations/BinaryKernel.h>
#include <fmt/format.h>

#include <ATen/ops/complex_native.h>
#include <ATen/ops/maximum.h>
#include <ATen/ops/minimum.h>
#include <ATen/ops/polar_native.h>
#include <ATen/ops/view_as_real.h>

namespace at::native {

#ifndef PYTORCH_JIT_COMPILE_SHADERS
static auto& lib = mps::MetalShaderLibrary::getBundledLibrary();
#else
#include <ATen/native/mps/BinaryKernel_metallib.h>
#endif

namespace mps {

void binary_op_kernel(const std::string func_name,
                      const Tensor& input,
                      const Tensor& other,
                      const Tensor& output,
                      const std::optional<Scalar> alpha) {
  auto iter = TensorIteratorConfig().add_output(output).add_input(input).add_input(other).build();
  lib.exec_binary_kernel(iter, func_name, alpha);
}

} // namespace mps

static void atan2_mps_kernel(TensorIteratorBase& iter) {
  lib.exec_binary_kernel(iter, "atan2");
}

static void eq_mps_kernel(TensorIteratorBase& iter) {
  lib.exec_binary_kernel(iter, "eq", std::nullopt, std::nullopt, kBool, kCmpILPThreshold);
}

static void pow_tensor_tensor_mps_kernel(TensorIteratorBase& iter) {
  lib.exec_binary_kernel(iter, "pow");
}

static void gcd_mps_kernel(TensorIteratorBase& iter) {
  TORCH_CHECK_NOT_IMPLEMENTED(isIntegralType(iter.common_dtype(), /*includeBool=*/false), "gcd_mps not implemented for '", iter.common_dtype(), "'");
  lib.exec_binary_kernel(iter, "gcd");
}

REGISTER_DISPATCH(atan2_stub, &atan2_mps_kernel)
REGISTER_DISPATCH(eq_stub, &eq_mps_kernel)
REGISTER_DISPATCH(pow_tensor_tensor_stub, &pow_tensor_tensor_mps_kernel)
REGISTER_DISPATCH(gcd_stub, &gcd_mps_kernel)
} // namespace at::native
