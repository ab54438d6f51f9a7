#pragma once

#include <ATen/native/DispatchStub.h>

namespace at {
class TensorIterator;
}

namespace at::native {

using where_fn = void (*)(TensorIterator&);
DECLARE_DISPATCH(where_fn, where_kernel)

} // namespace at::native
