"""The Metal half of PyTorch 2.7's ternary kernels, which that BinaryKernel.metal lacks: `ternary_indexing` /
`ternary_dense` kernel templates and `REGISTER_TERNARY_INDEXING_OP(NAME, DTYPE)`, derived from the file's own
`binary_indexing` / `binary_dense`, `result_of` and `REGISTER_BINARY_INDEXING_OP(NAME, DTYPE)` (pure text ->
text), and their alpha forms (`REGISTER_TERNARY_ALPHA_INDEXING_OP(NAME, DTYPE, DTYPEA)`) by the binary alpha
transforms of backfill/binary_alpha_metal applied to those.

The move from two inputs to three: a third input after the second (`other2_`, bound after `other_`), the
functor called with it last, `ternary_result_of` naming the result.  2.7's strided kernel reads offsets
that generateKernelDataOffsets computes for an output and two inputs (a uint3 per thread); the ternary one
computes them itself from the iterator's sizes and each operand's strides, with the pos_from_thread_index
and offset_from_coord of 2.7's c10/metal/indexing.h (as its Indexing.metal's masked_fill_scalar_strided
does), so the host (backfill/ternary_host) binds sizes, strides and ndim where binary_mps_impl
binds the offsets.  The host names stay the sibling's (`NAME_DTYPE`, `NAME_dense_DTYPE`).
"""

from __future__ import annotations

import re

from mpsgen.errors import MpsgenError
from mpsgen.scan.brackets import match_close, split_bounds
from mpsgen.scan.mask import mask_code
from mpsgen.backfill import binary_alpha_metal
from mpsgen.backfill.binary_alpha_metal import BINARY, Family, Siblings, defines_macro, siblings_in

TERNARY = Family("ternary", "ternary_result_of", "REGISTER_TERNARY_INDEXING_OP", "ternary_alpha_result_of",
                 "REGISTER_TERNARY_ALPHA_INDEXING_OP",
                 "// Ternary kernels passing a scalar (alpha) to the functor after the three inputs")
COMMENT = "// Ternary kernels: the binary ones with a third input, offsets computed from sizes and strides"
INDEXING_H = "c10/metal/indexing.h"
_COMPONENTS = "xyzw"  # generateKernelDataOffsets' uint3: .x the output, .y and .z the inputs; .w the new one
_OFFSET_LINE = re.compile(r"^([ \t]*)auto\s+(\w+)\s*=\s*\((.+)\)\s*\(\s*\(([^()]*uint8_t\s*\*)\)\s*(\w+)\s*\+\s*"
                          r"(\w+)\[(\w+)\]\.([xyz])\s*\)\s*;[ \t]*$", re.M)


def _refuse(path: str, what: str) -> MpsgenError:
    return MpsgenError(f"{path} has no {what} to model {TERNARY.macro} on", path=path, line=1,
                       hint="write the ternary kernels and their macro by hand")


def _third(name: str) -> str:
    """The new input's name from the second's: other_ -> other2_, other -> other2."""
    return re.sub(r"(_?)$", r"2\1", name, count=1)


def _params(kernel: str, path: str) -> tuple[int, int, list[str]]:
    """(open, close, parameters) of a kernel's parameter list."""
    masked = mask_code(kernel)
    m = re.search(r"\bkernel\s+void\s+\w+\s*\(", masked)
    close = match_close(masked, m.end() - 1) if m else None
    if m is None or close is None:
        raise _refuse(path, "kernel template with a parameter list")
    inner = kernel[m.end() : close]
    return m.end() - 1, close, [inner[a:b].strip() for a, b in split_bounds(mask_code(inner))]


def _param_name(param: str) -> str:
    m = re.search(r"(\w+)\s*(?:\[\[[^\]]*\]\])?\s*$", param)
    return m.group(1) if m else ""


