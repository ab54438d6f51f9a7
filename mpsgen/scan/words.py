"""Whether a text names a word: the cheap filter a plan runs over many files before it scans the few
that could hold what it looks for (no domain words: the word is the caller's)."""

from __future__ import annotations

import re


def mentions(text: str, word: str) -> bool:
    """*text* has an identifier starting with *word* (`\\bword`): add_stub for add."""
    return word in text and re.search(r"\b" + re.escape(word), text) is not None  # `in` first: C speed


def names(text: str, word: str) -> bool:
    """*text* has *word* as a whole identifier (`\\bword\\b`)."""
    return word in text and re.search(r"\b" + re.escape(word) + r"\b", text) is not None
