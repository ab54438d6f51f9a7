"""torch dtype names as written in test lists (`torch.float16`, `torch.half`, ...)."""

from __future__ import annotations

import ast
from collections.abc import Iterable

from mpsgen.errors import MpsgenError

# Other spellings of the same dtype (torch.half is torch.float16, ...).
_ALIASES = {
    "half": "float16",
    "float": "float32",
    "double": "float64",
    "long": "int64",
    "int": "int32",
    "short": "int16",
    "cfloat": "complex64",
    "cdouble": "complex128",
    "chalf": "complex32",
}
KNOWN = frozenset(
    {
        "bool", "uint8", "int8", "int16", "int32", "int64", "uint16", "uint32", "uint64",
        "float16", "bfloat16", "float32", "float64", "complex32", "complex64", "complex128",
    }
)  # fmt: skip
COMPLEX = frozenset({"complex32", "complex64", "complex128"})

# test_mps.py: MPS_DTYPES = get_all_dtypes() minus double/cdouble; MPS_GRAD_DTYPES = [float32, float16].
MPS_DTYPES = ("uint8", "int8", "int16", "int32", "int64", "float32", "bfloat16", "float16", "bool", "complex64")
MPS_GRAD_DTYPES = ("float32", "float16")


def canonical(name: str) -> str | None:
    """'half' -> 'float16', 'torch.float32' -> 'float32'; None when not a dtype name."""
    name = name.strip().removeprefix("torch.")
    name = _ALIASES.get(name, name)
    return name if name in KNOWN else None


def normalise(names: Iterable[str] | None) -> frozenset[str] | None:
    """The caller's supported dtypes in canonical form (None = every dtype)."""
    if names is None:
        return None
    out = set()
    for name in names:
        canon = canonical(name)
        if canon is None:
            raise MpsgenError(
                f"unknown dtype {name!r}",
                hint="use torch dtype names such as float32, float16, bfloat16, int64, bool, complex64",
            )
        out.add(canon)
    return frozenset(out)


def dtype_of(node: ast.expr) -> str | None:
    """'float32' for the expression `torch.float32`; None for anything else."""
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "torch":
        return canonical(node.attr)
    return None
