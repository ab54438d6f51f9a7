"""Frozen copies of sources/metal/registration_sites.py's and sources/metal/symbols.py's readers as
they were before their fast paths (commit ae9f857): the oracles tests/test_metal_fast_paths.py
compares `registration_sites` and `metal_symbols` with.  Not to be edited with the readers."""

from __future__ import annotations

import re
from bisect import bisect_right
from typing import Callable, NamedTuple

from mpsgen.scan.anchored import directive_line_starts, finditer_at
from mpsgen.scan.lines import LineTable
from mpsgen.scan.mask import blank_comments, mask_code
from mpsgen.sources.metal.index import MetalIndex, index_metal
from mpsgen.sources.metal.macros import MacroBody, paste
from mpsgen.sources.metal.names import SUFFIX_WORDS
from mpsgen.sources.metal.registration_sites import METAL_TYPES, RegistrationSite, leaf_key

_MAX_DEPTH = 8
_HEADER_PREFIX = "REGISTER_"
_HOST_NAME = re.compile(r"host_name\s*\(")
_LITERAL = re.compile(r'"((?:\\.|[^"\\\n])*)"')
_IDENT = re.compile(r"[A-Za-z_]\w*")
# A parameter that takes a dtype: DTYPE, DTYPE0, DTYPE_IN, DTYPEI, TYPE, T, T0 (NAME, OP, ... take names).
_DTYPE_PARAM = re.compile(r"\w*TYPE\w*|T\d?|DT\w*")
_CONDITIONAL = re.compile(r"^[ \t]*#[ \t]*(if|ifdef|ifndef|elif|elifdef|elifndef|else|endif)\b", re.M)

def registration_sites(text: str, path: str) -> tuple[RegistrationSite, ...]:
    """Every registration site of one .metal text, in file order."""
    ix = index_metal(text, path)
    defines = {d.name: d for d in ix.defines if d.params is not None}
    bodies = _Bodies(text, ix)
    branches = _branches(text)
    sites: list[RegistrationSite] = []
    for c in ix.top_level_calls():
        d = defines.get(c.macro)
        if d is None:
            if not c.macro.startswith(_HEADER_PREFIX) or not c.args or not _IDENT.fullmatch(c.args[0]):
                continue
            leaves, names = [leaf_key(c.macro, c.args)], [c.args[0]]
            positions = tuple(range(1, len(c.args)))
        else:
            leaves, names = [], []
            _expand(c.macro, list(c.args), defines, bodies, ix, leaves, names, 0)
            if not leaves:
                continue
            params = d.params or ()
            positions = tuple(k for k, a in enumerate(c.args)
                              if a in METAL_TYPES or (k < len(params) and _DTYPE_PARAM.fullmatch(params[k])))
        sites.append(_site(c.macro, c.args, c.line, c.end_line, positions, leaves, names, branches(c.line)))
    for line in ix.host_name_lines:
        if any(d.line <= line <= d.end_line for d in ix.defines):
            continue  # a macro body: its instances are its call sites'
        name = _host_name(bodies.plain_line(line))
        if name:
            sites.append(_site("host_name", (name,), line, line, (), [name], list(_prefixes(name)), branches(line)))
    return tuple(sorted(sites, key=lambda s: s.line))


def _site(macro: str, args: tuple[str, ...], line: int, end_line: int, positions: tuple[int, ...],
          leaves: list[str], names: list[str], branch: tuple[tuple[int, int], ...]) -> RegistrationSite:
    kind = (macro, *(a for k, a in enumerate(args) if k not in positions))
    return RegistrationSite(macro, args, line, end_line, positions, tuple(dict.fromkeys(leaves)),
                            tuple(dict.fromkeys(names)), branch, tuple(args[k] for k in positions), kind)


