#include <c10/metal/special_math.h>
#include <metal_stdlib>
using namespace metal;

template <typename T0, typename T1>
kernel void erf_kernel(
    device T0* output [[buffer(0)]],
    constant T1* input [[buffer(1)]],
    uint index [[thread_position_in_grid]]) {
  output[index] = T0(::metal::erf(float(input[index])));
}

template <typename T0, typename T1>
kernel void tanh_kernel(
    device T0* output [[buffer(0)]],
    constant T1* input [[buffer(1)]],
    uint index [[thread_position_in_grid]]) {
  output[index] = T0(precise::tanh(float(input[index])));
}

#define INSTANTIATE_UNARY_KERNELS2(DTYPE0, DTYPE1)                             \
  template [[host_name("erf_" #DTYPE0 "_" #DTYPE1)]] kernel void erf_kernel(   \
      device DTYPE0* output [[buffer(0)]],                                     \
      constant DTYPE1* input [[buffer(1)]],                                    \
      uint id [[thread_position_in_grid]]);                                    \
  template [[host_name("tanh_" #DTYPE0 "_" #DTYPE1)]] kernel void tanh_kernel( \
      device DTYPE0* output [[buffer(0)]],                                     \
      constant DTYPE1* input [[buffer(1)]],                                    \
      uint id [[thread_position_in_grid]]);

INSTANTIATE_UNARY_KERNELS2(half, half);
INSTANTIATE_UNARY_KERNELS2(float, float);
INSTANTIATE_UNARY_KERNELS2(float, int);
