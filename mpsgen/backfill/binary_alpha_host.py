"""The host half of PyTorch 2.7's binary kernels with scalar arguments: BinaryKernel.mm's file-local
`binary_mps_impl(iter, func_name, ...)` has no form passing a scalar, so the change adds
`binary_alpha_mps_impl<T>(iter, func_name, alpha, ...)` after it, derived from its text (pure text ->
text): the same body, with *alpha* bound through mtl_setArgs (whose double overload casts down to
float: AT_DISPATCH instantiates the helper for double, which mtl_setBytes does not take) right after the last buffer each
kernel reads (the dense kernel's output, the strided kernel's offsets), where backfill/binary_alpha_metal's
`constant T2& alpha` kernels expect it.  T is a scalar (huber_loss's delta) or a params struct
(threshold's ThresholdParams<float>), anything mtl_setArgs binds.  Each step must find what it
edits; a binary_mps_impl of another shape is refused, naming it.
"""

from __future__ import annotations

import re
from typing import Callable

from mpsgen.errors import MpsgenError
from mpsgen.scan.brackets import match_close, split_top_level
from mpsgen.scan.mask import mask_code
from mpsgen.sources.host.text import without_todo_comments

SIBLING = "binary_mps_impl"
HELPER = "binary_alpha_mps_impl"
_DEFINITION = r"^([ \t]*)static\s+void\s+{name}\s*\("


def _refuse(path: str, what: str, helper: str = HELPER) -> MpsgenError:
    return MpsgenError(f"{path}: {what}, the sibling {helper} would be modeled on", path=path, line=1,
                       hint=f"add {helper} by hand")


def _span(text: str, name: str) -> tuple[int, int, int, int] | None:
    """(start, params open, params close, end after `}`) of `static void <name>(...) {...}`."""
    masked = mask_code(text)
    m = re.search(_DEFINITION.format(name=name), masked, re.M)
    if m is None:
        return None
    close = match_close(masked, m.end() - 1)
    brace = masked.find("{", close or 0)
    end = match_close(masked, brace) if close is not None and brace >= 0 else None
    if close is None or end is None or masked[close + 1 : brace].strip():
        return None
    return m.start(), m.end() - 1, close, end + 1


def defines_helper(mm_text: str, helper: str = HELPER) -> bool:
    return _span(mm_text, helper) is not None


def definition(text: str, name: str) -> str | None:
    """The text of `static void <name>(...) {...}` in *text*, None when it defines none."""
    span = _span(text, name)
    return text[span[0] : span[3]] if span is not None else None


def helper_definition(sibling: str, path: str, sibling_name: str = SIBLING, helper: str = HELPER) -> str:
    """binary_mps_impl's definition -> binary_alpha_mps_impl's (and ternary_mps_impl's ->
    ternary_alpha_mps_impl's: *sibling_name*, *helper*); the sibling's TODO comments stay with it."""
    sibling = without_todo_comments(sibling)
    span = _span(sibling, sibling_name)
    assert span is not None
    _, open_pos, close, _ = span
    params = [p.strip() for p in split_top_level(sibling[open_pos + 1 : close]) if p.strip()]
    if len(params) < 2 or not re.search(r"\bTensorIteratorBase\s*&", params[0]):
        raise _refuse(path, f"{sibling_name} does not take (TensorIteratorBase& iter, name, ...)", helper)
    new_params = [*params[:2], "const T alpha", *params[2:]]
    text = f"{sibling[: open_pos + 1]}{', '.join(new_params)}{sibling[close:]}"
    text = re.sub(rf"\bstatic\s+void\s+{sibling_name}\b", f"static void {helper}", text, count=1)
    masked = mask_code(text)
    binds = list(re.finditer(r"^([ \t]*)mtl_setArgs\((\w+)\s*,([^;]*)\);[ \t]*$", masked, re.M))
    if len(binds) != 2:
        raise _refuse(path, f"{sibling_name} does not bind its tensors with one mtl_setArgs per kernel (dense, "
                            "strided)", helper)
    for bind in reversed(binds):
        indent, encoder = bind.group(1), bind.group(2)
        after = re.match(rf"\s*\[{encoder}\s+setBuffer:[^\]]*atIndex:(\d+)\];[ \t]*", masked[bind.end() :])
        if after is not None:  # the strided kernel's offsets come last: alpha follows them
            at = bind.end() + after.end()
            text = f"{text[:at]}\n{indent}mtl_setArgs<{int(after.group(1)) + 1}>({encoder}, alpha);{text[at:]}"
        else:  # the tensors are the dense kernel's last buffers
            close_paren = text.rindex(")", bind.start(), bind.end())
            text = f"{text[:close_paren]}, alpha{text[close_paren:]}"
    return f"template <typename T>\n{text}"


def add_helper(mm_text: str, path: str, helper: str = HELPER,
               derive: Callable[[str, str], str] = helper_definition) -> str:
    """BinaryKernel.mm with binary_alpha_mps_impl (or *helper*, *derive* making its definition from
    binary_mps_impl's) after binary_mps_impl; unchanged when it has one (reused)."""
    if defines_helper(mm_text, helper):
        return mm_text
    span = _span(mm_text, SIBLING)
    if span is None:
        raise _refuse(path, f"no definition of static void {SIBLING}(TensorIteratorBase& iter, ...)", helper)
    start, _, _, end = span
    new = derive(mm_text[start:end], path)
    nl_at = mm_text.find("\n", end)
    at = len(mm_text) if nl_at < 0 else nl_at + 1
    nl = "\r\n" if mm_text[at - 2 : at] == "\r\n" else "\n"
    return mm_text[:at] + nl + new.replace("\n", nl) + nl + mm_text[at:]