class _Bodies:
    """The body lines of the file's #defines (comments blanked, literals kept), read when first expanded."""

    def __init__(self, text: str, ix: MetalIndex) -> None:
        self.lines = blank_comments(text).split("\n")
        self.ix = ix
        self._bodies: dict[str, MacroBody] = {}

    def plain_line(self, line: int) -> str:
        return self.lines[line - 1] if line <= len(self.lines) else ""

    def body(self, name: str) -> MacroBody | None:
        found = self._bodies.get(name)
        if found is None:
            d = self.ix.define(name)
            if d is None or d.params is None:
                return None
            raw = self.lines[d.line - 1 : d.end_line]
            raw[0] = re.sub(r"^[ \t]*#[ \t]*define[ \t]+\w+\([^)]*\)", "", raw[0])
            found = self._bodies[name] = MacroBody([ln.rstrip().removesuffix("\\") for ln in raw], d.params)
        return found


def _expand(macro: str, args: list[str], defines: dict, bodies: _Bodies, ix: MetalIndex,
            leaves: list[str], names: list[str], depth: int) -> None:
    """The leaves (and host names) of a call of the file's own *macro* with *args*."""
    d = defines[macro]
    mapping = dict(zip(d.params or (), args))
    for inner in ix.calls_in(macro):
        inner_args = [_substitute(a, mapping) for a in inner.args]
        if inner.macro in defines:
            if depth < _MAX_DEPTH:
                _expand(inner.macro, inner_args, defines, bodies, ix, leaves, names, depth + 1)
        elif inner.macro.startswith(_HEADER_PREFIX) and inner_args and _IDENT.fullmatch(inner_args[0]):
            leaves.append(leaf_key(inner.macro, inner_args))
            names.append(inner_args[0])
    body = bodies.body(macro)
    if body is None or not any("host_name" in ln for ln in body.lines):
        return
    for line in body.expand(args):
        name = _host_name(line)
        if name:
            leaves.append(name)
            names.extend(_prefixes(name))


def _substitute(arg: str, mapping: dict[str, str]) -> str:
    """An argument of a call inside a macro body with the macro's parameters replaced (`DTYPE##2` pasted)."""
    if not mapping:
        return arg
    out = _IDENT.sub(lambda m: mapping.get(m.group(0), m.group(0)), arg)
    return paste(out) if "##" in out else out


def _host_name(line: str) -> str:
    """The full string of a `host_name("a" "b")` on *line* when every piece is a literal, else ""."""
    m = _HOST_NAME.search(line)
    if m is None:
        return ""
    close = line.find(")", m.end())
    inner = line[m.end() : close if close >= 0 else len(line)].strip()
    pieces, k = [], 0
    for lit in _LITERAL.finditer(inner):
        if inner[k : lit.start()].strip():
            return ""
        pieces.append(lit.group(1))
        k = lit.end()
    return "".join(pieces) if pieces and not inner[k:].strip() else ""


def _prefixes(name: str) -> tuple[str, ...]:
    """The host names reaching a full host_name: itself and each prefix left after dropping trailing
    dtype/layout words (`exp_float_float` -> `exp_float`, `exp`)."""
    words = name.split("_")
    out = [name]
    while len(words) > 1 and words[-1] in SUFFIX_WORDS:
        words.pop()
        out.append("_".join(words))
    if out[-1].endswith("_complex"):
        out.append(out[-1].removesuffix("_complex"))  # 2.7's host adds "_complex_" itself
    return tuple(out)


def _branches(text: str) -> Callable[[int], tuple[tuple[int, int], ...]]:
    """line -> the (#if block, branch index) of each conditional around it, outermost first (the
    directives found with one pass over the text, the stack kept at each)."""
    lines = LineTable(text)
    at: list[int] = [0]
    stacks: list[tuple[tuple[int, int], ...]] = [()]
    stack: list[tuple[int, int]] = []
    blocks = 0
    for m in _CONDITIONAL.finditer(text):
        word = m.group(1)
        if word.startswith("if"):
            blocks += 1
            stack.append((blocks, 0))
        elif word == "endif":
            if stack:
                stack.pop()
        elif stack:  # elif, elifdef, elifndef, else
            block, branch = stack.pop()
            stack.append((block, branch + 1))
        at.append(lines.line(m.start()))
        stacks.append(tuple(stack))
    return lambda line: stacks[bisect_right(at, line) - 1]


