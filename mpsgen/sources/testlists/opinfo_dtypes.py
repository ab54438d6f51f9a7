"""The dtypes an op's OpInfos declare for MPS, read as text (torch is never imported).

An OpInfo's MPS dtypes are `dtypesIfMPS` when given, else `dtypes` (opinfo/core.py keeps them in
`dtypesIf["mps"]` and falls back to `dtypes`).  Real OpInfos spell them with the helpers of
common_dtype.py (`all_types_and(torch.bool, torch.half)`, `custom_types(...)`,
`floating_and_complex_types_and(...)`, ...), plain tuples/lists/sets, `_dispatch_dtypes((...))`, sums of
those, and starred module constants (`*_unsigned_int_types`).  They are evaluated by the table below;
anything else is reported as unresolved rather than guessed.  Every OpInfo of the op counts (its
variants and the ones found through aliases): the kernel serves them all.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping

from mpsgen.records import NamedTuple
from mpsgen.sources.testlists import dtypes as dt
from mpsgen.scan.brackets import match_close
from mpsgen.scan.mask import mask_python
from mpsgen.sources.testlists.opinfos import opinfo_keys
from mpsgen.sources.testlists.records import OpInfoRef

_FLOATING = ("float32", "float64")
_INTEGRAL = ("uint8", "int8", "int16", "int32", "int64")  # common_dtype.py: no uint16/32/64 "for BC reasons"
_COMPLEX = ("complex64", "complex128")
# common_dtype.py's helpers: name -> (base dtypes, whether it takes extra dtypes as arguments)
_HELPERS: dict[str, tuple[tuple[str, ...], bool]] = {
    "empty_types": ((), False),
    "floating_types": (_FLOATING, False),
    "floating_types_and_half": (_FLOATING + ("float16",), False),
    "floating_types_and": (_FLOATING, True),
    "floating_and_complex_types": (_FLOATING + _COMPLEX, False),
    "floating_and_complex_types_and": (_FLOATING + _COMPLEX, True),
    "double_types": (("float64", "complex128"), False),
    "integral_types": (_INTEGRAL, False),
    "integral_types_and": (_INTEGRAL, True),
    "all_types": (_FLOATING + _INTEGRAL, False),
    "all_types_and": (_FLOATING + _INTEGRAL, True),
    "complex_types": (_COMPLEX, False),
    "complex_types_and": (_COMPLEX, True),
    "all_types_and_complex": (_FLOATING + _INTEGRAL + _COMPLEX, False),
    "all_types_and_complex_and": (_FLOATING + _INTEGRAL + _COMPLEX, True),
    "all_types_and_half": (_FLOATING + _INTEGRAL + ("float16",), False),
    "all_mps_types": (("float32", "float16", "bfloat16") + _INTEGRAL, False),
    "all_mps_types_and": (("float32", "float16", "bfloat16") + _INTEGRAL, True),
    "custom_types": ((), True),
    "_dispatch_dtypes": ((), True),
}
# Module-level tuples real OpInfos star into the helpers.
_CONSTANTS = {
    "_unsigned_int_types": ("uint16", "uint32", "uint64"),
    "_integral_types": _INTEGRAL,
    "_floating_types": _FLOATING,
    "_complex_types": _COMPLEX,
}


class OpDtypes(NamedTuple):
    """What the op's OpInfos say about dtypes on MPS."""

    declared: frozenset[str]  # canonical torch dtype names, union over the OpInfos
    promotes_int_to_float: bool
    always_returns_bool: bool
    refs: tuple[OpInfoRef, ...]
    unresolved: tuple[str, ...] = ()  # "path:line: expression" that could not be evaluated

    @property
    def found(self) -> bool:
        return bool(self.refs) and not self.unresolved


class _Unresolved(ValueError):
    pass


