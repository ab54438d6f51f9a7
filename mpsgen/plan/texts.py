"""The planned texts a planner reads: every file through the changeset, filtered cheaply by a word."""

from __future__ import annotations

import re
from pathlib import Path

from mpsgen.tree.changeset import Changeset
from mpsgen.tree.checkout import Checkout


def planned_texts(cs: Changeset, paths: list[Path], checkout: Checkout) -> dict[str, str]:
    """{checkout-relative path: current planned text} for existing files."""
    return {cs.rel(p): cs.current(p) for p in paths}


def original_texts(cs: Changeset, paths: list[Path]) -> dict[str, str]:
    """{checkout-relative path: text as read} for existing files."""
    return {cs.rel(p): cs.original(p) for p in paths}


def mentioning(texts: dict[str, str], word: str) -> dict[str, str]:
    """Only the texts that mention *word* as an identifier prefix: a cheap filter before scanning."""
    pattern = re.compile(r"\b" + re.escape(word))
    return {p: t for p, t in texts.items() if word in t and pattern.search(t)}  # `in` first: C speed
