"""The reductions the reduction kind serves, per stub: the table alone (check's frontier asks which stubs it
serves; the kernels' texts are generate/reduction_kernel.py's, which loads the templates).

Per reduction: the stub it serves, the torch op it is checked against and, per Metal type, the accumulation
type the kernel folds in: the CPU kernel's (float for half and bfloat, long for an integer or bool sum, the
type itself for a maximum; int for a narrow integer's maximum, exact and what simd_max takes).
"""

from __future__ import annotations

from mpsgen.records import NamedTuple

_INTEGERS_TO_LONG = (("long", "long"), ("int", "long"), ("short", "long"), ("char", "long"), ("uchar", "long"),
                     ("bool", "long"))
_INTEGERS_TO_INT = (("long", "long"), ("int", "int"), ("short", "int"), ("char", "int"), ("uchar", "int"),
                    ("bool", "int"))
_FLOATS = (("float", "float"), ("half", "float"), ("bfloat", "float"))
_EVERY = ("float", "integer", "complex")  # all/any: the iterator converts any input to bool first


class ReductionOp(NamedTuple):
    """One reduction the kernel template runs."""

    name: str  # the kernels' middle name: reduce_<name>_<T>
    stub: str  # the DispatchStub its host kernel is registered on
    struct: str  # the op struct in the .metal
    reference: str  # the torch function the numeric check compares with (CPU)
    types: tuple[tuple[str, str], ...]  # (Metal type, accumulation type), in registration order
    groups: tuple[str, ...] = ()  # the input dtype groups it serves, when not those of its types
    scalar: str = ""  # the stub's Scalar after the iterator, named so in the host (norm_stub's ord)
    also: str = ""  # a second stub its kernels serve (aminmax_allreduce_stub), neither taking an iterator

    @property
    def kernels(self) -> str:
        """The kernels' names: reduce_sum_<T>, reduce_norm_<class>_<T> (a kernel per class of the ord)."""
        return f"reduce_{self.name}_<class>_<T>" if self.name == "norm" else f"reduce_{self.name}_<T>"


REDUCTIONS = {op.stub: op for op in (
    ReductionOp("sum", "sum_stub", "sum_op", "torch.sum", (*_FLOATS, *_INTEGERS_TO_LONG, ("float2", "float2"))),
    ReductionOp("mean", "mean_stub", "mean_op", "torch.mean", (*_FLOATS, ("float2", "float2"))),
    # nansum_out hands integer inputs to sum_out: its stub sees the floating types (the CPU kernel's)
    ReductionOp("nansum", "nansum_stub", "nansum_op", "torch.nansum", _FLOATS),
    ReductionOp("amax", "max_values_stub", "max_op", "torch.amax", (*_FLOATS, *_INTEGERS_TO_INT)),
    ReductionOp("amin", "min_values_stub", "min_op", "torch.amin", (*_FLOATS, *_INTEGERS_TO_INT)),
    # all_out/any_out's iterator converts the input to the output's dtype: bool, or uint8 for a uint8 input
    ReductionOp("all", "and_stub", "all_op", "torch.all", (("bool", "bool"), ("uchar", "bool")), _EVERY),
    ReductionOp("any", "or_stub", "any_op", "torch.any", (("bool", "bool"), ("uchar", "bool")), _EVERY),
    # linalg_vector_norm's iterator: the input in the output's dtype, or its complex type (the result is real)
    ReductionOp("norm", "norm_stub", "norm_op", "torch.linalg.vector_norm", (*_FLOATS, ("float2", "float")),
                ("float", "complex"), scalar="ord"),
    # aminmax_out calls aminmax_stub (a dim) or aminmax_allreduce_stub (none): one kernel writes both outputs
    ReductionOp("aminmax", "aminmax_stub", "aminmax_op", "torch.aminmax", (*_FLOATS, *_INTEGERS_TO_INT),
                also="aminmax_allreduce_stub"),
)}


def paired_stub(names: tuple[str, ...]) -> str | None:
    """The first stub of the reduction whose two stubs are *names*, in any order (aminmax_out's aminmax_stub and
    aminmax_allreduce_stub), else None."""
    return next((op.stub for op in REDUCTIONS.values() if op.also and set(names) == {op.stub, op.also}), None)
