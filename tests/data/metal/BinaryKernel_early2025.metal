#include <c10/metal/indexing.h>
#include <c10/metal/utils.h>
#include <metal_stdlib>
using namespace metal;

// Hand-written for mpsgen's tests in the shape of an early-2025 BinaryKernel.metal.
struct fmax_functor {
  template <typename T>
  inline T operator()(const T a, const T b) {
    return static_cast<T>(fmax(a, b));
  }
};

#define REGISTER_BINARY_OP(NAME, DTYPE)                                       \
  template [[host_name(#NAME "_" #DTYPE)]] kernel void binary_indexing<DTYPE, \
                                                                 NAME##_functor>( \
      constant void* input_ [[buffer(0)]],                                    \
      uint tid [[thread_position_in_grid]])

REGISTER_BINARY_OP(fmax, float);
REGISTER_BINARY_OP(fmax, half);
#if __METAL_VERSION__ >= 310
REGISTER_BINARY_OP(fmax, bfloat);
#endif
