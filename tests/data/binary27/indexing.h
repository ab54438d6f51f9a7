// The shape of PyTorch 2.7's c10/metal/indexing.h (hand-written for the tests): a thread's position in an
// n-dimensional iteration space and an element's offset from its coordinates and strides.
#pragma once
#include <metal_stdlib>

namespace c10 {
namespace metal {
constant constexpr unsigned max_ndim = 16;

template <typename T>
inline T offset_from_coord(thread T idx[max_ndim], constant long* strides, uint ndim) {
  T offset = 0;
  for (uint dim = 0; dim < ndim; ++dim) {
    offset += idx[dim] * T(strides[dim]);
  }
  return offset;
}

template <typename T>
inline void pos_from_thread_index(T idx, thread T pos[max_ndim], constant long* sizes, uint ndim) {
  for (uint dim = 0; dim < ndim; ++dim) {
    pos[dim] = idx % T(sizes[dim]);
    idx /= T(sizes[dim]);
  }
}
} // namespace metal
} // namespace c10
