"""The record the reduction kind's code phase returns (plan/reduction_code.py), apart from that phase so the
Plan (plan/result.py) can hold it without importing the planner."""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from mpsgen.plan.dtypes import Row
    from mpsgen.plan.texts import TextEdit

# Metal type -> torch dtype (scalarToMetalTypeString's names)
DTYPES = {"float": "float32", "half": "float16", "bfloat": "bfloat16", "long": "int64", "int": "int32",
          "short": "int16", "char": "int8", "uchar": "uint8", "bool": "bool", "float2": "complex64"}


class ReductionCode(NamedTuple):
    """What the reduction kind's code phase planned (kept: the stub already runs a kernel that is not MPSGraph)."""

    kernel: str = ""  # the kernels' prefix: reduce_sum -> reduce_sum_<T>
    name: str = ""  # the reduction: sum
    metal_path: str = ""
    mm_path: str = ""
    metal_text: str = ""  # the whole planned .metal (the numeric check compiles it)
    host_code: str = ""
    register_line: str = ""
    rows: tuple[Row, ...] = ()
    edits: tuple[TextEdit, ...] = ()
    added: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    groups: tuple[str, ...] = ()  # the dtype groups its kernels serve (the test lists are narrowed to them)
    kept: str = ""  # why nothing was written: the stub's registration
