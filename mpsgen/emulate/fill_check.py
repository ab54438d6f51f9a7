"""The numeric check of the nullary kind (plan/nullary_code.py): the planned .metal's `<name>_dense_<T>` and
`<name>_strided_<T>`, compiled under the Metal emulation, fed the value as the host binds it, against torch
CPU's fill_ on the same dense and strided outputs, byte for byte.

The host passes getMPSScalar(value, dtype): `Scalar::to<T>` of the output's dtype (double -> float).  That
conversion is compiled from c10's own headers (torch's, linked with libc10: its overflow check throws as
the CPU kernel's does) in a second library, so the check covers the conversion the kernel receives (bool,
integer wrap and overflow, half/bfloat16 rounding, complex), the type each dtype's kernel is instantiated
for, and the strided kernel's indexing.
"""

from __future__ import annotations

import ctypes
import math
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mpsgen.emulate.compare import DtypeResult, Mismatch, TryResult
from mpsgen.emulate.host_library import CONVERTED, build_library, scalar_converter
from mpsgen.emulate.compile import emulation_argv, find_compiler

if TYPE_CHECKING:
    import torch

# torch dtype -> (Metal type of its kernels, the C++ type getMPSScalar converts to with Scalar::to<T>)
TYPES = {"float32": ("float", "float"), "float16": ("half", "c10::Half"), "bfloat16": ("bfloat", "c10::BFloat16"),
         "int64": ("long", "int64_t"), "int32": ("int", "int32_t"), "int16": ("short", "int16_t"),
         "int8": ("char", "int8_t"), "uint8": ("uchar", "uint8_t"), "bool": ("bool", "bool"),
         "complex64": ("float2", "c10::complex<float>")}
# (real, imag, kind): kind 0 a double, 1 an int64, 2 a bool, 3 a complex; edge values of every dtype
VALUES = ((0.0, 0, 0), (-0.0, 0, 0), (1.0, 0, 0), (2.5, 0, 0), (-1.0, 0, 0), (65504.9, 0, 0), (1e10, 0, 0),
          (3.14159265358979, 0, 0), (math.inf, 0, 0), (-math.inf, 0, 0), (math.nan, 0, 0), (1e-8, 0, 0),
          (0, 0, 1), (-1, 0, 1), (127, 0, 1), (128, 0, 1), (-129, 0, 1), (255, 0, 1), (256, 0, 1),
          (-300, 0, 1), (2**31, 0, 1), (2**53 + 1, 0, 1), (-(2**63), 0, 1), (1, 0, 2), (0, 0, 2),
          (1.5, -2.0, 3), (0.0, 0.0, 3), (3.0, 0.0, 3))
_SIZES, _STRIDES, _BASE = (4, 3), (6, 2), 24  # the strided case: base[:, ::2] of a 4x6 output
_N = 8


# The emulation's half and bfloat hold a float (mpsgen/emulate/include/metal_stdlib): each element goes
# through an emulated buffer, read from and written back to the 16-bit storage torch has.
_STORAGE = r"""
#include <cmath>
#include <cstdint>
#include <cstring>
static float mpsgen_half_to_float(uint16_t h) {
  const uint32_t sign = (h & 0x8000u) << 16, exp = (h >> 10) & 0x1f, man = h & 0x3ff;
  float f;
  if (exp == 0x1f) { const uint32_t b = sign | 0x7f800000u | (man << 13); std::memcpy(&f, &b, 4); return f; }
  f = exp == 0 ? std::ldexp(float(man), -24) : std::ldexp(float(man | 0x400), int(exp) - 25);
  return sign ? -f : f;
}
static uint16_t mpsgen_float_to_half(float f) {  // f is exactly a half value (the emulation rounds)
  uint32_t b; std::memcpy(&b, &f, 4);
  const uint16_t sign = (b >> 16) & 0x8000u;
  if (f != f) return sign | 0x7e00u;
  const float a = std::fabs(f);
  if (a == INFINITY) return sign | 0x7c00u;
  if (a < 6.103515625e-05f) return sign | uint16_t(a * 16777216.0f);  // subnormal: multiples of 2^-24
  int e; const float m = std::frexp(a, &e);  // a = m * 2^e, m in [0.5, 1)
  return sign | uint16_t((e + 14) << 10) | uint16_t((m * 2048.0f) - 1024.0f);
}
template <typename T> struct Storage {
  static constexpr unsigned size = sizeof(T);
  static T read(const void* p) { T v; std::memcpy(&v, p, sizeof v); return v; }
  static void write(void* p, T v) { std::memcpy(p, &v, sizeof v); }
};
template <> struct Storage<half> {
  static constexpr unsigned size = 2;
  static half read(const void* p) { uint16_t h; std::memcpy(&h, p, 2); return half(mpsgen_half_to_float(h)); }
  static void write(void* p, half v) { const uint16_t h = mpsgen_float_to_half(float(v)); std::memcpy(p, &h, 2); }
};
template <> struct Storage<bfloat> {
  static constexpr unsigned size = 2;
  static bfloat read(const void* p) { uint16_t h; std::memcpy(&h, p, 2); const uint32_t b = uint32_t(h) << 16;
    float f; std::memcpy(&f, &b, 4); return bfloat(f); }
  static void write(void* p, bfloat v) { const float f = float(v); uint32_t b; std::memcpy(&b, &f, 4);
    const uint16_t h = (f != f) ? uint16_t((b >> 16) | 0x40u) : uint16_t(b >> 16); std::memcpy(p, &h, 2); }
};
template <typename T> T* mpsgen_load(const void* out, unsigned total) {  // <memory> meets `#define constant`
  T* buf = new T[total];
  for (unsigned i = 0; i < total; ++i) buf[i] = Storage<T>::read((const char*)out + i * Storage<T>::size);
  return buf;
}
template <typename T> void mpsgen_store(void* out, T* buf, unsigned total) {
  for (unsigned i = 0; i < total; ++i) Storage<T>::write((char*)out + i * Storage<T>::size, buf[i]);
  delete[] buf;
}
"""


