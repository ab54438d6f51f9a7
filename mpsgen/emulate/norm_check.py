"""The numeric check of norm_stub's kernels (the reduction kind's `reduce_norm_<class>_<T>`, one per class of the
ord: zero, one, two, inf, neg_inf, p): the planned kernels/ReduceOps.metal compiled under the Metal emulation with
emulate/threadgroup_runtime.py's threadgroup runtime, against torch CPU's `linalg.vector_norm` on the same inputs.

Each Metal type (float, half, bfloat, float2: complex64 in, float32 out) runs reduce_check's cases for the ords
0, 1, 2, inf, -inf, 3, 0.5 and -1.5, with NaN, infinities and exact zeros among the inputs.  The counts (0) and
the extremes (inf, -inf) must be equal (of a complex input within 2·2^-24·|norm|: the CPU takes those of its
vectorized abs(), whose |z| may differ from hypot's in the last place); a sum of powers (1, 2, p) agrees within
((2n + 4)·2^-24/|p| + 4·2^-24 + 1 ulp of the dtype)·|norm|: two float accumulations of n positive terms (each a
rounded power) in different orders, the root dividing their relative error by |p|, its own rounding and the
output's.
"""

from __future__ import annotations

import ctypes
import math
import warnings
from pathlib import Path
from typing import Any

from mpsgen.emulate.compare import DtypeResult, Mismatch, TryResult
from mpsgen.emulate.compile import emulation_argv, find_compiler
from mpsgen.emulate.host_library import build_library
from mpsgen.emulate.threadgroup_runtime import (ACC_EPS, CASES, MAX_THREADS, OUT_EPS, OUT_TINY, RUNTIME, TYPES,
                                                abs_error, is_nan, launch, shared_locals)
from mpsgen.errors import MpsgenError
from mpsgen.generate.reduction_kernel import registrations

ORDS = ((0.0, "zero"), (1.0, "one"), (2.0, "two"), (math.inf, "inf"), (-math.inf, "neg_inf"), (3.0, "p"),
        (0.5, "p"), (-1.5, "p"))
EXACT_CLASSES = ("zero", "inf", "neg_inf")
TOLERANCE = ("ord 0, inf, -inf exact (NaN where the CPU gives NaN; complex inf, -inf within 2·2^-24·|norm|: "
             "its |z|, the CPU's vectorized abs); 1, 2, p within "
             "((2n + 4)·2^-24/|p| + 4·2^-24 + 1 ulp of the dtype)·|norm| (n the reduced length)")
RESULT = {"float": "float32", "half": "float16", "bfloat": "bfloat16", "float2": "float32"}

_LAUNCH = r"""
template <typename T, typename H>
static int mpsgen_launch_norm(void (*run)(const T*, typename norm_result<T>::type*, const long*, const long*,
                                          const long*, const uint2&, const float&, uint, uint, uint, uint, uint, uint),
                              const void* in_raw, float* out_raw, const long* sizes, const long* in_strides,
                              const long* out_strides, unsigned out_dims, unsigned reduced_dims, unsigned groups,
                              unsigned threads, unsigned long in_n, unsigned long out_n, float p) {
  using O = typename norm_result<T>::type;
  std::unique_ptr<T[]> in(new T[in_n]);
  std::unique_ptr<O[]> out(new O[out_n]);
  for (unsigned long i = 0; i < in_n; ++i) { H h; std::memcpy(&h, (const char*)in_raw + i * sizeof(H), sizeof(H)); in[i] = T(h); }
  for (unsigned long i = 0; i < out_n; ++i) out[i] = O(0.0f);
  const uint2 dims(out_dims, reduced_dims);
  const bool ok = mpsgen_rt::run(threads, [&](unsigned t) {
    for (unsigned group = 0; group < groups; ++group) {
      run(in.get(), out.get(), sizes, in_strides, out_strides, dims, p, t, threads, group, t % 32, t / 32, 32);
      mpsgen_rt::wait(mpsgen_rt::launch->all);  // the next threadgroup reuses the threadgroup memory
    }
  });
  for (unsigned long i = 0; i < out_n; ++i) out_raw[i] = float(out[i]);
  return ok ? 0 : -1;
}
"""


def _driver(metal: str, regs: tuple[tuple[str, str, str], ...]) -> str:
    entries = []
    for _, struct, t in regs:
        cls = struct.removeprefix("norm_").removesuffix("_op")
        entries.append(f"""extern "C" int mpsgen_reduce_norm_{cls}_{t}(const void* in, float* out, const long* sizes,
    const long* in_strides, const long* out_strides, unsigned out_dims, unsigned reduced_dims, unsigned groups,
    unsigned threads, unsigned long in_n, unsigned long out_n, float p) {{
  return mpsgen_launch_norm<{t}, {TYPES[t][1]}>(&reduce_norm<{t}, {struct}>, in, out, sizes, in_strides, out_strides,
                                              out_dims, reduced_dims, groups, threads, in_n, out_n, p);
}}""")
    return (RUNTIME + f'#line 1 "<planned .metal>"\n{shared_locals(metal)}\n#line 1 "<driver>"\n' + _LAUNCH
            + "\n".join(entries) + "\n")


