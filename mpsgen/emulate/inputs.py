"""Deterministic inputs per Metal dtype: edge cases plus seeded random values (plain Python).

Binary and ternary ops get the cartesian product of the edge cases plus random tuples, so
mixed cases (inf with NaN, -0 with +0, min with -1) are all covered.  Values are Python
numbers; reference.py turns them into tensors of the dtype (which rounds half/bfloat).
"""

from __future__ import annotations

import itertools
import random
from typing import Any

from mpsgen.records import NamedTuple

SEED = 20260414  # fixed: the same inputs on every run (the result cache relies on it)
RANDOM_COUNT = 64
INF, NAN = float("inf"), float("nan")

# Integer ranges of the Metal scalar types.
INT_RANGES = {"long": (-(2**63), 2**63 - 1), "int": (-(2**31), 2**31 - 1), "short": (-(2**15), 2**15 - 1),
              "char": (-128, 127), "uchar": (0, 255)}
# Subnormal, smallest normal and largest finite magnitudes per floating type.
FLOAT_EDGES = {
    "float": (1e-45, 1e-40, 1.1754944e-38, 3.4028235e38),
    "half": (5.9604645e-08, 3e-06, 6.1035156e-05, 65504.0),
    "bfloat": (9.2e-41, 1e-39, 1.1754944e-38, 3.38e38),
}
# alpha ops: zero, small, ordinary, negative (logit's eps: "no clamping").  The small one is 1e-3,
# not smaller: alpha arrives in the input dtype, and 1 - 1e-6 is 1 in half and bfloat.
ALPHAS = (0.0, 1e-3, 0.25, -1.0)
_COMPLEX_PAIR_PARTS = (0.0, -0.0, 1.0, -1.0, 2.0, INF, -INF, NAN)


class Inputs(NamedTuple):
    """Argument columns (one tuple per functor argument) and the alpha scalars to try."""

    columns: tuple[tuple[object, ...], ...]
    alphas: tuple[float, ...] = ()


def scalar_type(metal: str) -> str:
    """float2 -> float, half2 -> half (the component type of complex values)."""
    return metal[:-1] if metal.endswith("2") else metal


def edge_values(metal: str) -> list[Any]:
    base = scalar_type(metal)
    if base == "bool":
        return [False, True]
    if base in INT_RANGES:
        lo, hi = INT_RANGES[base]
        vals = [0, 1, 2, 3, 7, 100, lo, hi, lo + 1, hi - 1] + ([-1, -2, -3, -7, -100] if lo < 0 else [])
        return [v for v in dict.fromkeys(vals) if lo <= v <= hi]
    sub, tiny_sub, min_normal, big = FLOAT_EDGES[base]
    mags = [0.0, 1.0, 0.5, 2.0, 3.0, 0.1, 10.0, 100.0, 3.140625, sub, tiny_sub, min_normal, big, INF, 1e-3]
    reals = [v for m in mags for v in (m, -m)] + [NAN]
    if metal.endswith("2"):  # complex: every real edge value as real and as imaginary part, plus mixes
        pick = [0.0, -0.0, 1.0, -1.0, 0.5, 2.0, INF, -INF, NAN, min_normal, big, 1e-3]
        return [complex(r, i) for r, i in itertools.product(pick, pick)]
    return reals


def random_values(metal: str, count: int, rng: random.Random) -> list[Any]:
    base = scalar_type(metal)
    if base == "bool":
        return [rng.random() < 0.5 for _ in range(count)]
    if base in INT_RANGES:
        lo, hi = INT_RANGES[base]
        small = [rng.randint(max(lo, -1000), min(hi, 1000)) for _ in range(count // 2)]
        return small + [rng.randint(lo, hi) for _ in range(count - len(small))]
    _, _, min_normal, big = FLOAT_EDGES[base]

    def one() -> float:
        if rng.random() < 0.5:
            return rng.uniform(-10.0, 10.0)
        # log-uniform magnitude over the type's normal range, random sign
        import math

        e = rng.uniform(math.log(min_normal), math.log(big))
        return math.copysign(math.exp(e), rng.random() - 0.5)

    if metal.endswith("2"):
        return [complex(one(), one()) for _ in range(count)]
    return [one() for _ in range(count)]


def make_inputs(metal: str, arity: str, alpha_type: str | None = None, *, nargs: int | None = None) -> Inputs:
    """The columns for one registered input dtype (deterministic); *nargs* overrides the arity's
    count (a kernel that reads one tensor twice: threshold's (self, self))."""
    edges = edge_values(metal)
    # Made once per process for each dtype and arity (each op of a `migrate --all` worker, each catalog test): the
    # key holds the edge values by repr, which tells -0.0 from 0.0 and NaN from nothing else.
    key = (metal, arity, alpha_type, nargs, repr(edges), SEED, RANDOM_COUNT)
    made = _MADE.get(key)
    if made is None:
        made = _MADE[key] = _make(metal, arity, alpha_type, nargs, edges)
    return made


_MADE: dict[tuple[object, ...], Inputs] = {}  # Inputs holds tuples only: shared safely


def _make(metal: str, arity: str, alpha_type: str | None, nargs: int | None, edges: list[Any]) -> Inputs:
    rng = random.Random(f"{SEED}:{metal}:{arity}:{nargs}" if nargs else f"{SEED}:{metal}:{arity}")
    nargs = nargs or {"unary": 1, "binary": 2, "ternary": 3}[arity.split("_")[0]]
    if nargs > 1 and metal.endswith("2"):  # complex pairs: a smaller edge set (64^2 pairs, not 144^2)
        edges = [complex(r, i) for r, i in itertools.product(_COMPLEX_PAIR_PARTS, repeat=2)]
    if nargs == 1:
        cols = [edges + random_values(metal, RANDOM_COUNT * 4, rng)]
    else:
        if nargs == 3:  # keep the ternary product small
            edges = edges[::3] if len(edges) > 12 else edges
        rows = list(itertools.product(edges, repeat=nargs))
        rows += list(zip(*(random_values(metal, RANDOM_COUNT * 4, rng) for _ in range(nargs))))
        cols = [list(c) for c in zip(*rows)]
    alphas = ALPHAS if alpha_type else ()
    return Inputs(tuple(tuple(c) for c in cols), alphas)


def drop_rows(inputs: Inputs, keep: list[bool]) -> Inputs:
    """The same inputs without the rows where *keep* is False."""
    cols = tuple(tuple(v for v, k in zip(col, keep) if k) for col in inputs.columns)
    return Inputs(cols, inputs.alphas)
