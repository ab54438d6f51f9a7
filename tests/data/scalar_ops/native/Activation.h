#pragma once

#include <ATen/native/DispatchStub.h>
#include <c10/util/Exception.h>
#include <c10/util/string_view.h>

namespace c10 {
class Scalar;
}

namespace at {
struct TensorIterator;
struct TensorIteratorBase;
class TensorBase;
}

namespace at::native {

using structured_activation_fn = void (*)(TensorIteratorBase&);
using activation_backward_fn = void (*)(TensorIterator&);
using softplus_fn = void (*)(TensorIteratorBase&, const c10::Scalar&, const c10::Scalar&);
using softplus_backward_fn = void (*)(TensorIteratorBase&, const c10::Scalar&, const c10::Scalar&);
using threshold_fn = void (*)(TensorIteratorBase&, const c10::Scalar&, const c10::Scalar&);
using hardtanh_backward_fn = void (*)(TensorIterator&, const c10::Scalar&, const c10::Scalar&);
using shrink_backward_fn = void (*)(TensorIteratorBase&, const c10::Scalar&);
using elu_backward_fn = void (*)(TensorIteratorBase&, const c10::Scalar&, const c10::Scalar&, const c10::Scalar&, bool);

DECLARE_DISPATCH(softplus_fn, softplus_stub)
DECLARE_DISPATCH(softplus_backward_fn, softplus_backward_stub)
DECLARE_DISPATCH(threshold_fn, threshold_stub)
DECLARE_DISPATCH(hardtanh_backward_fn, hardtanh_backward_stub)
DECLARE_DISPATCH(structured_activation_fn, mish_stub)
DECLARE_DISPATCH(activation_backward_fn, mish_backward_stub)
DECLARE_DISPATCH(elu_backward_fn, elu_backward_stub)
DECLARE_DISPATCH(shrink_backward_fn, shrink_backward_stub)

} // namespace at::native