def _with_third_input(params: list[str], path: str) -> tuple[list[str], str, str]:
    """*params* with a copy of the last input (the last `constant` one before the first `device` one) after
    it; the second input's name and the third's."""
    device = next((k for k, p in enumerate(params) if p.startswith("device")), None)
    inputs = [k for k, p in enumerate(params[:device]) if p.startswith("constant")]
    if device is None or len(inputs) != 2:
        raise _refuse(path, "kernel reading two `constant` inputs and writing one `device` output")
    second = _param_name(params[inputs[-1]])
    third = _third(second)
    copy = re.sub(rf"\b{second}\b", third, params[inputs[-1]])
    return [*params[: inputs[-1] + 1], copy, *params[inputs[-1] + 1 :]], second, third


def _renumbered(params: list[str]) -> list[str]:
    out = []
    for k, p in enumerate(params):
        out.append(re.sub(r"\[\[buffer\(\d+\)\]\]", f"[[buffer({k})]]", p))
    return out


def _rejoin(kernel: str, open_pos: int, close: int, params: list[str]) -> str:
    return f"{kernel[: open_pos + 1]}\n    " + ",\n    ".join(params) + kernel[close:]


def _call_with_third(body: str, second: str, third: str, path: str) -> str:
    """`f(..., <second>...)` -> `f(..., <second>..., <third>...)`: the last argument repeated for the third."""
    masked = mask_code(body)
    m = re.search(r"(?<![\w.])f\(", masked)
    close = match_close(masked, m.end() - 1) if m else None
    if m is None or close is None:
        raise _refuse(path, "kernel calling its functor f(...)")
    args = [body[m.end() + a : m.end() + b].strip() for a, b in split_bounds(mask_code(body[m.end() : close]))]
    if not args or not re.search(rf"\b{second}\b", args[-1]):
        raise _refuse(path, f"functor call whose last argument reads {second}")
    added = re.sub(rf"\b{second}\b", third, args[-1])
    return f"{body[:close]}, {added}{body[close:]}"


def ternary_alias(sibling: str, path: str) -> str:
    """`using result_of = decltype(F()(T, T))` -> `using ternary_result_of = decltype(F()(T, T, T))`."""
    text, n = re.subn(rf"\busing\s+{BINARY.result_alias}\b", f"using {TERNARY.result_alias}", sibling, count=1)
    masked = mask_code(text)
    call = re.search(r"declval<F>\(\)\(", masked)
    close = match_close(masked, call.end() - 1) if call else None
    if not n or call is None or close is None:
        raise _refuse(path, "result_of alias calling declval<F>()")
    return f"{text[:close]}, ::metal::declval<T>(){text[close:]}"


def _renamed(kernel: str, name: str) -> str:
    text = re.sub(rf"\bkernel\s+void\s+{name}\b", f"kernel void {name.replace('binary_', 'ternary_', 1)}", kernel,
                  count=1)
    return re.sub(rf"\b{BINARY.result_alias}<\s*T\s*,\s*F\s*>", f"{TERNARY.result_alias}<T, F>", text)


def ternary_dense(sibling: str, path: str) -> str:
    """binary_dense's text -> ternary_dense's: the third input after the second, passed to the functor last."""
    text = _renamed(sibling, "binary_dense")
    open_pos, close, params = _params(text, path)
    params, second, third = _with_third_input(params, path)
    text = _rejoin(text, open_pos, close, _renumbered(params))
    return _call_with_third(text, second, third, path)


