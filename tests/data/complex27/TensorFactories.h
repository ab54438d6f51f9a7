#pragma once
#include <ATen/native/DispatchStub.h>

namespace at {
class TensorIterator;
}

namespace at::native {

using binary_fn = void (*)(TensorIterator&);

DECLARE_DISPATCH(binary_fn, complex_stub)
DECLARE_DISPATCH(binary_fn, polar_stub)

} // namespace at::native
