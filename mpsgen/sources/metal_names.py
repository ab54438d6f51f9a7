"""The kernel names a kernels/*.metal file puts into the metallib, in every layout, each with file:line.

A name reaches the library in one of three forms:

* a registration macro of c10/metal (`REGISTER_UNARY_OP(exp, float, float)`, any `REGISTER_*` from a
  header): the host adds a dtype/layout suffix (`exp_dense_float_float`), so the first argument is the name;
* an explicit instantiation `template [[host_name("exp_" #DTYPE0 "_" #DTYPE1)]] kernel void exp_kernel(...)`
  (early-2025 files): the full name is the concatenated string, and the host name is a prefix of it
  followed by dtype/layout words (`exp` for `exp_float_float`);
* a plain `kernel void name(...)`: the name itself.

Macros the file defines itself (`INSTANTIATE_UNARY_KERNELS2`, `REGISTER_SPECIAL`, early-2025
`REGISTER_BINARY_OP(NAME, DTYPE)`) are expanded at each call site, with `#PARAM` stringised and
`A##B` pasted, so a name written as `#NAME` or `"i0_" #DTO` is found.  Each name is located on the
line where it is spelled: the `#define` body line that writes it (`"exp_"`), else the call site
that passes it (`REGISTER_FLOAT_BINARY_OP(hypot)`).
"""

from __future__ import annotations

import re
from functools import cached_property
from typing import Iterable, Mapping, NamedTuple

from mpsgen.scan.brackets import match_close, split_top_level

# Registration macros of c10/metal/indexing.h (kept in step with metal.BUILTIN_REGISTER_MACROS);
# any other REGISTER_* the file does not define is taken to come from a header too.
_HEADER_PREFIX = "REGISTER_"
# Words the host appends to a kernel name: Metal dtypes and the layout/variant words of
# OperationUtils.mm ("{name}_{dense|strided}[_cast|_castout|_scalar...]_{outT}_{inT}").
SUFFIX_WORDS = frozenset(
    "float half bfloat long int short char uchar bool float2 half2 uint ushort ulong "
    "dense strided cast castout scalar broadcast ilp lhs rhs".split()
)

_COMMENT_OR_LITERAL = re.compile(r"//[^\n]*|/\*.*?\*/|\"(?:\\.|[^\"\\\n])*\"|'(?:\\.|[^'\\\n])*'", re.S)
_STRING = re.compile(r"\"(?:\\.|[^\"\\\n])*\"")
_DEFINE = re.compile(r"[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)(\(([^)]*)\))?")
# `\b([A-Z_][A-Z0-9_]*)\s*\(` with the word-start test after the first character (a pattern that opens
# with a character class lets the regex engine skip to the next candidate in C).
_MACRO_CALL = re.compile(r"([A-Z_](?<!\w[A-Z_])[A-Z0-9_]*)\s*\(")
# Literal first, the word boundary tested behind it (the engine skips to the literal in C).
_HOST_NAME = re.compile(r"host_name(?<!\whost_name)\s*\(")
_PLAIN_KERNEL = re.compile(r"(?:kernel(?<!\wkernel)\s+void|void(?<!\wvoid)\s+kernel)\s+([A-Za-z_]\w*)\s*[(<]")
# A stringised parameter (#P, not ##), any identifier, or a string literal (left alone).
_SUBST = re.compile(r"\"(?:\\.|[^\"\\\n])*\"|((?<!#)#(?!#)[ \t]*)?\b([A-Za-z_]\w*)\b")
_PASTE = re.compile(r"[ \t]*##[ \t]*")
_IDENT = re.compile(r"[A-Za-z_]\w*")
_MAX_DEPTH = 8


class MetalName(NamedTuple):
    """One name registered in a .metal file."""

    name: str  # the registration macro's first argument, the full host_name string, or the kernel's name
    path: str
    line: int
    macro: str  # the macro spelled on that line (REGISTER_UNARY_OP, INSTANTIATE_UNARY_KERNELS2), "host_name" or "kernel"
    suffixed: bool  # the host appends dtype/layout words to `name` (registration macros, partly resolved host_names)

    @property
    def prefixes(self) -> tuple[str, ...]:
        """Host names that reach this kernel: the name itself, and (for a full host_name) each
        prefix left after dropping trailing dtype/layout words (`exp_float_float` -> `exp_float`, `exp`)."""
        if self.suffixed:
            return (self.name,)
        words = self.name.split("_")
        out = [self.name]
        while len(words) > 1 and words[-1] in SUFFIX_WORDS:
            words.pop()
            out.append("_".join(words))
        return tuple(out)