def ternary_indexing(sibling: str, path: str) -> str:
    """binary_indexing's text -> ternary_indexing's: the third input after the second; its offsets array
    replaced by the iterator's sizes, each operand's strides (in the offsets' order) and ndim, from which
    the kernel computes every offset (c10::metal::pos_from_thread_index, offset_from_coord)."""
    text = _renamed(sibling, "binary_indexing")
    open_pos, close, params = _params(text, path)
    params, second, third = _with_third_input(params, path)
    lines = list(_OFFSET_LINE.finditer(text))
    arrays = {m.group(6) for m in lines}
    if [m.group(8) for m in lines] != list(_COMPONENTS[:3]) or len(arrays) != 1:
        raise _refuse(path, "binary_indexing reading the output's and inputs' offsets[tid].x/.y/.z")
    offsets = arrays.pop()
    at = next((k for k, p in enumerate(params) if _param_name(p) == offsets), None)
    tid = next((p for p in params if "thread_position_in_grid" in p), None)
    if at is None or tid is None:
        raise _refuse(path, f"binary_indexing taking {offsets} and a thread position")
    bases = [m.group(5) for m in lines] + [_third(lines[-1].group(5))]
    replaced = ["constant long* sizes [[buffer(0)]]", *(f"constant long* {b.rstrip('_')}_strides [[buffer(0)]]"
                                                         for b in bases), "constant uint& ndim [[buffer(0)]]"]
    params = params[:at] + replaced + params[at + 1 :]
    body_start = text.index("{", close) + 1
    body = text[body_start:]
    last = lines[-1]
    local = last.group(2)  # the second input's pointer, read through its offset
    copy = last.group(0).replace(f".{last.group(8)})", f".{_COMPONENTS[3]})")
    copy = re.sub(rf"\b{local}\b", _third(local), re.sub(rf"\b{second}\b", third, copy))
    body = body.replace(last.group(0), f"{last.group(0)}\n{copy}", 1)
    for base, component in zip(bases, _COMPONENTS):
        body = re.sub(rf"{re.escape(offsets)}\[\w+\]\.{component}\b",
                      f"c10::metal::offset_from_coord(pos, {base.rstrip('_')}_strides, ndim)", body, count=1)
    thread = _param_name(tid)
    indent = last.group(1)
    head = (f"\n{indent}long pos[c10::metal::max_ndim];\n"
            f"{indent}c10::metal::pos_from_thread_index(long({thread}), pos, sizes, ndim);")
    text = _rejoin(text[:body_start], open_pos, close, _renumbered(params)) + head + body
    return _call_with_third(text, local, _third(local), path)


def _instance_params(kernel: str, path: str) -> list[str]:
    """A kernel's parameters as an explicit instantiation in a macro spells them (T -> DTYPE, F -> NAME##_functor,
    no attributes)."""
    _, _, params = _params(kernel, path)
    out = []
    for p in params:
        p = re.sub(r"\s*\[\[[^\]]*\]\]", "", p)
        p = re.sub(r"<\s*T\s*,\s*F\s*>", "<DTYPE, NAME##_functor>", p)
        out.append(re.sub(r"\bT\b", "DTYPE", p))
    return out


def ternary_macro(sibling_lines: list[str], kernels: dict[str, str], path: str) -> list[str]:
    """REGISTER_BINARY_INDEXING_OP(NAME, DTYPE)'s lines -> REGISTER_TERNARY_INDEXING_OP(NAME, DTYPE)'s: each
    `template [[host_name(...)]] kernel void binary_X<DTYPE, NAME##_functor>(...)` instantiating ternary_X,
    its parameters those of the derived kernel (*kernels*: name -> text).  Backslashes are left for
    clang-format to align."""
    body = "\n".join(line.rstrip("\r\n").rstrip().removesuffix("\\").rstrip() for line in sibling_lines)
    body, names = re.subn(rf"\b{BINARY.macro}\(\s*NAME\s*,\s*DTYPE\s*\)", f"{TERNARY.macro}(NAME, DTYPE)", body)
    instance = re.compile(r"\bbinary_(indexing|dense)(\s*<\s*DTYPE\s*,\s*NAME##_functor\s*>\s*)\(")
    parts, pos, count = [], 0, 0
    masked = mask_code(body)
    for m in instance.finditer(masked):
        close = match_close(masked, m.end() - 1)
        if close is None:
            break
        name = f"ternary_{m.group(1)}"
        params = _instance_params(kernels[name], path)
        parts += [body[pos : m.start()], f"{name}{m.group(2)}(\n      ", ",\n      ".join(params), ")"]
        pos, count = close + 1, count + 1
    if names != 1 or count != len(kernels):
        raise _refuse(path, f"{BINARY.macro}(NAME, DTYPE) instantiating binary_indexing/binary_dense")
    out = "".join([*parts, body[pos:]]).split("\n")
    return [f"{line} \\" for line in out[:-1]] + [out[-1]]