def check_norm(metal: str, include_root: str | Path, types: tuple[str, ...] = ()) -> TryResult:
    """Each registered input type of the norm kernels against torch.linalg.vector_norm on the CPU, every class of
    the ord; *types*: only those Metal types."""
    from mpsgen.emulate.reference import import_torch

    torch = import_torch()
    cxx = find_compiler()
    regs = tuple(r for r in registrations(metal) if r[0] == "norm" and (not types or r[2] in types))
    if not regs:
        raise MpsgenError("the planned ReduceOps.metal registers no reduce_norm_<class>_<T> kernel")
    lib = build_library("reduce", _driver(metal, regs), emulation_argv(cxx, include_root))
    rows = tuple(_check_type(t, lib, torch) for t in dict.fromkeys(t for _, _, t in regs))
    return TryResult("norm (norm_stub)", f"torch.linalg.vector_norm: {TOLERANCE}",
                     f"emulated ({cxx[0]}, threadgroups of up to {MAX_THREADS} threads)", rows)


def _values(torch: Any, shape: tuple[int, ...], dtype: str, seed: int) -> Any:
    gen = torch.Generator().manual_seed(seed)
    complex_ = dtype == "complex64"
    x = torch.randn(shape, generator=gen, dtype=torch.complex64 if complex_ else torch.float32) * 4
    flat = x.view(-1)
    flat[::7] = 0  # exact zeros: ord 0 counts them out, -inf finds them, a negative p makes them infinite
    if 280 <= flat.numel() < 1000:  # a NaN, an inf, both infinities, in different elements
        flat[5], flat[80], flat[150], flat[151] = math.nan, math.inf, math.inf, -math.inf
        if complex_:
            flat[81] = complex(1.0, math.inf)
    return x.to(getattr(torch, dtype))


def _check_type(t: str, lib: ctypes.CDLL, torch: Any) -> DtypeResult:
    dtype = TYPES[t][0]
    host = torch.float32 if t in ("half", "bfloat") else getattr(torch, dtype)
    result = RESULT[t]
    mismatches: list[Mismatch] = []
    values, worst, worst_ratio, worst_at, broken = 0, 0.0, 0.0, "", False
    for k, (shape, dims, transposed) in enumerate(CASES):
        base = _values(torch, shape[::-1] if transposed else shape, dtype, seed=k)
        x = base.t() if transposed else base
        at = launch(x, dims)
        out_dims, out_shape, groups, length, threads = at.out_dims, at.out_shape, at.groups, at.length, at.threads
        sizes, in_strides, o_strides = at.sizes, at.in_strides, at.out_strides()
        storage = base.contiguous().to(host)
        for p, cls in ORDS:
            out = torch.zeros(groups, dtype=torch.float32)
            rc = getattr(lib, f"mpsgen_reduce_norm_{cls}_{t}")(
                ctypes.c_void_p(storage.data_ptr()), ctypes.c_void_p(out.data_ptr()), sizes, in_strides, o_strides,
                len(out_dims), len(dims), groups, threads, ctypes.c_ulong(storage.numel()), ctypes.c_ulong(groups),
                ctypes.c_float(p))
            broken = broken or rc != 0
            got = out.to(getattr(torch, result)).tolist()
            with warnings.catch_warnings():  # the CPU's one-element complex ord 0 (ne into a real out) warns
                warnings.simplefilter("ignore", UserWarning)
                expected = torch.linalg.vector_norm(x, p, dim=dims).reshape(-1).tolist()
            rel = ((2 * ACC_EPS if t == "float2" and cls != "zero" else 0.0) if cls in EXACT_CLASSES
                   else (2 * length + 4) * ACC_EPS / abs(p) + 4 * ACC_EPS + OUT_EPS[result])
            for i in range(groups):
                values += 1
                e, g = expected[i], got[i]
                where = f"{tuple(shape)}{'.t()' if transposed else ''} dim={dims} ord={p} element {i}"
                if not rel:
                    if not (e == g or (is_nan(e) and is_nan(g))):
                        mismatches.append(Mismatch((where,), repr(e), repr(g)))
                    continue
                tol = rel * abs(e) + OUT_TINY[result] if math.isfinite(e) else 0.0
                err = abs_error(e, g)
                if err > tol or math.isinf(err):
                    mismatches.append(Mismatch((where,), repr(e), repr(g)))
                elif tol and err / tol > worst_ratio:
                    worst_ratio, worst, worst_at = err / tol, err, where
    note = "a threadgroup barrier was never reached by every thread (diverged simd_* or barrier calls)" if broken else ""
    return DtypeResult(dtype, result, values, len(mismatches) + (1 if broken else 0), worst, 0.0, worst_at,
                       tuple(mismatches[:3]), note=note)
