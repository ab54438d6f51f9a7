"""The host side in operations/*.mm: host kernels, REGISTER_DISPATCH lines, legacy MPSGraph impls, includes.

Readers take {display path: text} (or one text) and return located facts; editors are pure
text -> text, idempotent, and change only the lines they must.  Rendering of the snippets they
insert is done elsewhere (render.py); here we decide where they go and in which style.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from mpsgen.tree.checkout import newline_of
from mpsgen.errors import MpsgenError
from mpsgen.sources.stubs import (
    calls_outside_directives,
    definition_body,
    directive_lines,
    line_at,
    looks_like_definition_name,
    mask_code,
    match_close,
    split_top_level,
)

# --------------------------------------------------------------------------------------------
# Shared line helpers
# --------------------------------------------------------------------------------------------


def _lines(text: str) -> list[str]:
    return text.splitlines(keepends=True)


def _blank(line: str) -> bool:
    return not line.strip()


def _eol(line: str) -> str:
    return line[len(line.rstrip("\r\n")) :]


def _as_lines(snippet: str, nl: str) -> list[str]:
    """Rendered snippet -> lines ending with the file's newline."""
    return [ln.rstrip("\r") + nl for ln in snippet.strip("\r\n").split("\n")]


def _join_after(lines: list[str], index: int, new: list[str]) -> list[str]:
    """Insert *new* after lines[index - 1]; repairs a missing final newline before the insertion."""
    if index > 0 and not _eol(lines[index - 1]) and new:
        lines = lines[:]
        lines[index - 1] += _eol(new[0]) or "\n"
    return lines[:index] + new + lines[index:]


# --------------------------------------------------------------------------------------------
# Legacy implementations
# --------------------------------------------------------------------------------------------

LEGACY_MACROS = (
    "CREATE_MPS_STRUCTURED_UNARY_TORCH_IMPL_FUNC",
    "CREATE_MPS_UNARY_TORCH_IMPL_FUNC",
    "CREATE_MPS_STRUCTURED_UNARY_ROUNDING_TORCH_IMPL_FUNC",
    "CREATE_MPS_FALLBACK_UNARY_TORCH_IMPL_FUNC",
    "CREATE_MPS_STRUCTURED_BINARY_OP_FUNC",
    "CREATE_MPS_STRUCTURED_BOOLEAN_OP_FUNC",
    "CREATE_MPS_BINARY_COMPARISON_OP_FUNC",
    "REGISTER_MPS_UNARY_STUB",
)

_METAL_MARKERS = re.compile(
    r"\blib\s*\.\s*exec_|\bbinary_op_kernel\s*\(|\bexec_(?:unary|binary|ternary)_kernel|\bgetPipelineStateForFunc\b|"
    r"\bmtl_setArgs\b|\bmtl_dispatch1DJob\b|\bMetalShaderLibrary\b"
)
_GRAPH_MARKERS = re.compile(
    r"\bmpsGraph\b|\bMPSGraph\w*|\bLookUpOrCreateCachedGraph\b|\bunary_op\s*\(|\bbinaryOp(?:Tensor|Scalar)\b|"
    r"\bCREATE_MPS_\w+|\brunMPSGraph\b|\bMPSGraphTensor\b"
)


@dataclass(frozen=True)
class Impl:
    """A legacy MPS implementation of a yaml kernel name in an operations/*.mm file."""

    path: str
    name: str
    line: int
    end_line: int
    form: str  # "TORCH_IMPL_FUNC" | "function" | "macro"
    macro: str | None  # the macro's name for form "macro"
    backend: str  # "mpsgraph" | "metal" | "unknown"
    col: int = 1  # 1-based column where the definition starts on its first line


def _classify(body_masked: str) -> str:
    if _METAL_MARKERS.search(body_masked):
        return "metal"  # never delete Metal code, even when mixed with an MPSGraph fallback
    if _GRAPH_MARKERS.search(body_masked):
        return "mpsgraph"
    return "unknown"


