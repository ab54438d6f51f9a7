"""The Metal half of a host API a checkout lacks: kernel templates and a REGISTER_* macro written into
c10/metal/indexing.h, derived from their nearest sibling in the same file (pure text -> text).

A ternary kernel with one scalar (addcmul's value) needs `ternary_alpha_*` kernel templates and
`REGISTER_TERNARY_ALPHA_OP(NAME, DTYPEI, DTYPEA, DTYPEO)`.  Upstream's binary ops show the move from
a kernel to its alpha form (binary_dense -> binary_alpha_dense, REGISTER_BINARY_OP_ ->
REGISTER_BINARY_ALPHA_OP): a `T2` template parameter, `constant T2& alpha` bound right after the
tensors, the functor called with alpha last, `"_" #DTYPEA` closing every host_name.  The same move is
applied here to the checkout's own ternary kernels and REGISTER_TERNARY_OP_, so the added lines use
only what the file itself has.  A file without those siblings is refused (no model to follow).
"""

from __future__ import annotations

import re

from mpsgen.errors import MpsgenError
from mpsgen.scan.brackets import match_close
from mpsgen.scan.lines import split_lines
from mpsgen.scan.mask import mask_code

TERNARY_ALPHA_MACRO = "REGISTER_TERNARY_ALPHA_OP"
_SIBLING_MACRO = "REGISTER_TERNARY_OP_"
_SIBLING_MACROS = (_SIBLING_MACRO, "REGISTER_OPMATH_TERNARY_OP", "REGISTER_TERNARY_OP")
_KERNEL = re.compile(r"^template\s*<(?P<params>[^>]*(?:<[^>]*>[^>]*)*)>\s*kernel\s+void\s+(?P<name>ternary_(?!alpha_)\w+)\s*\(",
                     re.M)
_BUFFER = re.compile(r"\[\[buffer\((\d+)\)\]\]")


def defines_macro(text: str, macro: str) -> bool:
    return re.search(rf"^\s*#\s*define\s+{macro}\s*\(", text, re.M) is not None


def _refuse(path: str, what: str) -> MpsgenError:
    return MpsgenError(f"{path} has no {what} to model {TERNARY_ALPHA_MACRO} on",
                       path=path, line=1, hint="write the ternary alpha kernels and macro by hand")


def _kernel_spans(text: str) -> list[tuple[int, int, str]]:
    """(start, end, name) of each `template <...> kernel void ternary_*(...) {...}` definition."""
    masked = mask_code(text)
    spans = []
    for m in _KERNEL.finditer(masked):
        close = match_close(masked, m.end() - 1)
        brace = masked.find("{", close or 0)
        end = match_close(masked, brace) if close is not None and brace >= 0 else None
        if end is None:
            continue
        spans.append((m.start(), end + 1, m.group("name")))
    return spans


def alpha_kernel(sibling: str, path: str) -> str:
    """ternary_X's text -> ternary_alpha_X's: T2 after T, `constant T2& alpha` after other2 (the later
    buffers one up), result_of<F, T, T, T, T2>, and the functor called with alpha last."""
    text, n = re.subn(r"kernel\s+void\s+ternary_", "kernel void ternary_alpha_", sibling, count=1)
    text, t = re.subn(r"^(template\s*<\s*typename\s+T\s*,)(\s*)(typename\s+F\b)", r"\1\2typename T2,\2\3", text, count=1)
    other2 = re.search(r"^([ \t]*)(.*\bother2\b.*\[\[buffer\((\d+)\)\]\],)[ \t]*$", text, re.M)
    if not (n and t and other2):
        raise _refuse(path, "ternary kernel template of the expected form (template <typename T, typename F ...>, other2)")
    slot = int(other2.group(3))
    head, tail = text[: other2.end()], text[other2.end():]
    tail = _BUFFER.sub(lambda b: f"[[buffer({int(b.group(1)) + 1 if int(b.group(1)) > slot else b.group(1)})]]", tail)
    text = f"{head}\n{other2.group(1)}constant T2& alpha [[buffer({slot + 1})]],{tail}"
    text = re.sub(r"result_of<F,\s*T,\s*T,\s*T>", "result_of<F, T, T, T, T2>", text)
    called = functor_called_with_alpha(text)
    if called is None:
        raise _refuse(path, "ternary kernel calling its functor f(...)")
    return called


def functor_called_with_alpha(kernel: str) -> str | None:
    """*kernel* with `alpha` passed last to each call of its functor `f(...)`; None when it calls none
    (or its brackets do not balance)."""
    masked = mask_code(kernel)
    calls = [m.end() - 1 for m in re.finditer(r"(?<![\w.])f\(", masked)]
    for open_pos in reversed(calls):
        close = match_close(masked, open_pos)
        if close is None:
            return None
        kernel = f"{kernel[:close]}, alpha{kernel[close:]}"
    return kernel if calls else None


