"""The Metal half of PyTorch 2.7's binary kernels with scalar arguments, which that BinaryKernel.metal
lacks: `binary_alpha_indexing` / `binary_alpha_dense` kernel templates and
`REGISTER_BINARY_ALPHA_INDEXING_OP(NAME, DTYPE, DTYPEA)`, derived from the file's own
`binary_indexing` / `binary_dense`, `result_of` and `REGISTER_BINARY_INDEXING_OP(NAME, DTYPE)`
(pure text -> text).

The move from a kernel to its alpha form is the one upstream later made in c10/metal
(binary_dense -> binary_alpha_dense): a `T2` template parameter, `constant T2& alpha` bound after
the kernel's last buffer, the functor called with alpha last.  The host names stay the sibling's
(`NAME_DTYPE`, `NAME_dense_DTYPE`): each input type is registered with one alpha type, so the
host helper (backfill/binary_alpha_host) looks kernels up exactly as binary_mps_impl does.  DTYPEA is
a scalar type (huber_loss's delta) or a params struct of the op's own (threshold's
`ThresholdParams<float>`), defined before its functor.  A file without those siblings is refused.
"""

from __future__ import annotations

import re

from mpsgen.errors import MpsgenError
from mpsgen.scan.brackets import match_close
from mpsgen.scan.lines import split_lines
from mpsgen.scan.mask import mask_code
from mpsgen.backfill.exec_ternary_metal import functor_called_with_alpha, macro_lines
from mpsgen.records import NamedTuple

class Family(NamedTuple):
    """The kernels of one input count and their alpha forms' names (binary here; backfill/ternary_metal
    derives the ternary ones from the binary and hands them to the same alpha transforms)."""

    kind: str  # binary: the kernels are binary_indexing, binary_dense
    result_alias: str  # the kernels' result type alias
    macro: str  # the registration macro of the plain kernels
    alpha_result: str
    alpha_macro: str
    comment: str

    @property
    def kernels(self) -> tuple[str, str]:
        return f"{self.kind}_indexing", f"{self.kind}_dense"


BINARY = Family("binary", "result_of", "REGISTER_BINARY_INDEXING_OP", "alpha_result_of",
                "REGISTER_BINARY_ALPHA_INDEXING_OP",
                "// Binary kernels passing a scalar (alpha) to the functor after the two inputs")
ALPHA_MACRO, SIBLING_MACRO, RESULT_ALIAS, COMMENT = BINARY.alpha_macro, BINARY.macro, BINARY.alpha_result, BINARY.comment
_BUFFER = re.compile(r"\[\[buffer\((\d+)\)\]\]")


def _refuse(path: str, what: str, family: Family = BINARY) -> MpsgenError:
    return MpsgenError(f"{path} has no {what} to model {family.alpha_macro} on", path=path, line=1,
                       hint=f"write the {family.kind} alpha kernels and their macro by hand")


def defines_macro(text: str, macro: str) -> bool:
    return re.search(rf"^\s*#\s*define\s+{macro}\s*\(", mask_code(text), re.M) is not None


def defines_alpha_macro(text: str) -> bool:
    return defines_macro(text, ALPHA_MACRO)


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


def _with_t2(head: str, path: str, family: Family = BINARY) -> str:
    new, n = re.subn(r"^(template\s*<\s*typename\s+T\s*,)(\s*)(typename\s+F\s*>)", r"\1\2typename T2,\2\3", head,
                     count=1)
    if not n:
        raise _refuse(path, "kernel template of the form template <typename T, typename F>", family)
    return new


def alpha_alias(sibling: str, path: str, family: Family = BINARY) -> str:
    """`using result_of = decltype(F()(T, T))` -> `using alpha_result_of = decltype(F()(T, T, T2))`."""
    text = _with_t2(sibling, path, family)
    text = re.sub(rf"\busing\s+{family.result_alias}\b", f"using {family.alpha_result}", text, count=1)
    masked = mask_code(text)
    call = re.search(r"declval<F>\(\)\(", masked)
    close = match_close(masked, call.end() - 1) if call else None
    if call is None or close is None:
        raise _refuse(path, f"{family.result_alias} alias calling declval<F>()", family)
    return f"{text[:close]}, ::metal::declval<T2>(){text[close:]}"


