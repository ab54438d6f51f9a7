"""The numeric check of the reduction kind (plan/reduction_code.py): the planned kernels/ReduceOps.metal's
`reduce_<name>_<T>` kernels, compiled under the Metal emulation with a threadgroup runtime, against torch
CPU's reduction on the same inputs.

A launch (emulate/threadgroup_runtime.py) runs a threadgroup's threads as fibers (ucontext) on the calling
thread, each taking the threadgroups one after another; threadgroup_barrier meets all of them and the simd_* functions of
include/metal_simdgroup the 32 of a simdgroup, a fiber yielding until all have come (a round in which no
fiber moves is a deadlock: the launch is reported broken, so a kernel calling them in diverged control
flow fails instead of hanging).  A threadgroup has the threads the host gives it (a multiple of 32, up to
256, no more than the reduced length needs), so both stages run with up to eight simdgroups' partials and
the threads of the longer reductions fold several elements each.

The kernels see the input in the layout the host binds (sizes, then input and output strides in
elements, the output's dims first): the cases reduce inner, outer, two and all dims, a transposed input,
lengths 1 to 1000, NaN and infinities.  Integer and bool results, amax/amin and all/any must be equal; a
floating sum, mean or nansum agrees within 2·n·2^-24·Σ|x| (two float accumulations of n terms in different orders, Σ|x| over
the element's n inputs, divided by n for a mean) plus one unit in the output dtype's last place.
"""

from __future__ import annotations

import ctypes
import math
from pathlib import Path
from typing import Any

from mpsgen.emulate.compare import DtypeResult, Mismatch, TryResult
from mpsgen.emulate.compile import emulation_argv, find_compiler
from mpsgen.emulate.host_library import build_library
from mpsgen.emulate.threadgroup_runtime import (ACC_EPS, CASES, MAX_THREADS, OUT_EPS, OUT_TINY, RUNTIME, TYPES,
                                                abs_error, is_nan, launch, shared_locals)
from mpsgen.errors import MpsgenError
from mpsgen.generate.reduction_kernel import BY_NAME, registrations

SUMMED = ("sum", "mean", "nansum")  # compared within a tolerance (floating dtypes); every other reduction exactly
TOLERANCE = ("floating dtypes within 2·n·2^-24·Σ|x| + 1 ulp of the dtype per element (n the reduced length, "
             "Σ|x| over its inputs, /n for a mean); integer and bool exact")
EXACT = "every dtype exact, NaN where the CPU gives NaN"

_LAUNCH = r"""
static_assert(sizeof(metal::float2) == 8, "complex64 crosses as two floats");
template <typename T, typename H>
static int mpsgen_launch(void (*run)(const T*, T*, const long*, const long*, const long*, const uint2&, uint,
                                     uint, uint, uint, uint, uint),
                         const void* in_raw, void* out_raw, const long* sizes, const long* in_strides,
                         const long* out_strides, unsigned out_dims, unsigned reduced_dims, unsigned groups,
                         unsigned threads, unsigned long in_n, unsigned long out_n) {
  std::unique_ptr<T[]> in(new T[in_n]), out(new T[out_n]);  // not vector<bool>: no data()
  for (unsigned long i = 0; i < in_n; ++i) { H h; std::memcpy(&h, (const char*)in_raw + i * sizeof(H), sizeof(H)); in[i] = T(h); }
  for (unsigned long i = 0; i < out_n; ++i) { H h; std::memcpy(&h, (const char*)out_raw + i * sizeof(H), sizeof(H)); out[i] = T(h); }
  const uint2 dims(out_dims, reduced_dims);
  const bool ok = mpsgen_rt::run(threads, [&](unsigned t) {
    for (unsigned group = 0; group < groups; ++group) {
      run(in.get(), out.get(), sizes, in_strides, out_strides, dims, t, threads, group, t % 32, t / 32, 32);
      mpsgen_rt::wait(mpsgen_rt::launch->all);  // the next threadgroup reuses the threadgroup memory
    }
  });
  for (unsigned long i = 0; i < out_n; ++i) { H h = H(out[i]); std::memcpy((char*)out_raw + i * sizeof(H), &h, sizeof(H)); }
  return ok ? 0 : -1;
}
"""


