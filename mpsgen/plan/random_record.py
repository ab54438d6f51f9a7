"""The record the random kind's code phase returns (plan/random_code.py), apart from that phase so the
Plan (plan/result.py) can hold it without importing the planner."""

from __future__ import annotations

from dataclasses import dataclass

from mpsgen.plan.kind_record import KindCode

# torch dtype -> the Metal type its kernels run (a complex output reaches the stub as its real view)
DTYPES = {"float32": "float", "float16": "half", "bfloat16": "bfloat", "complex64": "float", "complex32": "half"}
# bernoulli's: every real dtype (the CPU kernel dispatches all types and bool)
ALL_DTYPES = {"float32": "float", "float16": "half", "bfloat16": "bfloat", "int64": "long", "int32": "int",
              "int16": "short", "int8": "char", "uint8": "uchar", "bool": "bool"}
DTYPE_GROUPS = ("float", "complex")  # what the test lists are narrowed to
METAL_TYPES = ("float", "half")  # registered as they are; bfloat under the Metal version guard (2.7)
ALL_METAL_TYPES = ("float", "half", "long", "int", "short", "char", "uchar", "bool")
BFLOAT = "bfloat"


def every_dtype(kernel: str) -> bool:
    """Whether a sampler draws for every real dtype (bernoulli's 0/1, random_'s integers), not the floating
    ones only."""
    return kernel.startswith(("bernoulli", "random"))


def metal_types(kernel: str) -> tuple[str, ...]:
    """The Metal types a sampler's kernels are registered for, bfloat aside (random_full_64: the CPU
    kernel's long, float and bfloat; half registered beside bfloat as the checkout's files pair them, its
    host refusing it as the CPU kernel does)."""
    if kernel == "random_full_64":
        return ("float", "half", "long")
    return ALL_METAL_TYPES if every_dtype(kernel) else METAL_TYPES


# sampler -> the ScalarTypes its host kernel accepts (the CPU kernel refuses the others), when not all
HOST_ONLY = {"random_full_64": ("kLong", "kFloat", "kBFloat16")}


def torch_dtypes(kernel: str) -> dict[str, str]:
    """torch dtype -> Metal type of what a sampler serves (the dtype table's rows)."""
    if kernel == "random_full_64":
        return {"float32": "float", "bfloat16": "bfloat", "int64": "long"}
    return ALL_DTYPES if every_dtype(kernel) else DTYPES


@dataclass(frozen=True)
class RandomCode(KindCode):
    """What the random kind's code phase planned (kept: the stub already runs a kernel that is not MPSGraph)."""

    op: str = ""  # the CPU op the numeric check compares with (uniform_)
    samplers: tuple[tuple[str, str], ...] = ()  # (kernel, CPU op) of every sampler (bernoulli: two)

    @property
    def metal_types(self) -> tuple[str, ...]:
        """The Metal types its (first) kernels must be instantiated for."""
        return (*metal_types(self.kernel), BFLOAT)
