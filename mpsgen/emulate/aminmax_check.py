"""The numeric check of aminmax's kernels (the reduction kind's `reduce_aminmax_<T>`, serving aminmax_stub and
aminmax_allreduce_stub): the planned kernels/ReduceOps.metal compiled under the Metal emulation with
emulate/threadgroup_runtime.py's threadgroup runtime, against torch CPU's `aminmax` on the same inputs.

The cases are the runtime's of one reduced dim (aminmax's `dim`; (3, 5, 6)'s middle one) or of every dim (no
`dim`: the allreduce stub), with NaN and infinities among floating inputs; the minimum and maximum must be equal to the CPU's (NaN
where the CPU gives NaN), each written through its own output strides (the min output is transposed).
"""

from __future__ import annotations

import ctypes
import math
from pathlib import Path
from typing import Any

from mpsgen.emulate.compare import DtypeResult, Mismatch, TryResult
from mpsgen.emulate.compile import emulation_argv, find_compiler
from mpsgen.emulate.host_library import build_library
from mpsgen.emulate.threadgroup_runtime import CASES, MAX_THREADS, RUNTIME, TYPES, is_nan, launch, shared_locals
from mpsgen.errors import MpsgenError
from mpsgen.generate.reduction_kernel import registrations

EXACT = "the minimum and the maximum exact, NaN where the CPU gives NaN"
# the runtime's cases, the middle dim of (3, 5, 6) reduced instead of two (aminmax takes one or all): two output
# dims, so the min output's transposed strides differ from the max's
AMINMAX_CASES = tuple(((3, 5, 6), (1,), False) if dims == (0, 2) else (shape, dims, t) for shape, dims, t in CASES)

_LAUNCH = r"""
template <typename T, typename H>
static int mpsgen_launch_aminmax(void (*run)(const T*, T*, T*, const long*, const long*, const long*, const long*,
                                             const uint2&, uint, uint, uint, uint, uint, uint),
                                 const void* in_raw, void* min_raw, void* max_raw, const long* sizes,
                                 const long* in_strides, const long* min_strides, const long* max_strides,
                                 unsigned out_dims, unsigned reduced_dims, unsigned groups, unsigned threads,
                                 unsigned long in_n, unsigned long out_n) {
  std::unique_ptr<T[]> in(new T[in_n]), low(new T[out_n]), high(new T[out_n]);
  for (unsigned long i = 0; i < in_n; ++i) { H h; std::memcpy(&h, (const char*)in_raw + i * sizeof(H), sizeof(H)); in[i] = T(h); }
  for (unsigned long i = 0; i < out_n; ++i) { low[i] = T(0); high[i] = T(0); }
  const uint2 dims(out_dims, reduced_dims);
  const bool ok = mpsgen_rt::run(threads, [&](unsigned t) {
    for (unsigned group = 0; group < groups; ++group) {
      run(in.get(), low.get(), high.get(), sizes, in_strides, min_strides, max_strides, dims, t, threads, group,
          t % 32, t / 32, 32);
      mpsgen_rt::wait(mpsgen_rt::launch->all);  // the next threadgroup reuses the threadgroup memory
    }
  });
  for (unsigned long i = 0; i < out_n; ++i) {
    H a = H(low[i]), b = H(high[i]);
    std::memcpy((char*)min_raw + i * sizeof(H), &a, sizeof(H));
    std::memcpy((char*)max_raw + i * sizeof(H), &b, sizeof(H));
  }
  return ok ? 0 : -1;
}
"""


def _driver(metal: str, types: tuple[str, ...]) -> str:
    entries = [f"""extern "C" int mpsgen_reduce_aminmax_{t}(const void* in, void* low, void* high, const long* sizes,
    const long* in_strides, const long* min_strides, const long* max_strides, unsigned out_dims,
    unsigned reduced_dims, unsigned groups, unsigned threads, unsigned long in_n, unsigned long out_n) {{
  return mpsgen_launch_aminmax<{t}, {TYPES[t][1]}>(&reduce_aminmax<{t}>, in, low, high, sizes, in_strides, min_strides,
                                                 max_strides, out_dims, reduced_dims, groups, threads, in_n, out_n);
}}""" for t in types]
    return (RUNTIME + f'#line 1 "<planned .metal>"\n{shared_locals(metal)}\n#line 1 "<driver>"\n' + _LAUNCH
            + "\n".join(entries) + "\n")


