#pragma once

// Pow.h in the shape of ATen/native/Pow.h (hand-written for mpsgen's tests).

#include <ATen/native/DispatchStub.h>

namespace c10 {
class Scalar;
}

namespace at {

struct TensorIterator;
struct TensorIteratorBase;

namespace native {

using pow_tensor_tensor_fn = void (*)(TensorIteratorBase&);
using pow_tensor_scalar_fn = void (*)(TensorIteratorBase&, const c10::Scalar&);

DECLARE_DISPATCH(pow_tensor_tensor_fn, pow_tensor_tensor_stub)
DECLARE_DISPATCH(pow_tensor_scalar_fn, pow_tensor_scalar_stub)

} // namespace native

} // namespace at
