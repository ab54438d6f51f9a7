// Hand-written for mpsgen's tests, in the shape of PyTorch 2.7's c10/metal/special_math.h (cut to
// sinc and log1p, the two UnaryKernel.metal needs here).  2.7 has no c10/metal/expm1f.h.
#pragma once
#include <metal_stdlib>

namespace c10 {
namespace metal {

template <typename T>
inline T sinc(T a) {
  if (a == static_cast<T>(0)) {
    return static_cast<T>(1);
  }
  constexpr T pi = static_cast<T>(M_PI_F);
  T product = pi * a;
  return static_cast<T>(::metal::sin(product) / product);
}

// Compute log(1+x) without losing precision for small values of x
template <typename T>
inline float log1p(T x) {
  // x is large enough that the obvious evaluation is OK
  if (::metal::fabs(x) > 1E-4) {
    return ::metal::log(1. + x);
  }

  // Use Taylor approx. log(1 + x) = x - x^2/2 with error roughly x^3/3
  return (-0.5 * x + 1.0) * x;
}

} // namespace metal
} // namespace c10
