"""What a .metal file uses from the c10/metal headers and what a Metal header (c10/metal/*.h,
kernels/*.h) provides, its macros and words: the facts the lint needs to tell that a file lost an
#include it needs; and the type names a Metal text declares (a dtype argument may name one).

Read from the text with comments and literals blanked: the macros it defines, the identifiers it
spells, the macros it calls, the `c10::metal::X` names it spells and its `using namespace c10::metal;`;
its struct/class/enum/union, using, typedef and object-like #define names.
"""

from __future__ import annotations

import functools
import re
from typing import Iterator

from mpsgen.records import NamedTuple
from mpsgen.scan.anchored import directive_line_starts, finditer_at, occurrences
from mpsgen.scan.mask import mask_code

_DEFINE = re.compile(r"^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)(\()?", re.M)
_WORD = r"[A-Za-z_]\w*"  # (a non-ASCII text's identifiers: compiled when one is read)
# `c10::metal::X` or `::c10::metal::X`, not after another name or a lone colon (a use's line is
# its c10's: a leading `::` is on the same line).
_QUALIFIED = re.compile(r"c10(?:(?<![\w:]c10)|(?<=::c10)(?<![\w:]::c10))\s*::\s*metal\s*::\s*([A-Za-z_]\w*)")
_USING_C10 = re.compile(r"using(?<!\wusing)\s+namespace\s+(?:::)?c10\s*::\s*metal\s*;")


class MetalSymbols(NamedTuple):
    """What one .metal file uses of c10/metal (each use with the line of its first occurrence)."""

    macro_uses: tuple[tuple[str, int], ...]  # UPPER_CASE macros it calls and does not define
    qualified: tuple[tuple[str, int], ...]  # X of each `c10::metal::X` it spells
    c10_namespace_line: int  # line of its `using namespace c10::metal;`, 0 when none


def metal_symbols(text: str) -> MetalSymbols:
    """What a .metal file uses of c10/metal."""
    masked = mask_code(text)
    defines = _defines(masked)
    defined = {m.group(1) for m in defines}
    heads = {m.start(1) for m in defines}
    lines = LineCounter(masked)
    uses: dict[str, int] = {}
    for name, start in macro_calls(masked):
        if name not in defined and name not in uses and start not in heads:
            uses[name] = lines.line(start)
    lines = LineCounter(masked)
    qualified: dict[str, int] = {}
    for m in _matches_at(_QUALIFIED, masked, "c10"):
        if m.group(1) not in qualified:
            qualified[m.group(1)] = lines.line(m.start())
    using = next(_matches_at(_USING_C10, masked, "using"), None)
    return MetalSymbols(
        macro_uses=tuple(uses.items()),
        qualified=tuple(qualified.items()),
        c10_namespace_line=LineCounter(masked).line(using.start()) if using else 0,
    )


def defined_macros(text: str) -> frozenset[str]:
    """The macros a Metal header #defines (what a .metal including it may call)."""
    return frozenset(m.group(1) for m in _defines(mask_code(text)))


def spelled_words(text: str) -> frozenset[str]:
    """The identifiers a Metal header spells outside comments and literals (a name a .metal uses is
    taken to come from a header it includes when that header spells it)."""
    return identifiers(mask_code(text))


def declared_types(text: str) -> frozenset[str]:
    """The type names one Metal text declares (a dtype argument may name one): struct, class, enum
    and union names, `using X =`, typedefs and object-like #defines.  (Asked only for a registration
    with a dtype argument that is no Metal type: kept apart from metal_symbols, which every check reads.)"""
    masked = mask_code(text)
    types = {m.group(1) for kw, pattern in keyword_patterns() for m in _matches_at(pattern, masked, kw)}
    function_like = {m.group(1): bool(m.group(2)) for m in _defines(masked)}  # a name's last #define says
    return frozenset(types | {name for name, called in function_like.items() if not called})


