"""The inputs an op's CPU reference cannot take (the catalog's `cpu_cannot_take`), left out of the
numeric check: each rule's `where` (emulate/row_conditions.py's language) is evaluated on the generated
inputs of one registration, with `lowest` its dtype's lowest value, isnan(v), and gcd(u, v) as torch
computes it in that dtype (the CPU's calc_gcd, wrapping as it does)."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Callable, Iterable, Sequence

from mpsgen.records import NamedTuple

from . import row_conditions
from .dtype_names import TORCH_DTYPES

if TYPE_CHECKING:
    from .inputs import Inputs


class Rule(NamedTuple):
    """One catalog rule: the rows *where* holds are not compared; *note* follows their count."""

    where: str
    note: str
    dtypes: tuple[str, ...] = ()  # torch dtypes it applies to (empty: all)


def without_rows(rules: Iterable[Rule], data: Inputs, metal: str, variables: Sequence[str]) -> tuple[Inputs, str]:
    """*data* without the rows any rule that applies to the *metal* registration matches, and the note
    saying how many each left out.  No rule applies unless *data* has one column per input."""
    from . import inputs as inp

    applying = [r for r in rules if not r.dtypes or TORCH_DTYPES[metal] in r.dtypes]
    if not applying or len(data.columns) != len(variables):
        return data, ""
    lowest = inp.INT_RANGES[metal][0] if metal in inp.INT_RANGES else -math.inf
    names = {"lowest": lowest, **dict(zip(variables, data.columns))}
    functions: dict[str, Callable[..., list[Any]]] = {"isnan": _isnan, "gcd": lambda u, v: _gcd(u, v, metal)}
    rows = len(data.columns[0])
    matched = [[bool(v) for v in row_conditions.evaluate(row_conditions.parse(r.where, variables), names,
                                                         functions, rows)] for r in applying]
    keep = [not any(hits) for hits in zip(*matched)]
    notes = [f"{hits.count(True)} {r.note}" for r, hits in zip(applying, matched) if any(hits)]
    return inp.drop_rows(data, keep), "; ".join(notes)


def _isnan(values: Sequence[Any]) -> list[bool]:
    return [(x := row_conditions.number(v)) is not None and math.isnan(x) for v in values]


def _gcd(u: Sequence[Any], v: Sequence[Any], metal: str) -> list[Any]:
    from .reference import import_torch

    torch = import_torch()
    dtype = getattr(torch, TORCH_DTYPES[metal])
    return list(torch.gcd(torch.tensor(u, dtype=dtype), torch.tensor(v, dtype=dtype)).tolist())