def _driver(kernel: str, metal: str) -> str:
    calls = []
    for mt, _ in TYPES.values():
        calls.append(f"""extern "C" void mpsgen_dense_{mt}(void* out, const void* value, unsigned n) {{
  auto buf = mpsgen_load<{mt}>(out, n);
  const {mt} v = Storage<{mt}>::read(value);
  for (unsigned i = 0; i < n; ++i) {kernel}_dense<{mt}>(buf, v, i);
  mpsgen_store(out, buf, n);
}}
extern "C" void mpsgen_strided_{mt}(void* out, const void* value, const long* sizes, const long* strides,
                                    unsigned ndim, unsigned threads, unsigned total) {{
  auto buf = mpsgen_load<{mt}>(out, total);
  const {mt} v = Storage<{mt}>::read(value);
  const uint ndim_ = ndim;
  for (unsigned i = 0; i < threads; ++i) {kernel}_strided<{mt}>(buf, v, sizes, strides, ndim_, i);
  mpsgen_store(out, buf, total);
}}""")
    return f'#line 1 "<planned .metal>"\n{metal}\n#line 1 "<driver>"\n' + _STORAGE + "\n".join(calls) + "\n"


def check_fill(kernel: str, metal: str, include_root: str | Path) -> TryResult:
    """Each dtype's kernels against `torch.Tensor.fill_` on the CPU, for every value of VALUES."""
    from mpsgen.emulate.reference import import_torch

    torch = import_torch()  # the installed torch, not the checkout's source folder
    cxx = find_compiler()
    kernels = build_library("kernels", _driver(kernel, metal), emulation_argv(cxx, include_root))
    convert = scalar_converter(cxx, torch)
    rows = tuple(_check_dtype(CONVERTED.index(cpp), dtype, mt, kernels, convert, torch)
                 for dtype, (mt, cpp) in TYPES.items())
    return TryResult(f"{kernel}_", "torch.Tensor.fill_", f"emulated ({cxx[0]})", rows)


def _check_dtype(k: int, dtype: str, mt: str, kernels: ctypes.CDLL, convert: ctypes.CDLL, torch: Any) -> DtypeResult:
    tdtype = getattr(torch, dtype)
    mismatches: list[Mismatch] = []
    values = 0
    for re_, im, kind in VALUES:
        scalar = (int(re_) if kind == 1 else bool(re_) if kind == 2 else complex(re_, im) if kind == 3 else re_)
        shown = repr(scalar)
        buf = ctypes.create_string_buffer(16)
        size = convert.mpsgen_to(k, ctypes.c_double(re_ if kind != 1 else 0.0), ctypes.c_double(im),
                                 ctypes.c_longlong(int(re_) if kind in (1, 2) else 0), kind, buf)
        for strided in (False, True):
            values += 1
            expected = _cpu(torch, tdtype, scalar, strided)
            got = None if size < 0 else _kernel(kernels, mt, buf, strided, tdtype)
            if (expected is None) != (got is None) or (expected is not None and expected != got):
                what = "strided" if strided else "dense"
                mismatches.append(Mismatch((f"{shown} ({what})",), "raises" if expected is None else expected.hex()[:24],
                                           "raises" if got is None else got.hex()[:24]))
    return DtypeResult(dtype, dtype, values, len(mismatches), 0.0, 0.0, mismatches[0].inputs[0] if mismatches else "",
                       tuple(mismatches[:3]))


def _cpu(torch: Any, tdtype: Any, scalar: float | bool | complex, strided: bool) -> bytes | None:
    base = torch.zeros(_BASE if strided else _N, dtype=tdtype)
    try:
        (base.view(4, 6)[:, ::2] if strided else base).fill_(scalar)
    except RuntimeError:
        return None
    return bytes(base.view(torch.uint8).tolist())


def _kernel(kernels: ctypes.CDLL, mt: str, value: ctypes.Array[ctypes.c_char], strided: bool, tdtype: Any) -> bytes:
    raw = ctypes.create_string_buffer((_BASE if strided else _N) * tdtype.itemsize)  # zeros, as torch.zeros
    out = ctypes.cast(raw, ctypes.c_void_p)
    if strided:
        sizes, strides = (ctypes.c_long * 2)(*_SIZES), (ctypes.c_long * 2)(*_STRIDES)
        getattr(kernels, f"mpsgen_strided_{mt}")(out, value, sizes, strides, 2, _SIZES[0] * _SIZES[1], _BASE)
    else:
        getattr(kernels, f"mpsgen_dense_{mt}")(out, value, _N)
    return raw.raw
