"""kernels/*.metal, read: functors, REGISTER_*/INSTANTIATE_* calls (top level and inside #defines),
local #defines, includes, the registration style, and the kernel names registered across files.

Readers take a text and a display path and return located facts (1-based, inclusive spans).
"""

from __future__ import annotations

import functools
import re
from pathlib import Path
from typing import TYPE_CHECKING, Iterable

from mpsgen.errors import MpsgenError
from mpsgen.records import NamedTuple
from mpsgen.scan.brackets import split_top_level
from mpsgen.scan.masked_lines import MaskedLines

if TYPE_CHECKING:  # check/status read MetalIndex facts without the kernel model
    from mpsgen.model import MetalStyle

# Registration macros from c10/metal/indexing.h; their first argument is the kernel name.
BUILTIN_REGISTER_MACROS = frozenset(
    {
        "REGISTER_UNARY_OP",
        "REGISTER_UNARY_ALPHA_OP",
        "REGISTER_BINARY_OP",
        "REGISTER_BINARY_OP_",
        "REGISTER_OPMATH_BINARY_OP",
        "REGISTER_BINARY_ALPHA_OP",
        "REGISTER_BINARY_CASTOUT_OP",
        "REGISTER_TERNARY_OP",
        "REGISTER_TERNARY_OP_",
        "REGISTER_OPMATH_TERNARY_OP",
        "REGISTER_TERNARY_ALPHA_OP",  # a 2026 fork's (addcmul, addcdiv)
        "REGISTER_OPMATH_TERNARY_ALPHA_OP",
    }
)
FUNCTOR_DEFINING_MACROS = frozenset({"DEFINE_UNARY_FLOATING_FUNCTOR", "DEFINE_BINARY_COMPARISON_FUNCTOR"})
KERNELS2 = "INSTANTIATE_UNARY_KERNELS2"
VEC2 = "INSTANTIATE_UNARY_KERNELS_VEC2"
COMPLEX_BLOCK_COMMENT = "// Complex binary functions"

_CALL_RE = re.compile(r"^\s*([A-Z_][A-Z0-9_]*)\s*\(")
_DEFINE_RE = re.compile(r"^\s*#\s*define\s+([A-Za-z_]\w*)(\(([^)]*)\))?")
_STRUCT_RE = re.compile(r"^\s*struct\s+([A-Za-z_]\w*)_functor\b")
_INCLUDE_RE = re.compile(r"^\s*#\s*include\s*[<\"]([^>\"]+)[>\"]")
_HOST_NAME = re.compile(r"\[\[\s*host_name\s*\(")


class Functor(NamedTuple):
    name: str  # the prefix: "atan2" for atan2_functor
    line: int
    end_line: int
    text: str  # source of the span (comments kept), or the defining macro call
    macro: str | None = None  # DEFINE_UNARY_FLOATING_FUNCTOR etc., None for a struct


class MacroCall(NamedTuple):
    macro: str
    args: tuple[str, ...]
    line: int
    end_line: int
    in_define: str | None  # name of the enclosing #define, None at top level
    semicolon: bool = False  # the call is followed by ';'

    @property
    def text(self) -> str:
        return f"{self.macro}({', '.join(self.args)})"


class MacroDef(NamedTuple):
    name: str
    params: tuple[str, ...] | None  # None for an object-like macro
    line: int
    end_line: int


