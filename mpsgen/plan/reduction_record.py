"""The record the reduction kind's code phase returns (plan/reduction_code.py), apart from that phase so the
Plan (plan/result.py) can hold it without importing the planner."""

from __future__ import annotations

from dataclasses import dataclass

from mpsgen.plan.kind_record import KindCode

# Metal type -> torch dtype (scalarToMetalTypeString's names)
DTYPES = {"float": "float32", "half": "float16", "bfloat": "bfloat16", "long": "int64", "int": "int32",
          "short": "int16", "char": "int8", "uchar": "uint8", "bool": "bool", "float2": "complex64"}


@dataclass(frozen=True)
class ReductionCode(KindCode):
    """What the reduction kind's code phase planned (kept: the stub already runs a kernel that is not MPSGraph)."""

    name: str = ""  # the reduction: sum
    groups: tuple[str, ...] = ()  # the dtype groups its kernels serve (the test lists are narrowed to them)
