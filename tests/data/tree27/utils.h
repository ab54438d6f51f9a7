// Hand-written for mpsgen's tests, in the shape of PyTorch 2.7's c10/metal/utils.h (cut): the
// vectypes / OpMathType helpers and the vec2type_t / opmath_t aliases.  Like 2.7 it has none of
// 2.8's complex/scalar type traits, result-type alias or complex arithmetic helpers (this comment
// avoids their names: mpsgen looks for them as plain words).
#pragma once
#include <metal_stdlib>

namespace c10 {
namespace metal {

namespace detail {
template <typename T>
struct vectypes {};

template <>
struct vectypes<float> {
  using type4 = float4;
  using type3 = float3;
  using type2 = float2;
};

template <>
struct vectypes<half> {
  using type4 = half4;
  using type3 = half3;
  using type2 = half2;
};

#if __METAL_VERSION__ >= 310
template <>
struct vectypes<bfloat> {
  using type4 = bfloat4;
  using type3 = bfloat3;
  using type2 = bfloat2;
};
#endif

template <>
struct vectypes<short> {
  using type4 = short4;
  using type3 = short3;
  using type2 = short2;
};

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
using vec2type_t = typename detail::vectypes<T>::type2;

template <typename T>
using opmath_t = typename detail::OpMathType<T>::type;
} // namespace metal
} // namespace c10
