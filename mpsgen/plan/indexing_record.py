"""The record the indexing kind's code phase returns (plan/indexing_code.py), apart from that phase so the
Plan (plan/result.py) can hold it without importing the planner."""

from __future__ import annotations

from dataclasses import dataclass

from mpsgen.plan.kind_record import KindCode

# torch dtype -> its element size, whose kernel copies its bits (getBitSizeString's names)
SIZES = {"float32": "32bit", "float16": "16bit", "bfloat16": "16bit", "int64": "64bit", "int32": "32bit",
         "int16": "16bit", "int8": "8bit", "uint8": "8bit", "bool": "8bit", "complex64": "64bit",
         "complex32": "32bit"}
# per stub, the dtypes its CPU kernel takes on MPS (no double): index_fill's AT_DISPATCH_ALL_TYPES_AND_COMPLEX_AND4
# has kComplexHalf, the scatter/gather kernels' AT_DISPATCH_ALL_TYPES_AND_COMPLEX_AND3 do not
DTYPES = {"index_fill_stub": tuple(SIZES), "gather_stub": tuple(d for d in SIZES if d != "complex32"),
          "scatter_add_stub": tuple(d for d in SIZES if d != "complex32")}
DTYPES.update(dict.fromkeys(("scatter_stub", "scatter_fill_stub", "scatter_reduce_stub", "scatter_scalar_reduce_stub"),
                            DTYPES["scatter_add_stub"]))
# torch dtype -> the Metal type a kernel that computes (scatter_add's sums) is instantiated for
METAL_TYPES = {"float32": "float", "float16": "half", "bfloat16": "bfloat", "int64": "long", "int32": "int",
               "int16": "short", "int8": "char", "uint8": "uchar", "bool": "bool", "complex64": "float2",
               "complex32": "half2"}
# their kernels compute (add, multiply): one instance per Metal type, not per element size
PER_TYPE = frozenset({"scatter_add_stub", "scatter_stub", "scatter_fill_stub", "scatter_reduce_stub",
                      "scatter_scalar_reduce_stub"})


def instance(stub: str, dtype: str) -> str:
    """The suffix of the kernel *stub*'s host runs for *dtype*: its element size, or its Metal type."""
    return METAL_TYPES[dtype] if stub in PER_TYPE else SIZES[dtype]
DTYPE_GROUPS = ("float", "integer", "complex")  # what the test lists are narrowed to: every one of them


@dataclass(frozen=True)
class IndexingCode(KindCode):
    """What the indexing kind's code phase planned (kept: the stub already runs a kernel that is not MPSGraph)."""

    stub: str = ""

    @property
    def instances(self) -> tuple[str, ...]:
        """The suffixes its kernel must be instantiated for (element sizes, or Metal types)."""
        return tuple(dict.fromkeys(instance(self.stub, d) for d in DTYPES.get(self.stub, ())))
