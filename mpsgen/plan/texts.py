"""The planned texts a planner reads: every file through the changeset, filtered cheaply by a word."""

from __future__ import annotations

import functools
import re
import weakref
from pathlib import Path

from mpsgen.sources import nativefunctions as nf
from mpsgen.tree.changeset import Changeset
from mpsgen.tree.checkout import YAML_REL, Checkout


_LISTINGS: weakref.WeakKeyDictionary[Changeset, dict[str, list[Path]]] = weakref.WeakKeyDictionary()


def folder_files(cs: Changeset, folder: str) -> list[Path]:
    """``cs.checkout.<folder>()`` (mm_files, metal_files, native_sources, ...), globbed and sorted once
    per changeset: a plan lists the same folders several times, and mpsgen never adds files to them."""
    memo = _LISTINGS.setdefault(cs, {})
    paths = memo.get(folder)
    if paths is None:
        paths = memo[folder] = getattr(cs.checkout, folder)()
    return paths


def planned_texts(cs: Changeset, paths: list[Path], checkout: Checkout) -> dict[str, str]:
    """{checkout-relative path: current planned text} for existing files."""
    return {cs.rel(p): cs.current(p) for p in paths}


def c10_metal_texts(cs: Changeset) -> dict[str, str]:
    """{path: planned text} of the checkout's c10/metal headers (none in a trimmed checkout)."""
    return planned_texts(cs, folder_files(cs, "c10_metal_headers"), cs.checkout)


def original_texts(cs: Changeset, paths: list[Path]) -> dict[str, str]:
    """{checkout-relative path: text as read} for existing files."""
    return {cs.rel(p): cs.original(p) for p in paths}


# (word, path) -> (the text searched, whether it mentions the word).  A plan asks the same question of
# the same unchanged texts more than once (the stub's files while planning, then while verifying:
# ~4 ms each over native/*.cpp); a text is immutable, so the same object gives the same answer.
_MENTIONS: dict[tuple[str, str], tuple[str, bool]] = {}


def mentioning(texts: dict[str, str], word: str) -> dict[str, str]:
    """Only the texts that mention *word* as an identifier prefix: a cheap filter before scanning."""
    pattern = None
    found = {}
    for path, text in texts.items():
        seen = _MENTIONS.get((word, path))
        if seen is not None and seen[0] is text:
            hit = seen[1]
        else:
            pattern = pattern or re.compile(r"\b" + re.escape(word))
            hit = word in text and pattern.search(text) is not None  # `in` first: C speed
            _MENTIONS[(word, path)] = (text, hit)
        if hit:
            found[path] = text
    return found


@functools.lru_cache(maxsize=4)
def yaml_index(text: str) -> nf.NativeIndex:
    """The index of a planned native_functions.yaml text, remembered per text (an edit makes a new
    text, hence a new index): a group plan asks about the same text for its repeats check, each op
    and each re-check.  A text that does not parse as YAML is refused (file:line, the parser's reason)."""
    from mpsgen.lint.yaml_check import check_yaml_syntax

    check_yaml_syntax(text, YAML_REL)
    return nf.index_text(text, YAML_REL)
