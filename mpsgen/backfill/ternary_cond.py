"""where's kernels and host helper on PyTorch 2.7: the ternary kernels of backfill/ternary_metal (derived from
BinaryKernel.metal's binary ones) with their first input, the condition, read in its own type C and handed
to the functor as T (`static_cast<T>(cond)`, 0 or 1, as the catalog's `a != T(0) ? b : c` expects), and
`REGISTER_TERNARY_COND_INDEXING_OP(NAME, CTYPE, DTYPE)` registering `NAME_CTYPE_DTYPE` and
`NAME_dense_CTYPE_DTYPE`, the names BinaryKernel.mm's ternary_cond_mps_impl (backfill/ternary_host's
ternary_mps_impl naming its kernels after the condition's type too) looks up.  Pure text -> text; the
ternary kernels themselves are not added (only their result alias, when missing).
"""

from __future__ import annotations

import re

from mpsgen.errors import MpsgenError
from mpsgen.scan.brackets import match_close, split_bounds
from mpsgen.scan.mask import mask_code
from mpsgen.backfill import binary_alpha_host, binary_alpha_metal, ternary_host, ternary_metal
from mpsgen.backfill.binary_alpha_metal import BINARY, Siblings, defines_macro

MACRO = "REGISTER_TERNARY_COND_INDEXING_OP"
COMMENT = ("// Ternary kernels whose first input (a condition) has its own type C, handed to the functor as T: "
           "where(cond, a, b)")
_FIRST_POINTER = re.compile(r"\(\s*constant\s+T\s*\*\s*\)")


def _refuse(path: str, what: str) -> MpsgenError:
    return MpsgenError(f"{path} has no {what} to model {MACRO} on", path=path, line=1,
                       hint="write the condition-typed ternary kernels by hand")


def _cast_first_argument(kernel: str, path: str) -> str:
    masked = mask_code(kernel)
    m = re.search(r"(?<![\w.])f\(", masked)
    close = match_close(masked, m.end() - 1) if m else None
    if m is None or close is None:
        raise _refuse(path, "ternary kernel calling its functor f(...)")
    a, b = split_bounds(mask_code(kernel[m.end() : close]))[0]
    start, end = m.end() + a, m.end() + b
    return f"{kernel[:start]}static_cast<T>({kernel[start:end]}){kernel[end:]}"


def cond_kernel(kernel: str, name: str, path: str) -> str:
    """ternary_X's text -> ternary_cond_X's: `typename C` first, the first input read as C."""
    text, n = re.subn(r"^template\s*<\s*typename\s+T\s*,\s*typename\s+F\s*>",
                      "template <typename C, typename T, typename F>", kernel, count=1)
    text, renamed = re.subn(rf"\bkernel\s+void\s+{name}\b", f"kernel void {name.replace('ternary_', 'ternary_cond_')}",
                            text, count=1)
    if not n or not renamed:
        raise _refuse(path, f"{name} of the form template <typename T, typename F> kernel void {name}(...)")
    first_param = re.search(r"\(\s*constant\s+(?:T|void)\s*\*\s*(\w+)", text)
    if first_param is None:
        raise _refuse(path, f"{name} reading its first input through `constant T*` or `constant void*`")
    if "void" in first_param.group(0):  # strided: the pointer read at the first input's offset
        read = re.search(rf"{_FIRST_POINTER.pattern}(\s*\(\s*\(constant\s+uint8_t\s*\*\)\s*{first_param.group(1)}\b)",
                         text)
        if read is None:
            raise _refuse(path, f"{name} casting {first_param.group(1)} to `constant T*`")
        text = f"{text[: read.start()]}(constant C*){read.group(1)}{text[read.end():]}"
    else:
        at = first_param.start()
        text = text[:at] + re.sub(r"constant\s+T\s*\*", "constant C*", text[at:], count=1)
    return _cast_first_argument(text, path)


def cond_macro(ternary_macro: list[str], path: str) -> list[str]:
    """REGISTER_TERNARY_INDEXING_OP(NAME, DTYPE)'s lines -> REGISTER_TERNARY_COND_INDEXING_OP(NAME, CTYPE,
    DTYPE)'s (backslashes left for clang-format to align)."""
    body = "\n".join(line.rstrip("\r\n").rstrip().removesuffix("\\").rstrip() for line in ternary_macro)
    body, named = re.subn(rf"\b{ternary_metal.TERNARY.macro}\(\s*NAME\s*,\s*DTYPE\s*\)",
                          f"{MACRO}(NAME, CTYPE, DTYPE)", body)
    body, hosts = re.subn(r'(#NAME\s+"_(?:dense_)?")\s*#DTYPE', r'\1 #CTYPE "_" #DTYPE', body)
    parts = re.split(r"\bternary_(indexing|dense)\s*<\s*DTYPE\s*,", body)
    if named != 1 or hosts != 2 or len(parts) != 5:
        raise _refuse(path, f"{ternary_metal.TERNARY.macro}(NAME, DTYPE) instantiating ternary_indexing/ternary_dense")
    out = parts[0]
    for kind, rest in zip(parts[1::2], parts[2::2]):
        rest = re.sub(r"constant\s+(?:DTYPE|void)\s*\*", lambda m: m.group(0).replace("DTYPE", "CTYPE"), rest,
                      count=1)
        out += f"ternary_cond_{kind}<CTYPE, DTYPE," + rest
    lines = out.split("\n")
    return [f"{line} \\" for line in lines[:-1]] + [lines[-1]]


