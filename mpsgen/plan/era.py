"""Fit a kernel spec to the checkout's era: what the checkout's Capabilities say of its c10/metal headers
and of the target .metal's layout decide the writer and whether a catalog body can be used.

PyTorch 2.6-2.7 (early 2025) has no is_complex_v, REGISTER_UNARY_OP or exec_binary_kernel: unary kernels
are templates instantiated by host_name, binary ones go through the .metal's own REGISTER_BINARY_INDEXING_OP
and BinaryKernel.mm's binary_mps_impl, and several c10::metal helpers (hypot, mul, expm1f.h) do not exist.
"""

from __future__ import annotations

from typing import Any, cast

from mpsgen.errors import MpsgenError
from mpsgen.backfill import c10_shims
from mpsgen.model import KernelSpec
from mpsgen.sources.capabilities import Capabilities


def fit_to_checkout(spec: KernelSpec, caps: Capabilities, metal_rel: str) -> KernelSpec:
    """*spec* as the checkout's era writes it into *metal_rel*: in the file's layout (template kernels
    with host_name instances in an early-2025 unary file, the file's own REGISTER_BINARY_INDEXING_OP in a
    2.7 binary one); stand-ins for the c10::metal functions the checkout lacks (a refusal when there is
    none).  Whether the functor may use c10/metal's traits is Capabilities.c10_traits (generate/render)."""
    spec = spec._replace(layout=caps.metal_layout(metal_rel).layout)
    if spec.binary_indexing:
        # 2.7's binary_dense<T, F> calls the functor on T itself (float2 for complex64): no opmath; the
        # ternary kernels the change adds there are modeled on them (backfill/ternary_metal)
        spec = spec._replace(opmath=False)
    return _with_c10_stand_ins(spec, caps) if caps.c10_texts else spec


def _with_c10_stand_ins(spec: KernelSpec, caps: Capabilities) -> KernelSpec:
    """*spec* with only the c10/metal headers the checkout has, and its own stand-ins for the c10::metal
    functions those headers lack (2.7: hypot, expm1f, ...) or define less
    exactly than the CPU (2.7's log1p); a missing one
    without a stand-in is refused, so a kernel written with --no-try still compiles.  Without c10/metal
    headers (a trimmed checkout) the numeric check's compile is the judge."""
    spec = spec._replace(includes=tuple(h for h in spec.includes if caps.has_file(h)))
    bodies = {k: v for k, v in (("expr", spec.expr), ("int_expr", spec.int_expr),
                                ("complex_expr", spec.complex_expr), ("bool_expr", spec.bool_expr)) if v}
    missing = [n for n in dict.fromkeys(n for b in bodies.values() for n in c10_shims.called(b))
               if c10_shims.lacks(n, caps.c10_code)]
    if not missing:
        return spec
    lacking = [n for n in missing if n not in c10_shims.SHIMS]
    if lacking:
        raise MpsgenError(f"the body of {spec.name} calls c10::metal::{lacking[0]}, which this checkout's c10/metal "
                          "headers do not define", path="c10/metal",
                          hint="pass an --expr (or --complex-expr) that uses only what the checkout has, or "
                               "--drop-dtypes for the branch that needs it")
    redirected = {k: c10_shims.redirect(v, set(missing)) for k, v in bodies.items()}
    return spec._replace(shims=tuple(missing), **cast("dict[str, Any]", redirected))