def macro_lines(lines: list[str], macro: str) -> tuple[int, int] | None:
    """[first, last] line indexes of `#define <macro>(` with its backslash continuations."""
    for k, line in enumerate(lines):
        if re.match(rf"\s*#\s*define\s+{re.escape(macro)}\s*\(", line):
            end = k
            while lines[end].rstrip("\r\n").endswith("\\") and end + 1 < len(lines):
                end += 1
            return k, end
    return None


def alpha_macro(sibling_lines: list[str], path: str) -> list[str]:
    """One ternary REGISTER_* macro's lines -> its alpha form's (REGISTER_TERNARY_OP_ ->
    REGISTER_TERNARY_ALPHA_OP_, REGISTER_OPMATH_TERNARY_OP -> REGISTER_OPMATH_TERNARY_ALPHA_OP, ...):
    DTYPEA between DTYPEI and DTYPEO; in the instantiating form also the alpha kernels, their alpha
    parameter and host names ending in "_" #DTYPEA.  Backslashes are left for clang-format to align."""
    body = "\n".join(line.rstrip("\r\n").rstrip().removesuffix("\\").rstrip() for line in sibling_lines)
    body, names = re.subn(r"\bREGISTER_(OPMATH_)?TERNARY_OP(_?)\b", r"REGISTER_\1TERNARY_ALPHA_OP\2", body)
    body, dtypes = re.subn(r"\bDTYPEI(\s*),(\s*)DTYPEO\b", r"DTYPEI,\2DTYPEA,\2DTYPEO", body)
    if not names or not dtypes:
        raise _refuse(path, "ternary REGISTER_* macro of the form (NAME, DTYPEI, DTYPEO, ...)")
    if "template" not in body:
        return _continued(body)
    body = re.sub(r"(result_of<\s*NAME##_functor\s*,\s*DTYPEI\s*,\s*DTYPEI\s*,\s*DTYPEI)(\s*>)", r"\1, DTYPEA\2", body)
    body, hosts = re.subn(r"(\[\[host_name\()(.*?)(\)\]\])", r'\1\2 "_" #DTYPEA\3', body, flags=re.S)
    body, kernels = re.subn(r"\bternary_(\w+)(\s*)<\s*DTYPEI\s*,\s*NAME##_functor\s*,",
                            r"ternary_alpha_\1\2<DTYPEI, DTYPEA, NAME##_functor,", body)
    body, params = re.subn(r"^([ \t]*)(constant\s+[\w:]+\s*\*\s*other2_?\s*,)[ \t]*$", r"\1\2\n\1constant DTYPEA& alpha,",
                           body, flags=re.M)
    if not (hosts and hosts == kernels == params):
        raise _refuse(path, f"{_SIBLING_MACRO}(NAME, DTYPEI, DTYPEO, OMT) of the expected form")
    return _continued(body)


def _continued(body: str) -> list[str]:
    out = body.split("\n")
    return [f"{line} \\" for line in out[:-1]] + [out[-1]]


def add_ternary_alpha(text: str, path: str) -> str:
    """indexing.h with ternary_alpha_* kernels and REGISTER_TERNARY_ALPHA_OP after the ternary macros;
    unchanged when the file defines the macro already (a second op reuses it)."""
    if defines_macro(text, TERNARY_ALPHA_MACRO):
        return text
    kernels = [alpha_kernel(text[a:b], path) for a, b, _ in _kernel_spans(text)]
    lines = split_lines(text)
    sibling = macro_lines(lines, _SIBLING_MACRO)
    if not kernels or sibling is None:  # the instantiating form, REGISTER_TERNARY_OP_, is the model
        raise _refuse(path, "ternary kernel templates and REGISTER_TERNARY_OP_")
    macros = []
    for name in _SIBLING_MACROS:  # the instantiating form and the wrappers that call it
        span = macro_lines(lines, name)
        if span is not None:
            macros += ["", *alpha_macro(lines[span[0] : span[1] + 1], path)]
    last = max(span[1] for name in _SIBLING_MACROS if (span := macro_lines(lines, name)))
    nl = "\r\n" if lines[last].endswith("\r\n") else "\n"
    block = ["", "// Ternary ops with a scalar argument (alpha), passed to the functor after the three inputs"]
    for k, kernel in enumerate(kernels):
        block += [*([""] if k else []), *kernel.split("\n")]
    block += macros
    added = nl.join(block) + nl
    return "".join(lines[: last + 1]) + added + "".join(lines[last + 1 :])