def _driver(metal: str, regs: tuple[tuple[str, str, str], ...]) -> str:
    entries = []
    for op, struct, t in regs:
        host = TYPES[t][1]
        entries.append(f"""extern "C" int mpsgen_reduce_{op}_{t}(const void* in, void* out, const long* sizes,
    const long* in_strides, const long* out_strides, unsigned out_dims, unsigned reduced_dims, unsigned groups,
    unsigned threads, unsigned long in_n, unsigned long out_n) {{
  return mpsgen_launch<{t}, {host}>(&reduce<{t}, {struct}>, in, out, sizes, in_strides, out_strides, out_dims,
                                         reduced_dims, groups, threads, in_n, out_n);
}}""")
    return (RUNTIME + f'#line 1 "<planned .metal>"\n{shared_locals(metal)}\n#line 1 "<driver>"\n' + _LAUNCH + "\n".join(entries)
            + "\n")


def check_reduction(name: str, metal: str, include_root: str | Path, types: tuple[str, ...] = ()) -> TryResult:
    """Each registered dtype of reduction *name* (sum, mean, amax, amin) against its torch function on the CPU;
    *types*: only those Metal types."""
    from mpsgen.emulate.reference import import_torch

    if name == "norm":  # other kernels: an input and a real output of other types, the ord
        from mpsgen.emulate.norm_check import check_norm

        return check_norm(metal, include_root, types)
    if name == "aminmax":  # one kernel, two outputs
        from mpsgen.emulate.aminmax_check import check_aminmax

        return check_aminmax(metal, include_root, types)
    torch = import_torch()
    cxx = find_compiler()
    regs = tuple(r for r in registrations(metal) if r[0] == name and (not types or r[2] in types))
    if not regs:
        raise MpsgenError(f"the planned ReduceOps.metal registers no reduce_{name}_<T> kernel")
    lib = build_library("reduce", _driver(metal, regs), emulation_argv(cxx, include_root))
    op = BY_NAME[name]
    rows = tuple(_check_dtype(name, op.reference, t, lib, torch) for _, _, t in regs)
    return TryResult(f"{name} ({op.stub})", f"{op.reference}: {TOLERANCE if name in SUMMED else EXACT}",
                     f"emulated ({cxx[0]}, threadgroups of up to {MAX_THREADS} threads)", rows)


def _values(torch: Any, shape: tuple[int, ...], dtype: str, seed: int, name: str) -> Any:
    gen = torch.Generator().manual_seed(seed)
    tdtype = getattr(torch, dtype)
    if name in ("all", "any"):  # mostly nonzero, with elements of only nonzero or only zero inputs
        x = torch.randint(0, 8, shape, generator=gen) * torch.randint(1, 3, shape, generator=gen)
        if shape == (4, 70):
            x[0], x[1] = 5, 0
        elif shape == (2, 300):
            x[0], x[0, 299], x[1] = 0, 1, 2
        return x.to(tdtype)
    if dtype == "bool":
        return torch.randint(0, 2, shape, generator=gen).bool()
    if dtype in ("float32", "float16", "bfloat16", "complex64"):
        x = (torch.randn(shape, generator=gen, dtype=torch.complex64 if dtype == "complex64" else torch.float32) * 4)
        flat = x.view(-1)
        if dtype != "complex64" and 280 <= flat.numel() < 1000:  # a NaN, an inf, both infinities, in different
            # elements (the 1000-element case stays finite: a long sum's rounding)
            flat[5], flat[80], flat[150], flat[151] = math.nan, math.inf, math.inf, -math.inf
        if dtype != "complex64" and shape == (70, 3):
            x[:, 2] = -math.inf  # an element whose inputs are all -inf: the identity must not show
        return x.to(tdtype)
    info = torch.iinfo(tdtype)
    low, high = (info.min, info.max) if dtype != "int64" else (-(2 ** 62), 2 ** 62)
    return torch.randint(low, high, shape, generator=gen, dtype=torch.int64).to(tdtype)