def alpha_kernel(sibling: str, name: str, path: str, family: Family = BINARY) -> str:
    """binary_X's text -> binary_alpha_X's: T2 after T, `constant T2& alpha` after the last buffer,
    alpha_result_of<T, T2, F>, and the functor called with alpha last."""
    text = _with_t2(sibling, path, family)
    alpha_name = name.replace(f"{family.kind}_", f"{family.kind}_alpha_", 1)
    text = re.sub(rf"\bkernel\s+void\s+{name}\b", f"kernel void {alpha_name}", text, count=1)
    buffers = list(_BUFFER.finditer(text))
    tid = re.search(r"^([ \t]*)uint\s+\w+\s*\[\[thread_position_in_grid\]\]", text, re.M)
    if not buffers or tid is None:
        raise _refuse(path, f"{name} kernel with [[buffer(n)]] arguments and a thread position", family)
    slot = max(int(b.group(1)) for b in buffers) + 1
    text = f"{text[: tid.start()]}{tid.group(1)}constant T2& alpha [[buffer({slot})]],\n{text[tid.start():]}"
    text = re.sub(rf"\b{family.result_alias}<\s*T\s*,\s*F\s*>", f"{family.alpha_result}<T, T2, F>", text)
    called = functor_called_with_alpha(text)
    if called is None:
        raise _refuse(path, f"{name} kernel calling its functor f(...)", family)
    return called


def alpha_macro(sibling_lines: list[str], path: str, family: Family = BINARY) -> list[str]:
    """REGISTER_BINARY_INDEXING_OP(NAME, DTYPE)'s lines -> REGISTER_BINARY_ALPHA_INDEXING_OP(NAME,
    DTYPE, DTYPEA)'s: the alpha kernels, their alpha parameter before the thread position, the
    sibling's host names.  Backslashes are left for clang-format to align."""
    body = "\n".join(line.rstrip("\r\n").rstrip().removesuffix("\\").rstrip() for line in sibling_lines)
    body, names = re.subn(rf"\b{family.macro}\(\s*NAME\s*,\s*DTYPE\s*\)", f"{family.alpha_macro}(NAME, DTYPE, DTYPEA)",
                          body)
    body, kernels = re.subn(rf"\b{family.kind}_(indexing|dense)(\s*)<\s*DTYPE\s*,\s*NAME##_functor\s*>",
                            rf"{family.kind}_alpha_\1\2<DTYPE, DTYPEA, NAME##_functor>", body)
    body, params = re.subn(r"^([ \t]*)(uint\s+\w+\s*\))", r"\1constant DTYPEA& alpha,\n\1\2", body, flags=re.M)
    body = re.sub(rf"\b{family.result_alias}<\s*DTYPE\s*,\s*NAME##_functor\s*>",
                  f"{family.alpha_result}<DTYPE, DTYPEA, NAME##_functor>", body)
    if names != 1 or not kernels or kernels != params:
        raise _refuse(path, f"{family.macro}(NAME, DTYPE) instantiating {'/'.join(family.kernels)}", family)
    out = body.split("\n")
    return [f"{line} \\" for line in out[:-1]] + [out[-1]]


class Siblings(NamedTuple):
    """The texts an alpha form is modeled on: the result alias, the kernels by name, the macro's lines."""

    alias: str
    kernels: tuple[tuple[str, str], ...]
    macro: list[str]