def ternary_siblings(text: str, path: str) -> Siblings:
    """The ternary alias, kernels and macro derived from *text*'s binary ones."""
    found = siblings_in(text, path)
    if found is None:
        raise _refuse(path, f"result_of, binary_indexing, binary_dense and {BINARY.macro}")
    derive = {"binary_indexing": ternary_indexing, "binary_dense": ternary_dense}
    kernels = tuple((name.replace("binary_", "ternary_", 1), derive[name](kernel, path)) for name, kernel in found.kernels)
    macro = ternary_macro(found.macro, dict(kernels), path)
    return Siblings(ternary_alias(found.alias, path), kernels, [f"{line}\n" for line in macro])


def derived_block(text: str, path: str, *, alpha: bool, alias: bool = True) -> list[str]:
    """The lines the backfill adds: the ternary kernels and macro (and their result alias unless not
    *alias*: where's kernels, backfill/ternary_cond, may have added it), or (*alpha*) their alpha forms."""
    siblings = ternary_siblings(text, path)
    if alpha:
        return binary_alpha_metal.alpha_block(siblings, path, TERNARY)
    head = f"{COMMENT}\n{siblings.alias}" if alias else COMMENT
    parts = [head, *(k for _, k in siblings.kernels), "".join(siblings.macro).rstrip("\n")]
    return "\n\n".join(parts).split("\n")


def block_in(text: str, path: str, *, alpha: bool) -> str:
    """What REGISTER_TERNARY_(ALPHA_)INDEXING_OP's kernels need, as the file has them or as the backfill
    would add them, after c10/metal/indexing.h's include: the numeric check compiles this text."""
    macro = TERNARY.alpha_macro if alpha else TERNARY.macro
    if not defines_macro(text, macro):
        return "\n".join([f"#include <{INDEXING_H}>", *derived_block(text, path, alpha=alpha)])
    found = siblings_in(text, path, TERNARY, alpha=alpha)
    if found is None:
        raise _refuse(path, f"the kernels beside {macro}")
    return f"#include <{INDEXING_H}>\n{binary_alpha_metal.written_block(found)}"


_OFFSET_HELPERS = ("max_ndim", "pos_from_thread_index", "offset_from_coord")


def require_offset_helpers(text: str, path: str) -> str:
    """*text* (c10/metal/indexing.h) unchanged when it defines what the ternary strided kernels compute their
    offsets with; else the refusal naming what is missing."""
    masked = mask_code(text)
    missing = [n for n in _OFFSET_HELPERS if not re.search(rf"\b{n}\b", masked)]
    if missing:
        raise MpsgenError(f"{path} defines no {', '.join(missing)}: nothing to compute a ternary kernel's offsets "
                          f"with ({BINARY.kernels[0]}'s come from generateKernelDataOffsets, for two inputs)",
                          path=path, line=1, hint="write the ternary kernel by hand")
    return text


def add_ternary(text: str, path: str, *, alpha: bool) -> str:
    """BinaryKernel.metal with the ternary kernels and macro (or their alpha forms) after the macro
    definitions that precede its first REGISTER_BINARY_INDEXING_OP line, and c10/metal/indexing.h
    included; unchanged when it defines the macro already (reused)."""
    from mpsgen.sources.metal.edit import add_include

    macro = TERNARY.alpha_macro if alpha else TERNARY.macro
    if defines_macro(text, macro):
        return text
    has_alias = re.search(rf"\busing\s+{TERNARY.result_alias}\b", mask_code(text)) is not None
    block = derived_block(text, path, alpha=alpha, alias=not has_alias)
    text = binary_alpha_metal.insert_after_macros(text, block, path, BINARY.macro, macro)
    return add_include(text, path, INDEXING_H)
