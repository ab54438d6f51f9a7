"""The numeric check of gather_stub's kernel (plan/indexing_code.py): the planned .metal's `gather<T>`, compiled
under the Metal emulation, run over each case below as the host runs it (one thread per element of the index,
0-dim tensors viewed as one element), against torch CPU's `gather(..., out=)` on the same views, byte for
byte over the result's whole storage.  Every tensor lives in a storage with guard zones either side, so a
stray read or write shows as a mismatch.  An index out of range is not compared: the CPU kernel raises, the
Metal kernel writes nothing (said in the plan's notes).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

from mpsgen.emulate.compare import DtypeResult, Mismatch, TryResult
from mpsgen.emulate.compile import emulation_argv, find_compiler
from mpsgen.emulate.host_library import build_library
from mpsgen.emulate.index_fill_check import kernel_region
from mpsgen.records import NamedTuple

# torch dtype -> the Metal type of its element size (the CPU kernel's dtypes, no double)
TYPES = {"float32": "int", "float16": "short", "bfloat16": "short", "int64": "long", "int32": "int",
         "int16": "short", "int8": "char", "uint8": "char", "bool": "char", "complex64": "long"}


class View(NamedTuple):
    size: tuple[int, ...]
    stride: tuple[int, ...]
    offset: int = 0


class Case(NamedTuple):
    name: str
    self_: View
    index_: View
    values: tuple[int, ...]  # the index storage's elements
    dim: int
    result: View | None = None  # an `out=` view; None: contiguous


# duplicate indices, every dim (negative too), an index smaller than self off dim, transposed and sliced
# self, a transposed index and result, 0-dim and 1-element tensors, an empty index
CASES = (
    Case("dim 0", View((4, 5, 6), (30, 6, 1)), View((3, 5, 6), (30, 6, 1)), tuple(i % 4 for i in range(90)), 0),
    Case("dim 1, smaller index", View((4, 5, 6), (30, 6, 1)), View((2, 3, 4), (12, 4, 1)),
         tuple((i * 7) % 5 for i in range(24)), 1),
    Case("dim -1, duplicates", View((4, 5, 6), (30, 6, 1)), View((4, 5, 2), (10, 2, 1)), (5, 5, 0, 3) * 10, -1),
    Case("transposed self", View((6, 5, 4), (1, 6, 30)), View((6, 5, 3), (15, 3, 1)),
         tuple((i * 3) % 4 for i in range(90)), 2),
    Case("sliced self, transposed index and out", View((5, 4, 4), (48, 8, 2), 9), View((5, 3, 2), (1, 5, 15)),
         tuple(i % 4 for i in range(30)), 2, View((5, 3, 2), (1, 10, 5))),
    Case("0-dim", View((), ()), View((), ()), (0,), 0),
    Case("0-dim index of a 1-d self", View((3,), (1,)), View((), ()), (2,), 0),
    Case("empty index", View((4, 6), (6, 1)), View((0, 6), (6, 1)), (), 0),
)


def _driver(kernel: str, region: str) -> str:
    calls = "\n".join(f"""extern "C" void mpsgen_{kernel}_{t}(void* result, const void* self, const long* index,
    const long* sizes, const long* result_strides, const long* self_strides, const long* index_strides,
    unsigned ndim, unsigned dim, long dim_size, unsigned threads) {{
  const uint ndim_ = ndim, dim_ = dim;
  for (unsigned i = 0; i < threads; ++i)
    {kernel}<{t}>(({t}*)result, (const {t}*)self, index, sizes, result_strides, self_strides, index_strides,
                  ndim_, dim_, dim_size, i);
}}""" for t in dict.fromkeys(TYPES.values()))
    return f'#line 1 "<planned .metal>"\n{region}\n#line 1 "<driver>"\n{calls}\n'


def check_gather(kernel: str, stub: str, metal: str, include_root: str | Path) -> TryResult:
    """Each dtype's kernel against `torch.gather(..., out=)` on the CPU, for every case."""
    from mpsgen.emulate.reference import import_torch

    torch = import_torch()
    cxx = find_compiler()
    lib = build_library("gather", _driver(kernel, kernel_region(metal, stub)), emulation_argv(cxx, include_root))
    rows = []
    for dtype, mt in TYPES.items():
        run = getattr(lib, f"mpsgen_{kernel}_{mt}")
        mismatches = [Mismatch((f"{case.name}, from byte {at}",), want[at: at + 16].hex(),
                               got[at: at + 16].hex() + (" +guard" if got.endswith(b"guard") else ""))
                      for case in CASES for want, got in [_compare(torch, getattr(torch, dtype), case, run)]
                      if want != got for at in [next((k for k, (x, y) in enumerate(zip(want, got)) if x != y),
                                                     min(len(want), len(got)))]]
        rows.append(DtypeResult(dtype, dtype, len(CASES), len(mismatches), 0.0, 0.0,
                                mismatches[0].inputs[0] if mismatches else "", tuple(mismatches[:3])))
    return TryResult(f"{kernel}", "torch.gather", f"emulated ({cxx[0]})", tuple(rows))


