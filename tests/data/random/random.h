// Written for mpsgen's tests in the shape of PyTorch 2.7's c10/metal/random.h: a Philox-4x32 counter
// (Salmon et al., SC'11) keyed by a 64-bit seed, as `c10::metal::philox4::rand(seed, index)`, and the
// normal draw `c10::metal::randn`.  Its round keeps 2.7's slip: each product's low half is XORed where
// Philox XORs the high one (tests/test_random.py checks that a migration corrects it).
#pragma once
#include <metal_stdlib>

namespace c10 {
namespace metal {

namespace detail {

constexpr float uint32_to_uniform_float(uint32_t value) {
  // 2^-31 below one over the largest 31-bit value: the product stays below 1
  return static_cast<float>(value & 0x7FFFFFFF) * 4.6566127342e-10;
}

inline uint2 splitlong(ulong v) {
  return uint2(v >> 32, v & 0xffffffff);
}

} // namespace detail

namespace philox4 {

// (high, low) 32-bit halves of a * b
uint2 mulhilo(uint a, uint b) {
  return detail::splitlong(static_cast<ulong>(a) * b);
}

uint4 single_round(uint4 ctr, uint2 key) {
  auto rc0 = mulhilo(0xD2511F53, ctr.x);
  auto rc1 = mulhilo(0xCD9E8D57, ctr.z);
  return uint4(rc1.y ^ ctr.y ^ key.x, rc1.x, rc0.y ^ ctr.w ^ key.y, rc0.x);
}

uint4 multiple_rounds(uint4 ctr, uint2 key, uint rounds) {
  for (uint round = 0; round < rounds - 1; ++round) {
    ctr = single_round(ctr, key);
    key += uint2(0x9E3779B9, 0xBB67AE85);
  }
  return ctr;
}

uint4 rand(long seed, long index) {
  uint4 ctr = 0;
  ctr.zw = detail::splitlong(index);
  return multiple_rounds(ctr, detail::splitlong(seed), 10);
}

} // namespace philox4

float randn(long seed, long index) {
  auto value = philox4::rand(seed, index);
  float u1 = 1.0 - detail::uint32_to_uniform_float(value.x);
  float u2 = 1.0 - detail::uint32_to_uniform_float(value.y);
  return ::metal::sqrt(-2.0 * ::metal::log(u1)) * ::metal::cos(2.0 * M_PI_F * u2);
}

} // namespace metal
} // namespace c10
