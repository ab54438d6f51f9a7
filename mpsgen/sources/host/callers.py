"""Who still names a function: its uses in a C++/ObjC++ text, outside comments, literals and its own
definitions, and the editor that points a call at another function.

A use is one of `name(...)` (a call), `&name` (its address), or anything else (passed as a value, a
`#define` body); `at::native::name(`, `native::name(` and `::at::native::name(` are calls too, with the
qualifier kept so a rewrite replaces it whole.  A prototype (`Tensor& name(...);`) is no use: it
declares the function, and goes unnoticed once nothing calls it.
"""

from __future__ import annotations

import re
from typing import Collection, Literal

from mpsgen.model import Location
from mpsgen.records import NamedTuple
from mpsgen.scan.brackets import match_close, split_top_level
from mpsgen.scan.definitions import is_word_char, looks_like_definition_name
from mpsgen.scan.mask import mask_code
from mpsgen.sources.host import mm as host
from mpsgen.sources.index import SourceIndex, index_of

UseForm = Literal["call", "address", "other", "prototype"]
# How code spells a function of at::native (a use qualified otherwise names something else: `mps::x`)
NATIVE_QUALIFIERS = ("", "native::", "at::native::", "::at::native::")
_QUALIFIER = re.compile(r"(?:\b\w+\s*::\s*)+$|::\s*$")
_PROTOTYPE_END = re.compile(r"\s*(?:const\s*)?(?:noexcept\s*)?;")
_ONLY_RETURNS_AN_AT_CALL = re.compile(r"\)\s*\{\s*return\s+(?:::)?at::\w+\s*\([^;{}]*\)\s*;\s*\}\s*$")
_ONLY_RETURNS_A_METHOD_CALL = re.compile(r"\)\s*\{\s*return\s+\w+\s*\.\s*\w+\s*\([^;{}]*\)\s*;\s*\}\s*$")


class Use(NamedTuple):
    """One use of a function name in a text."""

    path: str
    line: int
    name: str
    start: int  # offset of the qualified name (`at::native::` included)
    end: int  # offset just past the name
    qualifier: str  # as written, spaces dropped: "", "at::native::", "native::", "::at::native::"
    form: UseForm
    args: tuple[str, ...] | None  # a call's arguments (masked, split at top-level commas); None: not read
    function: str | None  # the function the use is in (None: at namespace scope)
    in_directive: bool  # on a preprocessor line (a #define's body)

    @property
    def location(self) -> Location:
        return Location(self.path, self.line)


def uses_of(path: str, text: str, name: str, *, prototypes: bool = False) -> list[Use]:
    """Every use of *name* in *text* outside its own definitions and (unless *prototypes*) its
    prototypes, in file order."""
    if name not in text:
        return []
    ix = index_of(path, text)
    masked = ix.masked
    own = _own_lines(ix, path, text, {name}).get(name, ())
    found: list[Use] = []
    k = masked.find(name)
    while k >= 0:
        end = k + len(name)
        if (k == 0 or not is_word_char(masked[k - 1])) and (end == len(masked) or not is_word_char(masked[end])) \
                and not any(a <= k < b for a, b in own):
            use = _use_at(ix, path, name, k, end)
            if use is not None and (prototypes or use.form != "prototype"):
                found.append(use)
        k = masked.find(name, end)
    return found


class NameUse(NamedTuple):
    """What a use of a name is, without its arguments read or its function looked up (uses_named)."""

    name: str
    pos: int  # offset of the name
    qualifier: str
    form: UseForm
    in_directive: bool


def uses_named(path: str, text: str, starts: dict[str, list[int]]) -> list[NameUse]:
    """The uses (prototypes included) of each name of *starts* ({name: the offsets where it stands as a
    whole word in the masked text}, SourceIndex.identifier_starts) outside its own definitions: what
    uses_of finds of each name, read from the offsets given rather than by a search of the text a name."""
    ix = index_of(path, text)
    owned = _own_lines(ix, path, text, starts)
    found: list[NameUse] = []
    for name, positions in starts.items():
        own = owned.get(name, ())
        for k in positions:
            if not any(a <= k < b for a, b in own):
                kind = _use_kind(ix, name, k, k + len(name))
                if kind is not None:
                    found.append(NameUse(name, k, kind[1], kind[2], kind[4]))
    return found


def _own_lines(ix: SourceIndex, path: str, text: str, names: Collection[str]) -> dict[str, list[tuple[int, int]]]:
    """{name: the (start, end) offsets of the lines of each of its definitions in the text}, for *names*."""
    own: dict[str, list[tuple[int, int]]] = {}
    if host.defined_names(path, text).isdisjoint(names):
        return own  # (the definitions are not classified and placed for nothing)
    for d in host.definitions(path, text):
        if d.name in names:
            own.setdefault(d.name, []).append((ix.lines.start_of(d.impl.line), ix.lines.start_of(d.impl.end_line + 1)))
    return own


