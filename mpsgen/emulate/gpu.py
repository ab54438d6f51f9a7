"""The GPU path (macOS with MPS): the same functor text, compiled by torch.mps.compile_shader.

The shader is self-contained: the checkout's c10/metal headers are inlined (compile_shader has
no include path), then the functor, then one plain kernel per registration doing what
c10/metal/indexing.h's dense kernels do.  Inputs, reference and comparison are shared with the
emulated path; only "run the kernel" differs.  (Not exercised on Linux CI beyond shader_source.)
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mpsgen.errors import MpsgenError
from mpsgen.model import KernelSpec
from .compile import BASE_HEADERS, Registration, registrations
from mpsgen.scan.lines import plain_lines

if TYPE_CHECKING:
    from .compare import TryResult

_INCLUDE = re.compile(r'^\s*#\s*include\s*[<"](c10/metal/[\w./]+)[>"]\s*$', re.M)


def available() -> bool:
    if sys.platform != "darwin":  # cheap test first: no torch import elsewhere
        return False
    from .reference import import_torch

    torch = import_torch()
    return bool(torch.backends.mps.is_available())


def _inline(header: str, root: Path, seen: set[str]) -> str:
    if header in seen:
        return ""
    seen.add(header)
    path = root / header
    if not path.is_file():
        raise MpsgenError("header not found", path=path, hint="pass the checkout whose c10/metal the kernel uses")
    text = path.read_text(encoding="utf-8").replace("#pragma once", "")
    return _INCLUDE.sub(lambda m: _inline(m.group(1), root, seen), text)


def _kernel(spec: KernelSpec, r: Registration) -> str:
    f = f"{spec.name}_functor"
    omt = f"opmath_t<{r.in_type}>" if r.opmath else r.in_type
    sig = f"kernel void {r.symbol}(device {r.out_type}* out [[buffer(0)]], constant {r.in_type}* a [[buffer(1)]]"
    if spec.arity == "unary":
        return f"{sig}, uint i [[thread_position_in_grid]]) {{ out[i] = {f}()(a[i]); }}"
    if spec.arity == "unary_alpha":
        return (f"{sig}, constant {r.alpha_type}& alpha [[buffer(2)]], uint i [[thread_position_in_grid]]) "
                f"{{ out[i] = {f}()(a[i], alpha); }}")
    if spec.arity == "binary":
        return (f"{sig}, constant {r.in_type}* b [[buffer(2)]], uint i [[thread_position_in_grid]]) "
                f"{{ out[i] = static_cast<{r.out_type}>({f}()({omt}(a[i]), {omt}(b[i]))); }}")
    if spec.arity == "binary_alpha":
        return (f"{sig}, constant {r.in_type}* b [[buffer(2)]], constant {r.alpha_type}& alpha [[buffer(3)]], "
                f"uint i [[thread_position_in_grid]]) {{ out[i] = static_cast<{r.out_type}>({f}()(a[i], b[i], alpha)); }}")
    return (f"{sig}, constant {r.in_type}* b [[buffer(2)]], constant {r.in_type}* c [[buffer(3)]], "
            f"uint i [[thread_position_in_grid]]) "
            f"{{ out[i] = static_cast<{r.out_type}>({f}()({omt}(a[i]), {omt}(b[i]), {omt}(c[i]))); }}")


def shader_source(spec: KernelSpec, functor: str, include_root: str | Path) -> str:
    """The Metal source handed to torch.mps.compile_shader."""
    root, seen = Path(include_root), set()  # type: ignore[var-annotated]
    headers = [h for h in BASE_HEADERS if (root / h).is_file()] + list(spec.includes)
    parts = ["#include <metal_stdlib>", *(_inline(h, root, seen) for h in headers), "using namespace metal;",
             "using namespace c10::metal;", functor]
    parts += [_kernel(spec, r) for r in registrations(spec)]
    return "\n".join(parts) + "\n"


def check_on_mps(spec: KernelSpec, functor: str, *, op: str, include_root: str | Path) -> TryResult:
    """Compile with torch.mps.compile_shader and compare on the GPU."""
    from . import numerics
    from .reference import import_torch

    torch = import_torch()
    try:
        lib = torch.mps.compile_shader(shader_source(spec, functor, include_root))
    except RuntimeError as err:
        raise MpsgenError(f"the Metal compiler rejected the functor: {plain_lines(str(err).strip())[0]}",
                          hint="rerun with --emulate to see the error mapped onto the expression") from None

    def run(reg: Registration, args: list[Any], alpha: Any, out_dtype: Any) -> Any:
        out = torch.empty(args[0].shape, dtype=out_dtype, device="mps")
        extra = [alpha.item()] if alpha is not None else []
        getattr(lib, reg.symbol)(out, *[a.to("mps") for a in args], *extra)
        return out.cpu()

    return numerics.compare_all(spec, op, run, backend="Metal GPU (torch.mps.compile_shader)")
