"""Masking a region of a file instead of the whole file: a lookup of one definition (SourceIndex's
impl_func and plain_function) masks the lines from the word before its name to its body's end.

A region that starts at a line start outside every comment, literal and continued line masks as the
whole file does there, up to its last character (which may open a comment the file's mask blanks,
never a bracket).  The raw text must vouch for that line start; where it cannot, the caller masks
the whole file.
"""

from __future__ import annotations

import enum
import re
from typing import Final, Iterator, Literal

from mpsgen.scan.brackets import match_close
from mpsgen.scan.definitions import definition_body, is_word_char, looks_like_definition_name
from mpsgen.scan.mask import line_continues, mask
from mpsgen.scan.words import ASCII_WORD_CHARS

_OPEN_PAREN = re.compile(r"\s*\(")

_BLANK = " \t"
_BEFORE_A_NAME = frozenset("&*>/\"'")  # what can precede a defined name on its line, in the raw text
_AFTER_A_NAME = frozenset("(/\"'RuUL")  # `(` or the start of a comment or literal before it


def definition_candidates(raw: str, name: str) -> Iterator[int]:
    """The offsets of the occurrences of the word *name* in the raw text that may be `T name(` in
    the masked one, in file order: every other occurrence is, on its own line, preceded by
    something else than a word character, one of `&*>` or the end of a comment or literal, or
    followed by something else than `(` or the start of a comment or literal.  A raw-text check:
    a file with none needs no mask at all."""
    k, n, size = raw.find(name), len(name), len(raw)
    while k >= 0:
        end = k + n
        # What follows the word is read first: most occurrences are uses (`std::`, `x.max(`, `view,`),
        # told apart by one lookup (the end of the text counts as a line break).
        after = raw[end] if end < size else "\n"
        if after in ASCII_WORD_CHARS or (after > "\x7f" and is_word_char(after)):
            after = ""  # inside a longer word
        elif after in _BLANK:
            a = end + 1
            while a < size and raw[a] in _BLANK:
                a += 1
            after = raw[a] if a < size else "\n"
        if after and (after.isspace() or after in _AFTER_A_NAME) and (k == 0 or not is_word_char(raw[k - 1])):
            b = k - 1
            while b >= 0 and raw[b] in _BLANK:
                b -= 1
            # Any other space (a line break above all) ends the look: then the occurrence is kept.
            if b < 0 or raw[b].isspace() or is_word_char(raw[b]) or raw[b] in _BEFORE_A_NAME:
                yield k
        k = raw.find(name, end)


class _Verdict(enum.Enum):
    GROW = "grow"  # an enum member rather than a bare object(), so the type checker can tell it apart


GROW: Final = _Verdict.GROW  # a region too short to tell: mask a longer one
_HEAD_TAIL = re.compile(r"\s*(?:const\s*)?(?:noexcept\s*)?(?:override\s*)?")  # definition_body's, without the '{'


def growing_regions(raw: str, start: int, k: int) -> Iterator[tuple[str, bool]]:
    """(masked raw[start:end], whether end is the file's end) for end = k + 2 KB, 8 KB, ... (most
    bodies fit the first).  A region masks as the file does up to its last character, which may
    differ only when it opens a comment or literal (`/` of `//`): never a bracket."""
    size = 2048
    while True:
        end = min(len(raw), k + size)
        yield mask(raw[start:end]).masked, end == len(raw)
        if end == len(raw):
            return
        size *= 4


def code_line_before(raw: str, k: int, first_raw_string: int | None = None) -> int | None:
    """The start of a line at or before the one holding the nearest non-space character before *k*,
    when the raw text vouches that this line start lies outside every comment, literal and
    preprocessor continuation (so a mask from there is the file's mask); else None.  Conservative:
    before a `/*` after the last `*/` (*k* may lie in that comment) it looks again from that `/*`;
    any raw string before it, or a backslash ending the line before it, says None.
    *first_raw_string*: `raw.find('R"')` when the caller knows it (one search of a file for all
    its lookups, not one of the text before each)."""
    while True:
        b = k - 1
        while b >= 0 and raw[b] in _SPACES:
            b -= 1
        start = raw.rfind("\n", 0, b) + 1 if b >= 0 else 0
        opened = raw.rfind("/*", 0, start)
        if opened < 0 or raw.rfind("*/", 0, start) >= opened + 2:
            break
        k = opened  # may be inside the block comment opened there: vouch for a line before it
    if first_raw_string is None:
        first_raw_string = raw.find('R"', 0, start)
    if 0 <= first_raw_string <= start - 2:
        return None  # a raw string may span lines
    if start and line_continues(raw, start - 1):
        return None  # a continued string, comment or directive
    return start


_SPACES = frozenset(" \t\r\n\f\v")


def definition_in_region(region: str, k: int, name: str,
                         whole: bool) -> tuple[int, int] | None | Literal[False, _Verdict.GROW]:
    """What `_word_calls` + looks_like_definition_name + definition_body say of the occurrence of
    *name* at *k* in a masked region that starts at a vouched line start: (body_open, body_close),
    None (not a definition), GROW (the region ends too early to tell; never when *whole*), or
    False (the region cannot tell: the caller masks the whole file)."""
    end = k + len(name)
    if region[k:end] != name:
        return None  # in a comment or literal
    paren = _OPEN_PAREN.match(region, end)
    if paren is None:
        # (the region's last character may open a comment the file's mask blanks)
        return None if whole or region[end:-1].strip() else GROW
    # (A line continuing a directive would end in the backslash looks_like_definition_name stops at.)
    line = region.rfind("\n", 0, k) + 1
    if region[line:k].lstrip(" \t").startswith("#"):
        return None  # a preprocessor line
    b = k - 1
    while b >= 0 and region[b] in _SPACES:
        b -= 1
    if b < 0:
        return False  # the word before it lies before the region (a comment between them was blanked)
    if not looks_like_definition_name(region, k):
        return None
    body = definition_body(region, paren.end() - 1)
    if body is not None or whole:
        return body
    pclose = match_close(region, paren.end() - 1)
    if pclose is None:
        return GROW
    tail = _HEAD_TAIL.match(region, pclose + 1)
    assert tail is not None  # the pattern matches the empty string
    after = tail.end()
    if after + 16 > len(region) or region[after] == "{":
        return GROW  # a qualifier or the brace may lie past the region, or the body's '}' does
    return None
