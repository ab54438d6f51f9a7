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
from typing import TYPE_CHECKING, Any

from mpsgen.emulate.compare import DtypeResult, Mismatch, TryResult
from mpsgen.emulate.compile import FLAGS, cache_dir, emulation_argv, find_compiler
from mpsgen.emulate.sample_stats import Z
from mpsgen.records import NamedTuple

if TYPE_CHECKING:
    from mpsgen.plan.result import Plan
    from mpsgen.tree.changeset import Changeset
    import torch

TYPES = {"float32": "float", "float16": "half", "bfloat16": "bfloat"}  # the distribution stubs' dtypes on MPS
ALL_TYPES = {**TYPES, "int64": "long", "int32": "int", "int16": "short", "int8": "char", "uint8": "uchar",
             "bool": "bool"}  # bernoulli's: every real dtype
N = 4096  # draws per parameter set
SEED = 20260429
# The parameter sets per op: uniform_'s (from, to): the unit interval, a shifted one, and one where
# float rounding reaches `to` in half/bfloat; normal_'s (mean, std).
PARAMS: dict[str, tuple[tuple[float, ...], ...]] = {
    "uniform_": ((0.0, 1.0), (-3.0, 5.0), (1000.0, 1001.0)), "normal_": ((0.0, 1.0), (3.0, 0.5), (-2.0, 4.0)),
    "exponential_": ((1.0,), (0.5,), (4.0,)),  # exponential_'s lambda
    "bernoulli_scalar": ((0.5,), (0.1,), (0.0,), (1.0,)), "bernoulli_tensor": ((0.0,),),  # p (tensor: per element)
    # random_: none; random_(from, to): a set the dtype cannot hold is skipped (as the CPU refuses it)
    "random": ((),), "random_from_to": ((0, 2), (1, 100), (-3, 7)), "random_full_64": ((),)}
_SIZES, _STRIDES, _BASE = (4, 3), (6, 2), 24  # the strided case: base[:, ::2] of a 4x6 output


class Sampler(NamedTuple):
    """One random kernel's facts the check needs: its name, the op torch compares with."""

    kernel: str  # uniform -> uniform_dense_<T>
    op: str  # uniform_

    @property
    def with_p(self) -> bool:
        """Its kernels read a probability per element (bernoulli_tensor)."""
        return self.kernel == "bernoulli_tensor"

    @property
    def types(self) -> dict[str, str]:
        if self.kernel == "random_full_64":
            return {"float32": "float", "bfloat16": "bfloat", "int64": "long"}
        return ALL_TYPES if self.kernel.startswith(("bernoulli", "random")) else TYPES

    @property
    def integer(self) -> bool:
        """Its params are 64-bit integers (random_from_to's range and base), not floats."""
        return self.kernel.startswith("random")


