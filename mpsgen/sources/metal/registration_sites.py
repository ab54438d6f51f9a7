"""The registration lines of a kernels/*.metal, each with what it puts into the metallib: the lines a
contributor edits by hand (`REGISTER_UNARY_OP(abs, half, half);`, `INSTANTIATE_UNARY_KERNELS2(half,
half);`, 2.7's `REGISTER_BINARY_INDEXING_OP(fmax, half);`, a written-out `template
[[host_name("x_float")]] kernel void ...`), located, with their dtype arguments and the #if branch
they sit in.

A top-level call registers when its macro is a c10/metal `REGISTER_*` (one the file does not define)
or a macro of the file whose expansion calls one or writes host_name instances; each such call's
*leaves* are the kernels it instantiates: `REGISTER_UNARY_OP(abs, half, half)` (macro family,
name and dtypes) or the full host_name string.  Two sites with a leaf in common would put one
function into the library twice.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from typing import Callable

from mpsgen.records import NamedTuple
from mpsgen.scan.anchored import directive_line_starts, finditer_at
from mpsgen.scan.mask import blank_comments
from mpsgen.sources.metal.index import MacroCall, MetalIndex, index_metal
from mpsgen.sources.metal.macros import MacroBody, paste
from mpsgen.sources.metal.name_scan import is_identifier
from mpsgen.sources.metal.names import SUFFIX_WORDS

_MAX_DEPTH = 8
_HEADER_PREFIX = "REGISTER_"
_HOST_NAME = re.compile(r"host_name\s*\(")
_LITERAL = r'"((?:\\.|[^"\\\n])*)"'  # (a host_name with escapes: compiled when one is read)
_IDENT = re.compile(r"[A-Za-z_]\w*")
# A parameter that takes a dtype: DTYPE, DTYPE0, DTYPE_IN, DTYPEI, TYPE, T, T0 (NAME, OP, ... take names).
_DTYPE_PARAM = re.compile(r"\w*TYPE\w*|T\d?|DT\w*")
_CONDITIONAL = re.compile(r"^[ \t]*#[ \t]*(if|ifdef|ifndef|elif|elifdef|elifndef|else|endif)\b", re.M)

# Metal's scalar types (the dtype words the host appends to kernel names), and their vectors.
_SCALARS = ("bool", "char", "uchar", "short", "ushort", "int", "uint", "long", "ulong", "half", "float", "bfloat")
METAL_TYPES = frozenset(
    [*_SCALARS, *(f"{s}{n}" for s in _SCALARS for n in (2, 3, 4)),
     *(f"{u}int{b}_t" for u in ("", "u") for b in (8, 16, 32, 64)), "size_t", "ptrdiff_t"]
)


class RegistrationSite(NamedTuple):
    """One top-level registration call (or written-out host_name instance) of a .metal file."""

    macro: str  # the macro called on the line ("host_name" for a written-out instance)
    args: tuple[str, ...]  # its arguments, blanks normalised
    line: int
    end_line: int
    dtype_positions: tuple[int, ...]  # which arguments are dtypes
    leaves: tuple[str, ...]  # the kernels it instantiates: "REGISTER_UNARY_OP(abs, half, half)" or a host_name string
    names: tuple[str, ...]  # the host names that reach them (a REGISTER_*'s first argument, host_name prefixes)
    branch: tuple[tuple[int, int], ...]  # (#if block, branch) of each enclosing conditional, outermost first
    dtypes: tuple[str, ...]  # the arguments at dtype_positions
    kind: tuple[str, ...]  # the macro and its other arguments: sites of one kind differ in dtypes only

    @property
    def text(self) -> str:
        return f"{self.macro}({', '.join(self.args)})"


def exclusive(a: RegistrationSite, b: RegistrationSite) -> bool:
    """True when *a* and *b* sit in different branches of one #if/#elif/#else (never both compiled)."""
    blocks = dict(a.branch)
    return any(block in blocks and blocks[block] != branch for block, branch in b.branch)


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
            if not c.macro.startswith(_HEADER_PREFIX) or not c.args or not is_identifier(c.args[0]):
                continue
            # a header's REGISTER_*: _site(..., range(1, n), [leaf], [name]) built directly (most sites)
            sites.append(RegistrationSite(c.macro, c.args, c.line, c.end_line, tuple(range(1, len(c.args))),
                                          (leaf_key(c.macro, c.args),), (c.args[0],), branches(c.line), c.args[1:],
                                          (c.macro, c.args[0])))
            continue
        leaves: list[str] = []
        names: list[str] = []
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


def leaf_key(macro: str, args: tuple[str, ...] | list[str]) -> str:
    """What a c10/metal REGISTER_* call instantiates, one spelling per kernel set: the OPMATH_ forms
    instantiate the same host names as the plain ones, a `*_OP_` form's last argument is its opmath type."""
    family = macro.replace("OPMATH_", "")
    return _leaf(family.rstrip("_"), family.endswith("_"), args)


def _leaf(family: str, short: bool, args: tuple[str, ...] | list[str]) -> str:
    """leaf_key of a macro of *family* (its `*_OP_` form *short*: the first three arguments shown)."""
    return f"{family}({', '.join(args[:3] if short else args)})"


