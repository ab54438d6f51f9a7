// Written for mpsgen's tests in the shape of PyTorch 2.7's c10/metal/random.h: Philox-4x32-10 (Salmon et
// al., SC'11) keyed by a 64-bit seed at a 64-bit counter, as `c10::metal::philox4::rand(seed, index)`.
#pragma once
#include <metal_stdlib>

namespace c10 {
namespace metal {
namespace detail {

inline uint2 splitlong(ulong v) {
  return uint2(v >> 32, v & 0xffffffff);
}

} // namespace detail

namespace philox4 {

inline uint4 round(uint4 ctr, uint2 key) {
  const ulong a = static_cast<ulong>(0xD2511F53u) * ctr.x;
  const ulong b = static_cast<ulong>(0xCD9E8D57u) * ctr.z;
  return uint4(uint(b >> 32) ^ ctr.y ^ key.x, uint(b), uint(a >> 32) ^ ctr.w ^ key.y, uint(a));
}

inline uint4 rand(long seed, long index) {
  uint4 ctr = 0;
  ctr.zw = detail::splitlong(index);
  uint2 key = detail::splitlong(seed);
  for (uint r = 0; r < 10; ++r) {
    ctr = round(ctr, key);
    key += uint2(0x9E3779B9u, 0xBB67AE85u);
  }
  return ctr;
}

} // namespace philox4
} // namespace metal
} // namespace c10
