"""Whether a text names a word: the cheap filter a plan runs over many files before it scans the few
that could hold what it looks for (no domain words: the word is the caller's); and a text's identifiers,
counted or found by a part they hold."""

from __future__ import annotations

import functools
import os
import re
from collections import Counter
from typing import Sequence

from mpsgen.scan.definitions import is_word_char, word_start

_IDENT = re.compile(r"[A-Za-z_]\w*")


def mentions(text: str, word: str) -> bool:
    """*text* has an identifier starting with *word* (`\\bword`): add_stub for add."""
    return word in text and re.search(r"\b" + re.escape(word), text) is not None  # `in` first: C speed


def names(text: str, word: str) -> bool:
    """*text* has *word* as a whole identifier (`\\bword\\b`)."""
    return word in text and re.search(r"\b" + re.escape(word) + r"\b", text) is not None


def whole_word(word: str) -> re.Pattern[str]:
    """`(?<!\\w)word(?!\\w)`, opening with the word's literal (the boundary tested behind it), which the
    regex engine skips to in C: a pattern opening with the lookbehind or `\\b` is tried at every offset
    (~50 ms over the 600 KB yaml, ~1 ms this way)."""
    w = re.escape(word)
    return re.compile(w + r"(?<!\w" + w + r")(?!\w)")


# Every byte that is not an ASCII letter, digit or underscore becomes a space.
_NOT_WORD = bytes(c if chr(c).isascii() and (chr(c).isalnum() or c == 95) else 32 for c in range(256))


def identifier_counts(code: str) -> dict[str, int]:
    """`Counter(_IDENT.findall(code))`, 3x faster for an ASCII text: its identifiers are its runs of
    word characters without their leading digits (counted in C on bytes, then decoded)."""
    if not code.isascii():
        return dict(Counter(_IDENT.findall(code)))  # non-ASCII letters continue an identifier
    counts: dict[str, int] = {}
    for run, n in Counter(code.encode().translate(_NOT_WORD).split()).items():
        if run[0] <= 57:  # opens with a digit
            run = run.lstrip(b"0123456789")
            if not run:
                continue
        name = run.decode()
        counts[name] = counts.get(name, 0) + n
    return counts


def identifiers_containing(code: str, part: str) -> dict[str, int]:
    """`{name: n for name, n in identifier_counts(code).items() if part in name}` for a *part* that
    opens with a letter or underscore, from the words holding *part* (words_holding: a few thousand
    in the .mm files) instead of splitting the whole text into words."""
    if not code.isascii():
        return {name: n for name, n in identifier_counts(code).items() if part in name}
    return identifiers_of(words_holding(code, part))


def identifiers_of(words: dict[str, list[int]]) -> dict[str, int]:
    """How often each identifier of an ASCII text's *words* ({word: its starts}) occurs: a word without its
    leading digits (counted once a word, not once an occurrence)."""
    counts: dict[str, int] = {}
    for word, starts in words.items():
        name = word.lstrip("0123456789")  # an identifier opens with no digit
        counts[name] = counts.get(name, 0) + len(starts)
    return counts


# The ASCII characters that open an identifier, and those it holds (membership tests of one character).
IDENTIFIER_FIRST = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_")
ASCII_WORD_CHARS = IDENTIFIER_FIRST | frozenset("0123456789")


def words_holding(code: str, part: str) -> dict[str, list[int]]:
    """{each run of word characters (is_word_char) that contains *part* (a word character itself): the
    offsets where it stands}, words in the order they first occur: each occurrence of *part* grown to its
    word, the next search from the word's end.  In an ASCII text a pattern opening with *part* finds each
    and its word's end in C; the start is read back only for a word that does not open with *part* (most
    do: `mpsGraph`, `mps::`).  One walk gives what the callers ask (counts, starts), not a span list each
    reads again."""
    words: dict[str, list[int]] = {}
    if code.isascii():
        for m in _tail_pattern(part).finditer(code):
            k, end = m.span()
            if k and code[k - 1] in ASCII_WORD_CHARS:
                k = word_start(code, k)
            word = code[k:end]
            found = words.get(word)
            if found is None:
                words[word] = [k]
            else:
                found.append(k)
        return words
    n, k = len(code), code.find(part)
    while k >= 0:
        start, end = word_start(code, k), k + len(part)
        while end < n and is_word_char(code[end]):
            end += 1
        words.setdefault(code[start:end], []).append(start)
        k = code.find(part, end)  # the next word
    return words


@functools.lru_cache(maxsize=8)
def _tail_pattern(part: str) -> re.Pattern[str]:
    """*part* and the ASCII word characters after it."""
    return re.compile(re.escape(part) + "[A-Za-z0-9_]*")



def spelled_in(text: str, candidates: Sequence[str]) -> list[str]:
    """`[c for c in candidates if c in text]`, each searched for from the first occurrence of the prefix
    they share (REGISTER_, CREATE_): none when the text lacks it, a short search when it comes late."""
    first = text.find(os.path.commonprefix(list(candidates))) if len(candidates) > 1 else 0
    return [c for c in candidates if text.find(c, first) >= 0] if first >= 0 else []
