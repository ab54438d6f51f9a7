"""The threadgroup runtime of the reduction kind's numeric checks (emulate/reduce_check.py, emulate/norm_check.py):
a launch's threads as fibers (ucontext) on the calling thread, barriers and simd_* exchanges where they meet, the
kernels' threadgroup arrays shared; the cases the checks run and the tolerance constants (a driver is built by
emulate/host_library.py)."""

from __future__ import annotations

import ctypes
import math
import re
from typing import Any

from mpsgen.records import NamedTuple

# Metal type -> (torch dtype, the C++ type its elements cross ctypes as)
TYPES = {"float": ("float32", "float"), "half": ("float16", "float"), "bfloat": ("bfloat16", "float"),
         "long": ("int64", "long"), "int": ("int32", "int"), "short": ("int16", "short"), "char": ("int8", "char"),
         "uchar": ("uint8", "uchar"), "bool": ("bool", "bool"), "float2": ("complex64", "metal::float2")}
# (input shape, reduced dims, the input a transposed view of a contiguous tensor)
CASES = (((37,), (0,), False), ((4, 70), (1,), False), ((70, 3), (0,), False), ((3, 5, 6), (0, 2), False),
         ((9, 6), (1,), True), ((2, 300), (1,), False), ((3, 1), (1,), False), ((5, 4), (0, 1), False),
         ((1, 1000), (1,), False))
MAX_THREADS = 256  # the host's cap (templates/reduction_helper.mm.j2)
ACC_EPS = 2.0 ** -24  # float accumulation
OUT_EPS = {"float32": 2.0 ** -23, "float16": 2.0 ** -10, "bfloat16": 2.0 ** -7, "complex64": 2.0 ** -23}
OUT_TINY = {"float32": 1.4e-45, "float16": 6e-8, "bfloat16": 9.2e-41, "complex64": 1.4e-45}
_THREADGROUP_LOCAL = re.compile(r"^(\s*)threadgroup\s+(?=[\w:<>, ]+\s+\w+\s*\[)", re.MULTILINE)
RUNTIME = r"""
// The threadgroup runtime: the force-included emulation's address-space macros would break the
// system headers, so they are lifted here and restored before the kernels.
#undef constant
#undef device
#undef thread
#undef threadgroup
#undef kernel
#include <cstring>
#include <memory>
#include <ucontext.h>
#include <vector>
namespace mpsgen_rt {
// A threadgroup's threads are fibers (ucontext) on the calling thread, run in turn; a barrier is where a
// fiber yields until every thread it waits for has come.  A round in which every live fiber only waited
// (no arrival, no release) is a deadlock: the launch is broken, every wait returns, and it is reported.
struct Barrier {
  unsigned count = 0, arrived = 0;
  unsigned long generation = 0;
};
struct Launch {
  unsigned threads = 0, current = 0;
  unsigned long events = 0;  // arrivals, releases and ends: progress
  bool broken = false;
  ucontext_t main;
  std::vector<ucontext_t> fibers;
  std::vector<std::unique_ptr<char[]>> stacks;
  std::vector<char> done;
  Barrier all;
  std::vector<Barrier> simd;
  std::vector<unsigned char> exchange;  // 16 bytes a thread
};
Launch* launch = nullptr;
void wait(Barrier& b) {
  Launch& l = *launch;
  if (l.broken) return;
  const unsigned long mine = b.generation;
  ++l.events;
  if (++b.arrived == b.count) { b.arrived = 0; ++b.generation; return; }
  while (b.generation == mine && !l.broken) swapcontext(&l.fibers[l.current], &l.main);
  ++l.events;  // released
}
// Runs body(thread) for every thread of a threadgroup of `threads` to the end; false when it deadlocked.
template <typename Body>
bool run(unsigned threads, Body body) {
  Launch l;
  l.threads = threads;
  l.fibers.resize(threads);
  l.done.assign(threads, 0);
  l.all.count = threads;
  for (unsigned first = 0; first < threads; first += 32) l.simd.push_back(Barrier{threads - first < 32 ? threads - first : 32});
  l.exchange.resize(threads * 16);
  launch = &l;
  static Body* current_body;
  current_body = &body;
  for (unsigned t = 0; t < threads; ++t) {
    l.stacks.emplace_back(new char[1 << 16]);
    getcontext(&l.fibers[t]);
    l.fibers[t].uc_stack.ss_sp = l.stacks.back().get();
    l.fibers[t].uc_stack.ss_size = 1 << 16;
    l.fibers[t].uc_link = &l.main;
    makecontext(&l.fibers[t], (void (*)()) + [] { (*current_body)(launch->current); launch->done[launch->current] = 1;
                                          ++launch->events; }, 0);
  }
  for (;;) {
    bool live = false;
    const unsigned long before = l.events;
    for (unsigned t = 0; t < threads; ++t) {
      if (l.done[t]) continue;
      live = true;
      l.current = t;
      swapcontext(&l.main, &l.fibers[t]);
    }
    if (!live) break;
    if (l.events == before && !l.broken) l.broken = true;  // nobody moved: release everyone, report it
  }
  launch = nullptr;
  return !l.broken;
}
}  // namespace mpsgen_rt
namespace metal { namespace emu {
void barrier_wait() { mpsgen_rt::wait(mpsgen_rt::launch->all); }
unsigned simd_lane() { return mpsgen_rt::launch->current % simd_width; }
void simd_exchange(const void* mine, void* lanes, unsigned bytes) {
  auto& l = *mpsgen_rt::launch;
  const unsigned index = l.current, first = index / simd_width * simd_width;
  auto& simdgroup = l.simd[index / simd_width];
  std::memcpy(&l.exchange[index * 16], mine, bytes);
  mpsgen_rt::wait(simdgroup);
  for (unsigned lane = 0; lane < simd_width; ++lane) {
    const unsigned at = first + lane < l.threads ? first + lane : index;
    std::memcpy(static_cast<char*>(lanes) + lane * bytes, &l.exchange[at * 16], bytes);
  }
  mpsgen_rt::wait(simdgroup);
}
}}  // namespace metal::emu
#define constant const
#define device
#define thread
#define threadgroup
#define kernel
"""