def siblings_in(text: str, path: str, family: Family = BINARY, *, alpha: bool = False) -> Siblings | None:
    """*family*'s alias, kernels and macro as *text* defines them (their alpha forms with *alpha*); None
    when one of them is missing."""
    masked = mask_code(text)
    names = [n.replace(f"{family.kind}_", f"{family.kind}_alpha_", 1) if alpha else n for n in family.kernels]
    alias = _alias_span(text, masked, family.alpha_result if alpha else family.result_alias)
    kernels = [(name, _kernel_span(text, masked, name)) for name in names]
    lines = split_lines(text)
    macro = macro_lines(lines, family.alpha_macro if alpha else family.macro)
    if alias is None or macro is None or any(span is None for _, span in kernels):
        return None
    return Siblings(text[alias[0] : alias[1]], tuple((n, text[s[0] : s[1]]) for n, s in kernels if s is not None),
                    lines[macro[0] : macro[1] + 1])


def alpha_block(siblings: Siblings, path: str, family: Family = BINARY) -> list[str]:
    """The lines of the alpha forms (comment, alias, kernels, macro) derived from *siblings*."""
    parts = [f"{family.comment}\n{alpha_alias(siblings.alias, path, family)}"]
    parts += [alpha_kernel(text, name, path, family) for name, text in siblings.kernels]
    parts.append("\n".join(alpha_macro(siblings.macro, path, family)))
    return "\n\n".join(parts).split("\n")


def derived_block(text: str, path: str) -> list[str]:
    """The lines the backfill adds (comment, alias, kernels, macro), derived from *text*'s siblings."""
    siblings = siblings_in(text, path)
    if siblings is None:
        raise _refuse(path, f"result_of, {', '.join(BINARY.kernels)} and {SIBLING_MACRO}")
    return alpha_block(siblings, path)


def written_block(found: Siblings) -> str:
    """The kernels' texts as a file has them, for the numeric check to compile."""
    return "\n\n".join([found.alias, *(t for _, t in found.kernels), "".join(found.macro)])


def block_in(text: str, path: str) -> str:
    """What the kernels of REGISTER_BINARY_ALPHA_INDEXING_OP need, as the file has it (alias, kernels and
    macro found) or as the backfill would add it: the numeric check compiles this text."""
    if not defines_alpha_macro(text):
        return "\n".join(derived_block(text, path))
    found = siblings_in(text, path, alpha=True)
    if found is None:
        raise _refuse(path, f"{RESULT_ALIAS} and binary_alpha_* kernels beside {ALPHA_MACRO}")
    return written_block(found)


def insert_after_macros(text: str, block: list[str], path: str, first_call_macro: str, what: str) -> str:
    """*text* with *block* after the macro definitions that precede its first *first_call_macro* line."""
    lines = split_lines(text)
    masked_lines = split_lines(mask_code(text))
    first_call = next((k for k, line in enumerate(masked_lines) if re.match(rf"\s*{first_call_macro}\s*\(", line)),
                      None)
    defines = [k for k, line in enumerate(masked_lines[:first_call]) if re.match(r"\s*#\s*define\s+\w+\s*\(", line)]
    if first_call is None or not defines:
        raise MpsgenError(f"{path} has no {first_call_macro} lines after the file's macro definitions to model "
                          f"{what} on", path=path, line=1, hint=f"write {what} by hand")
    last = defines[-1]
    while lines[last].rstrip("\r\n").endswith("\\") and last + 1 < len(lines):
        last += 1
    nl = "\r\n" if lines[last].endswith("\r\n") else "\n"
    added = nl.join(["", *block]) + nl
    return "".join(lines[: last + 1]) + added + "".join(lines[last + 1 :])


def add_binary_alpha(text: str, path: str) -> str:
    """BinaryKernel.metal with the alpha kernels and macro after the macro definitions that precede its
    first REGISTER_BINARY_INDEXING_OP line; unchanged when it defines the macro already (reused)."""
    if defines_alpha_macro(text):
        return text
    return insert_after_macros(text, derived_block(text, path), path, SIBLING_MACRO, ALPHA_MACRO)
