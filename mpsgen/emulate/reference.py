"""The torch side: tensors of each Metal dtype, the CPU reference op, the kernel's bytes in and out.

torch is optional for mpsgen; it is imported here, lazily, with a one-line error when missing.
"""

from __future__ import annotations

import ctypes
import sys
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Callable, Iterator

from mpsgen.errors import MpsgenError
from mpsgen.records import NamedTuple
from .compile import ToolMissing
from .dtype_names import TORCH_DTYPES as TORCH_DTYPES  # Metal type -> torch dtype name, as ref.TORCH_DTYPES


@contextmanager
def installed_torch_first() -> Iterator[None]:
    """sys.path without the PyTorch source checkouts on it: run as `python -m mpsgen` from a checkout's
    root, '' puts the checkout's own torch/ (no built torch._C) before the installed torch."""
    shadowing = [p for p in sys.path if (Path(p or ".") / "torch" / "__init__.py").is_file()
                 and not any((Path(p or ".") / "torch").glob("_C.*"))]  # the built extension, not _C/'s stubs
    if not shadowing:
        yield
        return
    saved = list(sys.path)
    sys.path[:] = [p for p in sys.path if p not in shadowing]
    try:
        yield
    finally:
        sys.path[:] = saved


def import_torch() -> Any:
    loaded = sys.modules.get("torch")
    if loaded is not None:  # the comparison asks once per value: sys.path's scan below costs ~1.5 ms a call
        return loaded
    try:
        import warnings

        with warnings.catch_warnings(), installed_torch_first():
            warnings.simplefilter("ignore")  # "Failed to initialize NumPy" and the like
            import torch
    except ImportError:
        raise ToolMissing("the numeric check needs PyTorch, which is not installed",
                          hint="pip install torch") from None
    return torch


def torch_version() -> str | None:
    """torch's version without importing it or importlib.metadata (both cost on a cached re-run):
    torch/version.py of the torch that `import torch` would load."""
    import importlib.util
    import re
    from pathlib import Path

    try:
        with installed_torch_first():
            spec = importlib.util.find_spec("torch")
    except (ImportError, ValueError):
        return None
    if spec is None or spec.origin is None:
        return None
    try:
        text = (Path(spec.origin).parent / "version.py").read_text(encoding="utf-8")
    except OSError:
        return "unknown"
    m = re.search(r"^__version__\s*=\s*['\"]([^'\"]+)", text, re.M)
    return m.group(1) if m else "unknown"


class NoReference(MpsgenError):
    """No usable torch reference (no such op, or it cannot take these inputs): `try` refuses
    (exit 2), migrate/new-op skip the check with one line."""


class Reference(NamedTuple):
    name: str  # how it is called, e.g. "torch.special.log_ndtr"
    fn: Callable[..., Any]


def resolve(op: str) -> Reference:
    """torch.<op>, torch.special.<op> (also for special_<op>), or torch.ops.aten.<op>."""
    torch = import_torch()
    candidates = []
    if op.startswith("special_"):
        candidates.append(("torch.special." + op[len("special_"):], getattr(torch.special, op[len("special_"):], None)))
    candidates += [(f"torch.{op}", getattr(torch, op, None)), (f"torch.special.{op}", getattr(torch.special, op, None))]
    for name, fn in candidates:
        if callable(fn):
            return Reference(name, fn)
    packet = getattr(torch.ops.aten, op, None) if hasattr(torch.ops.aten, op) else None
    if packet is not None:
        return Reference(f"torch.ops.aten.{op}", packet)
    raise NoReference(f"no torch reference for '{op}' (not torch.{op}, torch.special.{op} or torch.ops.aten.{op})",
                      hint="mpsgen try compares with torch's CPU op of the same name")


def tensor(values: tuple[object, ...], metal: str) -> Any:
    """A CPU tensor of the Metal type's torch dtype (half/bfloat round here, as a store would)."""
    torch = import_torch()
    dtype = getattr(torch, TORCH_DTYPES[metal])
    if metal.endswith("2"):
        import warnings

        wide = torch.tensor([complex(v) for v in values], dtype=torch.complex128)  # type: ignore[call-overload]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # "ComplexHalf support is experimental"
            return wide.to(torch.complex64).to(dtype)
    if metal == "bool":
        return torch.tensor(values, dtype=torch.bool)
    if metal in ("float", "half", "bfloat"):
        return torch.tensor(values, dtype=torch.float64).to(dtype)
    return torch.tensor(values, dtype=torch.int64).to(dtype)


def expected(ref: Reference, args: list[Any], alpha: Any, out_metal: str) -> Any:
    """The reference result as a tensor of the kernel's output dtype.

    complex32 has almost no CPU kernels, so half2 runs in complex64 on the complex32-rounded
    inputs and the result is rounded back to complex32."""
    import warnings

    torch = import_torch()
    call = [a.to(torch.complex64) if a.dtype == torch.complex32 else a for a in args]
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "ComplexHalf support is experimental")  # complex(half, half)
        if alpha is None:
            result = ref.fn(*call)
        else:
            try:
                result = ref.fn(*call, alpha)  # logit(x, eps), ...
            except TypeError:
                result = ref.fn(*call, alpha=alpha)  # add(a, b, *, alpha), sub(...)
    if not isinstance(result, torch.Tensor):
        raise MpsgenError(f"{ref.name} returned {type(result).__name__}, not a tensor", hint="pick an elementwise op")
    out_dtype = getattr(torch, TORCH_DTYPES[out_metal])
    if result.shape != args[0].shape:
        raise MpsgenError(f"{ref.name} is not elementwise (result shape {tuple(result.shape)})")
    return result.to(out_dtype)


def raw(t: Any) -> bytes:
    """The bytes of a CPU tensor's elements (PyTorch's storage format), for the kernel's child process."""
    t = t.contiguous()
    return ctypes.string_at(t.data_ptr(), t.numel() * t.element_size())


def from_raw(data: bytes, shape: Any, out_metal: str) -> Any:
    """A tensor of the Metal output type's torch dtype holding *data* (the kernel's output bytes)."""
    torch = import_torch()
    out = torch.empty(shape, dtype=getattr(torch, TORCH_DTYPES[out_metal]))
    if len(data) != out.numel() * out.element_size():
        raise MpsgenError(f"the kernel returned {len(data)} bytes for {out.numel()} {out.dtype} values")
    ctypes.memmove(out.data_ptr(), data, len(data))
    return out


def as_python(t: Any) -> list[object]:
    """Exact Python values (half/bfloat widen exactly to float32; complex32 to complex64)."""
    torch = import_torch()
    if t.dtype in (torch.float16, torch.bfloat16):
        t = t.to(torch.float32)
    elif t.dtype == torch.complex32:
        t = t.to(torch.complex64)
    return t.tolist()
