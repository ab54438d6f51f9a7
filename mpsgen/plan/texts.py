"""The planned texts a planner reads: every file through the changeset, filtered cheaply by a word."""

from __future__ import annotations

import functools
import weakref
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from mpsgen.records import NamedTuple
from mpsgen.scan import words
from mpsgen.sources.native_yaml import names as nf
from mpsgen.tree.changeset import Changeset
from mpsgen.tree.checkout import YAML_REL, Checkout, listed_in

if TYPE_CHECKING:
    from mpsgen.sources.capabilities import Capabilities, Source


_LISTINGS: weakref.WeakKeyDictionary[Changeset, dict[str, list[Path]]] = weakref.WeakKeyDictionary()
_SOURCES: weakref.WeakKeyDictionary[Changeset, Source] = weakref.WeakKeyDictionary()
_CAPABILITIES: weakref.WeakKeyDictionary[Changeset, Capabilities] = weakref.WeakKeyDictionary()


class TextEdit(NamedTuple):
    """One new text a phase plans for a file, and why (the changeset's reasons, in order)."""

    path: str
    text: str
    whys: tuple[str, ...]


class Draft:
    """The texts one phase plans, over the changeset's: the phase reads its own edits back by path, and
    returns them (`edits`) in its record for the planner to apply; the changeset itself is not touched."""

    def __init__(self, cs: Changeset) -> None:
        self.cs = cs
        self._texts: dict[str, TextEdit] = {}

    def current(self, path: str) -> str:
        edit = self._texts.get(self.cs.rel(path))
        return edit.text if edit is not None else self.cs.current(path)

    def exists(self, path: str) -> bool:
        rel = self.cs.rel(path)
        return rel in self._texts or self.cs.exists(rel)

    def set_text(self, path: str, text: str, why: str) -> None:
        rel = self.cs.rel(path)
        whys = self._texts[rel].whys if rel in self._texts else ()
        self._texts[rel] = TextEdit(rel, text, whys if why in whys else (*whys, why))

    @property
    def edits(self) -> tuple[TextEdit, ...]:
        return tuple(self._texts.values())


def apply_edits(cs: Changeset, edits: tuple[TextEdit, ...]) -> None:
    """The planner's one way of putting a phase's texts into the changeset."""
    for edit in edits:
        for why in edit.whys:
            cs.set_text(edit.path, edit.text, why)


def folder_files(cs: Changeset, folder: str) -> list[Path]:
    """The files of the listing *folder* (tree/checkout.LISTINGS: mm_files, metal_files, native_sources, ...)
    in the plan's tree, sorted: the disk's, globbed once per changeset (a plan lists the same folders several
    times), and those the disk lacks: a stacked commit's (`--stack`: an earlier family created them) and
    those this plan creates."""
    memo = _LISTINGS.setdefault(cs, {})
    paths = memo.get(folder)
    if paths is None:
        paths = memo[folder] = cs.checkout.listing(folder)
    more = [rel for rel in cs.beyond_disk if listed_in(folder, rel)]
    if not more:
        return paths
    return sorted({*paths, *(cs.checkout.path(rel) for rel in more)})


def planned_texts(cs: Changeset, paths: list[Path], checkout: Checkout) -> dict[str, str]:
    """{checkout-relative path: current planned text} for existing files."""
    return {cs.rel(p): cs.current(p) for p in paths}


def capabilities(cs: Changeset) -> Capabilities:
    """What the checkout can do (sources/capabilities), as the changeset's planned texts say: read once,
    and again only after an edit changed a text it was read from (a host API form the change adds)."""
    from mpsgen.sources.capabilities import Capabilities, Source

    source = _SOURCES.get(cs)
    if source is None:
        read, exists = _reader(cs)
        source = _SOURCES[cs] = Source(read=read, exists=exists,
                                       c10_headers=tuple(cs.rel(p) for p in folder_files(cs, "c10_metal_headers")))
    caps = _CAPABILITIES.get(cs)
    if caps is None or not caps.is_current(source):
        caps = _CAPABILITIES[cs] = Capabilities(source)
    return caps


def _reader(cs: Changeset) -> tuple[Callable[[str], str], Callable[[str], bool]]:
    """cs.current and cs.exists without holding *cs* (the memos above are keyed by it, weakly)."""
    ref = weakref.ref(cs)

    def live() -> Changeset:
        found = ref()
        assert found is not None, "capabilities asked after their changeset"
        return found

    return (lambda rel: live().current(rel)), (lambda rel: live().exists(rel))


def original_texts(cs: Changeset, paths: list[Path]) -> dict[str, str]:
    """{checkout-relative path: text as read} for existing files (a file this plan creates has none)."""
    return {cs.rel(p): cs.original(p) for p in paths if not cs.is_new(p)}


# (word, path) -> (the text searched, whether it mentions the word).  A plan asks the same question of
# the same unchanged texts more than once (the stub's files while planning, then while guarding its edits:
# ~4 ms each over native/*.cpp); a text is immutable, so the same object gives the same answer.
_MENTIONS: dict[tuple[str, str], tuple[str, bool]] = {}


def mentioning(texts: dict[str, str], word: str) -> dict[str, str]:
    """Only the texts that mention *word* as an identifier prefix: a cheap filter before scanning."""
    found = {}
    for path, text in texts.items():
        seen = _MENTIONS.get((word, path))
        if seen is not None and seen[0] is text:
            hit = seen[1]
        else:
            hit = words.mentions(text, word)
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