_OPEN_PAREN = re.compile(r"\s*\(")
_WHITESPACE = re.compile(r"\s+")


def _address_taken(masked: str, start: int) -> bool:
    """The code before *start*, its trailing whitespace dropped, ends in `&` and not `&&` (read back from
    *start*, not from a copy of the file up to it)."""
    j = start
    while j and masked[j - 1].isspace():
        j -= 1
    return j > 0 and masked[j - 1] == "&" and not (j > 1 and masked[j - 2] == "&")


def _ends_in_scope(masked: str, lo: int, k: int) -> bool:
    """masked[lo:k] ends in `::` and whitespace, as both of _QUALIFIER's forms do: a window that does not is
    not searched (the pattern, tried at each of its 80 offsets, is most of a use's cost)."""
    j = k
    while j > lo and masked[j - 1].isspace():
        j -= 1
    return j - 2 >= lo and masked[j - 2 : j] == "::"


def _use_kind(ix: SourceIndex, name: str, k: int, end: int) -> tuple[int, str, UseForm, re.Match[str] | None, bool] | None:
    """(start of the qualified name, qualifier, form, the match of the `(` after the name or None,
    on a preprocessor line) of the word *name* at *k*; None for a member of something else."""
    masked = ix.masked
    q = _QUALIFIER.search(masked, lo, k) if _ends_in_scope(masked, lo := max(0, k - 80), k) else None
    start = q.start() if q else k
    qualifier = _WHITESPACE.sub("", masked[start:k]) if q else ""
    before = masked[max(0, start - 2) : start].rstrip()
    if before.endswith((".", "->")):
        return None  # a member of something else
    paren = _OPEN_PAREN.match(masked, end)  # at *end*, not on a copy of the rest of the file
    in_directive = k in ix.directives
    if paren and not qualifier and not in_directive and looks_like_definition_name(masked, k):
        close = match_close(masked, paren.end() - 1)
        if close is not None and _PROTOTYPE_END.match(masked, close + 1):  # declares, does not use
            return start, qualifier, "prototype", paren, in_directive
    form: UseForm = "call" if paren else "address" if _address_taken(masked, start) else "other"
    return start, qualifier, form, paren, in_directive


def _use_at(ix: SourceIndex, path: str, name: str, k: int, end: int) -> Use | None:
    kind = _use_kind(ix, name, k, end)
    if kind is None:
        return None
    start, qualifier, form, paren, in_directive = kind
    args = _call_args(ix.masked, paren.end() - 1) if form == "call" and paren else None
    return Use(path, ix.line(k), name, start, end, qualifier, form, args, ix.enclosing_function(k), in_directive)


def _call_args(masked: str, open_at: int) -> tuple[str, ...] | None:
    """The arguments of the call whose `(` is at *open_at* (masked, split at top-level commas); None: not read."""
    close = match_close(masked, open_at)
    if close is None:
        return None
    inner = masked[open_at + 1 : close]
    if not inner.strip():
        return ()
    parts = split_top_level(inner)
    # `a < b` in an argument reads as a template's angle: when the two splits differ, not read
    return tuple(parts) if parts == split_top_level(inner, angles=False) else None


def rewrite_call(text: str, use: Use, callee: str) -> str:
    """*text* with the qualified name of the call *use* replaced by *callee* (`at::logical_not_outf`);
    unchanged when the text there no longer spells the use (an edit already made)."""
    if text[use.end - len(use.name) : use.end] != use.name:
        return text
    return text[: use.start] + callee + text[use.end :]


_LITERAL = re.compile(r'"([A-Za-z_]\w*)"')


def identifier_literals(text: str) -> list[tuple[str, int]]:
    """(string literal, 1-based line) of each identifier-like literal outside comments: the kernel names
    a host file asks its library for ("lgamma", or a prefix "renorm_" it appends a type to)."""
    from mpsgen.scan.mask import blank_comments

    code = blank_comments(text)
    return [(m.group(1), code.count("\n", 0, m.start()) + 1) for m in _LITERAL.finditer(code)]


def only_returns_an_at_call(definition: str) -> bool:
    """Whether a function *definition*'s body is one `return at::op(...);`: it runs neither MPSGraph nor
    Metal itself, only the op (2.7's zero_mps_ once `migrate fill_` pointed it at at::fill_)."""
    return _ONLY_RETURNS_AN_AT_CALL.search(mask_code(definition)) is not None


def only_returns_a_method_call(definition: str) -> bool:
    """Whether a function *definition*'s body is one `return self.op(...);`: the op through the dispatcher
    as a method, which runs neither MPSGraph nor Metal itself (2.7's index_fill_mps_ of a Scalar calls the
    Tensor overload so)."""
    return _ONLY_RETURNS_A_METHOD_CALL.search(mask_code(definition)) is not None
