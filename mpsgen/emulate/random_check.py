"""The numeric check of the random kind (plan/random_code.py): the planned .metal's `<name>_dense_<T>` and
`<name>_strided_<T>`, compiled under the Metal emulation, seeded as the host seeds them, tested per dtype
against torch CPU's distribution with the same parameters.

A sampler agrees with the CPU when, for every parameter set: the sample mean and variance are within
Z standard errors of the distribution's (the bound derived from the sample size, widened by the dtype's
rounding), a two-sample Kolmogorov-Smirnov test against torch CPU's own draws does not reject at
p = 0.001, every value is in range (uniform_: in [from, to), never `to`), two runs with one seed and
offset are equal byte for byte and two offsets differ, and the strided kernel writes the dense kernel's
value of each logical index at its place and nothing else.

The key and counter the kernels receive are computed as the host computes them: the MPS generator's
Philox engine (torch's own ATen/core/PhiloxRNGEngine.h, compiled here) seeded, set to the offset, then
stepped once (update_philox_counters: four words), the words packed into (key, counter base).
"""

from __future__ import annotations

import ctypes
import math
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from mpsgen.emulate.compare import DtypeResult, Mismatch, TryResult
from mpsgen.emulate.compile import FLAGS, cache_dir, emulation_argv, find_compiler

if TYPE_CHECKING:
    import torch

TYPES = {"float32": "float", "float16": "half", "bfloat16": "bfloat"}  # the distribution stubs' dtypes on MPS
N = 4096  # draws per parameter set
Z = 5.0  # standard errors a moment may be off
KS_C = 1.949  # c(alpha) of the two-sample KS test at alpha = 0.001
SEED = 20260429
# The parameter sets per op: uniform_'s (from, to): the unit interval, a shifted one, and one where
# float rounding reaches `to` in half/bfloat; normal_'s (mean, std).
PARAMS: dict[str, tuple[tuple[float, ...], ...]] = {
    "uniform_": ((0.0, 1.0), (-3.0, 5.0), (1000.0, 1001.0)), "normal_": ((0.0, 1.0), (3.0, 0.5), (-2.0, 4.0)),
    "exponential_": ((1.0,), (0.5,), (4.0,))}  # exponential_'s lambda
_SIZES, _STRIDES, _BASE = (4, 3), (6, 2), 24  # the strided case: base[:, ::2] of a 4x6 output


class Sampler(NamedTuple):
    """One random kernel's facts the check needs: its name, the op torch compares with."""

    kernel: str  # uniform -> uniform_dense_<T>
    op: str  # uniform_


def _driver(kernel: str, metal: str) -> str:
    calls = []
    for mt in TYPES.values():
        calls.append(f"""extern "C" void mpsgen_dense_{mt}(float* out, long key, long base, float lo, float hi,
                                   unsigned n) {{
  {mt}* buf = new {mt}[n];
  const long2 state(key, base);
  const float2 params(lo, hi);
  for (unsigned i = 0; i < n; ++i) {kernel}_dense<{mt}>(buf, state, params, i);
  for (unsigned i = 0; i < n; ++i) out[i] = float(buf[i]);
  delete[] buf;
}}
extern "C" void mpsgen_strided_{mt}(float* out, long key, long base, float lo, float hi, const long* sizes,
                                     const long* strides, unsigned ndim, unsigned threads, unsigned total) {{
  {mt}* buf = new {mt}[total];
  for (unsigned i = 0; i < total; ++i) buf[i] = {mt}(-7.0f);  // untouched elements stay -7
  const long2 state(key, base);
  const float2 params(lo, hi);
  const uint ndim_ = ndim;
  for (unsigned i = 0; i < threads; ++i) {kernel}_strided<{mt}>(buf, state, params, sizes, strides, ndim_, i);
  for (unsigned i = 0; i < total; ++i) out[i] = float(buf[i]);
  delete[] buf;
}}""")
    calls.append("""extern "C" void mpsgen_philox(long seed, long index, unsigned* out) {
  const uint4 v = c10::metal::philox4::rand(seed, index);
  out[0] = v.x; out[1] = v.y; out[2] = v.z; out[3] = v.w;
}""")
    return f'#line 1 "<planned .metal>"\n{metal}\n#line 1 "<driver>"\n' + "\n".join(calls) + "\n"