class _Define(NamedTuple):
    name: str
    params: tuple[str, ...] | None
    body: tuple[tuple[int, str], ...]  # (line, text) of each physical line after the parameter list


class _Frame(NamedTuple):
    line: int
    raw: str  # the line as written (before substitution)
    macro: str  # the macro whose body holds this line, or the macro invoked on it


class MetalNames:
    """Every name registered by a set of .metal files (names are global across the metallib)."""

    def __init__(self, names: Iterable[MetalName]) -> None:
        self.names = tuple(names)

    @cached_property
    def by_host_name(self) -> dict[str, tuple[MetalName, ...]]:
        index: dict[str, list[MetalName]] = {}
        for n in self.names:
            for p in n.prefixes:
                index.setdefault(p, []).append(n)
        return {k: tuple(v) for k, v in index.items()}

    def where(self, host_name: str) -> tuple[MetalName, ...]:
        """The registrations a host call `exec_*_kernel(iter, "<host_name>")` can reach (empty: none)."""
        return self.by_host_name.get(host_name, ())


def index_names(texts: Mapping[str, str]) -> MetalNames:
    """The names registered by each .metal text ({path: text})."""
    return MetalNames(n for path, text in texts.items() for n in names_in(text, path))


def names_in(text: str, path: str) -> list[MetalName]:
    """The names one .metal text registers, in order, one per (name, line)."""
    code = _COMMENT_OR_LITERAL.sub(_blank_comment, text)
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


def _blank_comment(m: re.Match[str]) -> str:
    s = m.group(0)
    return s if s[0] in "\"'" else re.sub(r"[^\n]", " ", s)


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


def registered_input_types(text: str, path: str, name: str, *, alpha: bool) -> set[str]:
    """The input dtypes (second argument) of every REGISTER_* registration of kernel *name* in one
    .metal text, file-local macros expanded (REGISTER_ROUNDING_OPS(float) registers ceil for float):
    of the alpha forms (REGISTER_*_ALPHA_OP, whose host names end in the alpha's type) or of the others."""
    return {args[2] for args in registrations_of(text, path, name)
            if len(args) > 3 and ("_ALPHA_" in args[0]) == alpha}


def registrations_of(text: str, path: str, name: str) -> list[tuple[str, ...]]:
    """(macro, name, arguments...) of every REGISTER_* registration of kernel *name* in one .metal
    text, file-local macros expanded: REGISTER_UNARY_ALPHA_OP(nan_to_num, half, NanToNumParams_float, half)."""
    code = _COMMENT_OR_LITERAL.sub(_blank_comment, text)
    lines = code.split("\n")
    defines, directive = _defines(lines)
    top = [_Line(k + 1, "" if k + 1 in directive else ln, ()) for k, ln in enumerate(lines)]
    registrations: list[tuple[str, ...]] = []
    _scan(top, defines, path, {}, depth=0, registrations=registrations)
    return [args for args in registrations if args[1] == name]


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


_WORD = re.compile(r"\w+")


def _spells(raw: str, word: str, quoted: str | None) -> bool:
    """`re.search('"' + re.escape(quoted) + r"|\b" + re.escape(word) + r"\b", raw)` (no `"quoted` part
    when None), with str.find instead of compiling a pattern per name."""
    if quoted is not None and '"' + quoted in raw:
        return True
    if not _WORD.fullmatch(word):
        return re.search(r"\b" + re.escape(word) + r"\b", raw) is not None
    k, n = raw.find(word), len(word)
    while k >= 0:
        before = raw[k - 1] if k else " "
        after = raw[k + n] if k + n < len(raw) else " "
        if not (before.isalnum() or before == "_") and not (after.isalnum() or after == "_"):
            return True
        k = raw.find(word, k + 1)
    return False


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
