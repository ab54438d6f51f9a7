"""The numeric check of the indexing kind (plan/indexing_code.py): the planned .metal's `index_fill<T>`,
compiled under the Metal emulation, run over each case of emulate/index_fill_cases.py as the host runs
it (one thread per element of the stub's iterator, the value as getMPSScalar binds it), against torch
CPU's `index_fill_` on the same views, byte for byte over the whole storage.

The value is converted by c10's own Scalar::to<T> (torch's headers, linked with libc10: its overflow
check throws as the CPU kernel's does) in a second library, so the check covers the conversion the
kernel receives and the element size each dtype's kernel is instantiated for.  An index out of range
is not compared: the CPU kernel raises, the Metal kernel writes nothing (said in the plan's notes).
"""

from __future__ import annotations

import ctypes
import warnings
from pathlib import Path
from typing import Any, Callable

from mpsgen.emulate.compare import DtypeResult, Mismatch, TryResult
from mpsgen.emulate.host_library import CONVERTED, build_library, scalar_converter
from mpsgen.emulate.compile import emulation_argv, find_compiler
from mpsgen.emulate.index_fill_cases import CASES, Case, stub_arguments
from mpsgen.errors import MpsgenError

# torch dtype -> (the Metal type of its element size, the C++ type getMPSScalar converts to)
TYPES = {"float32": ("int", "float"), "float16": ("short", "c10::Half"), "bfloat16": ("short", "c10::BFloat16"),
         "int64": ("long", "int64_t"), "int32": ("int", "int32_t"), "int16": ("short", "int16_t"),
         "int8": ("char", "int8_t"), "uint8": ("char", "uint8_t"), "bool": ("char", "bool"),
         "complex64": ("long", "c10::complex<float>"), "complex32": ("int", "c10::complex<c10::Half>")}
# a double, an int64, a bool, a complex: every dtype's conversion (300 overflows int8: raises on both sides)
VALUES = ((2.5, 0.0, 0), (-1.0e10, 0.0, 0), (300, 0.0, 1), (-7, 0.0, 1), (1, 0.0, 2), (1.5, -2.0, 3))


def kernel_region(metal: str, stub: str) -> str:
    """The planned kernel's text in *metal*: from its `// <stub>'s kernel.` comment to the end of the file
    (the kind appends it there), after the file's includes; MpsgenError when it is not there."""
    start = metal.find(f"// {stub}'s kernel.")
    if start < 0:
        raise MpsgenError(f"the planned .metal holds no `// {stub}'s kernel.` section to check")
    return "#include <metal_stdlib>\nusing namespace metal;\n" + metal[start:]


def _driver(kernel: str, region: str) -> str:
    calls = "\n".join(f"""extern "C" void mpsgen_{kernel}_{t}(void* self, const long* index, const void* value,
    const long* sizes, const long* self_strides, const long* index_strides, unsigned ndim, long dim_size,
    long dim_stride, unsigned threads) {{
  {t} v;
  std::memcpy(&v, value, sizeof v);
  const uint ndim_ = ndim;
  for (unsigned i = 0; i < threads; ++i)
    {kernel}<{t}>(({t}*)self, index, v, sizes, self_strides, index_strides, ndim_, dim_size, dim_stride, i);
}}""" for t in dict.fromkeys(mt for mt, _ in TYPES.values()))
    return f'#line 1 "<planned .metal>"\n{region}\n#line 1 "<driver>"\n#include <cstring>\n{calls}\n'


def check_index_fill(kernel: str, stub: str, metal: str, include_root: str | Path) -> TryResult:
    """Each dtype's kernel against `torch.Tensor.index_fill_` on the CPU, for every case and value."""
    from mpsgen.emulate.reference import import_torch

    torch = import_torch()
    cxx = find_compiler()
    kernels = build_library("kernels", _driver(kernel, kernel_region(metal, stub)), emulation_argv(cxx, include_root))
    convert = scalar_converter(cxx, torch)
    with warnings.catch_warnings():  # complex32 tensors: torch's "ComplexHalf support is experimental"
        warnings.simplefilter("ignore", UserWarning)
        rows = tuple(_check_dtype(CONVERTED.index(cpp), dtype, getattr(kernels, f"mpsgen_{kernel}_{mt}"), convert, torch)
                     for dtype, (mt, cpp) in TYPES.items())
    return TryResult(f"{kernel}_", "torch.Tensor.index_fill_", f"emulated ({cxx[0]})", rows)


