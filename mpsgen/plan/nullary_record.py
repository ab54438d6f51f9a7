"""The record the nullary kind's code phase returns (plan/nullary_code.py), apart from that phase so the
Plan (plan/result.py) can hold it without importing the planner."""

from __future__ import annotations

from dataclasses import dataclass

from mpsgen.plan.kind_record import KindCode

# torch dtype -> the Metal type its kernels are instantiated for (scalarToMetalTypeString's names)
DTYPES = {"float32": "float", "float16": "half", "bfloat16": "bfloat", "int64": "long", "int32": "int",
          "int16": "short", "int8": "char", "uint8": "uchar", "bool": "bool", "complex64": "float2",
          "complex32": "half2"}
DTYPE_GROUPS = ("float", "integer", "complex")  # what the test lists are narrowed to: every one of them


@dataclass(frozen=True)
class NullaryCode(KindCode):
    """What the nullary kind's code phase planned (kept: the stub already runs a kernel that is not MPSGraph)."""

    value: str = ""  # a literal the op passes as the value (zero_: "0"), else the op's scalar argument

    @property
    def metal_types(self) -> tuple[str, ...]:
        """The Metal types its kernels must be instantiated for."""
        return tuple(DTYPES.values())