def shared_locals(metal: str) -> str:
    """*metal* with each threadgroup variable a kernel declares (`threadgroup A partials[32];`) made static:
    one array all the host threads share, as a threadgroup's threads do (its threadgroups run one at a
    time).  The emulation's `threadgroup` is empty, right for the pointers that point there."""
    return _THREADGROUP_LOCAL.sub(r"\1static ", metal)


def is_nan(v: Any) -> bool:
    return isinstance(v, float) and math.isnan(v)


def abs_error(e: float, g: float) -> float:
    """|e - g|, 0 for two NaNs or the same infinity, inf when only one is NaN or infinite."""
    if math.isnan(e) or math.isnan(g):
        return 0.0 if math.isnan(e) and math.isnan(g) else math.inf
    if math.isinf(e) or math.isinf(g):
        return 0.0 if e == g else math.inf
    return abs(e - g)


class Launch(NamedTuple):
    """A case as the host launches it: the kept dims then the reduced ones (sizes, input strides), the output's
    shape, one threadgroup per output element and the threads each gets (MAX_THREADS at most)."""

    out_dims: list[int]
    out_shape: list[int]
    sizes: Any  # ctypes long arrays, in launch order
    in_strides: Any
    reduced: int
    groups: int
    length: int  # the elements each output element reduces
    threads: int

    def out_strides(self, strides: list[int] | None = None) -> Any:
        """The output's strides in launch order (row-major unless given), 0 along the reduced dims."""
        kept = strides if strides is not None else [math.prod(self.out_shape[i + 1:]) for i in range(len(self.out_shape))]
        return (ctypes.c_long * (len(kept) + self.reduced))(*kept, *[0] * self.reduced)


def launch(x: Any, dims: tuple[int, ...]) -> Launch:
    """*x* reduced over *dims*, laid out as the host's reduction helper passes it to the kernel."""
    out_dims = [d for d in range(x.dim()) if d not in dims]
    order = [*out_dims, *dims]
    out_shape = [x.shape[d] for d in out_dims]
    length = math.prod(x.shape[d] for d in dims)
    return Launch(out_dims, out_shape, (ctypes.c_long * len(order))(*[x.shape[d] for d in order]),
                  (ctypes.c_long * len(order))(*[x.stride(d) for d in order]), len(dims), math.prod(out_shape), length,
                  min(MAX_THREADS, (length + 31) // 32 * 32))
