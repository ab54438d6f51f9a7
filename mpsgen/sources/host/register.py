"""REGISTER_DISPATCH lines, exec_*_kernel calls and the editors that add host kernels, registrations
and includes to an operations/*.mm (split from host.py; host re-exports these names)."""

from __future__ import annotations

import re

from mpsgen.errors import MpsgenError
from mpsgen.tree.checkout import newline_of
from mpsgen.scan.brackets import calls_outside_directives, split_bounds
from mpsgen.scan.lines import line_start as _line_start
from mpsgen.scan.lines import LineTable
from mpsgen.scan.mask import mask_code
from mpsgen.sources.index import index_of, require_scannable
from mpsgen.sources.host.text import INCLUDE as _INCLUDE
from mpsgen.sources.host.text import as_lines as _as_lines
from mpsgen.sources.host.text import is_blank as _blank
from mpsgen.sources.host.text import join_after as _join_after
from mpsgen.sources.host.text import lines_of as _lines
from mpsgen.model import Location
from mpsgen.records import NamedTuple


# --------------------------------------------------------------------------------------------
# Registrations and kernel calls
# --------------------------------------------------------------------------------------------


class Registration(NamedTuple):
    stub: str
    path: str
    line: int
    end_line: int
    fn: str  # registered host function ("" when not named, e.g. nullptr)
    macro: str  # REGISTER_DISPATCH | REGISTER_MPS_DISPATCH | REGISTER_UNARY_TI_DISPATCH | REGISTER_MPS_UNARY_STUB
    ampersand: bool = False
    semicolon: bool = False

    @property
    def location(self) -> Location:
        """Where it was found (model.Location renders `path:line`)."""
        return Location(self.path, self.line)


_REG_MACROS = ("REGISTER_DISPATCH", "REGISTER_MPS_DISPATCH", "REGISTER_UNARY_TI_DISPATCH", "REGISTER_MPS_UNARY_STUB")
_SEMICOLON = re.compile(r"[ \t]*;")


def registrations(text: str, path: str = "<text>") -> list[Registration]:
    """Every stub registration in one .mm text (macro definitions excluded), in file order."""
    ix = index_of(path, text)
    result: list[Registration] = []
    for call in ix.calls_of(*_REG_MACROS):
        args, macro, line, end = call.args, call.name, call.line, call.end_line
        semicolon = _SEMICOLON.match(ix.masked, call.close + 1) is not None
        if macro in ("REGISTER_DISPATCH", "REGISTER_MPS_DISPATCH"):
            if len(args) != 2:
                continue
            fn = args[1].strip()
            amp = fn.startswith("&")
            fn = fn.lstrip("&").strip()
            result.append(Registration(args[0], path, line, end, fn, macro, amp, semicolon))
        elif macro == "REGISTER_UNARY_TI_DISPATCH" and args and args[0]:
            x = args[0]
            result.append(Registration(f"{x}_stub", path, line, end, f"{x}_kernel_mps", macro, False, semicolon))
        elif macro == "REGISTER_MPS_UNARY_STUB" and args and args[0]:
            x = args[0]
            result.append(Registration(f"{x}_stub", path, line, end, f"mps_{x}_kernel", macro, False, semicolon))
    return result


def registers_for_mps(reg: Registration) -> bool:
    """In a .mm every REGISTER_*DISPATCH registers the MPS kernel; in a .cpp only REGISTER_MPS_DISPATCH does."""
    return reg.path.endswith(".mm") or reg.macro == "REGISTER_MPS_DISPATCH"


def registered_stubs(mm_texts: dict[str, str]) -> dict[str, list[Registration]]:
    """{stub: registrations} across all *mm_texts*; more than one entry means a double registration."""
    result: dict[str, list[Registration]] = {}
    for path, text in mm_texts.items():
        for reg in registrations(text, path):
            result.setdefault(reg.stub, []).append(reg)
    return result


