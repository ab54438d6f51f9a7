"""The small language of the catalog's `cpu_cannot_take` conditions, parsed and evaluated column-wise.

A condition names the kernel's inputs (x; a, b; a, b, c), numbers, `lowest`, the functions of FUNCTIONS
(their meaning is the caller's: emulate/cannot_take.py), the comparisons == != < <= > >= (one per
comparison), and, or, not.  A comparison with a value that is not a real number (a bool, a complex pair)
is false.  Pure (no torch): the catalog checks each condition with parse() when it loads.
"""

from __future__ import annotations

import ast
from typing import Any, Callable, Mapping, Sequence

LANGUAGE = ("a condition in the inputs (x; a, b; a, b, c), numbers, lowest, isnan(v), gcd(u, v), "
            "== != < <= > >= and, or, not")
FUNCTIONS = {"isnan": 1, "gcd": 2}  # name -> argument count
CONSTANTS = ("lowest",)
_COMPARE: dict[type, Callable[[Any, Any], bool]] = {
    ast.Eq: lambda u, v: u == v, ast.NotEq: lambda u, v: u != v, ast.Lt: lambda u, v: u < v,
    ast.LtE: lambda u, v: u <= v, ast.Gt: lambda u, v: u > v, ast.GtE: lambda u, v: u >= v}
_ALLOWED = (ast.BoolOp, ast.And, ast.Or, ast.UnaryOp, ast.Not, ast.USub, ast.Compare, ast.Call, ast.Name, ast.Load,
            ast.Constant, *_COMPARE)


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
        if not isinstance(node, _ALLOWED):
            raise ValueError(f"{type(node).__name__} is not part of the language")
    return tree


def number(v: object) -> int | float | None:
    """*v* when it is a real number (an int64 stays exact), else None."""
    return v if isinstance(v, (int, float)) and not isinstance(v, bool) else None


def evaluate(tree: ast.expr, names: Mapping[str, Any], functions: Mapping[str, Callable[..., list[Any]]],
             rows: int) -> list[Any]:
    """*tree*'s value per row: *names* maps an input to its column (a sequence) and a constant to its value;
    *functions* maps each of FUNCTIONS to a function of columns returning a column."""
    def value(node: ast.expr) -> list[Any]:
        if isinstance(node, ast.Constant):
            return [node.value] * rows
        if isinstance(node, ast.Name):
            bound = names[node.id]
            return list(bound) if isinstance(bound, (list, tuple)) else [bound] * rows
        if isinstance(node, ast.UnaryOp):
            inner = value(node.operand)
            return [not v for v in inner] if isinstance(node.op, ast.Not) else [-v for v in inner]
        if isinstance(node, ast.BoolOp):
            parts = [value(v) for v in node.values]
            combine = all if isinstance(node.op, ast.And) else any
            return [combine(bool(v) for v in row) for row in zip(*parts)]
        if isinstance(node, ast.Compare):
            test = _COMPARE[type(node.ops[0])]
            left, right = value(node.left), value(node.comparators[0])
            return [u is not None and v is not None and test(u, v)
                    for u, v in zip(map(number, left), map(number, right))]
        assert isinstance(node, ast.Call) and isinstance(node.func, ast.Name)  # parse() allows nothing else
        return functions[node.func.id](*(value(a) for a in node.args))

    return value(tree)
