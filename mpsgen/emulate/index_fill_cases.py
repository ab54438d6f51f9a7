"""The cases the indexing kind's numeric check runs (emulate/index_fill_check.py), and what the shared
kernel hands index_fill_stub for each: 2.7's TensorAdvancedIndexing.cpp index_fill_ restrides `self`
along dim (size: the index's length, stride 0) and the index to advance along dim only (its stride
there: the index's own, 1 for a 0-dim index), and passes dim's real size and stride; the stub's
kernel sees those two tensors through `iter.tensor(0)` and `iter.tensor(1)`.
"""

from __future__ import annotations

from typing import Any

from mpsgen.records import NamedTuple


class Case(NamedTuple):
    """One index_fill_ call: `self` a view of a fresh storage of *storage* elements, the index a view of
    its own storage (non-contiguous when *index_step* > 1)."""

    name: str
    storage: int
    size: tuple[int, ...]
    stride: tuple[int, ...]
    offset: int
    dim: int
    indices: tuple[int, ...] | int  # an int: a 0-dim index
    index_step: int = 1


# duplicate and negative indices, every dim (negative dims too), transposed and sliced views, a
# non-contiguous index, a 0-dim self and index, an empty index
CASES = (
    Case("dense dim 0", 120, (4, 5, 6), (30, 6, 1), 0, 0, (0, 2, -1, 2)),
    Case("dense dim 1", 120, (4, 5, 6), (30, 6, 1), 0, 1, (4, -5, 1)),
    Case("dense dim -1", 120, (4, 5, 6), (30, 6, 1), 0, -1, (5, 0, 0, -2)),
    Case("dense dim -3", 120, (4, 5, 6), (30, 6, 1), 0, -3, (3,)),
    Case("transposed dim 0", 120, (6, 5, 4), (1, 6, 30), 0, 0, (1, -1)),
    Case("sliced dim 2", 240, (5, 4, 4), (48, 8, 2), 9, 2, (0, 3, -4)),
    Case("sliced dim 1, strided index", 240, (5, 4, 4), (48, 8, 2), 9, 1, (2, 7, -1, 9, 0, 9), 2),
    Case("0-dim self", 3, (), (), 1, 0, 0),
    Case("0-dim self, index -1", 3, (), (), 1, -1, -1),
    Case("0-dim index", 24, (4, 6), (6, 1), 0, 1, -6),
    Case("empty index", 24, (4, 6), (6, 1), 0, 0, ()),
)


def stub_arguments(case: Case) -> dict[str, Any]:
    """What the shared kernel passes the stub for *case*: the restrided self's and index's sizes and
    strides (elements), dim's real size and stride, and the iterator's element count."""
    size, stride = (list(case.size), list(case.stride)) if case.size else ([1], [1])  # self.unsqueeze(-1)
    ndim = len(size)
    dim = case.dim + ndim if case.dim < 0 else case.dim
    count = 1 if isinstance(case.indices, int) else len(case.indices) // case.index_step + \
        (1 if len(case.indices) % case.index_step else 0)
    index_strides = [0] * ndim
    index_strides[dim] = 1 if isinstance(case.indices, int) else case.index_step
    dim_size, dim_stride = size[dim], stride[dim]
    size[dim], stride[dim] = count, 0
    numel = 1
    for s in size:
        numel *= s
    return {"sizes": size, "self_strides": stride, "index_strides": index_strides, "ndim": ndim,
            "dim_size": dim_size, "dim_stride": dim_stride, "numel": numel}