def derived_block(text: str, path: str) -> list[str]:
    """The lines the backfill adds: the ternary result alias (unless the file has it), the cond kernels
    and their macro."""
    has_alias = re.search(rf"\busing\s+{ternary_metal.TERNARY.result_alias}\b", mask_code(text)) is not None
    return _cond_lines(ternary_metal.ternary_siblings(text, path), path, with_alias=not has_alias)


def _cond_lines(siblings: Siblings, path: str, *, with_alias: bool) -> list[str]:
    parts = [f"{COMMENT}\n{siblings.alias}"] if with_alias else [COMMENT]
    parts += [cond_kernel(kernel, name, path) for name, kernel in siblings.kernels]
    parts.append("\n".join(cond_macro([line.rstrip("\n") for line in siblings.macro], path)))
    return "\n\n".join(parts).split("\n")


def block_in(text: str, path: str) -> str:
    """What REGISTER_TERNARY_COND_INDEXING_OP's kernels need, as the file has them or as the backfill would
    add them: the numeric check compiles this text."""
    alias_name = ternary_metal.TERNARY.result_alias
    if defines_macro(text, MACRO):  # written already: compile the file's own lines from alias to macro
        masked = mask_code(text)
        alias = re.search(rf"template\s*<[^>]*>\s*using\s+{alias_name}\b", masked)
        end = re.search(rf"#\s*define\s+{MACRO}\b", masked)
        if alias is None or end is None:
            raise _refuse(path, f"{alias_name} before {MACRO}")
        stop = end.end()
        while stop < len(text) and (text[stop] != "\n" or text[stop - 1] == "\\"):
            stop += 1
        return f"#include <{ternary_metal.INDEXING_H}>\n{text[alias.start():stop]}"
    # not written yet: the alias always (the compiled text stands alone), derived once with the rest
    lines = _cond_lines(ternary_metal.ternary_siblings(text, path), path, with_alias=True)
    return "\n".join([f"#include <{ternary_metal.INDEXING_H}>", *lines])


def add_cond(text: str, path: str) -> str:
    """BinaryKernel.metal with the cond kernels and macro after the macro definitions that precede its first
    REGISTER_BINARY_INDEXING_OP line, and c10/metal/indexing.h included; unchanged when it has them."""
    from mpsgen.sources.metal.edit import add_include

    if defines_macro(text, MACRO):
        return text
    text = binary_alpha_metal.insert_after_macros(text, derived_block(text, path), path, BINARY.macro, MACRO)
    return add_include(text, path, ternary_metal.INDEXING_H)


# -- the host half: ternary_cond_mps_impl in BinaryKernel.mm --------------------------------------------------

# where's iterator (check_all_same_dtype(false)): a bool condition first, the two inputs and the output in
# one dtype T.  Its helper is ternary_mps_impl with the kernels named after the condition's type and the
# inputs' (`where_bool_float`, as REGISTER_TERNARY_COND_INDEXING_OP registers them); float64 is refused on
# input(1)'s dtype, since such an iterator has no common dtype to ask.
COND_HELPER = "ternary_cond_mps_impl"
_TYPE_OF = r"scalarToMetalTypeString\(\s*{0}\s*\)"


def cond_helper_definition(sibling: str, path: str) -> str:
    """binary_mps_impl's definition -> ternary_cond_mps_impl's."""
    text = ternary_host.helper_definition(sibling, path)
    text = re.sub(rf"\bstatic\s+void\s+{ternary_host.HELPER}\b", f"static void {COND_HELPER}", text, count=1)
    inputs = {int(m.group(4)): m.group(2) for m in ternary_host.INPUT_LINE.finditer(mask_code(text))}
    first, second = inputs[0], inputs[1]
    text, checks = re.subn(r"\b(\w+)\.common_dtype\(\)", r"\1.input_dtype(1)", text)
    dense = re.compile(rf"(fmt::format\(\s*\"\{{\}}_dense_\{{\}})(\"\s*,\s*\w+\s*,\s*{_TYPE_OF.format(first)})\)")
    text, n_dense = dense.subn(rf'\1_{{}}\2, scalarToMetalTypeString({second}))', text)
    strided = re.compile(rf"(\w+\s*\+\s*\"_\"\s*\+\s*{_TYPE_OF.format(first)})(?!\s*\+)")
    text, n_strided = strided.subn(rf'\1 + "_" + scalarToMetalTypeString({second})', text)
    if n_dense != 1 or n_strided != 1 or checks > 1:
        sibling_name = ternary_host.SIBLING
        raise ternary_host.refusal(path, f"{sibling_name} does not name its kernels fmt::format(\"{{}}_dense_{{}}\", "
                                   f"func_name, scalarToMetalTypeString({first})) and func_name + \"_\" + "
                                   f"scalarToMetalTypeString({first})", COND_HELPER)
    return text


def add_cond_helper(mm_text: str, path: str) -> str:
    """BinaryKernel.mm with ternary_cond_mps_impl after binary_mps_impl; unchanged when it has one."""
    return binary_alpha_host.add_helper(mm_text, path, COND_HELPER, cond_helper_definition)
