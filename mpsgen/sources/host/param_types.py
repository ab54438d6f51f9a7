"""Parameter types compared as C++ compares a function's type: a host kernel registered with
REGISTER_DISPATCH(stub, &fn) compiles only when fn's parameter types are the stub's.

Parameter names and default arguments do not count, nor a top-level `const` on a parameter taken
by value (`const int64_t dim` is `int64_t`); `const T&` and `T const&` are one type; namespace
qualifiers are dropped (`at::Scalar` is `Scalar`); `TensorIterator&` and `TensorIteratorBase&`
stay different types, as do `long` and `int64_t`.
"""

from __future__ import annotations

import re

from mpsgen.scan.brackets import match_close, split_top_level

_TOKEN = re.compile(r"::|&&|[A-Za-z_]\w*|\d+|\S")
_QUALIFIERS = frozenset({"const", "volatile"})
_ELABORATED = frozenset({"struct", "class", "enum", "typename", "union"})
# Words that are a type by themselves, so never a parameter's name (`unsigned int`, `long long`).
_BUILTIN = frozenset({"void", "bool", "char", "short", "int", "long", "float", "double", "signed", "unsigned",
                      "auto", "size_t", "int8_t", "int16_t", "int32_t", "int64_t", "uint8_t", "uint16_t",
                      "uint32_t", "uint64_t"})
# Aliases PyTorch spells both ways in stub types and host kernels.
_ALIASES = {"IntArrayRef": "ArrayRef<int64_t>", "TensorList": "ArrayRef<Tensor>",
            "OptionalIntArrayRef": "OptionalArrayRef<int64_t>"}


def parameter_list(masked: str, name_end: int) -> tuple[str, int] | None:
    """The text inside the parentheses that follow a function's name (ending at *name_end*) in a
    masked text, and the offset of the closing one; None when no parenthesis follows."""
    k = name_end
    while k < len(masked) and masked[k] in " \t\r\n":
        k += 1
    if k >= len(masked) or masked[k] != "(":
        return None
    close = match_close(masked, k)
    return (masked[k + 1 : close], close) if close is not None else None


def parameter_types(params: str) -> tuple[str, ...] | None:
    """The comparable type of each parameter of a masked parameter list; None for one this does not
    read (a function-pointer or array parameter, a parameter pack)."""
    text = params.strip()
    if not text or text == "void":
        return ()
    out = []
    for p in split_top_level(text):
        t = comparable_type(_without_default(p), named=True)
        if t is None:
            return None
        out.append(t)
    return tuple(out)


def comparable_type(param: str, *, named: bool = False) -> str | None:
    """One parameter's type as compared (its name dropped when *named*); None when it is not a plain type."""
    tokens = _TOKEN.findall(param)
    if not tokens or any(t in ("(", ")", "[", "]", "...") for t in tokens):
        return None
    if named:
        tokens = _without_name(tokens)
    tokens = _unqualified(tokens)
    tokens = [w for t in tokens for w in _TOKEN.findall(_ALIASES.get(t, t))]
    refs = [k for k, t in enumerate(tokens) if t in ("&", "&&", "*") and _depth(tokens, k) == 0]
    if not refs:  # by value: a top-level const is not part of the function's type
        return _joined([t for k, t in enumerate(tokens) if t not in _QUALIFIERS or _depth(tokens, k) > 0])
    first = refs[0]
    base, suffix = tokens[:first], tokens[first:]
    const = "const" in base
    base = [t for t in base if t != "const"]
    while suffix and suffix[-1] in _QUALIFIERS:
        suffix.pop()  # `T* const`: the pointer itself is const, a top-level qualifier
    return _joined((["const"] if const else []) + base) + "".join(suffix)


def _without_default(p: str) -> str:
    depth = 0
    for k, ch in enumerate(p):
        if ch in "(<[{":
            depth += 1
        elif ch in ")>]}":
            depth -= 1
        elif ch == "=" and depth == 0:
            return p[:k]
    return p


def _without_name(tokens: list[str]) -> list[str]:
    """The tokens without a trailing parameter name (an identifier after a type)."""
    last = tokens[-1]
    if len(tokens) < 2 or not re.fullmatch(r"[A-Za-z_]\w*", last) or last in _BUILTIN | _QUALIFIERS:
        return tokens
    before = tokens[:-1]
    if before[-1] == "::":
        return tokens
    typed = [t for t in before if t not in _QUALIFIERS | _ELABORATED]
    return before if typed else tokens


def _unqualified(tokens: list[str]) -> list[str]:
    """The tokens without namespace qualifiers (`at::native::Foo` -> `Foo`, `::c10::Scalar` -> `Scalar`)."""
    out: list[str] = []
    for t in tokens:
        if t == "::":
            if out and re.fullmatch(r"[A-Za-z_]\w*", out[-1]):
                out.pop()
            continue
        if t not in _ELABORATED:
            out.append(t)
    return out


def _depth(tokens: list[str], k: int) -> int:
    """How deep inside template brackets token *k* sits."""
    return sum(1 if t == "<" else -1 if t == ">" else 0 for t in tokens[:k])


def _joined(tokens: list[str]) -> str:
    """The tokens with a blank only between two words (`const Scalar`, `ArrayRef<int64_t>`)."""
    out = ""
    for t in tokens:
        if out and re.match(r"\w", t) and re.search(r"\w$", out):
            out += " "
        out += t
    return out