# The host kernel's seeding, with torch's own Philox engine: seed, offset, one update_philox_counters.
_STATE = r"""
#include <ATen/core/PhiloxRNGEngine.h>
#include <cstdint>
extern "C" void mpsgen_state(unsigned long long seed, unsigned long long offset, long long* out) {
  at::Philox4_32 engine(seed, 0, 0);
  engine.set_offset(offset);
  uint32_t words[5] = {1, 0, 0, 0, 0};
  for (int i = 1; i <= 4; i++) words[i] = engine();
  out[0] = (int64_t(words[1]) << 32) | words[2];
  out[1] = (int64_t(words[3]) << 32) | words[4];
}
// c10::metal::philox4::rand(seed, index): counter (0, 0, hi(index), lo(index)), key (hi(seed), lo(seed)),
// nine rounds (its multiple_rounds(ctr, key, 10) stops one short); torch's engine holds counter
// (offset, subsequence) and key (lo(seed), hi(seed)) in 32-bit words, lowest first.
extern "C" void mpsgen_philox_ref(unsigned long long seed, unsigned long long index, unsigned* out) {
  const auto swap = [](uint64_t v) { return (v << 32) | (v >> 32); };
  at::Philox4_32 engine(swap(seed), swap(index), 0);
  for (int i = 0; i < 4; i++) out[i] = engine(9);
}
"""
# (seed, index) pairs of the round's bit-exact check: zeros, all ones, carries, arbitrary words
PHILOX_CASES = ((0, 0), (-1, -1), (1, 0xFFFFFFFF), (0x243F6A8885A308D3, 0x13198A2E03707344), (SEED, 12345))


def state_for(lib: ctypes.CDLL, seed: int, offset: int) -> tuple[int, int]:
    out = (ctypes.c_longlong * 2)()
    lib.mpsgen_state(ctypes.c_ulonglong(seed), ctypes.c_ulonglong(offset), out)
    return out[0], out[1]


def check_random(sampler: Sampler, metal: str, include_root: str | Path) -> TryResult:
    """Each dtype's kernels against torch CPU's sampler (see the module's docstring), compiled against
    *include_root*'s c10/metal (the checkout's, or the overlay of the headers the change plans)."""
    from mpsgen.emulate.fill_check import build_library  # one build cache and rename-into-place for both checks
    from mpsgen.emulate.reference import import_torch

    torch = import_torch()
    cxx = find_compiler()
    kernels = build_library("random", _driver(sampler.kernel, metal), emulation_argv(cxx, include_root))
    torch_dir = Path(torch.__file__).parent
    host_flags = [f for f in FLAGS if f != "-fwrapv"]
    state = build_library("philox", _STATE, [*cxx, *host_flags, "-I", str(torch_dir / "include")])
    philox = _philox_mismatch(kernels, state)
    if philox is not None:  # every dtype draws from the round: none agrees
        rows = tuple(DtypeResult(dtype, dtype, len(PHILOX_CASES), 1, 0.0, 0.0, philox.inputs[0], (philox,))
                     for dtype in TYPES)
    else:
        rows = tuple(_check_dtype(sampler, dtype, mt, kernels, state, torch) for dtype, mt in TYPES.items())
    shown = {"uniform_": "in [from, to) and never `to`", "exponential_": "in [0, inf)"}.get(sampler.op, "finite")
    what = (f"torch.Tensor.{sampler.op} on the CPU in distribution (mean and variance within {Z:g} standard errors, "
            f"two-sample KS at p=0.001; {N} draws x {len(PARAMS[sampler.op])} parameter sets), {shown}, "
            "bit-reproducible for one seed and offset and different for another")
    return TryResult(sampler.op, what, f"emulated ({cxx[0]})", rows)