# -- metal_symbols ---------------------------------------------------------------------------------

_SYM_DEFINE = re.compile(r"^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)(\()?", re.M)
_SYM_WORD = re.compile(r"[A-Za-z_]\w*")
# Each pattern opens with its literal and tests the word boundary behind it, so the engine skips to
# the next candidate in C (a leading \b or lookbehind is tried at every offset: 4-10x slower on the
# c10/metal headers).
_SYM_TYPE_DECLS = tuple(re.compile(kw + r"(?<!\w" + kw + r")" + rest) for kw, rest in (
    ("struct", r"\s+([A-Za-z_]\w*)"), ("class", r"\s+([A-Za-z_]\w*)"), ("union", r"\s+([A-Za-z_]\w*)"),
    ("enum", r"(?:\s+class)?\s+([A-Za-z_]\w*)"), ("using", r"\s+([A-Za-z_]\w*)\s*=")))
_SYM_TYPEDEF = re.compile(r"typedef(?<!\wtypedef)\b[^;{}]*?\b([A-Za-z_]\w*)\s*;")
# The word-start test after the first character: a pattern opening with a character class lets the
# engine skip to the next candidate in C.
_SYM_MACRO_CALL = re.compile(r"([A-Z_](?<![\w#][A-Z_])[A-Z0-9_]{2,})\s*\(")
# `c10::metal::X` or `::c10::metal::X`, not after another name or a lone colon (a use's line is
# its c10's: a leading `::` is on the same line).
_SYM_QUALIFIED = re.compile(r"c10(?:(?<![\w:]c10)|(?<=::c10)(?<![\w:]::c10))\s*::\s*metal\s*::\s*([A-Za-z_]\w*)")
_SYM_USING_C10 = re.compile(r"using(?<!\wusing)\s+namespace\s+(?:::)?c10\s*::\s*metal\s*;")


class MetalSymbols(NamedTuple):
    """The record the reader returned then (sources/metal/symbols.py now reads its fields apart: a
    .metal's uses (metal_symbols), a header's macros and words (defined_macros, spelled_words), the
    types (declared_types))."""

    macros: frozenset[str]
    words: frozenset[str]
    types: frozenset[str]
    macro_uses: tuple[tuple[str, int], ...]
    qualified: tuple[tuple[str, int], ...]
    c10_namespace_line: int


def metal_symbols(text: str, *, words: bool = True) -> MetalSymbols:
    """The symbols of one Metal text (its `words` only when *words*: a header's are asked, a .metal's not)."""
    masked = mask_code(text)
    lines = LineTable(masked)
    defines = list(finditer_at(_SYM_DEFINE, masked, directive_line_starts(masked)))  # _SYM_DEFINE.finditer, tried at '#' lines only
    defined = {m.group(1): bool(m.group(2)) for m in defines}
    types = {name for pattern in _SYM_TYPE_DECLS for name in pattern.findall(masked)} | set(_SYM_TYPEDEF.findall(masked))
    types |= {name for name, function_like in defined.items() if not function_like}
    heads = {m.start(1) for m in defines}
    uses: dict[str, int] = {}
    for m in _SYM_MACRO_CALL.finditer(masked):
        name = m.group(1)
        if name not in defined and name not in uses and m.start(1) not in heads:
            uses[name] = lines.line(m.start())
    qualified: dict[str, int] = {}
    for m in _SYM_QUALIFIED.finditer(masked):
        if m.group(1) not in qualified:
            qualified[m.group(1)] = lines.line(m.start())
    using = _SYM_USING_C10.search(masked)
    return MetalSymbols(
        macros=frozenset(defined),
        words=frozenset(_SYM_WORD.findall(masked)) if words else frozenset(),
        types=frozenset(types),
        macro_uses=tuple(uses.items()),
        qualified=tuple(qualified.items()),
        c10_namespace_line=lines.line(using.start()) if using else 0,
    )