def _defines(masked: str) -> list[re.Match[str]]:
    """The #define lines' matches (`_DEFINE.finditer(masked)`, tried at '#' lines only)."""
    return list(finditer_at(_DEFINE, masked, directive_line_starts(masked)))


# A macro call read backwards, in the reversed text: its '(', blanks, the name reversed (its first
# character last), then no word character or '#' (what precedes the name).  The engine skips to each
# '(' in C; the forward `([A-Z_](?<![\w#][A-Z_])[A-Z0-9_]{2,})\s*\(` opened with a class it tried at
# every capital and underscore (~80 instructions a character).  Both match a maximal run of
# [A-Z0-9_] that blanks and a '(' follow: the same calls.
_MACRO_CALL_REVERSED = re.compile(r"\(\s*([A-Z0-9_]{2,}[A-Z_])(?![\w#])")


def macro_calls(masked: str) -> list[tuple[str, int]]:
    """(name, offset) of each UPPER_CASE macro call (a name of 3+ capitals, digits and underscores
    after no word character or '#', then `\\s*(`), in order."""
    n = len(masked)
    found = [(m.group(1)[::-1], n - m.end(1)) for m in _MACRO_CALL_REVERSED.finditer(masked[::-1])]
    return found[::-1]


# ASCII letters, digits and '_' kept, every other byte a blank.
_WORD_BYTES = bytes(c if chr(c).isascii() and (chr(c).isalnum() or c == 95) else 32 for c in range(256))


def identifiers(masked: str) -> frozenset[str]:
    """`frozenset(_WORD.findall(masked))`: each run of word characters less its leading digits (a
    match starts at a run's first letter or '_' and takes the rest of it).  An ASCII text's runs are
    split and counted once in C (the pattern's match per identifier cost ~160 instructions a
    character: 60 M for 2026's c10/metal headers)."""
    if not masked.isascii():
        return frozenset(re.findall(_WORD, masked))
    runs = set(masked.encode("ascii").translate(_WORD_BYTES).split())
    return frozenset(word.decode("ascii") for run in runs if (word := run.lstrip(b"0123456789")))


@functools.cache
def keyword_patterns() -> tuple[tuple[str, re.Pattern[str]], ...]:
    """The declaration patterns, each with the word it opens with (its matches are tried where the word
    is), compiled when declared_types is first asked (a check seldom asks; a pattern's compile costs
    ~0.5 M instructions).  Each opens with its literal and tests the word boundary behind it, so the
    engine skips to the next candidate in C (a leading \\b or lookbehind is tried at every offset:
    4-10x slower on the c10/metal headers)."""
    declarations = [(kw, re.compile(kw + r"(?<!\w" + kw + r")" + rest)) for kw, rest in (
        ("struct", r"\s+([A-Za-z_]\w*)"), ("class", r"\s+([A-Za-z_]\w*)"), ("union", r"\s+([A-Za-z_]\w*)"),
        ("enum", r"(?:\s+class)?\s+([A-Za-z_]\w*)"), ("using", r"\s+([A-Za-z_]\w*)\s*="))]
    return (*declarations, ("typedef", re.compile(r"typedef(?<!\wtypedef)\b[^;{}]*?\b([A-Za-z_]\w*)\s*;")))


def _matches_at(pattern: re.Pattern[str], masked: str, word: str) -> Iterator[re.Match[str]]:
    """`pattern.finditer(masked)` for a pattern opening with *word*: tried where str.find finds it (the
    engine's own scan for the word costs ~10 instructions a character, str.find's well under one)."""
    return finditer_at(pattern, masked, occurrences(masked, (word,)))


class LineCounter:
    """The 1-based line of ascending offsets, each counted on from the one before (a LineTable splits
    and sums the whole text for the few lines asked; a list of every line's start costs a step per line)."""

    __slots__ = ("text", "pos", "number")

    def __init__(self, text: str) -> None:
        self.text, self.pos, self.number = text, 0, 1

    def line(self, pos: int) -> int:
        self.number += self.text.count("\n", self.pos, pos)
        self.pos = pos
        return self.number
