"""The kernel names an operations/*.mm runs from the bundled metallib, in every era's spelling.

host.host_kernel_calls reads `lib.exec_*_kernel(iter, "name")` and REGISTER_UNARY_TI_DISPATCH(name);
this adds what the kernel-name rules need of the other eras:

* 2.6-2.7 BinaryKernel.mm's static helper `binary_mps_impl(iter, "fmax")`, and the alpha and ternary forms
  mpsgen adds there and to UnaryKernel.mm (`binary_alpha_mps_impl(iter, "threshold", params)`,
  `unary_alpha_mps_impl(...)`, `ternary_mps_impl(iter, "lerp_tensor_weight")`, `ternary_alpha_mps_impl(...)`);
* `lib.getPipelineStateForFunc("name")`, `("name_" + type)` (the host appends dtype words) and
  `(cond ? "a" : "b")`; a name built any other way (fmt::format, a variable) is not checked;
* a file's own macro whose body runs `#PARAM` (`exec_unary_kernel(iter, #NAME)` in 2026's
  REGISTER_UNARY_TI_DISPATCH(NAME)): each call of the macro runs the argument it passes.
"""

from __future__ import annotations

import re
from typing import Iterator

from mpsgen.scan.anchored import finditer_at, lines_holding
from mpsgen.scan.brackets import calls_outside_directives, split_bounds
from mpsgen.sources.host import mm as host
from mpsgen.sources.host.mm import KernelCall
from mpsgen.sources.index import SourceIndex, index_of

# The callee and the index of its kernel-name argument.
_NAME_ARGUMENT = {"binary_mps_impl": 1, "binary_alpha_mps_impl": 1, "unary_alpha_mps_impl": 1,
                  "ternary_mps_impl": 1, "ternary_alpha_mps_impl": 1, "ternary_cond_mps_impl": 1,
                  "getPipelineStateForFunc": 0}
# Each name opens its alternative, its word boundary tested behind it, so the engine skips in C to
# the names' first letters instead of trying a leading lookbehind at every offset.
_CALLEE = re.compile(r"(" + "|".join(rf"{n}(?<!\w{n})" for n in sorted(_NAME_ARGUMENT, key=len, reverse=True)) + r")\s*\(")
_LITERAL = r'"((?:[^"\\\n]|\\.)*)"'
_WHOLE = re.compile(_LITERAL)
_PREFIX = re.compile(_LITERAL + r"\s*\+")  # "cross_" + scalarToMetalTypeString(out)
_CHOICE = re.compile(r"[^?]*\?\s*" + _LITERAL + r"\s*:\s*" + _LITERAL, re.S)  # c ? "a" : "b"
_DEFINE = re.compile(r"^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)\(([^)]*)\)((?:[^\n]*\\\n)*[^\n]*)", re.M)
_STRINGISED_RUN = re.compile(
    r"(?:exec_(?:unary|binary|ternary)_kernel\w*\s*\(\s*\w+\s*,|binary_mps_impl\s*\(\s*\w+\s*,"
    r"|getPipelineStateForFunc\s*\()\s*#\s*([A-Za-z_]\w*)")


def kernel_calls(text: str, path: str) -> list[KernelCall]:
    """Every kernel name the .mm runs from the metallib, each call once, in file order."""
    ix = index_of(path, text)
    found = {(c.kernel, c.line): c for c in host.host_kernel_calls(text, path)}
    for call in (*_named_calls(text, ix), *_macro_calls(text, ix)):
        found.setdefault((call.kernel, call.line), call)
    return sorted(found.values(), key=lambda c: (c.line, c.col))


def _named_calls(text: str, ix: SourceIndex) -> Iterator[KernelCall]:
    masked = ix.masked
    if "_mps_impl" not in masked and "getPipelineStateForFunc" not in masked:
        return
    for m, _line, close in calls_outside_directives(text, masked, _CALLEE, ix.lines, tuple(_NAME_ARGUMENT)):
        bounds = split_bounds(masked[m.end():close], angles=False)
        k = _NAME_ARGUMENT[m.group(1)]
        if len(bounds) <= k:
            continue
        a, b = bounds[k]
        start = m.end() + a
        for name, pos in _names_in(text[start : m.end() + b]):
            if masked[start + pos] == " ":  # a real literal (blank in the mask), not one in a comment
                yield KernelCall(name, ix.line(start + pos), ix.col(start + pos), ix.enclosing_function(start + pos))


def _names_in(arg: str) -> list[tuple[str, int]]:
    """(kernel name, offset of its literal) of a name argument spelled as a literal, a literal
    prefix the host completes with dtype words, or a choice of two literals; [] otherwise."""
    lead = len(arg) - len(arg.lstrip())
    body = arg.strip()
    whole = _WHOLE.fullmatch(body)
    if whole:
        return [(whole.group(1), lead)]
    prefix = _PREFIX.match(body)
    if prefix and prefix.group(1).endswith("_") and prefix.group(1).rstrip("_"):
        return [(prefix.group(1).rstrip("_"), lead)]
    choice = _CHOICE.fullmatch(body)
    if choice:
        return [(choice.group(1), lead + choice.start(1) - 1), (choice.group(2), lead + choice.start(2) - 1)]
    return []


def _macro_calls(text: str, ix: SourceIndex) -> Iterator[KernelCall]:
    """The calls of the file's macros whose body runs a stringised parameter."""
    if "#" not in text or "define" not in text:
        return
    for d in finditer_at(_DEFINE, text, lines_holding(text, "define")):  # _DEFINE.finditer, tried where it can start
        params = [p.strip() for p in d.group(2).split(",")]
        runs = {params.index(p) for p in _STRINGISED_RUN.findall(d.group(3)) if p in params}
        for call in ix.calls_of(d.group(1)) if runs else ():
            first = ix.masked.index("(", call.start) + 1
            for k in sorted(runs):
                if k < len(call.args) and re.fullmatch(r"[A-Za-z_]\w*", call.args[k].strip()):
                    yield KernelCall(call.args[k].strip(), call.line, ix.col(first), f"{d.group(1)}({call.args[0]})")
