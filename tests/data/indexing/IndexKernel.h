// Mirrors aten/src/ATen/native/IndexKernel.h of PyTorch 2.7 (index_fill_stub's declaration), cut down for mpsgen's tests.
#pragma once
#include <ATen/native/DispatchStub.h>

namespace at {
struct TensorIterator;
}

namespace c10 {
class Scalar;
}

namespace at::native {

using index_fill_fn = void(*)(TensorIterator & iter, int64_t dim, int64_t self_dim_size, int64_t self_dim_stride, const Scalar& source);

DECLARE_DISPATCH(index_fill_fn, index_fill_stub)

} // namespace at::native
