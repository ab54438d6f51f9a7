// Hand-written in the layout of 2.7's kernels/Gamma.metal
// (tests/test_deadcode.py): template kernels of their own, instantiated by one
// macro per dtype pair, and a helper only one of them calls.
#include <metal_stdlib>
using namespace metal;

float halve(float x) {
  return x * 0.5f;
}

template <typename T0, typename T1>
kernel void twice(
    constant T0* input [[buffer(0)]],
    device T1* output [[buffer(1)]],
    uint id [[thread_position_in_grid]]) {
  output[id] = static_cast<T1>(2.0f * static_cast<float>(input[id]));
}

// half of the input
template <typename T0, typename T1>
kernel void half_of(
    constant T0* input [[buffer(0)]],
    device T1* output [[buffer(1)]],
    uint id [[thread_position_in_grid]]) {
  output[id] = static_cast<T1>(halve(input[id]));
}

#define INSTANTIATE_SPECIAL_KERNELS(DTYPE0, DTYPE1)                           \
  template [[host_name("twice_" #DTYPE0 "_" #DTYPE1)]] kernel void twice(     \
      constant DTYPE0* input [[buffer(0)]],                                   \
      device DTYPE1* output [[buffer(1)]],                                    \
      uint id [[thread_position_in_grid]]);                                   \
  template [[host_name("half_of_" #DTYPE0 "_" #DTYPE1)]] kernel void half_of( \
      constant DTYPE0* input [[buffer(0)]],                                   \
      device DTYPE1* output [[buffer(1)]],                                    \
      uint id [[thread_position_in_grid]]);

#if __METAL_VERSION__ >= 310
INSTANTIATE_SPECIAL_KERNELS(bfloat, bfloat);
#endif
INSTANTIATE_SPECIAL_KERNELS(float, float);
INSTANTIATE_SPECIAL_KERNELS(int, float);
