"""What the checkout's Metal host API offers: the `exec_*_kernel` forms MetalShaderLibrary.h declares
and the REGISTER_* macros c10/metal defines.  A kernel shape is written only when both halves exist.

The header grew over time: mid-2025 declared exec_unary_kernel(iter, name, alpha, scalar_type) only;
2.13 adds exec_binary_kernel's alpha, exec_ternary_kernel(iter, name) and the *_with_params
templates; a 2026 fork gives exec_ternary_kernel an alpha too.
"""

from __future__ import annotations

import re

from mpsgen.records import NamedTuple
from mpsgen.scan.brackets import match_close, split_top_level
from mpsgen.scan.mask import mask_code

LIBRARY_HEADER_REL = "aten/src/ATen/native/mps/MetalShaderLibrary.h"
_EXEC = re.compile(r"(exec_(?<!\wexec_)(?:unary|binary|ternary)_kernel(?:_with_params)?)\s*\(")  # literal first


class HostApi(NamedTuple):
    """Parameter counts of the exec_* functions declared (absent: not declared) and the macros defined."""

    functions: dict[str, int]
    macros: frozenset[str]
    header: str  # where the functions were read (for messages)
    # PyTorch 2.6-2.7: BinaryKernel.mm's own `static void binary_mps_impl(TensorIteratorBase&, name)`
    # runs two-input kernels registered by the .metal's local REGISTER_BINARY_INDEXING_OP.
    binary_mps_impl: bool = False
    # Input counts whose c10/metal kernels read each input in its own runtime dtype (2.13's
    # binary_strided_cast / ternary_strided_cast and their `types` argument): the host picks them for
    # an iterator whose inputs differ (where: a bool condition, two T values), the functor gets T.
    cast_inputs: frozenset[int] = frozenset()
    # What a kernel returning bool passes after its name to exec_<kind>_kernel ("unary", "binary") where
    # that function takes the kernel's natural output dtype (2.13: comparisons "must pass kBool") -- kBool
    # there, std::nullopt before it (generate/neighbours uses it when the host file has no bool kernel).
    bool_result_args: dict[str, tuple[str, ...]] = {}

    def takes_alpha(self, fn: str) -> bool:
        """exec_<kind>_kernel(iter, name, alpha, ...): more than the iterator and the name."""
        return self.functions.get(fn, 0) > 2

    def has(self, fn: str) -> bool:
        return fn in self.functions


def read_host_api(header_text: str | None, macros: frozenset[str], header: str = LIBRARY_HEADER_REL) -> HostApi:
    """The exec_* declarations of MetalShaderLibrary.h (the most parameters where overloaded)."""
    functions: dict[str, int] = {}
    if header_text:
        masked = mask_code(header_text)
        for m in _EXEC.finditer(masked):
            close = match_close(masked, m.end() - 1)
            if close is None:
                continue
            count = len([a for a in split_top_level(masked[m.end() : close]) if a.strip()])
            functions[m.group(1)] = max(functions.get(m.group(1), 0), count)
    bool_args = {kind: args for kind in ("unary", "binary") if (args := _natural_output_args(header_text, kind))}
    return HostApi(functions, macros, header, bool_result_args=bool_args)


def _natural_output_args(api_text: str | None, kind: str) -> tuple[str, ...]:
    if not api_text:
        return ()
    masked = mask_code(api_text)
    m = re.search(rf"\bexec_{kind}_kernel\s*\(", masked)
    if m is None:
        return ()
    close = match_close(masked, m.end() - 1)
    params = [" ".join(p.split("=")[0].split()) for p in split_top_level(masked[m.end():close])] if close else []
    names = [p.split()[-1].strip("&*") if p else "" for p in params]
    if "natural_output_dtype" not in names:
        return ()
    k = names.index("natural_output_dtype")
    return tuple(["std::nullopt"] * (k - 2) + ["kBool"])


_BINARY_MPS_IMPL = re.compile(r"\bstatic\s+void\s+binary_mps_impl\s*\(\s*TensorIteratorBase\s*&")


def defines_binary_mps_impl(binary_kernel_mm: str | None) -> bool:
    """Whether operations/BinaryKernel.mm is 2.7's, with its file-local binary_mps_impl."""
    return binary_kernel_mm is not None and bool(binary_kernel_mm) and _BINARY_MPS_IMPL.search(mask_code(binary_kernel_mm)) is not None


_CAST_KERNEL = re.compile(r"\bkernel\s+void\s+(binary|ternary)_strided_cast\s*\(([^{]*)\)\s*\{")


def cast_input_counts(indexing_h: str | None) -> frozenset[int]:
    """The input counts c10/metal/indexing.h has `*_strided_cast` kernels for that take each input's
    dtype (a `types` buffer): those kernels convert every input to the kernel's T as they read it."""
    if not indexing_h:
        return frozenset()
    return frozenset({"binary": 2, "ternary": 3}[m.group(1)] for m in _CAST_KERNEL.finditer(mask_code(indexing_h))
                     if re.search(r"\w*types\b", m.group(2)))
