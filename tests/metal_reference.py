"""A frozen copy of the .metal readers as they were before their str.find fast paths (commit 78a3775):
`names_in` of sources/metal/names.py and `index_metal` of sources/metal/index.py, the oracle the tests
compare the readers with (same results, same pickled bytes).  Not to be edited with the readers; the
comment blanker, since issue 40 scan/mask's for every reader (tests/test_scan.py checks it), is shared."""

from __future__ import annotations

import re
from typing import NamedTuple

from mpsgen.errors import MpsgenError
from mpsgen.scan.brackets import match_close, split_top_level
from mpsgen.scan.lines import split_lines
from mpsgen.scan.mask import blank_comments, mask_code
from mpsgen.sources.metal.index import (COMPLEX_BLOCK_COMMENT, FUNCTOR_DEFINING_MACROS, Functor, MacroCall, MacroDef,
                                        MetalIndex, _binary_op_arity, split_args)
from mpsgen.sources.metal.names import MetalName
# What the fast paths left as it was, shared with the readers rather than copied.
from mpsgen.sources.metal.index import _CALL_RE, _DEFINE_RE, _HOST_NAME_PREFIX, _INCLUDE_RE, _STRUCT_RE
from mpsgen.sources.metal.name_scan import (_DEFINE, _HEADER_PREFIX, _IDENT, _MACRO_CALL, _MAX_DEPTH,
                                        _PLAIN_KERNEL, _STRING, _spells)

# -- metal_names ---------------------------------------------------------------------------------

# Literal first, the word boundary tested behind it (the engine skips to the literal in C).
_HOST_NAME = re.compile(r"host_name(?<!\whost_name)\s*\(")
# A stringised parameter (#P, not ##), any identifier, or a string literal (left alone).
_SUBST = re.compile(r"\"(?:\\.|[^\"\\\n])*\"|((?<!#)#(?!#)[ \t]*)?\b([A-Za-z_]\w*)\b")
_PASTE = re.compile(r"[ \t]*##[ \t]*")


class _Define(NamedTuple):
    name: str
    params: tuple[str, ...] | None
    body: tuple[tuple[int, str], ...]  # (line, text) of each physical line after the parameter list


class _Frame(NamedTuple):
    line: int
    raw: str  # the line as written (before substitution)
    macro: str  # the macro whose body holds this line, or the macro invoked on it


def names_in(text: str, path: str) -> list[MetalName]:
    """The names one .metal text registers, in order, one per (name, line)."""
    code = blank_comments(text)
    lines = code.split("\n")
    defines, directive = _defines(lines)
    top = [_Line(k + 1, "" if k + 1 in directive else ln, ()) for k, ln in enumerate(lines)]
    found: dict[tuple[str, int], MetalName] = {}
    _scan(top, defines, path, found, depth=0)
    return sorted(found.values(), key=lambda n: (n.line, n.name))


# -- scanning --------------------------------------------------------------------------------


class _Line(NamedTuple):
    line: int
    text: str  # after substitution
    frames: tuple[_Frame, ...]  # innermost first: the body line itself, then each call site outwards


def _defines(lines: list[str]) -> tuple[dict[str, _Define], set[int]]:
    """Function-like and object-like #defines with continuation lines joined; the directive line numbers."""
    defines: dict[str, _Define] = {}
    directive: set[int] = set()
    k = 0
    while k < len(lines):
        if not lines[k].lstrip().startswith("#"):
            k += 1
            continue
        first = k
        while lines[k].rstrip().endswith("\\") and k + 1 < len(lines):
            k += 1
        directive.update(range(first + 1, k + 2))
        m = _DEFINE.match(lines[first])
        if m:
            params = tuple(p.strip() for p in m.group(3).split(",") if p.strip()) if m.group(2) else None
            body = [(first + 1, lines[first][m.end():])]
            body += [(j + 1, lines[j]) for j in range(first + 1, k + 1)]
            body = [(ln, t.rstrip().removesuffix("\\")) for ln, t in body]
            defines[m.group(1)] = _Define(m.group(1), params, tuple(body))
        k += 1
    return defines, directive


