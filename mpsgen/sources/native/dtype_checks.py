"""Dtype facts in C++ sources: an MPSGraph implementation's TORCH_CHECKs, and whether the CPU meta
function builds a float op (integer inputs give float).  Pure text readers for plan/dtypes.py."""

from __future__ import annotations

import re
from collections.abc import Mapping

_INTS = ("int64", "int32", "int16", "int8", "uint8", "bool")
_SCALAR_TYPES = {"Float": "float32", "Half": "float16", "BFloat16": "bfloat16", "Long": "int64", "Int": "int32",
                 "Short": "int16", "Char": "int8", "Byte": "uint8", "Bool": "bool", "ComplexFloat": "complex64"}
_CHECK = re.compile(r"TORCH_CHECK(?:_TYPE|_NOT_IMPLEMENTED)?\s*\((?P<cond>[^;]*?),\s*\"", re.S)


def mpsgraph_refusals(body: str) -> dict[str, str]:
    """dtype -> the TORCH_CHECK in an MPSGraph implementation that rejects it (the common shapes only)."""
    out: dict[str, str] = {}
    for m in _CHECK.finditer(body):
        cond = " ".join(m.group("cond").split())
        if re.search(r"(?<!!)\bisFloatingType\s*\(", cond) and "||" not in cond:
            for d in _INTS + ("complex64",):
                out.setdefault(d, f"TORCH_CHECK({cond})")
        if re.search(r"!\s*(?:c10::)?isComplexType\s*\(|!\s*\w+\.is_complex\(\)", cond):
            out.setdefault("complex64", f"TORCH_CHECK({cond})")
        for scalar in re.findall(r"!=\s*(?:at::)?(?:ScalarType::|k)(\w+)", cond):
            if scalar in _SCALAR_TYPES and "||" not in cond:
                out.setdefault(_SCALAR_TYPES[scalar], f"TORCH_CHECK({cond})")
    return out


def impl_body(text: str, name: str) -> tuple[int, str] | None:
    """(1-based line, text) of the MPSGraph implementation *name*: `TORCH_IMPL_FUNC(name)` or a
    function `name(` up to its closing brace, or the one line of a `CREATE_MPS_..._FUNC(name, ...)`.

    A light scan (the dtype checks are plain TORCH_CHECK lines); host.py does the exact work of
    finding and removing the implementation."""
    n = re.escape(name)
    m = re.search(rf"TORCH_IMPL_FUNC\(\s*{n}\s*\)|^[\w:<>&*, \t]+?\b{n}[ \t]*\([^;{{]*\)[^;{{]*\{{", text, re.M)
    if m is not None:
        depth, i = 0, text.find("{", m.start())
        while 0 <= i < len(text):
            depth += {"{": 1, "}": -1}.get(text[i], 0)
            if depth == 0:
                break
            i += 1
        return text.count("\n", 0, m.start()) + 1, text[m.start() : i + 1]
    m = re.search(rf"^[ \t]*[A-Z][A-Z0-9_]*\([ \t]*{n}[ \t]*[,)].*$", text, re.M)
    if m is not None:
        return text.count("\n", 0, m.start()) + 1, m.group(0)
    return None


def cpu_promotes(native_texts: Mapping[str, str], op: str) -> str:
    """"path:line" of the CPU meta function that builds *op* as a float op (ints -> float), else ""."""
    macro = re.compile(rf"\bCREATE_UNARY_FLOAT_META_FUNC\(\s*{re.escape(op)}\s*\)")
    for path, text in native_texts.items():
        m = macro.search(text)
        if m:
            return f"{path}:{text.count(chr(10), 0, m.start()) + 1}"
    return _meta_function_builds(native_texts, op, "_float_op(")


# Iterator builders whose output is bool whatever the inputs (TensorIterator.h).
_BOOL_BUILDERS = ("_force_boolean_op(", "_comparison_op(")


def cpu_returns_bool(native_texts: Mapping[str, str], op: str) -> str:
    """"path:line" of the CPU meta function that builds *op* with a bool output
    (`build_borrowing_unary_force_boolean_op`, `build_borrowing_comparison_op`, ...), else ""."""
    return _meta_function_builds(native_texts, op, *_BOOL_BUILDERS)


def _meta_function_builds(native_texts: Mapping[str, str], op: str, *builders: str) -> str:
    """"path:line" of TORCH_META_FUNC(op) when its body calls one of *builders*, else ""."""
    meta = re.compile(rf"\bTORCH_META_FUNC2?\s*\(\s*{re.escape(op)}\s*[,)]")
    for path, text in native_texts.items():
        m = meta.search(text)
        if m:
            close = text.find("\n}", m.end())
            body = text[m.end() : close if close != -1 else len(text)]
            if any(b in body for b in builders):
                return f"{path}:{text.count(chr(10), 0, m.start()) + 1}"
    return ""