@dataclass(frozen=True)
class FunctionSpan:
    name: str
    start: int  # offset of the name (or of TORCH_IMPL_FUNC)
    body_open: int
    body_close: int


_CONTROL = {"if", "for", "while", "switch", "catch", "return", "sizeof", "decltype", "defined", "TORCH_IMPL_FUNC"}


def function_spans(masked: str) -> list[FunctionSpan]:
    """Function definitions (including `TORCH_IMPL_FUNC(name)(...) {`) in a masked text, in order."""
    spans: list[FunctionSpan] = []
    for m in re.finditer(r"\bTORCH_IMPL_FUNC\s*\(\s*(\w+)\s*\)\s*\(|\b([A-Za-z_]\w*)\s*\(", masked):
        name = m.group(1) or m.group(2)
        if m.group(2) and (m.group(2) in _CONTROL or not looks_like_definition_name(masked, m.start())):
            continue
        body = definition_body(masked, m.end() - 1)
        if body is not None:
            spans.append(FunctionSpan(name, m.start(), *body))
    return spans


def _line_start(text: str, pos: int) -> int:
    return text.rfind("\n", 0, pos) + 1


def _decl_start(masked: str, pos: int) -> int:
    """Offset of the line where the declaration containing *pos* begins (return type may be on the line above)."""
    start = _line_start(masked, pos)
    if not masked[start:pos].strip() and start > 0:
        prev = _line_start(masked, start - 1)
        prev_text = masked[prev : start - 1].strip()
        if prev_text and re.fullmatch(r"[\w:<>,&* ]+", prev_text) and not prev_text.endswith(";"):
            return prev
    return start


def _local_graph_helpers(masked: str, spans: list[FunctionSpan]) -> set[str]:
    """Functions defined in this file whose own bodies run MPSGraph (div_mode_template, ...)."""
    return {s.name for s in spans if _classify(masked[s.body_open : s.body_close + 1]) == "mpsgraph"}


def _classify_with_helpers(body: str, helpers: set[str]) -> str:
    kind = _classify(body)
    if kind == "unknown" and helpers:
        called = set(re.findall(r"\b(\w+)\s*\(", body))
        if called & helpers:
            return "mpsgraph"
    return kind


def find_implementations(mm_texts: dict[str, str], name: str) -> list[Impl]:
    """Every definition of the yaml kernel *name* in *mm_texts*: explicit TORCH_IMPL_FUNC blocks,
    plain functions and one-line legacy macros (whose first argument is *name*; for
    REGISTER_MPS_UNARY_STUB, *name* may also be the stub, e.g. `trunc_stub`)."""
    found: list[Impl] = []
    for path, text in mm_texts.items():
        masked = mask_code(text)
        skip = directive_lines(text)
        spans = function_spans(masked)
        helpers: set[str] | None = None
        for span in spans:
            if span.name != name or line_at(text, span.start) in skip:
                continue
            body = masked[span.body_open : span.body_close + 1]
            kind = _classify(body)
            if kind == "unknown":
                helpers = helpers if helpers is not None else _local_graph_helpers(masked, spans)
                kind = _classify_with_helpers(body, helpers - {name})
            is_impl = masked.startswith("TORCH_IMPL_FUNC", span.start)
            start = span.start if is_impl else _decl_start(masked, span.start)
            found.append(
                Impl(
                    path,
                    name,
                    line_at(text, start),
                    line_at(text, span.body_close),
                    "TORCH_IMPL_FUNC" if is_impl else "function",
                    None,
                    kind,
                    start - _line_start(masked, start) + 1,
                )
            )
        for m in re.finditer(r"\b(" + "|".join(LEGACY_MACROS) + r")\s*\(", masked):
            line = line_at(text, m.start())
            if line in skip:
                continue
            close = match_close(masked, m.end() - 1)
            if close is None:
                continue
            args = split_top_level(masked[m.end() : close])
            first = args[0] if args else ""
            if first != name and not (m.group(1) == "REGISTER_MPS_UNARY_STUB" and f"{first}_stub" == name):
                continue
            col = m.start() - _line_start(masked, m.start()) + 1
            found.append(Impl(path, name, line, line_at(text, close), "macro", m.group(1), "mpsgraph", col))
    found.sort(key=lambda i: (i.path, i.line))
    return found


