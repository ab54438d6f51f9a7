"""The record the nullary kind's code phase returns (plan/nullary_code.py), apart from that phase so the
Plan (plan/result.py) can hold it without importing the planner."""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from mpsgen.plan.dtypes import Row
    from mpsgen.plan.texts import TextEdit

# torch dtype -> the Metal type its kernels are instantiated for (scalarToMetalTypeString's names)
DTYPES = {"float32": "float", "float16": "half", "bfloat16": "bfloat", "int64": "long", "int32": "int",
          "int16": "short", "int8": "char", "uint8": "uchar", "bool": "bool", "complex64": "float2",
          "complex32": "half2"}
DTYPE_GROUPS = ("float", "integer", "complex")  # what the test lists are narrowed to: every one of them


class NullaryCode(NamedTuple):
    """What the nullary kind's code phase planned (kept: the stub already runs a kernel that is not MPSGraph)."""

    kernel: str = ""  # the kernels' prefix: fill -> fill_dense_<T>, fill_strided_<T>
    metal_path: str = ""
    mm_path: str = ""
    metal_text: str = ""  # the kernels as rendered (the numeric check compiles the planned file)
    host_code: str = ""
    register_line: str = ""
    rows: tuple[Row, ...] = ()
    edits: tuple[TextEdit, ...] = ()
    added: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    kept: str = ""  # why nothing was written: the stub's registration
    value: str = ""  # a literal the op passes as the value (zero_: "0"), else the op's scalar argument

    @property
    def metal_types(self) -> tuple[str, ...]:
        """The Metal types its kernels must be instantiated for."""
        return tuple(DTYPES.values())

