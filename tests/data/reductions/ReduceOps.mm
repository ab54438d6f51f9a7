//  Mirrors aten/src/ATen/native/mps/operations/ReduceOps.mm of PyTorch 2.7 in shape (one MPSGraph helper
//  the structured kernels share), written for mpsgen's tests.
#define TORCH_ASSERT_ONLY_METHOD_OPERATORS
#include <ATen/native/ReduceOpsUtils.h>
#include <ATen/native/mps/OperationUtils.h>

#ifndef AT_PER_OPERATOR_HEADERS
#include <ATen/Functions.h>
#include <ATen/NativeFunctions.h>
#else
#include <ATen/ops/all_native.h>
#include <ATen/ops/amax_native.h>
#include <ATen/ops/amin_native.h>
#include <ATen/ops/aminmax_native.h>
#include <ATen/ops/linalg_vector_norm_native.h>
#include <ATen/ops/mean_native.h>
#include <ATen/ops/nansum_native.h>
#include <ATen/ops/norm_native.h>
#include <ATen/ops/prod_native.h>
#include <ATen/ops/sum_native.h>
#endif

namespace at::native {
namespace mps {

enum class MPSReductionType { MAX, MIN, SUM, NANSUM, MEAN, PROD, AND };

static void reduction_out_mps(const Tensor& input_t,
                              OptionalIntArrayRef opt_dim,
                              bool keepdim,
                              const Tensor& output_t,
                              MPSReductionType reduction_type,
                              const std::string& func_name) {
  if (output_t.numel() == 0 || input_t.numel() == 0) {
    return;
  }
  struct CachedGraph : public MPSCachedGraph {
    CachedGraph(MPSGraph* graph) : MPSCachedGraph(graph) {}
    MPSGraphTensor* inputTensor_ = nil;
    MPSGraphTensor* outputTensor_ = nil;
  };
  @autoreleasepool {
    std::string key = func_name + getTensorsStringKey({input_t});
    auto cachedGraph = LookUpOrCreateCachedGraph<CachedGraph>(key, [&](auto mpsGraph, auto newCachedGraph) {
      MPSGraphTensor* inputTensor = mpsGraphRankedPlaceHolder(mpsGraph, input_t);
      newCachedGraph->inputTensor_ = inputTensor;
      newCachedGraph->outputTensor_ = [mpsGraph reductionSumWithTensor:inputTensor axes:nil name:nil];
    });
    auto inputPlaceholder = Placeholder(cachedGraph->inputTensor_, input_t);
    auto outputPlaceholder = Placeholder(cachedGraph->outputTensor_, output_t);
    auto feeds = dictionaryFromPlaceholders(inputPlaceholder);
    runMPSGraph(getCurrentMPSStream(), cachedGraph->graph(), feeds, outputPlaceholder);
  }
}

// linalg_vector_norm and cdist share it
static void impl_func_norm_mps(const Tensor& input_tensor,
                               const Scalar& p,
                               IntArrayRef dim,
                               bool keepdim,
                               const Tensor& output_t,
                               bool cdist) {
  if (output_t.numel() == 0) {
    return;
  }
  @autoreleasepool {
    std::string key = std::string("norm_out_mps:") + getTensorsStringKey({input_tensor}) + std::to_string(p.toDouble());
    auto cachedGraph = LookUpOrCreateCachedGraph<MPSBinaryCachedGraph>(key, [&](auto mpsGraph, auto newCachedGraph) {
      newCachedGraph->inputTensor_ = mpsGraphRankedPlaceHolder(mpsGraph, input_tensor);
      newCachedGraph->outputTensor_ = [mpsGraph reductionSumWithTensor:newCachedGraph->inputTensor_ axes:nil name:nil];
    });
    auto inputPlaceholder = Placeholder(cachedGraph->inputTensor_, input_tensor);
    auto outputPlaceholder = Placeholder(cachedGraph->outputTensor_, output_t);
    runMPSGraph(getCurrentMPSStream(), cachedGraph->graph(), dictionaryFromPlaceholders(inputPlaceholder),
                outputPlaceholder);
  }
}

} // namespace mps

using namespace mps;

TORCH_IMPL_FUNC(sum_out_mps)
(const Tensor& input_t, OptionalIntArrayRef opt_dim, bool keepdim, std::optional<ScalarType> dtype,
 const Tensor& output_t) {
  reduction_out_mps(input_t, opt_dim, keepdim, output_t, MPSReductionType::SUM, "sum_out_mps");
}

Tensor& nansum_out_mps(const Tensor& self, OptionalIntArrayRef dim, bool keepdim, std::optional<ScalarType> opt_dtype,
                       Tensor& result) {
  if (c10::isIntegralType(self.scalar_type(), true)) {
    return at::sum_out(result, self, dim, keepdim, opt_dtype);
  }
  reduction_out_mps(self, dim, keepdim, result, MPSReductionType::NANSUM, "nansum_out_mps");
  return result;
}

Tensor nansum_mps(const Tensor& self, OptionalIntArrayRef dim, bool keepdim, std::optional<ScalarType> opt_dtype) {
  ScalarType dtype = get_dtype_from_self(self, opt_dtype, true);
  Tensor result = create_reduction_result(self, dim, keepdim, dtype);
  return nansum_out_mps(self, dim, keepdim, dtype, result);
}

TORCH_IMPL_FUNC(prod_out_mps)
(const Tensor& input_t, int64_t dim, bool keepdim, std::optional<ScalarType> dtype, const Tensor& output_t) {
  reduction_out_mps(input_t, IntArrayRef(dim), keepdim, output_t, MPSReductionType::PROD, "prod_out_mps");
}

TORCH_IMPL_FUNC(amax_out_mps)(const Tensor& input_t, IntArrayRef dim, bool keepdim, const Tensor& output_t) {
  reduction_out_mps(input_t, dim, keepdim, output_t, MPSReductionType::MAX, "amax_out_mps");
}

TORCH_IMPL_FUNC(amin_out_mps)(const Tensor& input_t, IntArrayRef dim, bool keepdim, const Tensor& output_t) {
  reduction_out_mps(input_t, dim, keepdim, output_t, MPSReductionType::MIN, "amin_out_mps");
}

TORCH_IMPL_FUNC(aminmax_out_mps)
(const Tensor& input_t, std::optional<int64_t> dim_opt, bool keepdim, const Tensor& min_t, const Tensor& max_t) {
  reduction_out_mps(input_t, dim_opt.has_value() ? OptionalIntArrayRef({*dim_opt}) : std::nullopt, keepdim, min_t,
                    MPSReductionType::MIN, "aminmax_out_mps_min");
  reduction_out_mps(input_t, dim_opt.has_value() ? OptionalIntArrayRef({*dim_opt}) : std::nullopt, keepdim, max_t,
                    MPSReductionType::MAX, "aminmax_out_mps_max");
}

TORCH_IMPL_FUNC(mean_out_mps)
(const Tensor& input_t, OptionalIntArrayRef opt_dim, bool keepdim, std::optional<ScalarType> dtype,
 const Tensor& output_t) {
  reduction_out_mps(input_t, opt_dim, keepdim, output_t, MPSReductionType::MEAN, "mean_out_mps");
}

TORCH_IMPL_FUNC(all_out_mps)(const Tensor& input_t, int64_t dim, bool keepdim, const Tensor& output_t) {
  reduction_out_mps(input_t, IntArrayRef(dim), keepdim, output_t, MPSReductionType::AND, "all_out_mps");
}

TORCH_IMPL_FUNC(all_all_out_mps)(const Tensor& input_t, const Tensor& output_t) {
  reduction_out_mps(input_t, std::nullopt, false, output_t, MPSReductionType::AND, "all_all_out_mps");
}

TORCH_IMPL_FUNC(linalg_vector_norm_out_mps)
(const Tensor& self,
 const Scalar& scalar_ord,
 OptionalIntArrayRef opt_dim,
 bool keepdim,
 std::optional<ScalarType> opt_dtype,
 const Tensor& result) {
  impl_func_norm_mps(self, scalar_ord, opt_dim.value_or(IntArrayRef{}), keepdim, result, /*cdist=*/false);
}

TORCH_IMPL_FUNC(norm_out_mps)
(const Tensor& self, const OptionalScalarRef opt_p, IntArrayRef dim, bool keepdim, const Tensor& result) {
  impl_func_norm_mps(self, opt_p.has_value() ? opt_p.get() : Scalar(2.0), dim, keepdim, result, /*cdist=*/false);
}

TORCH_IMPL_FUNC(norm_dtype_out_mps)
(const Tensor& self,
 const OptionalScalarRef opt_p,
 IntArrayRef dim,
 bool keepdim,
 ScalarType dtype,
 const Tensor& result) {
  impl_func_norm_mps(self, opt_p.has_value() ? opt_p.get() : Scalar(2.0), dim, keepdim, result, /*cdist=*/false);
}

Tensor _cdist_forward_mps(const Tensor& x1, const Tensor& x2, const double p, std::optional<int64_t> compute_mode) {
  Tensor dist = at::empty({x1.size(0), x2.size(0)}, x1.options());
  impl_func_norm_mps(x1, p, IntArrayRef{-1}, false, dist, /*cdist=*/true);
  return dist;
}

} // namespace at::native