def _philox_mismatch(kernels: ctypes.CDLL, state: ctypes.CDLL) -> Mismatch | None:
    """The first (seed, index) whose c10::metal::philox4::rand differs from torch's Philox4_32, or None."""
    for seed, index in PHILOX_CASES:
        got, want = (ctypes.c_uint * 4)(), (ctypes.c_uint * 4)()
        kernels.mpsgen_philox(ctypes.c_long(seed), ctypes.c_long(index), got)
        state.mpsgen_philox_ref(ctypes.c_ulonglong(seed & (2**64 - 1)), ctypes.c_ulonglong(index & (2**64 - 1)), want)
        if list(got) != list(want):
            return Mismatch((f"philox4::rand({seed:#x}, {index:#x})", "Philox4_32"),
                            " ".join(f"{w:08x}" for w in want), " ".join(f"{g:08x}" for g in got))
    return None


def _draw(kernels: ctypes.CDLL, mt: str, key: int, base: int, lo: float, hi: float, n: int = N) -> list[float]:
    out = (ctypes.c_float * n)()
    getattr(kernels, f"mpsgen_dense_{mt}")(out, ctypes.c_long(key), ctypes.c_long(base), ctypes.c_float(lo),
                                           ctypes.c_float(hi), n)
    return list(out)


def _check_dtype(sampler: Sampler, dtype: str, mt: str, kernels: ctypes.CDLL, state: ctypes.CDLL,
                 torch) -> DtypeResult:
    tdtype = getattr(torch, dtype)
    problems: list[Mismatch] = []
    values = 0
    sets = PARAMS[sampler.op]
    for k, given in enumerate(sets):
        lo, hi = (*given, 0.0)[:2]  # the kernels' float2 (one parameter: the second is 0)
        key, base = state_for(state, SEED, k)
        got = _draw(kernels, mt, key, base, lo, hi)
        values += len(got)
        drawn_by = getattr(torch.empty(N, dtype=tdtype), sampler.op)
        ref = drawn_by(*given, generator=torch.Generator().manual_seed(SEED + k))
        if sampler.op == "uniform_":
            shown = (f"{dtype} from={lo:g} to={hi:g}",)
            lo_t, hi_t = float(torch.tensor(lo, dtype=tdtype)), float(torch.tensor(hi, dtype=tdtype))
            outside = [v for v in got if not (lo_t <= v < hi_t or lo_t == hi_t == v)]
            if outside:
                problems.append(Mismatch((*shown, "range"), f"[{lo_t:g}, {hi_t:g})", f"{outside[0]!r}"))
            spacing = _spacing(torch, tdtype, max(abs(lo_t), abs(hi_t)))
            degenerate = lo_t == hi_t  # one value only (bfloat's 1000 and 1001): no two offsets can differ
            problems.extend(_moments(got, (lo_t + hi_t) / 2, (hi_t - lo_t) ** 2 / 12,
                                     (hi_t - lo_t) ** 4 / 80, spacing, shown))
        elif sampler.op == "exponential_":  # lambda: mean 1/lambda, variance 1/lambda^2, mu4 9/lambda^4
            shown = (f"{dtype} lambda={lo:g}",)
            outside = [v for v in got if not 0.0 <= v < math.inf]
            if outside:
                problems.append(Mismatch((*shown, "range"), "[0, inf)", f"{outside[0]!r}"))
            spacing = _spacing(torch, tdtype, 20.0 / lo)
            degenerate = False
            problems.extend(_moments(got, 1 / lo, 1 / lo ** 2, 9 / lo ** 4, spacing, shown))
        else:  # normal_: mean, std
            shown = (f"{dtype} mean={lo:g} std={hi:g}",)
            if not all(math.isfinite(v) for v in got):
                problems.append(Mismatch((*shown, "range"), "finite values", "inf or nan"))
            spacing = _spacing(torch, tdtype, abs(lo) + 6 * hi)
            degenerate = hi == 0
            problems.extend(_moments(got, lo, hi * hi, 3 * hi ** 4, spacing, shown))
        d = _ks(got, [float(v) for v in ref.float().tolist()])
        if d > KS_C * math.sqrt(2.0 / N):
            problems.append(Mismatch((*shown, "KS"), f"D <= {KS_C * math.sqrt(2.0 / N):.4f}", f"D = {d:.4f}"))
        if _draw(kernels, mt, key, base, lo, hi) != got:
            problems.append(Mismatch((*shown, "same seed and offset"), "equal runs", "different runs"))
        other = state_for(state, SEED, k + len(sets))
        if not degenerate and _draw(kernels, mt, *other, lo, hi) == got:
            problems.append(Mismatch((*shown, "another offset"), "different values", "the same values"))
        problems.extend(_strided(kernels, mt, key, base, lo, hi, shown))
    return DtypeResult(dtype, dtype, values, len(problems), 0.0, 0.0, problems[0].inputs[0] if problems else "",
                       tuple(problems[:3]))