class _Inner:
    """A call inside a #define body as _expand reads it: which arguments are one identifier (a
    parameter, or a word kept), and its leaf's family."""

    __slots__ = ("macro", "args", "plain", "family", "short")

    def __init__(self, call: MacroCall) -> None:
        self.macro = call.macro
        self.args = call.args
        self.plain = tuple(a.isascii() and a.isidentifier() for a in call.args)
        family = call.macro.replace("OPMATH_", "")
        self.family, self.short = family.rstrip("_"), family.endswith("_")


class _Bodies:
    """The body lines of the file's #defines (comments blanked, literals kept), read when first expanded,
    and the calls inside each (`ix.calls_in`, grouped once)."""

    def __init__(self, text: str, ix: MetalIndex) -> None:
        self.lines = blank_comments(text).split("\n")
        self.ix = ix
        self._bodies: dict[str, MacroBody | None] = {}
        self._calls: dict[str, list[MacroCall]] = {}
        for c in ix.calls:
            if c.in_define is not None:
                self._calls.setdefault(c.in_define, []).append(c)
        self._inner: dict[str, list[_Inner]] = {}

    def calls_in(self, macro: str) -> list[_Inner]:
        """The calls in *macro*'s body, read for _expand when it is first expanded."""
        found = self._inner.get(macro)
        if found is None:
            found = self._inner[macro] = [_Inner(c) for c in self._calls.get(macro, ())]
        return found

    def plain_line(self, line: int) -> str:
        return self.lines[line - 1] if line <= len(self.lines) else ""

    def writing_host_names(self, name: str) -> MacroBody | None:
        """The body of function-like macro *name* when a line of it spells host_name, else None."""
        if name in self._bodies:
            return self._bodies[name]
        d = self.ix.define(name)
        found = None
        if d is not None and d.params is not None:
            raw = self.lines[d.line - 1 : d.end_line]
            raw[0] = re.sub(r"^[ \t]*#[ \t]*define[ \t]+\w+\([^)]*\)", "", raw[0])
            # (cutting a line's blanks and `\` leaves its host_name: the body is cut at its parameters
            # only for a macro that writes one)
            if any("host_name" in ln for ln in raw):
                found = MacroBody([ln.rstrip().removesuffix("\\") for ln in raw], d.params)
        self._bodies[name] = found
        return found


def _expand(macro: str, args: list[str], defines: dict, bodies: _Bodies, ix: MetalIndex,
            leaves: list[str], names: list[str], depth: int) -> None:
    """The leaves (and host names) of a call of the file's own *macro* with *args*."""
    d = defines[macro]
    mapping = dict(zip(d.params or (), args))
    inners = bodies.calls_in(macro)
    # _substitute of a one-identifier argument, by identifier: a parameter's argument (pasted), else itself
    values = {param: paste(arg) if "##" in arg else arg for param, arg in mapping.items()} if inners else {}
    for inner in inners:
        inner_args = [values.get(a, a) if plain else _substitute(a, mapping) for a, plain in zip(inner.args, inner.plain)]
        if inner.macro in defines:
            if depth < _MAX_DEPTH:
                _expand(inner.macro, inner_args, defines, bodies, ix, leaves, names, depth + 1)
        elif inner.macro.startswith(_HEADER_PREFIX) and inner_args and is_identifier(inner_args[0]):
            leaves.append(_leaf(inner.family, inner.short, inner_args))
            names.append(inner_args[0])
    body = bodies.writing_host_names(macro)
    if body is None:
        return
    for line in body.expand(args):
        name = _host_name(line) if "host_name" in line else ""
        if name:
            leaves.append(name)
            names.extend(_prefixes(name))


def _substitute(arg: str, mapping: dict[str, str]) -> str:
    """An argument of a call inside a macro body with the macro's parameters replaced (`DTYPE##2` pasted)."""
    if not mapping:
        return arg
    if arg.isascii() and arg.isidentifier():  # one identifier (most are: `NAME`, `float`), _IDENT's one match
        out = mapping.get(arg, arg)
    else:
        out = _IDENT.sub(lambda m: mapping.get(m.group(0), m.group(0)), arg)
    return paste(out) if "##" in out else out


def _host_name(line: str) -> str:
    """The full string of a `host_name("a" "b")` on *line* when every piece is a literal, else ""."""
    m = _HOST_NAME.search(line)
    if m is None:
        return ""
    close = line.find(")", m.end())
    inner = line[m.end() : close if close >= 0 else len(line)].strip()
    if "\\" not in inner:  # no escapes: a literal is a pair of quotes, so split at them (~4x faster)
        parts = inner.split('"')  # what precedes each literal, its text, ..., what follows the last
        whole = len(parts) % 2 == 1 and len(parts) > 1 and not "".join(parts[0::2]).strip()
        return "".join(parts[1::2]) if whole else ""
    pieces, k = [], 0
    for lit in re.finditer(_LITERAL, inner):
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
    directives found with one pass over the text, the stack kept at each; a directive's line counted
    from the previous one's)."""
    at: list[int] = [0]
    stacks: list[tuple[tuple[int, int], ...]] = [()]
    stack: list[tuple[int, int]] = []
    blocks = 0
    line, counted = 1, 0  # the line of offset *counted*
    for m in finditer_at(_CONDITIONAL, text, directive_line_starts(text)):  # _CONDITIONAL.finditer(text)
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
        line += text.count("\n", counted, m.start())
        counted = m.start()
        at.append(line)
        stacks.append(tuple(stack))
    return lambda line: stacks[bisect_right(at, line) - 1]
