
// Fixture in the shape of the 2026 tree's two-output frexp kernels (written for mpsgen's tests): the
// mantissa through float's frexp, exact for half values.
template <typename T>
inline T frexp_of(const T x, thread int& e) {
  return T(frexp(float(x), e));
}

template <typename T>
kernel void frexp_dense(
    device T* mantissa [[buffer(0)]],
    device int* exponent [[buffer(1)]],
    constant T* input [[buffer(2)]],
    uint index [[thread_position_in_grid]]) {
  int e = 0;
  mantissa[index] = frexp_of(input[index], e);
  exponent[index] = e;
}

template <typename T>
kernel void frexp_strided(
    device void* mantissa [[buffer(0)]],
    device void* exponent [[buffer(1)]],
    constant void* input [[buffer(2)]],
    constant long* sizes [[buffer(3)]],
    constant long* mantissa_strides [[buffer(4)]],
    constant long* exponent_strides [[buffer(5)]],
    constant long* input_strides [[buffer(6)]],
    constant uint& ndim [[buffer(7)]],
    uint index [[thread_position_in_grid]]) {
  long pos[max_ndim];
  pos_from_thread_index(long(index), pos, sizes, ndim);
  int e = 0;
  const auto m = frexp_of(val_at_offs<T>(input, offset_from_coord(pos, input_strides, ndim)), e);
  ref_at_offs<T>(mantissa, offset_from_coord(pos, mantissa_strides, ndim)) = m;
  ref_at_offs<int>(exponent, offset_from_coord(pos, exponent_strides, ndim)) = e;
}

#define REGISTER_FREXP_OP(T)                                                                          \
  template [[host_name("frexp_dense_" #T)]] kernel void frexp_dense<T>(device T*, device int*,        \
                                                                      constant T*, uint);             \
  template [[host_name("frexp_strided_" #T)]] kernel void frexp_strided<T>(                           \
      device void*, device void*, constant void*, constant long*, constant long*, constant long*,     \
      constant long*, constant uint&, uint)

REGISTER_FREXP_OP(float);
REGISTER_FREXP_OP(half);