def _scan(lines: list[_Line], defines: dict[str, _Define], path: str,
          found: dict[tuple[str, int], MetalName], depth: int,
          registrations: list[tuple[str, ...]] | None = None) -> None:
    text = "\n".join(ln.text for ln in lines)
    starts = [0]
    for ln in lines[:-1]:
        starts.append(starts[-1] + len(ln.text) + 1)
    plain = _STRING.sub(lambda m: " " * len(m.group(0)), text)

    def line_of(pos: int) -> _Line:
        lo, hi = 0, len(starts) - 1
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if starts[mid] <= pos:
                lo = mid
            else:
                hi = mid - 1
        return lines[lo]

    def add(name: str, pos: int, macro: str, suffixed: bool, word: str, quoted: str | None = None) -> None:
        at = line_of(pos)
        frames = at.frames or (_Frame(at.line, at.text, macro),)
        # The innermost frame spelling the name (`"quoted` or the word *word*) when there is a choice.
        chosen = frames[0] if len(frames) == 1 else next(
            (f for f in frames if _spells(f.raw, word, quoted)), frames[-1])
        found.setdefault((name, chosen.line), MetalName(name, path, chosen.line, chosen.macro, suffixed))

    pos = 0
    for m in _MACRO_CALL.finditer(plain):
        if m.start() < pos:
            continue  # inside the arguments of a call already handled
        macro = m.group(1)
        d = defines.get(macro)
        expands = d is not None and d.params is not None and depth < _MAX_DEPTH
        if not expands and (d is not None or not macro.startswith(_HEADER_PREFIX)):
            continue  # neither a file-local macro to expand nor a REGISTER_* of the headers
        close = match_close(plain, m.end() - 1)
        if close is None:
            continue
        args = split_top_level(text[m.end():close])
        if expands:
            at = line_of(m.start())
            calls = at.frames or (_Frame(at.line, at.text, macro),)
            _scan(_expand(d, args, calls), defines, path, found, depth + 1, registrations)
            pos = close
        elif d is None and macro.startswith(_HEADER_PREFIX) and args and _IDENT.fullmatch(args[0]):
            add(args[0], m.start(), macro, True, args[0])
            if registrations is not None:
                registrations.append((macro, *(a.strip() for a in args)))
            pos = close
    for m in _HOST_NAME.finditer(plain):
        close = match_close(plain, m.end() - 1)
        if close is None:
            continue
        name, complete = _concatenate(text[m.end():close])
        piece = _first_piece(text[m.end():close])
        if name.rstrip("_") and piece:
            add(name if complete else name.rstrip("_"), m.start(), "host_name", not complete, piece.rstrip("_"), piece)
    if depth == 0:
        for m in _PLAIN_KERNEL.finditer(plain):
            if m.group(0).endswith("<") or _is_template(plain, m.start()):
                continue  # a template: only its host_name instantiations are in the library
            add(m.group(1), m.start(), "kernel", False, m.group(1))


def _first_piece(args: str) -> str:
    m = _STRING.match(args.strip())
    return m.group(0)[1:-1] if m else ""


def _concatenate(args: str) -> tuple[str, bool]:
    """The string a host_name(...) argument spells, and whether every piece was a literal."""
    out = []
    rest = args.strip()
    while rest:
        m = _STRING.match(rest)
        if m is None:
            return "".join(out), False
        out.append(m.group(0)[1:-1])
        rest = rest[m.end():].lstrip()
    return "".join(out), True


def _is_template(plain: str, pos: int) -> bool:
    """True when the declaration ending at *pos* starts with `template` (since the last ; { or })."""
    start = max(plain.rfind(c, 0, pos) for c in ";{}")
    return re.search(r"\btemplate\b", plain[start + 1 : pos]) is not None


def _expand(d: _Define, args: list[str], calls: tuple[_Frame, ...]) -> list[_Line]:
    """The body of *d* with its parameters replaced by *args*, one _Line per body line."""
    mapping = dict(zip(d.params or (), args))

    def repl(m: re.Match[str]) -> str:
        word = m.group(2)
        if word is None or word not in mapping:
            return m.group(0)
        return f'"{mapping[word]}"' if m.group(1) else mapping[word]

    out = []
    for line, raw in d.body:
        # A line spelling no parameter keeps its text (every identifier maps to itself).
        text = _SUBST.sub(repl, raw) if any(p in raw for p in mapping) else raw
        text = _PASTE.sub("", text) if "##" in text else text
        out.append(_Line(line, text, (_Frame(line, raw, d.name), *calls)))
    return out


