// Mirrors aten/src/ATen/native/mps/kernels/Indexing.metal of PyTorch 2.7 in shape (a kernel per element
// size, registered through a file-local macro), written for mpsgen's tests.
#include <metal_stdlib>

using namespace metal;

template <typename T>
kernel void index_select(
    device T* output,
    constant T* input,
    uint thread_index [[thread_position_in_grid]]) {
  output[thread_index] = input[thread_index];
}

#define REGISTER_INDEX_SELECT(SIZE, DTYPE)                         \
  template [[host_name("index_select_" #SIZE)]] kernel void        \
  index_select<DTYPE>(device DTYPE*, constant DTYPE*, uint)

REGISTER_INDEX_SELECT(64bit, long);
REGISTER_INDEX_SELECT(32bit, int);
REGISTER_INDEX_SELECT(16bit, short);
REGISTER_INDEX_SELECT(8bit, char);
