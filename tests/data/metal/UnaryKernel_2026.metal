#include <c10/metal/indexing.h>
#include <c10/metal/special_math.h>
#include <c10/metal/utils.h>
#include <metal_stdlib>
using namespace metal;
using namespace c10::metal;

struct exp_functor {
  template <typename T, enable_if_t<is_scalar_floating_point_v<T>, bool> = true>
  inline T operator()(const T x) {
    return T(precise::exp(x));
  }
  template <typename T, enable_if_t<is_scalar_integral_v<T>, bool> = true>
  inline float operator()(const T x) {
    return precise::exp(static_cast<float>(x));
  }
};

struct neg_functor {
  template <typename T>
  inline T operator()(const T x) {
    return T(-x);
  }
};

REGISTER_UNARY_OP(neg, int, int);
REGISTER_UNARY_OP(neg, float, float);

#define INSTANTIATE_UNARY_KERNELS2(DTYPE0, DTYPE1) \
  REGISTER_UNARY_OP(exp, DTYPE1, DTYPE0);          \
  REGISTER_UNARY_OP(neg, DTYPE1, DTYPE0)

INSTANTIATE_UNARY_KERNELS2(half, half);
INSTANTIATE_UNARY_KERNELS2(float, float);
INSTANTIATE_UNARY_KERNELS2(float, int);

#define INSTANTIATE_UNARY_KERNELS_VEC2(DTYPE)   \
  REGISTER_UNARY_OP(exp, DTYPE##2, DTYPE##2); \
  REGISTER_UNARY_OP(neg, DTYPE##2, DTYPE##2)

INSTANTIATE_UNARY_KERNELS_VEC2(half);
INSTANTIATE_UNARY_KERNELS_VEC2(float);

// Two outputs: not a functor; instantiated by hand.
template <typename T>
kernel void split_dense(
    device T* high [[buffer(0)]],
    device int* low [[buffer(1)]],
    constant T* input [[buffer(2)]],
    uint index [[thread_position_in_grid]]) {
  high[index] = input[index];
  low[index] = 0;
}

#define REGISTER_SPLIT_OP(T)                                            \
  template [[host_name("split_dense_" #T)]] kernel void split_dense<T>( \
      device T*, device int*, constant T*, uint)

REGISTER_SPLIT_OP(float);
REGISTER_SPLIT_OP(half);