class MetalIndex(NamedTuple):
    path: str
    functors: tuple[Functor, ...]
    calls: tuple[MacroCall, ...]
    defines: tuple[MacroDef, ...]
    includes: tuple[tuple[str, int], ...]  # (header, line)
    binary_op_args: int | None  # 2 in early-2025 files, 3 with c10/metal's macro, None if unused
    binary_op_args_line: int | None
    complex_comment_line: int | None
    uses_c10_namespace: bool
    host_name_lines: tuple[int, ...] = ()  # lines holding a `[[host_name(...)]]` instantiation
    # (kernel name, line) of each `host_name("name_" #DTYPE...)`: the name the host passes
    # (exp_complex_ -> exp, as exec_unary_kernel adds "_complex_" itself)
    host_name_kernels: tuple[tuple[str, int], ...] = ()

    def functor(self, name: str) -> Functor | None:
        return next((f for f in self.functors if f.name == name), None)

    def define(self, name: str) -> MacroDef | None:
        return next((d for d in self.defines if d.name == name), None)

    def top_level_calls(self) -> list[MacroCall]:
        return [c for c in self.calls if c.in_define is None]

    def calls_in(self, define: str) -> list[MacroCall]:
        return [c for c in self.calls if c.in_define == define]

    @property
    def local_register_macros(self) -> frozenset[str]:
        return frozenset(d.name for d in self.defines if d.name.startswith("REGISTER_"))

    @property
    def plain_block(self) -> tuple[int, int] | None:
        """Span of the plain binary registration run (REGISTER_*BINARY* lines, no alpha, no complex)."""
        limit = min(
            [c.line for c in self.top_level_calls() if c.macro == "REGISTER_BINARY_ALPHA_OP"]
            + ([self.complex_comment_line] if self.complex_comment_line else [])
            + [10**9]
        )
        local = self.local_register_macros  # the file's shorthands (REGISTER_COMPARISON_OP(eq)) belong to the run
        runs = [
            c
            for c in self.top_level_calls()
            if ("BINARY" in c.macro or c.macro in local)
            and "ALPHA" not in c.macro
            and c.line < limit
            and not is_complex_args(c.args)
        ]
        return (runs[0].line, runs[-1].end_line) if runs else None

    @property
    def complex_block(self) -> tuple[int, int] | None:
        """``// Complex binary functions`` and the registration run right after it."""
        if self.complex_comment_line is None:
            return None
        end = self.complex_comment_line
        for c in self.top_level_calls():
            if c.line == end + 1 and c.macro.startswith("REGISTER_"):
                end = c.end_line
        return (self.complex_comment_line, end)

    def block_span(self, define: str) -> tuple[int, int] | None:
        d = self.define(define)
        return (d.line, d.end_line) if d else None


# -- reading -----------------------------------------------------------------------------


def split_args(text: str) -> tuple[str, ...]:
    """The top-level arguments, each with its blanks collapsed to one space: the text's blanks collapsed
    first (commas and brackets stay where they were; each part's ends are stripped), split once."""
    if not text.strip():
        return ()
    return tuple(split_top_level(" ".join(text.split())))


def is_complex_args(args: Iterable[str]) -> bool:
    return any(re.search(r"\b(float2|half2)\b|##\s*2\b", a) for a in args)


def index_metal(text: str, path: str | Path) -> MetalIndex:
    """Functors, macro calls (top level and inside #defines), local #defines and includes
    (cached: a plan asks about the same texts several times)."""
    return _index_metal(text, str(path))


# Lines the reading acts on open (after whitespace) with '#' (#define, #include), `struct` or a
# macro name's first character, or hold the complex block's comment; the other lines are stepped
# over.  (The indentation is taken whole, `*+`: what follows it is no whitespace, so giving some
# back could not match, and trying cost a step per space.)
_CODE_OPENING = re.compile(r"\n[^\S\n]*+(?:[#A-Z_]|struct)")
# A line whose lowered text starts with the comment holds a case-insensitive match of it (each
# character lowered to one of the comment's is the ASCII letter or matches it ignoring case).
_COMPLEX_COMMENT = re.compile(re.escape(COMPLEX_BLOCK_COMMENT), re.IGNORECASE)