def _reference(torch: Any, reference: str, x: Any, dims: tuple[int, ...], dtype: str) -> Any:
    fn = getattr(torch, reference.removeprefix("torch."))
    return fn(x, dims, dtype=getattr(torch, dtype)) if reference == "torch.sum" else fn(x, dims)


def _check_dtype(name: str, reference: str, t: str, lib: ctypes.CDLL, torch: Any) -> DtypeResult:
    dtype, _ = TYPES[t]
    host = torch.float32 if t in ("half", "bfloat") else getattr(torch, dtype)
    mismatches: list[Mismatch] = []
    values, worst, worst_ratio, worst_at, broken = 0, 0.0, 0.0, "", False
    for k, (shape, dims, transposed) in enumerate(CASES):
        base = _values(torch, shape[::-1] if transposed else shape, dtype, seed=k, name=name)
        x = base.t() if transposed else base
        at = launch(x, dims)
        out_dims, out_shape, groups, length, threads = at.out_dims, at.out_shape, at.groups, at.length, at.threads
        sizes, in_strides, o_strides = at.sizes, at.in_strides, at.out_strides()
        storage = base.contiguous().to(host)
        out = torch.zeros(groups, dtype=host)
        rc = getattr(lib, f"mpsgen_reduce_{name}_{t}")(
            ctypes.c_void_p(storage.data_ptr()), ctypes.c_void_p(out.data_ptr()), sizes, in_strides, o_strides,
            len(out_dims), len(dims), groups, threads, ctypes.c_ulong(storage.numel()), ctypes.c_ulong(groups))
        broken = broken or rc != 0
        got = out.to(getattr(torch, dtype)).view(-1)
        expected = _reference(torch, reference, x, dims, dtype).reshape(-1)
        summed = name in SUMMED and dtype in OUT_EPS  # exact otherwise
        parts = (x.real, x.imag) if dtype == "complex64" else (x,)
        # Σ|x| without the NaNs (nansum leaves them out; where sum meets one, both sides must be NaN)
        sums = [q.to(torch.float64).abs().nansum(dim=dims).reshape(-1).tolist() for q in parts] if summed else []
        expected_items, got_items = expected.tolist(), got.tolist()
        for i in range(groups):
            values += 1
            where = f"{tuple(shape)}{'.t()' if transposed else ''} dim={dims} element {i}"
            e_item, g_item = expected_items[i], got_items[i]
            if not summed:
                if not (e_item == g_item or (is_nan(e_item) and is_nan(g_item))):
                    mismatches.append(Mismatch((where,), repr(e_item), repr(g_item)))
                continue
            for p, (e, g) in enumerate(_components(e_item, g_item)):
                s = sums[p][i]
                tol = 2 * length * ACC_EPS * s / (length if name == "mean" else 1) + OUT_EPS[dtype] * abs(e) \
                    + OUT_TINY[dtype] if math.isfinite(s) else 0.0  # an infinite input: inf or NaN, exactly
                err = abs_error(e, g)
                if err > tol or math.isinf(err):
                    mismatches.append(Mismatch((where,), repr(e_item), repr(g_item)))
                    break
                if tol and err / tol > worst_ratio:
                    worst_ratio, worst, worst_at = err / tol, err, where
    note = "a threadgroup barrier was never reached by every thread (diverged simd_* or barrier calls)" if broken else ""
    return DtypeResult(dtype, dtype, values, len(mismatches) + (1 if broken else 0), worst, 0.0, worst_at,
                       tuple(mismatches[:3]), note=note)


def _components(e: Any, g: Any) -> tuple[tuple[float, float], ...]:
    if isinstance(e, complex) or isinstance(g, complex):
        return ((complex(e).real, complex(g).real), (complex(e).imag, complex(g).imag))
    return ((float(e), float(g)),)