def check_aminmax(metal: str, include_root: str | Path, types: tuple[str, ...] = ()) -> TryResult:
    """Each registered type of reduce_aminmax against torch.aminmax on the CPU; *types*: only those Metal types."""
    from mpsgen.emulate.reference import import_torch

    torch = import_torch()
    cxx = find_compiler()
    chosen = tuple(dict.fromkeys(t for op, _, t in registrations(metal) if op == "aminmax" and (not types or t in types)))
    if not chosen:
        raise MpsgenError("the planned ReduceOps.metal registers no reduce_aminmax_<T> kernel")
    lib = build_library("reduce", _driver(metal, chosen), emulation_argv(cxx, include_root))
    rows = tuple(_check_type(t, lib, torch) for t in chosen)
    return TryResult("aminmax (aminmax_stub, aminmax_allreduce_stub)", f"torch.aminmax: {EXACT}",
                     f"emulated ({cxx[0]}, threadgroups of up to {MAX_THREADS} threads)", rows)


def _values(torch: Any, shape: tuple[int, ...], dtype: str, seed: int) -> Any:
    gen = torch.Generator().manual_seed(seed)
    tdtype = getattr(torch, dtype)
    if dtype == "bool":
        return torch.randint(0, 2, shape, generator=gen).bool()
    if dtype in ("float32", "float16", "bfloat16"):
        x = torch.randn(shape, generator=gen) * 4
        flat = x.view(-1)
        if 280 <= flat.numel() < 1000:  # a NaN and both infinities, in different elements
            flat[5], flat[150], flat[151] = math.nan, math.inf, -math.inf
        if shape == (70, 3):
            x[:, 2] = -math.inf  # an element whose inputs are all -inf: the identities must not show
        return x.to(tdtype)
    info = torch.iinfo(tdtype)
    low, high = (info.min, info.max) if dtype != "int64" else (-(2 ** 62), 2 ** 62)
    return torch.randint(low, high, shape, generator=gen, dtype=torch.int64).to(tdtype)


def _check_type(t: str, lib: ctypes.CDLL, torch: Any) -> DtypeResult:
    dtype = TYPES[t][0]
    host = torch.float32 if t in ("half", "bfloat") else getattr(torch, dtype)
    mismatches: list[Mismatch] = []
    values, broken = 0, False
    for k, (shape, dims, transposed) in enumerate(AMINMAX_CASES):
        base = _values(torch, shape[::-1] if transposed else shape, dtype, seed=k)
        x = base.t() if transposed else base
        every = len(dims) == x.dim()
        at = launch(x, dims)
        out_dims, out_shape, groups, threads = at.out_dims, at.out_shape, at.groups, at.threads
        sizes, in_strides, max_strides = at.sizes, at.in_strides, at.out_strides()
        # the min output's strides: its dims in reverse order
        min_strides = at.out_strides([math.prod(out_shape[:i]) for i in range(len(out_shape))])
        storage = base.contiguous().to(host)
        low, high = torch.zeros(groups, dtype=host), torch.zeros(groups, dtype=host)
        rc = getattr(lib, f"mpsgen_reduce_aminmax_{t}")(
            ctypes.c_void_p(storage.data_ptr()), ctypes.c_void_p(low.data_ptr()), ctypes.c_void_p(high.data_ptr()),
            sizes, in_strides, min_strides, max_strides, len(out_dims), len(dims), groups, threads,
            ctypes.c_ulong(storage.numel()), ctypes.c_ulong(groups))
        broken = broken or rc != 0
        expected = torch.aminmax(x) if every else torch.aminmax(x, dim=dims[0])
        got_min = low.to(getattr(torch, dtype))
        if out_shape:  # written through the transposed strides: read back in row-major order
            got_min = got_min.view(out_shape[::-1]).permute(*reversed(range(len(out_shape)))).reshape(-1)
        for name, want, got in (("min", expected.min, got_min), ("max", expected.max, high.to(getattr(torch, dtype)))):
            for i, (e, g) in enumerate(zip(want.reshape(-1).tolist(), got.reshape(-1).tolist())):
                values += 1
                if not (e == g or (is_nan(e) and is_nan(g))):
                    where = f"{tuple(shape)}{'.t()' if transposed else ''} dim={'all' if every else dims[0]} {name} {i}"
                    mismatches.append(Mismatch((where,), repr(e), repr(g)))
    note = "a threadgroup barrier was never reached by every thread (diverged simd_* or barrier calls)" if broken else ""
    return DtypeResult(dtype, dtype, values, len(mismatches) + (1 if broken else 0), 0.0, 0.0, "",
                       tuple(mismatches[:3]), note=note)