def guarded(torch: Any, data: Any, view: View) -> tuple[Any, Any, int]:
    """(padded storage, the view on it, the guard length): *data* between two zero guards of its length."""
    n = data.numel()
    padded = torch.cat([torch.zeros(max(n, 1), dtype=data.dtype), data, torch.zeros(max(n, 1), dtype=data.dtype)])
    return padded, padded.as_strided(view.size, view.stride, max(n, 1) + view.offset), max(n, 1)


def dtype_values(torch: Any, tdtype: Any, elements: int, seed: int) -> Any:
    """Valid values of the dtype, most of them distinct (bool: 0 and 1; the CPU copies a bool or a NaN as a
    value, not as bits)."""
    values = torch.arange(seed, seed + elements, dtype=torch.float64)
    if tdtype == torch.bool:
        return values.remainder(2).to(torch.bool)
    values = values.remainder(97).sub(48).mul(0.37 if tdtype.is_floating_point or tdtype.is_complex else 1)
    return torch.complex(values, -values).to(tdtype) if tdtype.is_complex else values.to(tdtype)


def span(view: View) -> int:
    """The storage elements *view* reaches, from 0."""
    return view.offset + 1 + sum((s - 1) * st for s, st in zip(view.size, view.stride) if s > 0)


def _compare(torch: Any, tdtype: Any, case: Case, run: Callable[..., Any]) -> tuple[bytes, bytes]:
    """(CPU's result storage, the kernel's, with "guard" appended when a guard zone changed)."""
    out = case.result or View(case.index_.size, tuple(
        int(x) for x in torch.empty(case.index_.size).stride()) if case.index_.size else ())
    index_data = torch.tensor(list(case.values) + [0] * max(0, span(case.index_) - len(case.values)), dtype=torch.int64)
    self_data = dtype_values(torch, tdtype, span(case.self_), 1)
    out_data = dtype_values(torch, tdtype, span(out), 7)

    cpu_out = out_data.clone()
    torch.gather(self_data.as_strided(case.self_.size, case.self_.stride, case.self_.offset), case.dim,
                 index_data.as_strided(case.index_.size, case.index_.stride, case.index_.offset),
                 out=cpu_out.as_strided(out.size, out.stride, out.offset))

    self_pad, self_view, _ = guarded(torch, self_data, case.self_)
    index_pad, index_view, _ = guarded(torch, index_data, case.index_)
    out_pad, out_view, guard = guarded(torch, out_data, out)
    views = [t.view(1) if t.dim() == 0 else t for t in (out_view, self_view, index_view)]
    numel = index_view.numel()
    if numel:
        import ctypes

        ndim = views[2].dim()
        dim = case.dim + max(self_view.dim(), 1) if case.dim < 0 else case.dim
        arrays = [(ctypes.c_long * ndim)(*v) for v in (views[2].size(), views[0].stride(), views[1].stride(),
                                                        views[2].stride())]
        run(ctypes.c_void_p(views[0].data_ptr()), ctypes.c_void_p(views[1].data_ptr()),
            ctypes.cast(ctypes.c_void_p(views[2].data_ptr()), ctypes.POINTER(ctypes.c_long)), *arrays,
            ndim, dim, ctypes.c_long(views[1].size(dim)), numel)
    body = bytes(out_pad[guard: guard + out_data.numel()].view(torch.uint8).tolist())
    guards = torch.cat([out_pad[:guard], out_pad[guard + out_data.numel():]]).view(torch.uint8)
    return bytes(cpu_out.view(torch.uint8).tolist()), body + (b"guard" if bool(guards.any()) else b"")
