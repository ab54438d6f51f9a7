"""The numeric check of scatter_add_stub's kernel (plan/indexing_code.py): the planned .metal's `scatter_add<T>`,
compiled under the Metal emulation (half and bfloat read from and written back to their 16-bit storage), run
as the host runs it (one thread per element of self within the index's extent off dim), against torch CPU's
`scatter_add_` on the same views, byte for byte over self's whole storage: the same sums in the same order,
so the same roundings.  Every tensor lives in a storage with guard zones either side (emulate/gather_check.py).
An index out of range is not compared: the CPU kernel raises, the Metal kernel adds nothing.
"""

from __future__ import annotations

import ctypes
from pathlib import Path
from typing import Any, Callable

from mpsgen.emulate.compare import DtypeResult, Mismatch, TryResult
from mpsgen.emulate.compile import emulation_argv, find_compiler
from mpsgen.emulate.gather_check import View, dtype_values, guarded, span
from mpsgen.emulate.host_library import build_library
from mpsgen.emulate.index_fill_check import kernel_region
from mpsgen.records import NamedTuple

# torch dtype -> (its Metal type, the type of its storage the driver reads the bits as)
TYPES = {"float32": ("float", "float"), "float16": ("half", "ushort"), "bfloat16": ("bfloat", "ushort"),
         "int64": ("long", "long"), "int32": ("int", "int"), "int16": ("short", "short"), "int8": ("char", "char"),
         "uint8": ("uchar", "uchar"), "bool": ("bool", "bool"), "complex64": ("float2", "ulong")}


class Case(NamedTuple):
    name: str
    self_: View
    index_: View
    values: tuple[int, ...]  # the index storage's elements
    src: View
    dim: int


CASES = (
    Case("dim 0, duplicates", View((4, 5, 6), (30, 6, 1)), View((6, 5, 6), (30, 6, 1)),
         tuple((i * 5) % 4 for i in range(180)), View((6, 5, 6), (30, 6, 1)), 0),
    Case("dim 1, index smaller than self and src", View((4, 5, 6), (30, 6, 1)), View((2, 7, 4), (28, 4, 1)),
         tuple((i * 3) % 5 for i in range(56)), View((3, 8, 5), (40, 5, 1)), 1),
    Case("dim -1", View((4, 5, 6), (30, 6, 1)), View((4, 5, 9), (45, 9, 1)), tuple(i % 6 for i in range(180)),
         View((4, 5, 9), (45, 9, 1)), -1),
    Case("transposed self and index, sliced src", View((6, 5, 4), (1, 6, 30)), View((6, 5, 3), (1, 6, 30)),
         tuple((i * 7) % 4 for i in range(90)), View((6, 5, 3), (40, 8, 2), 3), 2),
    Case("0-dim", View((), ()), View((), ()), (0,), View((), ()), 0),
    Case("empty index", View((4, 6), (6, 1)), View((0, 6), (6, 1)), (), View((4, 6), (6, 1)), 0),
)


def driver(kernel: str, region: str, with_op: bool = False) -> str:
    """The planned kernel's section and, per Metal type, a C entry running it over every thread (*with_op*:
    scatter's kernel, which takes the op after index_dim_size)."""
    calls = []
    for t, s in dict.fromkeys(TYPES.values()):
        calls.append(f"""extern "C" void mpsgen_{kernel}_{t}(void* self, unsigned self_n, const long* index, const void* src,
    unsigned src_n, unsigned self_at, unsigned src_at, const long* sizes, const long* self_strides,
    const long* index_strides, const long* src_strides, unsigned ndim, unsigned dim, long index_dim_size,
    {"unsigned op, " if with_op else ""}unsigned threads) {{
  {t}* a = new {t}[self_n];
  {t}* b = new {t}[src_n];
  for (unsigned i = 0; i < self_n; ++i) {{ {s} v; std::memcpy(&v, (const char*)self + i * sizeof v, sizeof v); a[i] = as_type<{t}>(v); }}
  for (unsigned i = 0; i < src_n; ++i) {{ {s} v; std::memcpy(&v, (const char*)src + i * sizeof v, sizeof v); b[i] = as_type<{t}>(v); }}
  const uint ndim_ = ndim, dim_ = dim;
  for (unsigned i = 0; i < threads; ++i)
    {kernel}<{t}>(a + self_at, index, b + src_at, sizes, self_strides, index_strides, src_strides, ndim_, dim_,
                  index_dim_size, {"op, " if with_op else ""}i);
  for (unsigned i = 0; i < self_n; ++i) {{ const {s} v = as_type<{s}>(a[i]); std::memcpy((char*)self + i * sizeof v, &v, sizeof v); }}
  delete[] a;
  delete[] b;
}}""")
    return f'#line 1 "<planned .metal>"\n{region}\n#line 1 "<driver>"\n#include <cstring>\n' + "\n".join(calls) + "\n"


