// Hand-written for mpsgen's tests, in the shape of PyTorch 2.7's
// aten/src/ATen/native/mps/kernels/UnaryKernel.metal (TEMPLATE_HOST_NAME layout), cut to exp,
// sqrt, tanh and sinc: template kernels op_kernel<T0 (output), T1 (input)> and complex kernels
// op_complex_kernel<T0>, instantiated by `template [[host_name(...)]]` entries in
// INSTANTIATE_UNARY_KERNELS2 / INSTANTIATE_UNARY_KERNELS_VEC2; sinc has a macro of its own.
#include <c10/metal/special_math.h>
#include <c10/metal/utils.h>
#include <metal_stdlib>
using namespace metal;
using namespace c10::metal;

template <typename T0, typename T1>
kernel void exp_kernel(
    device T0* output [[buffer(0)]],
    constant T1* input [[buffer(1)]],
    uint index [[thread_position_in_grid]]) {
  output[index] = T0(precise::exp(input[index]));
}

template <typename T0>
kernel void exp_complex_kernel(
    device vec2type_t<T0>* output [[buffer(0)]],
    constant vec2type_t<T0>* input [[buffer(1)]],
    uint index [[thread_position_in_grid]]) {
  output[index].x =
      T0(precise::exp(input[index].x) * precise::cos(input[index].y));
  output[index].y =
      T0(precise::exp(input[index].x) * precise::sin(input[index].y));
}

template <typename T0, typename T1>
kernel void tanh_kernel(
    device T0* output [[buffer(0)]],
    constant T1* input [[buffer(1)]],
    uint index [[thread_position_in_grid]]) {
  output[index] = T0(precise::tanh(input[index]));
}

template <typename T0, typename T1>
kernel void sqrt_kernel(
    device T0* output [[buffer(0)]],
    constant T1* input [[buffer(1)]],
    uint index [[thread_position_in_grid]]) {
  output[index] = T0(precise::sqrt(input[index]));
}

template <typename T0>
kernel void sqrt_complex_kernel(
    device vec2type_t<T0>* output [[buffer(0)]],
    constant vec2type_t<T0>* input [[buffer(1)]],
    uint index [[thread_position_in_grid]]) {
  T0 a = input[index].x;
  T0 b = input[index].y;

  // modulus
  T0 r = T0(precise::sqrt(a * a + b * b));
  // real part: sqrt((r + a)/2)
  T0 real_part = T0(precise::sqrt((r + a) / 2.0));

  // imaginary part: sign(b) * sqrt((r - a)/2)
  T0 imag_part;
  if (b >= 0) {
    imag_part = T0(precise::sqrt((r - a) / 2.0));
  } else {
    imag_part = T0(-precise::sqrt((r - a) / 2.0));
  }
  output[index] = vec2type_t<T0>(real_part, imag_part);
}

#define INSTANTIATE_UNARY_KERNELS2(DTYPE0, DTYPE1)                             \
  template [[host_name("exp_" #DTYPE0 "_" #DTYPE1)]] kernel void exp_kernel(   \
      device DTYPE0* output [[buffer(0)]],                                     \
      constant DTYPE1* input [[buffer(1)]],                                    \
      uint id [[thread_position_in_grid]]);                                    \
  template [[host_name("sqrt_" #DTYPE0 "_" #DTYPE1)]] kernel void sqrt_kernel( \
      device DTYPE0* output [[buffer(0)]],                                     \
      constant DTYPE1* input [[buffer(1)]],                                    \
      uint id [[thread_position_in_grid]]);                                    \
  template [[host_name("tanh_" #DTYPE0 "_" #DTYPE1)]] kernel void tanh_kernel( \
      device DTYPE0* output [[buffer(0)]],                                     \
      constant DTYPE1* input [[buffer(1)]],                                    \
      uint id [[thread_position_in_grid]]);

#if __METAL_VERSION__ >= 310
INSTANTIATE_UNARY_KERNELS2(bfloat, bfloat);
#endif
INSTANTIATE_UNARY_KERNELS2(half, half);
INSTANTIATE_UNARY_KERNELS2(float, float);
INSTANTIATE_UNARY_KERNELS2(float, bool);
INSTANTIATE_UNARY_KERNELS2(float, uchar);
INSTANTIATE_UNARY_KERNELS2(float, char);
INSTANTIATE_UNARY_KERNELS2(float, short);
INSTANTIATE_UNARY_KERNELS2(float, int);
INSTANTIATE_UNARY_KERNELS2(float, long);

#define INSTANTIATE_UNARY_KERNELS_VEC2(DTYPE0, DTYPE1)                    \
  template [[host_name("exp_complex_" #DTYPE0 "_" #DTYPE1)]] kernel void  \
  exp_complex_kernel<DTYPE0>(                                             \
      device vec2type_t<DTYPE0> * output [[buffer(0)]],                   \
      constant vec2type_t<DTYPE0> * input [[buffer(1)]],                  \
      uint did [[thread_position_in_grid]]);                              \
  template [[host_name("sqrt_complex_" #DTYPE0 "_" #DTYPE1)]] kernel void \
  sqrt_complex_kernel<DTYPE0>(                                            \
      device vec2type_t<DTYPE0> * output [[buffer(0)]],                   \
      constant vec2type_t<DTYPE0> * input [[buffer(1)]],                  \
      uint did [[thread_position_in_grid]]);

INSTANTIATE_UNARY_KERNELS_VEC2(short, short);
INSTANTIATE_UNARY_KERNELS_VEC2(float, float);

template <typename T0, typename T1>
kernel void sinc_kernel(
    device T0* output [[buffer(0)]],
    constant T1* input [[buffer(1)]],
    uint index [[thread_position_in_grid]]) {
  output[index] = T0(sinc(static_cast<float>(input[index])));
}

#define INSTANTIATE_SINC_KERNEL(DTYPE0, DTYPE1)                                \
  template [[host_name("sinc_" #DTYPE0 "_" #DTYPE1)]] kernel void sinc_kernel( \
      device DTYPE0* output [[buffer(0)]],                                     \
      constant DTYPE1* input [[buffer(1)]],                                    \
      uint id [[thread_position_in_grid]])

#if __METAL_VERSION__ >= 310
INSTANTIATE_SINC_KERNEL(bfloat, bfloat);
#endif
INSTANTIATE_SINC_KERNEL(half, half);
INSTANTIATE_SINC_KERNEL(float, float);
INSTANTIATE_SINC_KERNEL(float, long);
INSTANTIATE_SINC_KERNEL(float, int);
INSTANTIATE_SINC_KERNEL(float, short);
INSTANTIATE_SINC_KERNEL(float, char);
INSTANTIATE_SINC_KERNEL(float, uchar);
INSTANTIATE_SINC_KERNEL(float, bool);