def _spacing(torch, tdtype, magnitude: float) -> float:
    """The distance between neighbouring values of *tdtype* near *magnitude* (its rounding's scale)."""
    eps = torch.finfo(tdtype).eps
    return eps * max(1.0, 2.0 ** math.floor(math.log2(magnitude))) if magnitude > 0 else eps


def _moments(got: list[float], want_mean: float, want_var: float, mu4: float, spacing: float,
             shown: tuple[str, ...]) -> list[Mismatch]:
    """Mean and variance within Z standard errors of the distribution's (*mu4*: its fourth central moment,
    uniform: width^4 / 80, normal: 3 sigma^4), widened by the dtype's rounding (*spacing*)."""
    n = len(got)
    mean = sum(got) / n
    var = sum((v - mean) ** 2 for v in got) / (n - 1)
    mean_bound = Z * math.sqrt(want_var / n) + spacing
    # Var(s^2) ~ (mu4 - sigma^4) / n
    var_bound = Z * math.sqrt((mu4 - want_var ** 2) / n) + 2 * spacing * math.sqrt(12 * want_var)
    out = []
    if abs(mean - want_mean) > mean_bound:
        out.append(Mismatch((*shown, "mean"), f"{want_mean:g} +- {mean_bound:.3g}", f"{mean:g}"))
    if abs(var - want_var) > var_bound:
        out.append(Mismatch((*shown, "variance"), f"{want_var:g} +- {var_bound:.3g}", f"{var:g}"))
    return out


def _ks(a: list[float], b: list[float]) -> float:
    """The two-sample Kolmogorov-Smirnov statistic: the largest gap between the empirical CDFs."""
    xs, ys = sorted(a), sorted(b)
    i = j = 0
    d = 0.0
    while i < len(xs) and j < len(ys):
        x = min(xs[i], ys[j])
        while i < len(xs) and xs[i] == x:
            i += 1
        while j < len(ys) and ys[j] == x:
            j += 1
        d = max(d, abs(i / len(xs) - j / len(ys)))
    return d


def _strided(kernels: ctypes.CDLL, mt: str, key: int, base: int, lo: float, hi: float,
             shown: tuple[str, ...]) -> list[Mismatch]:
    """base[:, ::2] of a 4x6 output: logical element i holds the dense kernel's element i, the rest untouched."""
    threads = _SIZES[0] * _SIZES[1]
    out = (ctypes.c_float * _BASE)()
    sizes, strides = (ctypes.c_long * 2)(*_SIZES), (ctypes.c_long * 2)(*_STRIDES)
    getattr(kernels, f"mpsgen_strided_{mt}")(out, ctypes.c_long(key), ctypes.c_long(base), ctypes.c_float(lo),
                                             ctypes.c_float(hi), sizes, strides, 2, threads, _BASE)
    dense = _draw(kernels, mt, key, base, lo, hi, threads)
    want = [-7.0] * _BASE
    for i in range(threads):
        want[(i // _SIZES[1]) * _STRIDES[0] + (i % _SIZES[1]) * _STRIDES[1]] = dense[i]
    if list(out) != want:
        return [Mismatch((*shown, "strided"), "the dense values at their places", "other values")]
    return []


def check_planned_random(plan, changeset, root: str | Path) -> TryResult:
    """*plan*'s (plan/result.Plan, kind "random") planned .metal, against the c10/metal the change leaves."""
    from mpsgen.emulate.overlay import include_root, planned_headers

    return check_random(Sampler(plan.kernel, plan.random.op), changeset.current(plan.random.metal_path),
                        include_root(root, planned_headers(changeset), cache_dir()))
