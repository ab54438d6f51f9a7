// Mirrors the index_fill_ kernels of PyTorch 2.7's aten/src/ATen/native/TensorAdvancedIndexing.cpp in shape
// (self restrided along dim, the index restrided over it, one iterator, the stub) and of gather_out (a stub
// only a CPU tensor reaches, then gather_stub), scatter_add and scatter (two stubs passed to scatter_impl per
// overload), written for mpsgen's tests.
#include <ATen/native/IndexKernel.h>
#include <ATen/native/TensorAdvancedIndexing.h>
#include <ATen/native/TensorIterator.h>

namespace at::native {

DEFINE_DISPATCH(index_fill_stub);
DEFINE_DISPATCH(gather_stub);
DEFINE_DISPATCH(gather_expanded_index_stub);
DEFINE_DISPATCH(scatter_add_stub);
DEFINE_DISPATCH(scatter_add_expanded_index_stub);
DEFINE_DISPATCH(scatter_stub);
DEFINE_DISPATCH(scatter_fill_stub);
DEFINE_DISPATCH(scatter_reduce_stub);
DEFINE_DISPATCH(scatter_scalar_reduce_stub);

Tensor& index_fill_(Tensor& self, int64_t dim, const Tensor& index, const Scalar& source) {
  TORCH_CHECK_INDEX(index.scalar_type() == ScalarType::Long, "index_fill_(): Expected dtype int64 for index.");
  Tensor self_nonzero_dim = (self.dim() == 0) ? self.unsqueeze(-1) : self;
  dim = at::maybe_wrap_dim(dim, self_nonzero_dim);
  auto index_sizes = std::vector<int64_t>(self_nonzero_dim.dim(), 1);
  auto index_strides = std::vector<int64_t>(self_nonzero_dim.dim(), 0);
  index_sizes[dim] = index.numel();
  index_strides[dim] = (index.dim() > 0) ? index.stride(0) : 1;
  auto index_restrided = index.as_strided(index_sizes, index_strides);
  auto self_sizes = self_nonzero_dim.sizes().vec();
  auto self_strides = self_nonzero_dim.strides().vec();
  self_sizes[dim] = index.numel();
  self_strides[dim] = 0;
  auto self_restrided = self_nonzero_dim.as_strided(self_sizes, self_strides);
  auto iter = TensorIteratorConfig()
                  .set_check_mem_overlap(false)
                  .check_all_same_dtype(false)
                  .resize_outputs(false)
                  .add_output(self_restrided)
                  .add_const_input(index_restrided)
                  .build();
  index_fill_stub(iter.device_type(), iter, dim, self_nonzero_dim.size(dim), self_nonzero_dim.stride(dim), source);
  return self;
}

Tensor& index_fill_(Tensor& self, int64_t dim, const Tensor& index, const Tensor& source) {
  TORCH_CHECK(source.dim() == 0, "index_fill_ only supports a 0-dimensional value tensor");
  return self.index_fill_(dim, index, source.item());
}

Tensor index_fill(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& source) {
  return self.clone(at::MemoryFormat::Preserve).index_fill_(dim, index, source);
}

static bool can_use_expanded_index_path(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  if (!self.device().is_cpu()) {
    return false;
  }
  return index.stride(dim) == 0 && src.is_contiguous();
}

TORCH_IMPL_FUNC(gather_out)
(const Tensor& self, int64_t dim, const Tensor& index, bool sparse_grad, const Tensor& result) {
  if (index.numel() == 0)
    return;
  dim = at::maybe_wrap_dim(dim, self.dim());
  if (can_use_expanded_index_path(result, dim, index, self)) {
    gather_expanded_index_stub(result.device().type(), result, self, index);
  } else {
    gather_stub(result.device().type(), result, self, dim, index);
  }
}

TORCH_IMPL_FUNC(scatter_add)
(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src, const Tensor& out) {
  auto mut_out = const_cast<Tensor&>(out);
  dim = maybe_wrap_dim(dim, self.dim());
  if (!self.is_same(mut_out)) {
    mut_out.copy_(self);
  }
  if (index.numel() == 0)
    return;
  if (globalContext().deterministicAlgorithms() && self.device().type() == DeviceType::CUDA) {
    _scatter_via_index_put(self, dim, index, src, mut_out, /*accumulate*/ true);
  } else {
    if (can_use_expanded_index_path(mut_out, dim, index, src)) {
      scatter_add_expanded_index_stub(self.device().type(), mut_out, index, src);
    } else {
      scatter_add_stub(self.device().type(), mut_out, dim, index, src);
    }
  }
}

template <typename T, typename ReduceStub, typename FillStub>
void scatter_impl(const Tensor& self, int64_t dim, const Tensor& index, const T& src, const Tensor& out,
                  ReduceStub& reduce_stub, FillStub& fill_stub,
                  const std::optional<std::string_view> reduce = std::nullopt) {
  dim = at::maybe_wrap_dim(dim, self.dim());
  auto mut_out = const_cast<Tensor&>(out);
  if (!self.is_same(mut_out)) {
    mut_out.copy_(self);
  }
  if (index.numel() == 0)
    return;
  if (reduce.has_value()) {
    reduce_stub(self.device().type(), mut_out, dim, index, src, get_operator_enum(reduce.value(), false));
  } else {
    fill_stub(self.device().type(), mut_out, dim, index, src);
  }
}

TORCH_IMPL_FUNC(scatter_src_out)
(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src, const Tensor& out) {
  scatter_impl(self, dim, index, src, out, scatter_reduce_stub, scatter_stub);
}

TORCH_IMPL_FUNC(scatter_value_out)
(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value, const Tensor& out) {
  scatter_impl(self, dim, index, value, out, scatter_scalar_reduce_stub, scatter_fill_stub);
}

} // namespace at::native