class KernelCall(NamedTuple):
    kernel: str  # the Metal kernel name string ("atan2", "lerp_alpha")
    line: int
    col: int  # 1-based column of the opening quote (or of the macro argument)
    function: str | None  # enclosing host function


# Literal first, its word boundary tested behind it: the engine skips to "exec_" in C.
_EXEC = re.compile(r"exec_(?<!\wexec_)(?:unary|binary|ternary)_kernel(?:_with_params|_raw)?\s*\(")


def host_kernel_calls(text: str, path: str = "<text>") -> list[KernelCall]:
    """Kernel names passed as string literals to `lib.exec_*_kernel*` and REGISTER_UNARY_TI_DISPATCH(name)."""
    ix = index_of(path, text)
    masked = ix.masked
    calls: list[KernelCall] = []
    if "exec_" in masked:
        for m, _line, close in calls_outside_directives(text, masked, _EXEC, ix.lines):
            # The name is the second argument; take the literals inside it (a ternary may hold two).
            bounds = split_bounds(masked[m.end() : close], angles=False)
            if len(bounds) < 2:
                continue
            a, b = bounds[1]
            for lit in re.finditer(r'"((?:[^"\\\n]|\\.)*)"', text[m.end() + a : m.end() + b]):
                pos = m.end() + a + lit.start()
                if masked[pos] == " ":  # literal in the text is blank in the mask: it is a real literal
                    calls.append(KernelCall(lit.group(1), ix.line(pos), ix.col(pos), ix.enclosing_function(pos)))
    for call in ix.calls_of("REGISTER_UNARY_TI_DISPATCH"):
        if call.args and call.args[0]:
            first = masked.index("(", call.start) + 1
            calls.append(KernelCall(call.args[0], call.line, ix.col(first), f"{call.args[0]}_kernel_mps"))
    calls.sort(key=lambda c: (c.line, c.col))
    return calls


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
    require_scannable(path, text)
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
    """0-based (first, last) lines of the registration run that ends right before *close_idx*, else of
    the last run before it (2.7's BinaryKernel.mm has functions after its REGISTER_DISPATCH lines)."""
    regs = [r for r in registrations(text) if r.line - 1 < close_idx]
    if not regs:
        return None
    return _run_ending_at(text, regs, close_idx - 1) or _run_ending_at(text, regs, regs[-1].end_line - 1)


def _run_ending_at(text: str, regs: list[Registration], k: int) -> tuple[int, int] | None:
    """The registrations in a row (blank and comment lines between them) that end at or above line *k*."""
    lines = _lines(text)
    masked_lines = _lines(mask_code(text))
    by_end = {r.end_line - 1: r for r in regs}
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
    require_scannable(path, text)
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
    existing_fn = any(
        s.name == fn_name and masked[max(0, s.start - 64) : s.start].rstrip().endswith("void")
        for s in index_of(path, text).functions
    )
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
        lines_of = LineTable(text)
        scope = depths[close_idx] - 0  # depth inside at::native equals the depth at its closing line start
        candidates = [
            s
            for s in index_of(path, text).functions
            if re.search(r"\bstatic\s+(?:inline\s+)?void\s*$", masked[_line_start(masked, s.start) : s.start])
            and lines_of.line(s.body_close) - 1 < block[0]
            and depths[lines_of.line(s.start) - 1] == scope
        ]
        new_fn = _as_lines(function_code, nl)
        if candidates:
            last = candidates[-1]
            end_idx = lines_of.line(last.body_close)  # insert after this (1-based end == 0-based next index)
            start_idx = lines_of.line(last.start) - 1
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


def defines_static_void(text: str, name: str) -> bool:
    """Whether *text*'s code has `static void name(` (a file-local helper a host kernel calls, written once)."""
    return re.search(rf"\bstatic\s+void\s+{re.escape(name)}\s*\(", mask_code(text)) is not None