# -- metal_index ---------------------------------------------------------------------------------

_INDEX_HOST_NAME = re.compile(r"\[\[\s*host_name\s*\(")


def _code_lines(text: str) -> list[str]:
    """Each line of *text* with comments and literals blanked and its line ending dropped."""
    return [ln.rstrip("\r\n") for ln in split_lines(mask_code(text))]


def index_metal(text: str, path: str) -> MetalIndex:
    raw = split_lines(text)
    code = _code_lines(text)
    functors: list[Functor] = []
    calls: list[MacroCall] = []
    defines: list[MacroDef] = []
    includes: list[tuple[str, int]] = []
    complex_comment = None
    define_of_line: dict[int, str] = {}

    # #define spans first: their bodies are scanned as calls "in_define".
    i = 0
    while i < len(code):
        m = _DEFINE_RE.match(code[i])
        if m:
            start = i
            while code[i].rstrip().endswith("\\") and i + 1 < len(code):
                i += 1
            params = tuple(p.strip() for p in m.group(3).split(",")) if m.group(2) else None
            defines.append(MacroDef(m.group(1), params, start + 1, i + 1))
            for k in range(start, i + 1):
                define_of_line[k] = m.group(1)
        i += 1

    i = 0
    while i < len(code):
        line = code[i]
        inc = _INCLUDE_RE.match(line)
        if inc:
            includes.append((inc.group(1), i + 1))
        if complex_comment is None and raw[i].strip().lower().startswith(COMPLEX_BLOCK_COMMENT.lower()):
            complex_comment = i + 1
        in_define = define_of_line.get(i)
        st = _STRUCT_RE.match(line)
        if st and in_define is None:
            end = _struct_end(code, i, path)
            functors.append(Functor(st.group(1), i + 1, end + 1, "".join(raw[i : end + 1])))
            i = end + 1
            continue
        body = line
        if in_define is not None and i == next(d.line for d in defines if d.name == in_define) - 1:
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
                    functors.append(Functor(args[0], i + 1, end + 1, "".join(raw[i : end + 1]), call.macro))
                i = end + 1
                continue
        i += 1

    bin_args, bin_line = _binary_op_arity(defines, calls)
    uses_c10 = re.search(r"using\s+namespace\s+c10::metal\s*;", text) is not None
    host_names = tuple(k + 1 for k, ln in enumerate(code) if "host_name" in ln and _INDEX_HOST_NAME.search(ln))
    kernels = tuple((m.group(1), ln) for ln in host_names if (m := _HOST_NAME_PREFIX.search(raw[ln - 1])))
    return MetalIndex(path, tuple(functors), tuple(calls), tuple(defines), tuple(includes), bin_args, bin_line,
                      complex_comment, uses_c10, host_names, kernels)


def _struct_end(code: list[str], start: int, path: str) -> int:
    depth, seen = 0, False
    for k in range(start, len(code)):
        for ch in code[k]:
            if ch == "{":
                depth, seen = depth + 1, True
            elif ch == "}":
                depth -= 1
        if seen and depth == 0:
            return k
    raise MpsgenError("unterminated struct (no closing '};')", path=path, line=start + 1,
                      hint="fix the .metal file so it compiles, then re-run")


def _balanced(code: list[str], i: int, first: str, define_of_line: dict[int, str]) -> tuple[str | None, int, bool]:
    """The call starting on line *i* up to its closing parenthesis (may span lines inside one #define).

    Returns (call text, last line index, followed by ';').
    """
    text, depth, k, segment = "", 0, i, first
    while True:
        seg = segment.rstrip()
        if seg.endswith("\\"):
            seg = seg[:-1]
        for pos, ch in enumerate(seg):
            text += ch
            if ch == "(":
                depth += 1
            elif ch == ")":
                depth -= 1
                if depth == 0:
                    return text, k, seg[pos + 1 :].lstrip().startswith(";")
        text += " "
        k += 1
        if k >= len(code) or define_of_line.get(k) != define_of_line.get(i):
            return None, i, False
        segment = code[k]