def _check_dtype(k: int, dtype: str, run: Callable[..., Any], convert: ctypes.CDLL, torch: Any) -> DtypeResult:
    tdtype = getattr(torch, dtype)
    mismatches: list[Mismatch] = []
    values = 0
    for re_, im, kind in VALUES:
        scalar = int(re_) if kind == 1 else bool(re_) if kind == 2 else complex(re_, im) if kind == 3 else re_
        bits = ctypes.create_string_buffer(16)
        size = convert.mpsgen_to(k, ctypes.c_double(re_ if kind not in (1, 2) else 0.0), ctypes.c_double(im),
                                 ctypes.c_longlong(int(re_) if kind in (1, 2) else 0), kind, bits)
        for case in CASES:
            values += 1
            expected = _cpu(torch, tdtype, case, scalar)
            # the shared kernel refuses a complex value for a real self before the stub (bool's to<bool> would not)
            refused = size < 0 or (kind == 3 and not tdtype.is_complex)
            got = None if refused else _kernel(torch, tdtype, case, run, bits)
            if expected != got:
                at = _first_difference(expected, got)
                mismatches.append(Mismatch((f"{scalar!r} ({case.name}), from byte {at}",), _shown(expected, at),
                                           _shown(got, at)))
    return DtypeResult(dtype, dtype, values, len(mismatches), 0.0, 0.0, mismatches[0].inputs[0] if mismatches else "",
                       tuple(mismatches[:3]))


def _first_difference(a: bytes | None, b: bytes | None) -> int:
    if a is None or b is None:
        return 0
    return next((k for k, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))


def _shown(data: bytes | None, at: int) -> str:
    return "raises" if data is None else (data[at: at + 16].hex() or "(end)") + (" +guard" if data.endswith(b"guard") else "")


def _storage(torch: Any, tdtype: Any, case: Case) -> Any:
    """A storage of distinct non-zero bytes (every element differs from what the fill writes)."""
    raw = torch.arange(1, case.storage * tdtype.itemsize + 1, dtype=torch.int64).remainder(251).add(3)
    return raw.to(torch.uint8).view(tdtype)


def _index(torch: Any, case: Case) -> Any:
    if isinstance(case.indices, int):
        return torch.tensor(case.indices, dtype=torch.int64)
    return torch.tensor(case.indices, dtype=torch.int64)[:: case.index_step]


def _cpu(torch: Any, tdtype: Any, case: Case, scalar: float | bool | complex) -> bytes | None:
    base = _storage(torch, tdtype, case)
    try:
        base.as_strided(case.size, case.stride, case.offset).index_fill_(case.dim, _index(torch, case), scalar)
    except RuntimeError:
        return None
    return bytes(base.view(torch.uint8).tolist())


def _kernel(torch: Any, tdtype: Any, case: Case, run: Callable[..., Any], bits: ctypes.Array[ctypes.c_char]) -> bytes:
    """The storage after the kernel ran, or with "guard" appended when it wrote outside it: the kernel runs
    on a copy with a guard zone of the storage's size either side (and the index between zeros), so a
    stray offset shows as a mismatch rather than a write into the check's own memory."""
    storage = _storage(torch, tdtype, case)
    padded = torch.cat([torch.zeros(case.storage, dtype=tdtype), storage, torch.zeros(case.storage, dtype=tdtype)])
    flat = [case.indices] if isinstance(case.indices, int) else list(case.indices)
    pad = len(flat) + 3
    index = torch.tensor([0] * pad + flat + [0] * pad, dtype=torch.int64)
    a = stub_arguments(case)
    if a["numel"]:  # the host returns before any launch for an empty iterator
        longs = [(ctypes.c_long * len(a[n]))(*a[n]) for n in ("sizes", "self_strides", "index_strides")]
        run(ctypes.c_void_p(padded.data_ptr() + (case.storage + case.offset) * tdtype.itemsize),
            ctypes.cast(ctypes.c_void_p(index.data_ptr() + pad * 8), ctypes.POINTER(ctypes.c_long)), bits, *longs,
            a["ndim"], ctypes.c_long(a["dim_size"]), ctypes.c_long(a["dim_stride"]), a["numel"])
    body = bytes(padded[case.storage: 2 * case.storage].view(torch.uint8).tolist())
    guards = torch.cat([padded[: case.storage], padded[2 * case.storage:]]).view(torch.uint8)
    return body + (b"guard" if bool(guards.any()) else b"")
