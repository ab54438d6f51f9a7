"""The Metal half of PyTorch 2.7's binary kernels with scalar arguments, which that BinaryKernel.metal
lacks: `binary_alpha_indexing` / `binary_alpha_dense` kernel templates and
`REGISTER_BINARY_ALPHA_INDEXING_OP(NAME, DTYPE, DTYPEA)`, derived from the file's own
`binary_indexing` / `binary_dense`, `result_of` and `REGISTER_BINARY_INDEXING_OP(NAME, DTYPE)`
(pure text -> text).

The move from a kernel to its alpha form is the one upstream later made in c10/metal
(binary_dense -> binary_alpha_dense): a `T2` template parameter, `constant T2& alpha` bound after
the kernel's last buffer, the functor called with alpha last.  The host names stay the sibling's
(`NAME_DTYPE`, `NAME_dense_DTYPE`): each input type is registered with one alpha type, so the
host helper (sources/host/binary_alpha) looks kernels up exactly as binary_mps_impl does.  DTYPEA is
a scalar type (huber_loss's delta) or a params struct of the op's own (threshold's
`ThresholdParams<float>`), defined before its functor.  A file without those siblings is refused.
"""

from __future__ import annotations

import re

from mpsgen.errors import MpsgenError
from mpsgen.scan.brackets import match_close
from mpsgen.scan.lines import split_lines
from mpsgen.scan.mask import mask_code
from mpsgen.sources.metal.api_extend import functor_called_with_alpha, macro_lines

ALPHA_MACRO = "REGISTER_BINARY_ALPHA_INDEXING_OP"
SIBLING_MACRO = "REGISTER_BINARY_INDEXING_OP"
RESULT_ALIAS = "alpha_result_of"
COMMENT = "// Binary kernels passing a scalar (alpha) to the functor after the two inputs"
_KERNELS = ("binary_indexing", "binary_dense")
_BUFFER = re.compile(r"\[\[buffer\((\d+)\)\]\]")


def _refuse(path: str, what: str) -> MpsgenError:
    return MpsgenError(f"{path} has no {what} to model {ALPHA_MACRO} on", path=path, line=1,
                       hint="write the binary alpha kernels and their macro by hand")


def defines_alpha_macro(text: str) -> bool:
    return re.search(rf"^\s*#\s*define\s+{ALPHA_MACRO}\s*\(", mask_code(text), re.M) is not None


def _template_span(text: str, masked: str, pattern: str) -> tuple[int, int] | None:
    """(start, end) of `template <...> <pattern>...;` or `...{...}`: the whole definition."""
    m = re.search(rf"^template\s*<[^;{{}}]*?>\s*{pattern}", masked, re.M)
    if m is None:
        return None
    if m.group(0).rstrip().endswith("("):  # a kernel: its parameters, then its body
        close = match_close(masked, m.end() - 1)
        brace = masked.find("{", close or 0)
        end = match_close(masked, brace) if close is not None and brace >= 0 else None
        return (m.start(), end + 1) if end is not None else None
    semi = masked.find(";", m.end())
    return (m.start(), semi + 1) if semi >= 0 else None


def _alias_span(text: str, masked: str, name: str) -> tuple[int, int] | None:
    return _template_span(text, masked, rf"using\s+{name}\s*=")


def _kernel_span(text: str, masked: str, name: str) -> tuple[int, int] | None:
    return _template_span(text, masked, rf"kernel\s+void\s+{name}\s*\(")


def _with_t2(head: str, path: str) -> str:
    new, n = re.subn(r"^(template\s*<\s*typename\s+T\s*,)(\s*)(typename\s+F\s*>)", r"\1\2typename T2,\2\3", head,
                     count=1)
    if not n:
        raise _refuse(path, "kernel template of the form template <typename T, typename F>")
    return new


def alpha_alias(sibling: str, path: str) -> str:
    """`using result_of = decltype(F()(T, T))` -> `using alpha_result_of = decltype(F()(T, T, T2))`."""
    text = _with_t2(sibling, path)
    text = re.sub(r"\busing\s+result_of\b", f"using {RESULT_ALIAS}", text, count=1)
    masked = mask_code(text)
    call = re.search(r"declval<F>\(\)\(", masked)
    close = match_close(masked, call.end() - 1) if call else None
    if call is None or close is None:
        raise _refuse(path, "result_of alias calling declval<F>()")
    return f"{text[:close]}, ::metal::declval<T2>(){text[close:]}"


def alpha_kernel(sibling: str, name: str, path: str) -> str:
    """binary_X's text -> binary_alpha_X's: T2 after T, `constant T2& alpha` after the last buffer,
    alpha_result_of<T, T2, F>, and the functor called with alpha last."""
    text = _with_t2(sibling, path)
    text = re.sub(rf"\bkernel\s+void\s+{name}\b", f"kernel void {name.replace('binary_', 'binary_alpha_', 1)}", text,
                  count=1)
    buffers = list(_BUFFER.finditer(text))
    tid = re.search(r"^([ \t]*)uint\s+\w+\s*\[\[thread_position_in_grid\]\]", text, re.M)
    if not buffers or tid is None:
        raise _refuse(path, f"{name} kernel with [[buffer(n)]] arguments and a thread position")
    slot = max(int(b.group(1)) for b in buffers) + 1
    text = f"{text[: tid.start()]}{tid.group(1)}constant T2& alpha [[buffer({slot})]],\n{text[tid.start():]}"
    text = re.sub(r"\bresult_of<\s*T\s*,\s*F\s*>", f"{RESULT_ALIAS}<T, T2, F>", text)
    called = functor_called_with_alpha(text)
    if called is None:
        raise _refuse(path, f"{name} kernel calling its functor f(...)")
    return called


