#include <c10/metal/indexing.h>
#include <c10/metal/utils.h>
#include <metal_stdlib>
using namespace metal;
using namespace c10::metal;

struct fmax_functor {
  template <typename T>
  inline T operator()(const T a, const T b) {
    return static_cast<T>(::metal::fmax(a, b));
  }
};

struct hypot_functor {
  template <typename T>
  inline T operator()(const T a, const T b) {
    return static_cast<T>(precise::sqrt(float(a) * a + float(b) * b));
  }
};

#define REGISTER_FLOAT_BINARY_OP(NAME)    \
  REGISTER_BINARY_OP(NAME, float, float); \
  REGISTER_BINARY_OP(NAME, half, half);   \
  REGISTER_BINARY_OP(NAME, bfloat, bfloat)

REGISTER_FLOAT_BINARY_OP(fmax);
REGISTER_FLOAT_BINARY_OP(hypot);
REGISTER_BINARY_ALPHA_OP(fmax_alpha, float, float, float);

// Complex binary functions
REGISTER_BINARY_OP(hypot, float2, float2);

template <typename T>
kernel void blend_dense(
    device T* out [[buffer(0)]],
    constant T* self [[buffer(1)]],
    constant T* end [[buffer(2)]],
    uint tid [[thread_position_in_grid]]) {
  out[tid] = self[tid] + end[tid];
}

#define INSTANTIATE_BLEND(DTYPE)                                      \
  template [[host_name("blend_dense_" #DTYPE)]] kernel void           \
  blend_dense<DTYPE>(device DTYPE*, constant DTYPE*, constant DTYPE*, \
                     uint)

INSTANTIATE_BLEND(float);
INSTANTIATE_BLEND(half);
