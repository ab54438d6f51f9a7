// mpsgen try: element loads/stores between PyTorch's storage formats and the emulated Metal
// types, and the loops that apply a functor the way c10/metal/indexing.h's dense kernels do.
#pragma once
#include <metal_stdlib>
#include <c10/metal/utils.h>

namespace mpsgen_try {

// c10/metal's result_of (2.8 and newer), spelled here so 2.7's headers, which lack it, compile too.
template <typename F, typename... Args>
using result_of = decltype(std::declval<F>()(std::declval<Args>()...));

template <typename T> struct io {  // float, integers: stored as themselves
  static T load(const void* p, long i) { return static_cast<const T*>(p)[i]; }
  static void store(void* p, long i, T v) { static_cast<T*>(p)[i] = v; }
};
template <> struct io<bool> {  // torch.bool: one byte, 0 or 1
  static bool load(const void* p, long i) { return static_cast<const unsigned char*>(p)[i] != 0; }
  static void store(void* p, long i, bool v) { static_cast<unsigned char*>(p)[i] = v ? 1 : 0; }
};
template <> struct io<metal::half> {  // torch.float16: binary16 bits
  static metal::half load(const void* p, long i) {
    return metal::half::from_float(metal::emu::half_value(static_cast<const unsigned short*>(p)[i]));
  }
  static void store(void* p, long i, metal::half v) { static_cast<unsigned short*>(p)[i] = metal::emu::half_bits(v.v); }
};
template <> struct io<metal::bfloat> {  // torch.bfloat16: top 16 bits of a float
  static metal::bfloat load(const void* p, long i) {
    return metal::bfloat::from_float(metal::emu::bfloat_value(static_cast<const unsigned short*>(p)[i]));
  }
  static void store(void* p, long i, metal::bfloat v) { static_cast<unsigned short*>(p)[i] = metal::emu::bfloat_bits(v.v); }
};
template <typename T> struct io<metal::vec<T, 2>> {  // complex64 / complex32: (real, imag) pairs
  static metal::vec<T, 2> load(const void* p, long i) { return metal::vec<T, 2>(io<T>::load(p, 2 * i), io<T>::load(p, 2 * i + 1)); }
  static void store(void* p, long i, metal::vec<T, 2> v) { io<T>::store(p, 2 * i, v.x); io<T>::store(p, 2 * i + 1, v.y); }
};

// unary_dense: output[i] = f(input[i])
template <typename F, typename TI, typename TO>
void unary(const void* a, void* out, long n) {
  static_assert(metal::is_same_v<TO, result_of<F, TI>>, "Output dtype mismatch for unary op");
  F f;
  for (long i = 0; i < n; ++i) io<TO>::store(out, i, f(io<TI>::load(a, i)));
}
// An early-2025 template kernel: output[index] = static_cast<T0>(op_functor()(input[index]))
template <typename F, typename TI, typename TO>
void unary_cast(const void* a, void* out, long n) {
  F f;
  for (long i = 0; i < n; ++i) io<TO>::store(out, i, static_cast<TO>(f(io<TI>::load(a, i))));
}
// binary_dense: out[i] = static_cast<res_t>(f(om_t(input[i]), om_t(other[i])))
template <typename F, typename TI, typename TO, typename OMT>
void binary(const void* a, const void* b, void* out, long n) {
  static_assert(metal::is_same_v<TO, result_of<F, TI, TI>>, "Output dtype mismatch for binary op");
  F f;
  for (long i = 0; i < n; ++i)
    io<TO>::store(out, i, static_cast<TO>(f(OMT(io<TI>::load(a, i)), OMT(io<TI>::load(b, i)))));
}
// unary_alpha_dense: output[i] = f(input[i], alpha); alpha is a scalar or a params struct
template <typename F, typename TI, typename TA, typename TO>
void unary_alpha_value(const void* a, const TA al, void* out, long n) {
  static_assert(metal::is_same_v<TO, result_of<F, TI, TA>>, "Output dtype mismatch for unary alpha op");
  F f;
  for (long i = 0; i < n; ++i) io<TO>::store(out, i, f(io<TI>::load(a, i), al));
}
template <typename F, typename TI, typename TA, typename TO>
void unary_alpha(const void* a, const void* alpha, void* out, long n) {
  unary_alpha_value<F, TI, TA, TO>(a, io<TA>::load(alpha, 0), out, n);
}
// binary_alpha: out[i] = f(input[i], other[i], alpha)
template <typename F, typename TI, typename TA, typename TO>
void binary_alpha_value(const void* a, const void* b, const TA al, void* out, long n) {
  static_assert(metal::is_same_v<TO, result_of<F, TI, TI, TA>>, "Output dtype mismatch for binary alpha op");
  F f;
  for (long i = 0; i < n; ++i) io<TO>::store(out, i, static_cast<TO>(f(io<TI>::load(a, i), io<TI>::load(b, i), al)));
}
template <typename F, typename TI, typename TA, typename TO>
void binary_alpha(const void* a, const void* b, const void* alpha, void* out, long n) {
  binary_alpha_value<F, TI, TA, TO>(a, b, io<TA>::load(alpha, 0), out, n);
}
// ternary alpha (REGISTER_TERNARY_ALPHA_OP): out[i] = f(a[i], b[i], c[i], alpha); a params struct as alpha
template <typename F, typename TI, typename TA, typename TO>
void ternary_alpha_value(const void* a, const void* b, const void* c, const TA al, void* out, long n) {
  F f;
  for (long i = 0; i < n; ++i)
    io<TO>::store(out, i, static_cast<TO>(f(io<TI>::load(a, i), io<TI>::load(b, i), io<TI>::load(c, i), al)));
}
template <typename F, typename TI, typename TA, typename TO>
void ternary_alpha(const void* a, const void* b, const void* c, const void* alpha, void* out, long n) {
  ternary_alpha_value<F, TI, TA, TO>(a, b, c, io<TA>::load(alpha, 0), out, n);
}
// ternary_dense: out[i] = static_cast<res_t>(f(om_t(a[i]), om_t(b[i]), om_t(c[i])))
template <typename F, typename TI, typename TO, typename OMT>
void ternary(const void* a, const void* b, const void* c, void* out, long n) {
  static_assert(metal::is_same_v<TO, result_of<F, TI, TI, TI>>, "Output dtype mismatch for ternary op");
  F f;
  for (long i = 0; i < n; ++i)
    io<TO>::store(out, i, static_cast<TO>(f(OMT(io<TI>::load(a, i)), OMT(io<TI>::load(b, i)), OMT(io<TI>::load(c, i)))));
}

}  // namespace mpsgen_try