def _tidy_after_removal(lines: list[str], at: int) -> list[str]:
    """Drop the blank line made redundant where lines were removed (before index *at*)."""
    prev = lines[at - 1] if at > 0 else None
    nxt = lines[at] if at < len(lines) else None
    if prev is not None and _blank(prev) and (nxt is None or _blank(nxt)):
        return lines[:at] + lines[at + 1 :] if nxt is not None else lines[: at - 1]
    if prev is not None and _blank(prev) and nxt is not None and nxt.lstrip().startswith("}"):
        return lines[: at - 1] + lines[at:]
    if nxt is not None and _blank(nxt) and (prev is None or prev.rstrip().endswith("{")):
        return lines[:at] + lines[at + 1 :]
    return lines


def remove_implementation(text: str, impl: Impl, *, allow_unknown: bool = False) -> str:
    """*text* without *impl* (re-located by name, so applying it twice changes nothing).

    Refuses to delete Metal code, and code whose backend is unknown unless *allow_unknown*.
    """
    current = [
        i for i in find_implementations({impl.path: text}, impl.name) if i.form == impl.form and i.macro == impl.macro
    ]
    if not current:
        return text
    target = min(current, key=lambda i: abs(i.line - impl.line))
    if target.backend == "metal":
        raise MpsgenError(
            f"{target.name} already runs Metal (lib.exec_* / binary_op_kernel); refusing to delete it",
            path=target.path,
            line=target.line,
            hint="rewire the yaml to the shared kernel and remove this function by hand if it is now unused",
        )
    if target.backend == "unknown" and not allow_unknown:
        raise MpsgenError(
            f"cannot tell whether {target.name} runs MPSGraph or Metal",
            path=target.path,
            line=target.line,
            hint="check its body; remove it by hand if it is MPSGraph code",
        )
    lines = _lines(text)
    first, last = target.line - 1, target.end_line - 1
    masked_lines = _lines(mask_code(text))
    if masked_lines[first][: target.col - 1].strip():
        raise MpsgenError(
            f"{target.name} shares its first line with other code",
            path=target.path,
            line=target.line,
            hint="put the definition on its own lines and run again",
        )
    tail = masked_lines[last]
    close_end = _end_of_statement(text, target)
    if tail[close_end:].strip():
        raise MpsgenError(
            f"{target.name} shares its last line with other code",
            path=target.path,
            line=target.end_line,
            hint="put the definition on its own lines and run again",
        )
    kept = lines[:first] + lines[last + 1 :]
    return "".join(_tidy_after_removal(kept, first))


def _end_of_statement(text: str, impl: Impl) -> int:
    """Column just after the impl's closing `}` / `)` (and a following `;`) on its last line."""
    masked_lines = _lines(mask_code(text))
    tail = masked_lines[impl.end_line - 1]
    closer = "}" if impl.form != "macro" else ")"
    col = tail.rfind(closer) + 1
    rest = tail[col:]
    if rest.lstrip().startswith(";"):
        col += len(rest) - len(rest.lstrip()) + 1
    return col


_INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*[<"]([^>"]+)[>"]')


def remove_op_include(text: str, op: str) -> str:
    """Drop `#include <ATen/ops/<op>_native.h>` when no code left in the file names `<op>` or `<op>_*`.

    The test is deliberately conservative: any identifier that could be declared by that header
    (the op itself, `<op>_out_mps`, `structured_<op>...`) keeps the include.
    """
    header = f"ATen/ops/{op.removesuffix('_native')}_native.h"
    stem = op.removesuffix("_native")
    lines = _lines(text)
    hits = [k for k, ln in enumerate(lines) if (m := _INCLUDE.match(ln)) and m.group(1) == header]
    if not hits:
        return text
    masked = mask_code(text)
    masked_lines = _lines(masked)
    code = "".join(ln for k, ln in enumerate(masked_lines) if not _INCLUDE.match(lines[k]))
    if re.search(rf"\b(?:structured_)?{re.escape(stem)}(?:_\w+)?\b", code):
        return text
    for k in reversed(hits):
        lines = _tidy_after_removal(lines[:k] + lines[k + 1 :], k)
    return "".join(lines)


# --------------------------------------------------------------------------------------------
# Registrations and kernel calls
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Registration:
    stub: str
    path: str
    line: int
    end_line: int
    fn: str  # registered host function ("" when not named, e.g. nullptr)
    macro: str  # REGISTER_DISPATCH | REGISTER_MPS_DISPATCH | REGISTER_UNARY_TI_DISPATCH | REGISTER_MPS_UNARY_STUB
    ampersand: bool = False
    semicolon: bool = False


_REG = re.compile(r"\b(REGISTER_DISPATCH|REGISTER_MPS_DISPATCH|REGISTER_UNARY_TI_DISPATCH|REGISTER_MPS_UNARY_STUB)\s*\(")


def registrations(text: str, path: str = "<text>") -> list[Registration]:
    """Every stub registration in one .mm text (macro definitions excluded), in file order."""
    masked = mask_code(text)
    result: list[Registration] = []
    for m, line, close in calls_outside_directives(text, masked, _REG):
        args = split_top_level(masked[m.end() : close])
        semicolon = masked[close + 1 :].lstrip(" \t").startswith(";")
        macro = m.group(1)
        if macro in ("REGISTER_DISPATCH", "REGISTER_MPS_DISPATCH"):
            if len(args) != 2:
                continue
            fn = args[1].strip()
            amp = fn.startswith("&")
            fn = fn.lstrip("&").strip()
            result.append(Registration(args[0], path, line, line_at(text, close), fn, macro, amp, semicolon))
        elif macro == "REGISTER_UNARY_TI_DISPATCH" and args and args[0]:
            x = args[0]
            result.append(Registration(f"{x}_stub", path, line, line_at(text, close), f"{x}_kernel_mps", macro, False, semicolon))
        elif macro == "REGISTER_MPS_UNARY_STUB" and args and args[0]:
            x = args[0]
            result.append(Registration(f"{x}_stub", path, line, line_at(text, close), f"mps_{x}_kernel", macro, False, semicolon))
    return result


def registered_stubs(mm_texts: dict[str, str]) -> dict[str, list[Registration]]:
    """{stub: registrations} across all *mm_texts*; more than one entry means a double registration."""
    result: dict[str, list[Registration]] = {}
    for path, text in mm_texts.items():
        for reg in registrations(text, path):
            result.setdefault(reg.stub, []).append(reg)
    return result


@dataclass(frozen=True)
class KernelCall:
    kernel: str  # the Metal kernel name string ("atan2", "lerp_alpha")
    line: int
    col: int  # 1-based column of the opening quote (or of the macro argument)
    function: str | None  # enclosing host function


_EXEC = re.compile(r"\bexec_(?:unary|binary|ternary)_kernel(?:_with_params|_raw)?\s*\(")


def host_kernel_calls(text: str) -> list[KernelCall]:
    """Kernel names passed as string literals to `lib.exec_*_kernel*` and REGISTER_UNARY_TI_DISPATCH(name)."""
    masked = mask_code(text)
    spans = function_spans(masked)

    def enclosing(pos: int) -> str | None:
        outer = [s for s in spans if s.body_open < pos < s.body_close]
        return min(outer, key=lambda s: s.body_open).name if outer else None

    def col_of(pos: int) -> int:
        return pos - _line_start(text, pos) + 1

    calls: list[KernelCall] = []
    for m, _line, close in calls_outside_directives(text, masked, _EXEC):
        # The name is the second argument; take the literals inside it (a ternary may hold two).
        args_masked = masked[m.end() : close]
        bounds = _arg_bounds(args_masked)
        if len(bounds) < 2:
            continue
        a, b = bounds[1]
        for lit in re.finditer(r'"((?:[^"\\\n]|\\.)*)"', text[m.end() + a : m.end() + b]):
            pos = m.end() + a + lit.start()
            if masked[pos] == " ":  # literal in the text is blank in the mask: it is a real literal
                calls.append(KernelCall(lit.group(1), line_at(text, pos), col_of(pos), enclosing(pos)))
    for reg in registrations(text):
        if reg.macro == "REGISTER_UNARY_TI_DISPATCH":
            ln = _lines(text)[reg.line - 1]
            col = ln.find("(") + 2
            calls.append(KernelCall(reg.stub.removesuffix("_stub"), reg.line, col, reg.fn))
    calls.sort(key=lambda c: (c.line, c.col))
    return calls


def _arg_bounds(args: str) -> list[tuple[int, int]]:
    bounds: list[tuple[int, int]] = []
    depth = 0
    start = 0
    for k, ch in enumerate(args):
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == "," and depth == 0:
            bounds.append((start, k))
            start = k + 1
    bounds.append((start, len(args)))
    return bounds


# --------------------------------------------------------------------------------------------
# Adding host kernels and registrations
# --------------------------------------------------------------------------------------------


def uses_unary_ti_macro(text: str) -> bool:
    """True when the file defines or invokes REGISTER_UNARY_TI_DISPATCH (outside comments)."""
    return "REGISTER_UNARY_TI_DISPATCH" in mask_code(text)


def _namespace_close(text: str, path: str) -> int:
    """0-based index of the `} // namespace at::native` line (the last one)."""
    lines = _lines(text)
    for k in range(len(lines) - 1, -1, -1):
        if re.match(r"^\}\s*//\s*namespace\s+(?:at::)?native\b", lines[k]):
            return k
    raise MpsgenError(
        "no `} // namespace at::native` line found",
        path=path,
        hint="the file's layout is not recognised; add the host kernel by hand",
    )


def _depths(masked: str) -> list[int]:
    """Brace depth at the start of each line of a masked text."""
    depths: list[int] = []
    depth = 0
    for ln in _lines(masked) or [""]:
        depths.append(depth)
        depth += ln.count("{") - ln.count("}")
    return depths


def add_unary_ti_dispatch(text: str, op: str, *, after: str | None = None, path: str = "<text>") -> str:
    """Add `REGISTER_UNARY_TI_DISPATCH(op);` after the last such line (or after *after*'s line), in the file's `;` style."""
    regs = registrations(text, path)
    stub = f"{op}_stub"
    for reg in regs:
        if reg.stub == stub:
            if reg.macro == "REGISTER_UNARY_TI_DISPATCH":
                return text
            raise MpsgenError(
                f"{stub} is already registered here by {reg.macro}",
                path=path,
                line=reg.line,
                hint="remove the old registration first (registering a stub twice does not compile)",
            )
    ti = [r for r in regs if r.macro == "REGISTER_UNARY_TI_DISPATCH"]
    if not ti:
        raise MpsgenError(
            "no REGISTER_UNARY_TI_DISPATCH(...) line to follow",
            path=path,
            hint="use a host kernel function and REGISTER_DISPATCH instead",
        )
    anchor = next((r for r in ti if r.stub == f"{after}_stub"), None) if after else None
    anchor = anchor or ti[-1]
    semicolon = sum(r.semicolon for r in ti) * 2 >= len(ti)
    lines = _lines(text)
    ref = lines[anchor.line - 1]
    indent = ref[: len(ref) - len(ref.lstrip())]
    new = f"{indent}REGISTER_UNARY_TI_DISPATCH({op}){';' if semicolon else ''}{newline_of(text)}"
    return "".join(_join_after(lines, anchor.end_line, [new]))


def register_dispatch_style(text: str) -> tuple[bool, bool]:
    """(semicolon, ampersand) used by most REGISTER_DISPATCH / REGISTER_MPS_DISPATCH lines; ties follow the last one."""
    regs = [r for r in registrations(text) if r.macro in ("REGISTER_DISPATCH", "REGISTER_MPS_DISPATCH")]
    if not regs:
        return True, True
    last = regs[-1]

    def vote(values: list[bool], tie: bool) -> bool:
        yes = sum(values)
        return tie if yes * 2 == len(values) else yes * 2 > len(values)

    return vote([r.semicolon for r in regs], last.semicolon), vote([r.ampersand for r in regs], last.ampersand)


def format_register_line(register_line: str, semicolon: bool, ampersand: bool) -> str:
    """`REGISTER_DISPATCH(stub, fn)` re-punctuated: `&fn` or `fn`, with or without the trailing `;`."""
    m = re.fullmatch(r"\s*(REGISTER_(?:MPS_)?DISPATCH)\s*\(\s*(\w+)\s*,\s*&?\s*([\w:]+)\s*\)\s*;?\s*", register_line)
    if not m:
        raise MpsgenError(
            f"not a REGISTER_DISPATCH(stub, fn) line: {register_line.strip()}",
            hint="this is a bug in the rendered snippet",
        )
    return f"{m.group(1)}({m.group(2)}, {'&' if ampersand else ''}{m.group(3)}){';' if semicolon else ''}"


def _register_block(text: str, close_idx: int) -> tuple[int, int] | None:
    """0-based (first, last) lines of the registration run that ends right before *close_idx*."""
    regs = [r for r in registrations(text) if r.line - 1 < close_idx]
    if not regs:
        return None
    lines = _lines(text)
    masked_lines = _lines(mask_code(text))
    by_end = {r.end_line - 1: r for r in regs}
    k = close_idx - 1
    last: int | None = None
    first: int | None = None
    while k >= 0:
        if k in by_end:
            reg = by_end[k]
            last = k if last is None else last
            first = reg.line - 1
            k = reg.line - 2
        elif not masked_lines[k].strip():  # blank or comment-only
            k -= 1
        else:
            break
    if last is None or first is None:
        return None
    del lines
    return first, last


def add_host_kernel(text: str, function_code: str, register_line: str, *, path: str = "<text>") -> str:
    """Add a rendered host kernel function and its REGISTER_DISPATCH line.

    The function goes after the last `static void` function that precedes the registration block
    (at at::native scope); the registration goes at the end of that block, before
    `} // namespace at::native`, punctuated like the file's existing lines.  Parts already present
    are left alone; a stub already registered to another function is refused.
    """
    nl = newline_of(text)
    m = re.search(r"\bstatic\s+(?:inline\s+)?void\s+(\w+)\s*\(", function_code)
    if not m:
        raise MpsgenError(
            "the host kernel snippet is not a `static void name(...)` function",
            hint="this is a bug in the rendered snippet",
        )
    fn_name = m.group(1)
    semicolon, ampersand = register_dispatch_style(text)
    reg_text = format_register_line(register_line, semicolon, ampersand)
    rm = re.match(r"\w+\((\w+), &?([\w:]+)\)", reg_text)
    assert rm is not None
    stub, reg_fn = rm.group(1), rm.group(2)

    masked = mask_code(text)
    existing_fn = any(s.name == fn_name for s in function_spans(masked) if masked[: s.start].rstrip().endswith("void"))
    existing_reg = [r for r in registrations(text, path) if r.stub == stub]
    if existing_reg and existing_reg[0].fn != reg_fn:
        raise MpsgenError(
            f"{stub} is already registered to {existing_reg[0].fn or '?'} by {existing_reg[0].macro}",
            path=path,
            line=existing_reg[0].line,
            hint="remove that registration first, or keep it and skip this op",
        )
    if existing_fn and existing_reg:
        return text

    close_idx = _namespace_close(text, path)
    lines = _lines(text)
    block = _register_block(text, close_idx)

    if not existing_reg:
        if block is not None:
            ref = lines[block[1]]
            indent = ref[: len(ref) - len(ref.lstrip())]
            lines = _join_after(lines, block[1] + 1, [indent + reg_text + nl])
        else:
            prefix = [] if close_idx == 0 or _blank(lines[close_idx - 1]) else [nl]
            lines = _join_after(lines, close_idx, prefix + [reg_text + nl])
            block = (close_idx + len(prefix), close_idx + len(prefix))
        text = "".join(lines)

    if not existing_fn:
        masked = mask_code(text)
        lines = _lines(text)
        close_idx = _namespace_close(text, path)
        block = _register_block(text, close_idx)
        assert block is not None
        depths = _depths(masked)
        scope = depths[close_idx] - 0  # depth inside at::native equals the depth at its closing line start
        candidates = [
            s
            for s in function_spans(masked)
            if re.search(r"\bstatic\s+(?:inline\s+)?void\s*$", masked[_line_start(masked, s.start) : s.start])
            and line_at(text, s.body_close) - 1 < block[0]
            and depths[line_at(text, s.start) - 1] == scope
        ]
        new_fn = _as_lines(function_code, nl)
        if candidates:
            last = candidates[-1]
            end_idx = line_at(text, last.body_close)  # insert after this (1-based end == 0-based next index)
            start_idx = line_at(text, last.start) - 1
            spaced = start_idx > 0 and _blank(lines[start_idx - 1])
            lines = _join_after(lines, end_idx, ([nl] if spaced else []) + new_fn)
        else:
            lines = _join_after(lines, block[0], new_fn + [nl])
        text = "".join(lines)
    return text


def ensure_include(text: str, header: str, *, path: str = "<text>") -> str:
    """Add `#include <header>` in sorted position in the plain include run that holds the most ATen/native headers."""
    lines = _lines(text)
    for ln in lines:
        m = _INCLUDE.match(ln)
        if m and m.group(1) == header:
            return text
    cond_depth = 0
    runs: list[list[int]] = []
    current: list[int] = []
    for k, ln in enumerate(lines):
        s = ln.strip()
        if re.match(r"#\s*if", s):
            cond_depth += 1
        elif re.match(r"#\s*endif", s):
            cond_depth -= 1
        if cond_depth == 0 and _INCLUDE.match(ln) and "<" in ln:
            current.append(k)
            continue
        if current:
            runs.append(current)
            current = []
    if current:
        runs.append(current)
    prefix = header.rsplit("/", 1)[0] + "/"

    def score(run: list[int]) -> tuple[int, int]:
        heads = [_INCLUDE.match(lines[k]).group(1) for k in run]  # type: ignore[union-attr]
        return sum(h.startswith(prefix) for h in heads), sum(h.startswith("ATen/") for h in heads)

    best = max(runs, key=score, default=None)
    if best is None or score(best) == (0, 0):
        raise MpsgenError(
            f"no run of #include <ATen/...> lines to add <{header}> to",
            path=path,
            hint=f"add #include <{header}> by hand",
        )
    nl = newline_of(text)
    position = best[-1] + 1
    for k in best:
        if _INCLUDE.match(lines[k]).group(1) > header:  # type: ignore[union-attr]
            position = k
            break
    return "".join(_join_after(lines, position, [f"#include <{header}>{nl}"]))


def brace_balance(text: str) -> int:
    """{ minus } outside comments and literals: 0 for a well-formed file."""
    masked = mask_code(text)
    return masked.count("{") - masked.count("}")