@functools.lru_cache(maxsize=256)
def _index_metal(text: str, path: str) -> MetalIndex:
    lines = MaskedLines(text)
    code = lines.code
    functors: list[Functor] = []
    calls: list[MacroCall] = []
    defines: list[MacroDef] = []
    includes: list[tuple[str, int]] = []
    complex_comment = None
    define_of_line: dict[int, str] = {}
    head_line: dict[str, int] = {}  # the line index of each name's first #define

    # #define spans first: their bodies are scanned as calls "in_define".  Only the lines holding
    # `define` can start one; the reading steps from one to the next.
    i = 0  # the next line to read (a #define's continuation lines are read with it)
    for candidate in lines.holding("define"):
        if candidate < i:
            continue
        i = candidate
        m = _DEFINE_RE.match(code[i])
        if m:
            start = i
            while code[i].rstrip().endswith("\\") and i + 1 < len(code):
                i += 1
            params = tuple(p.strip() for p in m.group(3).split(",")) if m.group(2) else None
            defines.append(MacroDef(m.group(1), params, start + 1, i + 1))
            head_line.setdefault(m.group(1), start)
            for k in range(start, i + 1):
                define_of_line[k] = m.group(1)
        i += 1

    complex_comments = _complex_comment_lines(lines)
    i = 0  # the next line to read (a struct's or a call's lines are read with its first)
    for candidate in sorted({*lines.opening(_CODE_OPENING), *complex_comments}):
        if candidate < i:
            continue
        i = candidate
        line = code[i]
        inc = _INCLUDE_RE.match(line)
        if inc:
            includes.append((inc.group(1), i + 1))
        if complex_comment is None and i in complex_comments:
            complex_comment = i + 1
        in_define = define_of_line.get(i)
        st = _STRUCT_RE.match(line)
        if st and in_define is None:
            end = _struct_end(code, i, path)
            functors.append(Functor(st.group(1), i + 1, end + 1, lines.raw(i, end)))
            i = end + 1
            continue
        body = line
        if in_define is not None and i == head_line[in_define]:
            body = _DEFINE_RE.sub("", line, count=1)  # the call may follow the #define head
        cm = _CALL_RE.match(body)
        if cm and not body.lstrip().startswith("#"):
            joined, end, semi = _balanced(code, i, body, define_of_line)
            if joined is not None:
                inner = joined[joined.index("(") + 1 : -1]
                args = split_args(inner)
                call = MacroCall(cm.group(1), args, i + 1, end + 1, in_define, semi)
                calls.append(call)
                if call.macro in FUNCTOR_DEFINING_MACROS and args and in_define is None:
                    functors.append(Functor(args[0], i + 1, end + 1, lines.raw(i, end), call.macro))
                i = end + 1
                continue
        i += 1

    bin_args, bin_line = _binary_op_arity(defines, calls)
    uses_c10 = _USES_C10.search(text) is not None
    host_names = tuple(k + 1 for k in lines.holding("host_name") if _HOST_NAME.search(code[k]))
    kernels = tuple((m.group(1), ln) for ln in host_names if (m := _HOST_NAME_PREFIX.search(lines.raw(ln - 1))))
    return MetalIndex(path, tuple(functors), tuple(calls), tuple(defines), tuple(includes), bin_args, bin_line,
                      complex_comment, uses_c10, host_names, kernels)


def _complex_comment_lines(lines: MaskedLines) -> set[int]:
    """The lines that, as written and lowered, start with the complex block's comment."""
    found = set()
    for m in _COMPLEX_COMMENT.finditer(lines.text):
        k = lines.line_of(m.start())
        if lines.raw(k).strip().lower().startswith(COMPLEX_BLOCK_COMMENT.lower()):
            found.add(k)
    return found


_HOST_NAME_PREFIX = re.compile(r'\bhost_name\s*\(\s*"([A-Za-z_]\w*?)(?:_complex)?_"\s*#')
_USES_C10 = re.compile(r"using\s+namespace\s+c10::metal\s*;")
_PAREN = re.compile(r"[()]")


def _struct_end(code: list[str], start: int, path: str) -> int:
    """The line closing the struct that opens on line *start* (the braces are weighed at each line's end)."""
    depth, seen = 0, False
    for k in range(start, len(code)):
        opened = code[k].count("{")
        depth += opened - code[k].count("}")
        seen = seen or opened > 0
        if seen and depth == 0:
            return k
    raise MpsgenError("unterminated struct (no closing '};')", path=path, line=start + 1,
                      hint="fix the .metal file so it compiles, then re-run")