def check_scatter_add(kernel: str, stub: str, metal: str, include_root: str | Path) -> TryResult:
    """Each dtype's kernel against `torch.Tensor.scatter_add_` on the CPU, for every case."""
    from mpsgen.emulate.reference import import_torch

    torch = import_torch()
    cxx = find_compiler()
    lib = build_library("scatter_add", driver(kernel, kernel_region(metal, stub)), emulation_argv(cxx, include_root))
    rows = []
    for dtype, (mt, _) in TYPES.items():
        run = getattr(lib, f"mpsgen_{kernel}_{mt}")
        mismatches = []
        for case in CASES:
            want, got = compare(torch, getattr(torch, dtype), case, run)
            if want != got:
                at = next((k for k, (x, y) in enumerate(zip(want, got)) if x != y), min(len(want), len(got)))
                mismatches.append(Mismatch((f"{case.name}, from byte {at}",), want[at: at + 16].hex(),
                                           got[at: at + 16].hex() + (" +guard" if got.endswith(b"guard") else "")))
        rows.append(DtypeResult(dtype, dtype, len(CASES), len(mismatches), 0.0, 0.0,
                                mismatches[0].inputs[0] if mismatches else "", tuple(mismatches[:3])))
    return TryResult(kernel, "torch.Tensor.scatter_add_", f"emulated ({cxx[0]})", tuple(rows))


def compare(torch: Any, tdtype: Any, case: Case, run: Callable[..., Any], op: int | None = None,
            value: float | bool | complex | None = None) -> tuple[bytes, bytes]:
    """(CPU's self storage after scatter_add_ (*op* None) or scatter_ (*op* 0, 1, 2: no reduce, "add",
    "multiply"; from *value* when given, else src), the kernel's, with "guard" appended when a guard zone
    changed)."""
    index_data = torch.tensor(list(case.values) + [0] * max(0, span(case.index_) - len(case.values)),
                              dtype=torch.int64)
    self_data = dtype_values(torch, tdtype, span(case.self_), 1)
    src_data = dtype_values(torch, tdtype, span(case.src), 5) if value is None else torch.tensor([value], dtype=tdtype)
    cpu = self_data.clone()
    target = cpu.as_strided(case.self_.size, case.self_.stride, case.self_.offset)
    index_view = index_data.as_strided(case.index_.size, case.index_.stride, case.index_.offset)
    source = value if value is not None else src_data.as_strided(case.src.size, case.src.stride, case.src.offset)
    if op is None:
        target.scatter_add_(case.dim, index_view, source)
    elif op == 0:
        target.scatter_(case.dim, index_view, source)
    else:
        target.scatter_(case.dim, index_view, source, reduce="add" if op == 1 else "multiply")
    src_view_of = View((), ()) if value is not None else case.src

    self_pad, self_view, guard = guarded(torch, self_data, case.self_)
    src_pad, src_view, _ = guarded(torch, src_data, src_view_of)
    _, index_view, _ = guarded(torch, index_data, case.index_)
    s, i, c = (t.view(1) if t.dim() == 0 else t for t in (self_view, index_view, src_view))
    dim = case.dim + s.dim() if case.dim < 0 else case.dim
    sizes = list(i.size())
    sizes[dim] = s.size(dim)
    threads = 1
    for n in sizes:
        threads *= n
    if i.numel() and threads:
        ndim = s.dim()
        src_strides = [0] * ndim if value is not None else list(c.stride())  # a value: read at every index
        arrays = [(ctypes.c_long * ndim)(*v) for v in (sizes, s.stride(), i.stride(), src_strides)]
        self_at = s.storage_offset()
        src_at = c.storage_offset()
        run(ctypes.c_void_p(self_pad.data_ptr()), self_pad.numel(),
            ctypes.cast(ctypes.c_void_p(i.data_ptr()), ctypes.POINTER(ctypes.c_long)),
            ctypes.c_void_p(src_pad.data_ptr()), src_pad.numel(), self_at, src_at, *arrays, ndim, dim,
            ctypes.c_long(i.size(dim)), *(() if op is None else (op,)), threads)
    n = self_data.numel()
    body = bytes(self_pad[guard: guard + n].view(torch.uint8).tolist())
    guards = torch.cat([self_pad[:guard], self_pad[guard + n:]]).view(torch.uint8)
    return bytes(cpu.view(torch.uint8).tolist()), body + (b"guard" if bool(guards.any()) else b"")
