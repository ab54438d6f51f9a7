"""A native_functions.yaml `func:` schema read: its arguments, its tensor inputs."""

from __future__ import annotations

import re

from mpsgen.records import NamedTuple
from mpsgen.scan.brackets import split_top_level


class SchemaArg(NamedTuple):
    type: str  # "Tensor", "Scalar", "float?", "int", ...
    name: str
    default: str | None
    kwarg_only: bool


def schema_args(func: str) -> tuple[SchemaArg, ...]:
    """The non-out arguments of a native_functions.yaml `func:` schema."""
    end = func.rindex(") ->") if ") ->" in func else func.rindex(")")
    inner = func[func.index("(") + 1 : end]
    out: list[SchemaArg] = []
    kwarg_only = False
    for part in split_top_level(inner):
        part = part.strip()
        if part == "*":
            kwarg_only = True
            continue
        m = re.fullmatch(r"(.+?)\s+(\w+)(?:\s*=\s*(.+))?", part)
        if not m or "!" in m.group(1):
            continue  # an out argument (Tensor(a!)) or a shape mpsgen does not read
        out.append(SchemaArg(m.group(1).strip(), m.group(2), m.group(3), kwarg_only))
    return tuple(out)


def schema_tensors(schema: str) -> int:
    """Tensor inputs of a schema (the fallback when the iterator's inputs cannot be read)."""
    args = schema.split("(", 1)[1].rsplit(")", 1)[0]
    inputs = args.split("*", 1)[0] if "*" in args else args
    return len(re.findall(r"(?:^|,)\s*Tensor\b(?!\(\w!\))(?!\[)", inputs))


def takes_optional_tensor(schema: str) -> bool:
    """Whether the schema has a `Tensor?` argument (clamp.Tensor's min and max)."""
    return re.search(r"\bTensor\?", schema) is not None
