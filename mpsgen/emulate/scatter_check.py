"""The numeric check of scatter's kernel (scatter_stub, scatter_fill_stub, scatter_reduce_stub,
scatter_scalar_reduce_stub; plan/indexing_code.py): the planned .metal's `scatter<T>`, run under the Metal
emulation as each host runs it (a value: a src of zero strides), against torch CPU's `scatter_` with a src or
a value, with no reduce, reduce="add" and reduce="multiply", over scatter_add's cases (emulate/scatter_add_check.py:
duplicate indices among them, where the CPU's serial order makes the last one win), byte for byte.
"""

from __future__ import annotations

import warnings
from pathlib import Path

from mpsgen.emulate.compare import DtypeResult, Mismatch, TryResult
from mpsgen.emulate.compile import emulation_argv, find_compiler
from mpsgen.emulate.host_library import build_library
from mpsgen.emulate.index_fill_check import kernel_region
from mpsgen.emulate.scatter_add_check import CASES, TYPES, compare, driver

# a value of every dtype, exactly representable (its conversion is index_fill's check's)
VALUES = {"float32": 1.25, "float16": 1.25, "bfloat16": 1.25, "int64": 3, "int32": 3, "int16": 3, "int8": 3,
          "uint8": 3, "bool": True, "complex64": complex(1.5, -0.5)}
MODES = ((0, False), (0, True), (1, False), (2, False), (1, True), (2, True))  # (op, from a value)


def check_scatter(kernel: str, stub: str, metal: str, include_root: str | Path) -> TryResult:
    """Each dtype's kernel against `torch.Tensor.scatter_` on the CPU, for every mode and case."""
    from mpsgen.emulate.reference import import_torch

    torch = import_torch()
    cxx = find_compiler()
    lib = build_library("scatter", driver(kernel, kernel_region(metal, stub), with_op=True),
                        emulation_argv(cxx, include_root))
    rows = []
    with warnings.catch_warnings():  # scatter_(..., reduce=) is deprecated in favour of scatter_reduce_
        warnings.simplefilter("ignore", UserWarning)
        for dtype, (mt, _) in TYPES.items():
            run = getattr(lib, f"mpsgen_{kernel}_{mt}")
            mismatches = []
            for op, scalar in MODES:
                for case in CASES:
                    want, got = compare(torch, getattr(torch, dtype), case, run, op, VALUES[dtype] if scalar else None)
                    if want != got:
                        at = next((k for k, (x, y) in enumerate(zip(want, got)) if x != y), min(len(want), len(got)))
                        shown = ("value" if scalar else "src") + ("", ", add", ", multiply")[op]
                        mismatches.append(Mismatch((f"{case.name} ({shown}), from byte {at}",), want[at: at + 16].hex(),
                                                   got[at: at + 16].hex() + (" +guard" if got.endswith(b"guard") else "")))
            rows.append(DtypeResult(dtype, dtype, len(CASES) * len(MODES), len(mismatches), 0.0, 0.0,
                                    mismatches[0].inputs[0] if mismatches else "", tuple(mismatches[:3])))
    return TryResult(kernel, "torch.Tensor.scatter_", f"emulated ({cxx[0]})", tuple(rows))
