"""The inputs an op's CPU reference cannot take (the catalog's `cpu_cannot_take`), left out of the
numeric check: a rule's `where` is a small expression over the kernel's inputs, evaluated per row.

The language, checked when the catalog loads: the inputs by their names (x; a, b; a, b, c), numbers,
`lowest` (the registered dtype's lowest value), `isnan(v)`, `gcd(u, v)` (torch.gcd in the registered
dtype, as the CPU computes it), the comparisons == != < <= > >= (one per comparison), and, or, not.
A comparison with a value that is not a real number (a bool, a complex pair) is false.
"""

from __future__ import annotations

import ast
import math
from typing import TYPE_CHECKING, Any, Iterable, Mapping, NamedTuple, Sequence

if TYPE_CHECKING:
    from .inputs import Inputs

LANGUAGE = ("a condition in the inputs (x; a, b; a, b, c), numbers, lowest, isnan(v), gcd(u, v), "
            "== != < <= > >= and, or, not")
FUNCTIONS = {"isnan": 1, "gcd": 2}
CONSTANTS = ("lowest",)
_COMPARE = {ast.Eq: lambda u, v: u == v, ast.NotEq: lambda u, v: u != v, ast.Lt: lambda u, v: u < v,
            ast.LtE: lambda u, v: u <= v, ast.Gt: lambda u, v: u > v, ast.GtE: lambda u, v: u >= v}


class Rule(NamedTuple):
    """One catalog rule: the rows *where* holds are not compared; *note* follows their count."""

    where: str
    note: str
    dtypes: tuple[str, ...] = ()  # torch dtypes it applies to (empty: all)


def parse(where: str, variables: Sequence[str]) -> ast.expr:
    """*where* as an expression tree, or ValueError naming what the language lacks."""
    try:
        tree = ast.parse(where.strip(), mode="eval").body
    except SyntaxError as err:
        raise ValueError(f"not an expression ({err.msg})") from None
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id not in (*variables, *CONSTANTS, *FUNCTIONS):
            raise ValueError(f"unknown name {node.id!r} (inputs: {', '.join(variables)}; {', '.join(CONSTANTS)})")
        if isinstance(node, ast.Call) and not (isinstance(node.func, ast.Name) and node.func.id in FUNCTIONS
                                               and len(node.args) == FUNCTIONS[node.func.id] and not node.keywords):
            raise ValueError(f"only {', '.join(f'{f}()' for f in FUNCTIONS)} may be called, with "
                             f"{' and '.join(str(n) for n in FUNCTIONS.values())} argument(s)")
        if isinstance(node, ast.Compare) and (len(node.ops) != 1 or type(node.ops[0]) not in _COMPARE):
            raise ValueError("one comparison (== != < <= > >=) at a time")
        if isinstance(node, ast.Constant) and (isinstance(node.value, bool) or not isinstance(node.value, (int, float))):
            raise ValueError(f"{node.value!r} is not a number")
        if not isinstance(node, (ast.BoolOp, ast.And, ast.Or, ast.UnaryOp, ast.Not, ast.USub, ast.Compare,
                                 ast.Call, ast.Name, ast.Load, ast.Constant, *_COMPARE)):
            raise ValueError(f"{type(node).__name__} is not part of the language")
    return tree


def without_rows(rules: Iterable[Rule], data: Inputs, metal: str, variables: Sequence[str]) -> tuple[Inputs, str]:
    """*data* without the rows any rule that applies to the *metal* registration matches, and the note
    saying how many each left out.  No rule applies unless *data* has one column per input."""
    from . import inputs as inp
    from . import reference as ref

    applying = [r for r in rules if not r.dtypes or ref.TORCH_DTYPES[metal] in r.dtypes]
    if not applying or len(data.columns) != len(variables):
        return data, ""
    columns = dict(zip(variables, data.columns))
    matched = [[bool(v) for v in _evaluate(parse(r.where, variables), columns, metal)] for r in applying]
    keep = [not any(rows) for rows in zip(*matched)]
    notes = [f"{rows.count(True)} {r.note}" for r, rows in zip(applying, matched) if any(rows)]
    return inp.drop_rows(data, keep), "; ".join(notes)


def _number(v: object) -> int | float | None:
    """*v* when it is a real number (an int64 stays exact), else None."""
    return v if isinstance(v, (int, float)) and not isinstance(v, bool) else None


def _evaluate(node: ast.expr, columns: Mapping[str, Sequence[Any]], metal: str) -> list[Any]:
    """*node*'s value per row (a column of Python values)."""
    n = len(next(iter(columns.values())))
    if isinstance(node, ast.Constant):
        return [node.value] * n
    if isinstance(node, ast.Name):
        return list(columns[node.id]) if node.id in columns else [_lowest(metal)] * n
    if isinstance(node, ast.UnaryOp):
        value = _evaluate(node.operand, columns, metal)
        return [not v for v in value] if isinstance(node.op, ast.Not) else [-v for v in value]
    if isinstance(node, ast.BoolOp):
        parts = [_evaluate(v, columns, metal) for v in node.values]
        combine = all if isinstance(node.op, ast.And) else any
        return [combine(bool(v) for v in row) for row in zip(*parts)]
    if isinstance(node, ast.Compare):
        test = _COMPARE[type(node.ops[0])]
        left, right = _evaluate(node.left, columns, metal), _evaluate(node.comparators[0], columns, metal)
        return [u is not None and v is not None and test(u, v)
                for u, v in zip(map(_number, left), map(_number, right))]
    assert isinstance(node, ast.Call) and isinstance(node.func, ast.Name)  # parse() allows nothing else
    args = [_evaluate(a, columns, metal) for a in node.args]
    if node.func.id == "isnan":
        return [(x := _number(v)) is not None and math.isnan(x) for v in args[0]]
    return _gcd(args[0], args[1], metal)


def _lowest(metal: str) -> float:
    from . import inputs as inp

    return inp.INT_RANGES[metal][0] if metal in inp.INT_RANGES else -math.inf


def _gcd(u: Sequence[Any], v: Sequence[Any], metal: str) -> list[Any]:
    """torch.gcd of the two columns in the registered dtype: the CPU's calc_gcd, wrapping as it does."""
    from . import reference as ref

    torch = ref.import_torch()
    dtype = getattr(torch, ref.TORCH_DTYPES[metal])
    return list(torch.gcd(torch.tensor(u, dtype=dtype), torch.tensor(v, dtype=dtype)).tolist())