def alpha_macro(sibling_lines: list[str], path: str) -> list[str]:
    """REGISTER_BINARY_INDEXING_OP(NAME, DTYPE)'s lines -> REGISTER_BINARY_ALPHA_INDEXING_OP(NAME,
    DTYPE, DTYPEA)'s: the alpha kernels, their alpha parameter before the thread position, the
    sibling's host names.  Backslashes are left for clang-format to align."""
    body = "\n".join(line.rstrip("\r\n").rstrip().removesuffix("\\").rstrip() for line in sibling_lines)
    body, names = re.subn(rf"\b{SIBLING_MACRO}\(\s*NAME\s*,\s*DTYPE\s*\)", f"{ALPHA_MACRO}(NAME, DTYPE, DTYPEA)", body)
    body, kernels = re.subn(r"\bbinary_(indexing|dense)(\s*)<\s*DTYPE\s*,\s*NAME##_functor\s*>",
                            r"binary_alpha_\1\2<DTYPE, DTYPEA, NAME##_functor>", body)
    body, params = re.subn(r"^([ \t]*)(uint\s+\w+\s*\))", r"\1constant DTYPEA& alpha,\n\1\2", body, flags=re.M)
    body = re.sub(r"\bresult_of<\s*DTYPE\s*,\s*NAME##_functor\s*>", f"{RESULT_ALIAS}<DTYPE, DTYPEA, NAME##_functor>",
                  body)
    if names != 1 or not kernels or kernels != params:
        raise _refuse(path, f"{SIBLING_MACRO}(NAME, DTYPE) instantiating binary_indexing/binary_dense")
    out = body.split("\n")
    return [f"{line} \\" for line in out[:-1]] + [out[-1]]


def derived_block(text: str, path: str) -> list[str]:
    """The lines the extension adds (comment, alias, kernels, macro), derived from *text*'s siblings."""
    masked = mask_code(text)
    alias = _alias_span(text, masked, "result_of")
    kernels = [(name, _kernel_span(text, masked, name)) for name in _KERNELS]
    macro = macro_lines(split_lines(text), SIBLING_MACRO)
    if alias is None or macro is None or any(span is None for _, span in kernels):
        raise _refuse(path, f"result_of, {', '.join(_KERNELS)} and {SIBLING_MACRO}")
    parts = [f"{COMMENT}\n{alpha_alias(text[alias[0] : alias[1]], path)}"]
    parts += [alpha_kernel(text[s[0] : s[1]], name, path) for name, s in kernels if s is not None]
    lines = split_lines(text)
    parts.append("\n".join(alpha_macro(lines[macro[0] : macro[1] + 1], path)))
    return "\n\n".join(parts).split("\n")


def block_in(text: str, path: str) -> str:
    """What the kernels of REGISTER_BINARY_ALPHA_INDEXING_OP need, as the file has it (alias, kernels and
    macro found) or as the extension would add it: the numeric check compiles this text."""
    if not defines_alpha_macro(text):
        return "\n".join(derived_block(text, path))
    masked = mask_code(text)
    spans = [_alias_span(text, masked, RESULT_ALIAS), *(_kernel_span(text, masked, n.replace("binary_", "binary_alpha_"))
                                                         for n in _KERNELS)]
    lines = split_lines(text)
    macro = macro_lines(lines, ALPHA_MACRO)
    if macro is None or any(s is None for s in spans):
        raise _refuse(path, f"{RESULT_ALIAS} and binary_alpha_* kernels beside {ALPHA_MACRO}")
    found = [text[s[0] : s[1]] for s in spans if s is not None]
    return "\n\n".join([*found, "".join(lines[macro[0] : macro[1] + 1])])


def add_binary_alpha(text: str, path: str) -> str:
    """BinaryKernel.metal with the alpha kernels and macro after the macro definitions that precede its
    first REGISTER_BINARY_INDEXING_OP line; unchanged when it defines the macro already (reused)."""
    if defines_alpha_macro(text):
        return text
    block = derived_block(text, path)
    lines = split_lines(text)
    masked_lines = split_lines(mask_code(text))
    first_call = next((k for k, line in enumerate(masked_lines) if re.match(rf"\s*{SIBLING_MACRO}\s*\(", line)), None)
    defines = [k for k, line in enumerate(masked_lines[:first_call]) if re.match(r"\s*#\s*define\s+\w+\s*\(", line)]
    if first_call is None or not defines:
        raise _refuse(path, f"{SIBLING_MACRO} lines after the file's macro definitions")
    last = defines[-1]
    while lines[last].rstrip("\r\n").endswith("\\") and last + 1 < len(lines):
        last += 1
    nl = "\r\n" if lines[last].endswith("\r\n") else "\n"
    added = nl.join(["", *block]) + nl
    return "".join(lines[: last + 1]) + added + "".join(lines[last + 1 :])
