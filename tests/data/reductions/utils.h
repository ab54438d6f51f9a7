// Mirrors the parts of c10/metal/utils.h of PyTorch 2.7 the reduction kernels use (opmath_t, NaN-propagating
// max/min, bfloat behind the Metal version), written for mpsgen's tests.
#pragma once
#include <metal_stdlib>

namespace c10 {
namespace metal {

namespace detail {
template <typename T>
struct OpMathType {
  using type = T;
};

template <>
struct OpMathType<half> {
  using type = float;
};

#if __METAL_VERSION__ >= 310
template <>
struct OpMathType<bfloat> {
  using type = float;
};
#endif
} // namespace detail

template <typename T>
::metal::enable_if_t<::metal::is_floating_point_v<T>, T> max(T a, T b) {
  return ::metal::isunordered(a, b) ? NAN : ::metal::max(a, b);
}

template <typename T>
::metal::enable_if_t<::metal::is_integral_v<T>, T> max(T a, T b) {
  return ::metal::max(a, b);
}

template <typename T>
::metal::enable_if_t<::metal::is_floating_point_v<T>, T> min(T a, T b) {
  return ::metal::isunordered(a, b) ? NAN : ::metal::min(a, b);
}

template <typename T>
::metal::enable_if_t<::metal::is_integral_v<T>, T> min(T a, T b) {
  return ::metal::min(a, b);
}

template <typename T>
using opmath_t = typename detail::OpMathType<T>::type;
} // namespace metal
} // namespace c10
