// Mirrors c10/metal/reduction_utils.h of PyTorch 2.7 in shape (serial threadgroup loops, no simdgroup
// helpers), written for mpsgen's tests.
#pragma once

#include <c10/metal/utils.h>
#include <metal_compute>

namespace c10 {
namespace metal {

template <typename T>
opmath_t<T> threadgroup_sum(threadgroup T* data, unsigned size) {
  opmath_t<T> rc = data[0];
  ::metal::threadgroup_barrier(::metal::mem_flags::mem_threadgroup);
  for (unsigned idx = 1; idx < size; ++idx) {
    rc += data[idx];
  }
  return rc;
}

} // namespace metal
} // namespace c10