def evaluate(node: ast.expr) -> tuple[str, ...]:
    """Canonical dtype names of a dtypes expression; _Unresolved when it is not one the table knows."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in _HELPERS:
        base, takes_args = _HELPERS[node.func.id]
        if (node.args and not takes_args) or node.keywords:
            raise _Unresolved(ast.unparse(node))
        extra: list[str] = []
        for arg in node.args:
            extra.extend(evaluate(arg) if not isinstance(arg, ast.Starred) else _starred(arg))
        return base + tuple(extra)
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        out: list[str] = []
        for elt in node.elts:
            out.extend(_starred(elt) if isinstance(elt, ast.Starred) else evaluate(elt))
        return tuple(out)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return evaluate(node.left) + evaluate(node.right)
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "torch":
        name = dt.canonical(node.attr)
        if name is None:
            raise _Unresolved(ast.unparse(node))
        return (name,)
    if isinstance(node, ast.Name) and node.id in _CONSTANTS:
        return _CONSTANTS[node.id]
    raise _Unresolved(ast.unparse(node))


def _starred(node: ast.expr) -> tuple[str, ...]:
    value = node.value if isinstance(node, ast.Starred) else node
    return evaluate(value)


def _call(text: str, ref: OpInfoRef) -> ast.Call | None:
    open_paren = text.index("(", ref.offset)
    close = match_close(mask_python(text), open_paren)
    if close is None:
        return None
    try:
        node = ast.parse(text[ref.offset : close + 1], mode="eval").body
    except SyntaxError:
        return None
    return node if isinstance(node, ast.Call) else None


def sets_argument(call: ast.Call, name: str) -> str | None | bool:
    """The value an OpInfo's `sample_kwargs` gives argument *name* (div.trunc_rounding: "trunc"); None when
    it gives it none; False when it is no literal mpsgen can read (a function defined elsewhere)."""
    kwargs = next((k.value for k in call.keywords if k.arg == "sample_kwargs"), None)
    if kwargs is None:
        return None
    if not isinstance(kwargs, ast.Lambda):
        return False
    for node in ast.walk(kwargs.body):
        pairs = zip(node.keys, node.values) if isinstance(node, ast.Dict) else \
            ((ast.Constant(k.arg), k.value) for k in node.keywords) if isinstance(node, ast.Call) else ()
        for key, value in pairs:
            if isinstance(key, ast.Constant) and key.value == name:
                return value.value if isinstance(value, ast.Constant) and isinstance(value.value, str) else False
    return None


def needs_lapack(call: ast.Call | None) -> bool:
    """The OpInfo is decorated skipCPUIfNoLapack (norm's 'nuc' variant): its op runs a linear-algebra kernel
    (nuclear_norm's SVD), which no Metal kernel of the family serves."""
    decorators = next((k.value for k in call.keywords if k.arg == "decorators"), None) if call is not None else None
    return decorators is not None and any(isinstance(n, ast.Name) and n.id == "skipCPUIfNoLapack"
                                          for n in ast.walk(decorators))


def ref_dtypes(text: str, ref: OpInfoRef) -> tuple[frozenset[str] | None, ast.Call | None]:
    """(the MPS dtypes one OpInfo declares, None when they cannot be read; its call, None when it does
    not parse)."""
    call = _call(text, ref)
    if call is None:
        return None, None
    kw = {k.arg: k.value for k in call.keywords if k.arg}
    node = kw.get("dtypesIfMPS") or kw.get("dtypes")
    try:
        return (frozenset(evaluate(node)) if node is not None else None), call
    except _Unresolved:
        return None, call


def mps_dtypes(
    cmi_text: str,
    definitions: Mapping[str, str],
    op: str,
    *,
    cmi_path: str = "common_methods_invocations.py",
    fixed: tuple[tuple[str, str | None], ...] = (),
) -> OpDtypes:
    """The union of the MPS dtypes every OpInfo of *op* declares, with its promotion flags.  With *fixed*
    (the arguments that select one of the op's stubs: div's rounding_mode="trunc"), only the OpInfos whose
    samples pass those values (div.trunc_rounding), when any OpInfo says what it passes."""
    texts = {cmi_path: cmi_text, **definitions}
    refs = opinfo_keys(cmi_text, definitions, op, cmi_path=cmi_path)
    if fixed:
        calls = [(ref, _call(texts[ref.path], ref)) for ref in refs]
        chosen = [ref for ref, call in calls if call is not None and all(sets_argument(call, n) == v for n, v in fixed)]
        refs = chosen if chosen else refs  # no OpInfo says: every one counts
    declared: set[str] = set()
    promotes = returns_bool = False
    unresolved: list[str] = []
    for ref in refs:
        call = _call(texts[ref.path], ref)
        if call is None:
            unresolved.append(f"{ref.location}: {ref.kind}({ref.name!r}, ...)")
            continue
        kw = {k.arg: k.value for k in call.keywords if k.arg}
        node = kw.get("dtypesIfMPS") or kw.get("dtypes")
        if node is None:
            unresolved.append(f"{ref.location}: no dtypes= in {ref.kind}({ref.name!r}, ...)")
            continue
        try:
            declared.update(evaluate(node))
        except _Unresolved as err:
            unresolved.append(f"{ref.location}: {err}")
        promotes |= _true(kw.get("promotes_int_to_float"))
        returns_bool |= _true(kw.get("always_returns_bool"))
    return OpDtypes(frozenset(declared), promotes, returns_bool, tuple(refs), tuple(unresolved))


def _true(node: ast.expr | None) -> bool:
    return isinstance(node, ast.Constant) and node.value is True