def _driver(sampler: Sampler, metal: str) -> str:
    kernel, calls = sampler.kernel, []
    ptype, pc = ("long2", "long") if sampler.integer else ("float2", "float")
    probs, dense_p, strided_p = ((", const float* probs", " probs,", " probs,") if sampler.with_p else ("", "", ""))
    for mt in sampler.types.values():
        calls.append(f"""extern "C" void mpsgen_dense_{mt}(float* out, long key, long base, {pc} lo, {pc} hi,
                                   unsigned n{probs}) {{
  {mt}* buf = new {mt}[n];
  const long2 state(key, base);
  const {ptype} params(lo, hi);
  for (unsigned i = 0; i < n; ++i) {kernel}_dense<{mt}>(buf, state, params,{dense_p} i);
  for (unsigned i = 0; i < n; ++i) out[i] = float(buf[i]);
  delete[] buf;
}}
extern "C" void mpsgen_strided_{mt}(float* out, long key, long base, {pc} lo, {pc} hi, const long* sizes,
                                     const long* strides, unsigned ndim, unsigned threads, unsigned total,
                                     float fill{probs}) {{
  {mt}* buf = new {mt}[total];
  for (unsigned i = 0; i < total; ++i) buf[i] = {mt}(fill);  // what no thread writes keeps *fill*
  const long2 state(key, base);
  const {ptype} params(lo, hi);
  const uint ndim_ = ndim;
  for (unsigned i = 0; i < threads; ++i)
    {kernel}_strided<{mt}>(buf, state, params,{strided_p} sizes, strides, ndim_, i);
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
    from mpsgen.emulate.host_library import build_library  # one build cache and rename-into-place for the kinds' checks
    from mpsgen.emulate.reference import import_torch

    torch = import_torch()
    cxx = find_compiler()
    kernels = build_library("random", _driver(sampler, metal), emulation_argv(cxx, include_root))
    torch_dir = Path(torch.__file__).parent
    host_flags = [f for f in FLAGS if f != "-fwrapv"]
    state = build_library("philox", _STATE, [*cxx, *host_flags, "-I", str(torch_dir / "include")])
    philox = _philox_mismatch(kernels, state)
    if philox is not None:  # every dtype draws from the round: none agrees
        rows = tuple(DtypeResult(dtype, dtype, len(PHILOX_CASES), 1, 0.0, 0.0, philox.inputs[0], (philox,))
                     for dtype in sampler.types)
    else:
        rows = tuple(_check_dtype(sampler, dtype, mt, kernels, state, torch) for dtype, mt in sampler.types.items())
    return TryResult(sampler.op, _described(sampler), f"emulated ({cxx[0]})", rows)


def _described(sampler: Sampler) -> str:
    """What the check tested, for its output line."""
    sets = len(PARAMS.get(sampler.kernel, PARAMS.get(sampler.op, ())))
    if sampler.kernel.startswith("random"):
        ranges = {"random": "[0, 2^digits] or [0, max]", "random_full_64": "the whole int64 range"}.get(
            sampler.kernel, "[from, to) for (0, 2), (1, 100), (-3, 7) where the dtype holds them")
        means = f", mean and variance within {Z:g} standard errors" if sampler.kernel == "random_from_to" else ""
        return (f"torch.Tensor.random_ ({sampler.kernel}) on the CPU in distribution (chi-square of the two samples "
                f"over their values or 16 bands at p=0.001{means}; {N} draws of {ranges}), in range, "
                "bit-reproducible for one seed and offset and different for another")
    if sampler.kernel.startswith("bernoulli"):
        what = ("a p per element, 0 to 1" if sampler.with_p else f"{sets} p") + f"; {N} draws"
        return (f"torch.Tensor.bernoulli_ ({sampler.kernel}) on the CPU in distribution (ones within {Z:g} standard "
                f"errors, chi-square of the two samples at p=0.001; {what}), 0 or 1 only and exact at p = 0 and 1, "
                "bit-reproducible for one seed and offset and different for another")
    shown = {"uniform_": "in [from, to) and never `to`", "exponential_": "in [0, inf)"}.get(sampler.op, "finite")
    return (f"torch.Tensor.{sampler.op} on the CPU in distribution (mean and variance within {Z:g} standard errors, "
            f"two-sample KS at p=0.001; {N} draws x {sets} parameter sets), {shown}, "
            "bit-reproducible for one seed and offset and different for another")


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


def _draw(kernels: ctypes.CDLL, mt: str, key: int, base: int, lo: float, hi: float, n: int = N,
          probs: list[float] | None = None) -> list[float]:
    out = (ctypes.c_float * n)()
    extra = ((ctypes.c_float * n)(*probs[:n]),) if probs is not None else ()
    getattr(kernels, f"mpsgen_dense_{mt}")(out, ctypes.c_long(key), ctypes.c_long(base), *_params(lo, hi), n, *extra)
    return list(out)


def _params(lo: float, hi: float) -> tuple[ctypes.c_long, ctypes.c_long] | tuple[ctypes.c_float, ctypes.c_float]:
    """The kernels' two params as the driver takes them: random_from_to's (range, base) are integers."""
    if isinstance(lo, int) and isinstance(hi, int):
        return ctypes.c_long(lo), ctypes.c_long(hi)
    return ctypes.c_float(lo), ctypes.c_float(hi)


def _check_dtype(sampler: Sampler, dtype: str, mt: str, kernels: ctypes.CDLL, state: ctypes.CDLL,
                 torch: Any) -> DtypeResult:
    from mpsgen.emulate.sample_stats import judge, probabilities

    tdtype = getattr(torch, dtype)
    problems: list[Mismatch] = []
    values = 0
    sets = PARAMS[sampler.kernel if sampler.kernel in PARAMS else sampler.op]
    probs = probabilities(N) if sampler.with_p else None
    for k, given in enumerate(sets):
        lo, hi = _kernel_params(sampler, given)
        drawn_by = getattr(torch.empty(N, dtype=tdtype), sampler.op)
        args = (torch.tensor(probs),) if probs is not None else (-2 ** 63, None) if sampler.kernel == "random_full_64" \
            else given
        try:
            drawn = drawn_by(*args, generator=torch.Generator().manual_seed(SEED + k))
        except RuntimeError:  # random_(from, to) the dtype cannot hold: the CPU refuses it before the stub
            continue
        ref = [float(v) for v in drawn.float().tolist()]
        key, base = state_for(state, SEED, k)
        got = _draw(kernels, mt, key, base, lo, hi, probs=probs)
        values += len(got)
        shown = (f"{dtype} " + " ".join(f"{n}={v:g}" for n, v in zip(_NAMES[sampler.kernel], given)),)
        if sampler.op == "uniform_":  # the bounds as the dtype holds them
            given = tuple(float(torch.tensor(v, dtype=tdtype)) for v in given)
        elif sampler.kernel == "random":  # [0, count): 2^digits + 1 values for floating dtypes, max + 1 else
            count = 2 if tdtype == torch.bool else 2 ** _DIGITS[dtype] + 1 if tdtype.is_floating_point \
                else torch.iinfo(tdtype).max + 1
            given = (0, count)
        problems += judge(sampler.op, sampler.kernel, given, got, ref, _spacing(torch, tdtype, _scale(sampler, given)),
                          shown, probs)
        if _draw(kernels, mt, key, base, lo, hi, probs=probs) != got:
            problems.append(Mismatch((*shown, "same seed and offset"), "equal runs", "different runs"))
        other = state_for(state, SEED, k + len(sets))
        if len(set(got)) > 1 and _draw(kernels, mt, *other, lo, hi, probs=probs) == got:
            problems.append(Mismatch((*shown, "another offset"), "different values", "the same values"))
        problems.extend(_strided(kernels, mt, key, base, lo, hi, shown, probs))
    return DtypeResult(dtype, dtype, values, len(problems), 0.0, 0.0, problems[0].inputs[0] if problems else "",
                       tuple(problems[:3]))


def _kernel_params(sampler: Sampler, given: tuple) -> tuple:
    """The kernels' params for a parameter set: (range, base) of random_(from, to), else the set, 0-padded."""
    if sampler.kernel == "random_from_to":
        return given[1] - given[0], given[0]
    if sampler.integer:
        return 0, 0
    return (*given, 0.0, 0.0)[:2]


_DIGITS = {"float32": 24, "float16": 11, "bfloat16": 8}  # std::numeric_limits<T>::digits

# each parameter set's names as the output line shows them
_NAMES = {"uniform": ("from", "to"), "normal": ("mean", "std"), "exponential": ("lambda",),
          "bernoulli_scalar": ("p",), "bernoulli_tensor": ("p",), "random": (), "random_from_to": ("from", "to"),
          "random_full_64": ()}


def _scale(sampler: Sampler, given: tuple[float, ...]) -> float:
    """The magnitude the sample's values reach (their rounding's scale)."""
    if sampler.op == "uniform_":
        return max(abs(v) for v in given)
    if sampler.op == "exponential_":
        return 20.0 / given[0]
    if sampler.op == "normal_":
        return abs(given[0]) + 6 * given[1]
    return 1.0


def _spacing(torch: Any, tdtype: Any, magnitude: float) -> float:
    """The distance between neighbouring values of *tdtype* near *magnitude* (its rounding's scale)."""
    if not tdtype.is_floating_point:
        return 0.0
    eps = torch.finfo(tdtype).eps
    return eps * max(1.0, 2.0 ** math.floor(math.log2(magnitude))) if magnitude > 0 else eps


def _strided(kernels: ctypes.CDLL, mt: str, key: int, base: int, lo: float, hi: float,
             shown: tuple[str, ...], probs: list[float] | None) -> list[Mismatch]:
    """base[:, ::2] of a 4x6 output: logical element i holds the dense kernel's element i and nothing else is
    written (run twice over outputs filled with 0 and with 1: an element no thread writes keeps each)."""
    threads = _SIZES[0] * _SIZES[1]
    sizes, strides = (ctypes.c_long * 2)(*_SIZES), (ctypes.c_long * 2)(*_STRIDES)
    extra = ((ctypes.c_float * threads)(*probs[:threads]),) if probs is not None else ()
    runs = []
    for fill in (0.0, 1.0):
        out = (ctypes.c_float * _BASE)()
        getattr(kernels, f"mpsgen_strided_{mt}")(out, ctypes.c_long(key), ctypes.c_long(base), *_params(lo, hi),
                                                 sizes, strides, 2, threads, _BASE,
                                                 ctypes.c_float(fill), *extra)
        runs.append(list(out))
    dense = _draw(kernels, mt, key, base, lo, hi, threads, probs)
    want = [[fill] * _BASE for fill in (0.0, 1.0)]
    for i in range(threads):
        at = (i // _SIZES[1]) * _STRIDES[0] + (i % _SIZES[1]) * _STRIDES[1]
        want[0][at] = want[1][at] = dense[i]
    if runs != want:
        return [Mismatch((*shown, "strided"), "the dense values at their places", "other values")]
    return []


def check_planned_random(plan: Plan, changeset: Changeset, root: str | Path) -> TryResult:
    """*plan*'s (kind "random") planned .metal, against the c10/metal the change leaves:
    every sampler it plans (bernoulli: two), their rows together."""
    from mpsgen.emulate.overlay import include_root, planned_headers

    assert plan.random is not None
    metal = changeset.current(plan.random.metal_path)
    where = include_root(root, planned_headers(changeset), cache_dir())
    samplers = [Sampler(k, op) for k, op in plan.random.samplers] or [Sampler(plan.kernel, plan.random.op)]
    results = [check_random(s, metal, where) for s in samplers]
    if len(results) == 1:
        return results[0]
    rows = tuple(r._replace(dtype=f"{s.kernel} {r.dtype}") for s, res in zip(samplers, results) for r in res.rows)
    return TryResult(results[0].op, "; ".join(r.reference for r in results), results[0].backend, rows)