def _balanced(code: list[str], i: int, first: str, define_of_line: dict[int, str]) -> tuple[str | None, int, bool]:
    """The call starting on line *i* up to its closing parenthesis (may span lines inside one #define).

    Returns (call text, last line index, followed by ';').  The call text is the lines (each without
    a trailing backslash) joined by a space.
    """
    # The first line closing the call (most calls: one '(' and the ')' after it), found with str.find.
    seg = first.rstrip()
    if seg.endswith("\\"):
        seg = seg[:-1]
    opened = seg.find("(")
    close = seg.find(")", opened)
    if opened >= 0 and close >= 0 and seg.find("(", opened + 1, close) < 0 and seg.find(")", 0, opened) < 0:
        return seg[: close + 1], i, seg[close + 1 :].lstrip().startswith(";")
    read: list[str] = []
    depth, k, segment = 0, i, first
    while True:
        seg = segment.rstrip()
        if seg.endswith("\\"):
            seg = seg[:-1]
        for m in _PAREN.finditer(seg):
            if m.group() == "(":
                depth += 1
            else:
                depth -= 1
                if depth == 0:
                    read.append(seg[: m.end()])
                    return " ".join(read), k, seg[m.end() :].lstrip().startswith(";")
        read.append(seg)
        k += 1
        if k >= len(code) or define_of_line.get(k) != define_of_line.get(i):
            return None, i, False
        segment = code[k]


def _binary_op_arity(defines: list[MacroDef], calls: list[MacroCall]) -> tuple[int | None, int | None]:
    for d in defines:
        if d.name == "REGISTER_BINARY_OP" and d.params is not None:
            return len(d.params), d.line
    for c in calls:
        if c.macro == "REGISTER_BINARY_OP" and "##" not in " ".join(c.args):
            return len(c.args), c.line
    return None, None


CASTOUT = "REGISTER_BINARY_CASTOUT_OP"


def style_of(index: MetalIndex) -> "MetalStyle":
    from mpsgen.model import MetalStyle

    top = [c for c in index.top_level_calls() if c.macro.startswith("REGISTER_")]
    # Follow the majority habit for a trailing ';' (default: write it).
    semicolon = not top or sum(c.semicolon for c in top) * 2 >= len(top)
    return MetalStyle(
        path=index.path,
        local_macros=index.local_register_macros,
        binary_op_args=index.binary_op_args or 3,
        binary_op_args_line=index.binary_op_args_line,
        has_unary_kernels2=index.define(KERNELS2) is not None,
        has_unary_vec2=index.define(VEC2) is not None,
        semicolon=semicolon,
        castout=any(c.macro == CASTOUT for c in index.calls),
    )


def metal_style(text: str, path: str | Path) -> MetalStyle:
    """The registration style of a .metal text."""
    return style_of(index_metal(text, path))



# -- names across files --------------------------------------------------------------------


def _name_params(index: MetalIndex) -> dict[str, int]:
    """Local macros that pass one of their parameters on as a kernel name: macro -> param position."""
    passing: dict[str, int] = {}
    changed = True
    while changed:
        changed = False
        for d in index.defines:
            if d.params is None or d.name in passing:
                continue
            for c in index.calls_in(d.name):
                pos = 0 if c.macro in BUILTIN_REGISTER_MACROS else passing.get(c.macro)
                if pos is not None and pos < len(c.args) and c.args[pos] in d.params:
                    passing[d.name] = d.params.index(c.args[pos])
                    changed = True
                    break
            else:
                if d.name.startswith("REGISTER_") and d.params and d.params[0] == "NAME":
                    passing[d.name] = 0  # e.g. early-2025 local REGISTER_BINARY_OP(NAME, DTYPE)
                    changed = True
    return passing


def registered_kernel_names(indexes: Iterable[MetalIndex]) -> dict[str, list[tuple[str, int, str]]]:
    """Kernel name -> [(path, line, macro)] over all files (kernel names are global in the metallib)."""
    names: dict[str, list[tuple[str, int, str]]] = {}
    for index in indexes:
        passing = _name_params(index)
        for c in index.calls:
            pos = 0 if c.macro in BUILTIN_REGISTER_MACROS else passing.get(c.macro)
            if pos is None or pos >= len(c.args):
                continue
            name = c.args[pos]
            if c.in_define is not None:
                d = index.define(c.in_define)
                if d is not None and d.params and name in d.params:
                    continue  # a parameter, resolved at the macro's call sites
            if not re.fullmatch(r"[A-Za-z_]\w*", name):
                continue
            macro = c.in_define or c.macro
            names.setdefault(name, []).append((index.path, c.line, macro))
        for name, line in index.host_name_kernels:
            names.setdefault(name, []).append((index.path, line, "host_name"))
    return names
