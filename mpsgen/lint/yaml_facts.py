"""What `check` and `status` need of native_functions.yaml: the entries with a CPU, CUDA or MPS
dispatch line, grouped by family, and the MPS ones parsed (a value the fact store keeps)."""

from __future__ import annotations

import re
from bisect import bisect_right
from typing import TYPE_CHECKING, NamedTuple

from mpsgen.sources.native_yaml.facts import Entry, EntryHead, family_key

if TYPE_CHECKING:  # the index is built only when the yaml's facts are not in the store
    from mpsgen.sources.native_yaml.index import NativeIndex

_DISPATCH_PREFIX = re.compile(r"[ \t]+(?:[A-Za-z]\w*[ \t]*,[ \t]*)*[A-Za-z]*")  # indent and the keys before the match
_BACKENDS = frozenset({"CPU", "CUDA", "MPS"})


class YamlFacts(NamedTuple):
    family_heads: dict[str, tuple[EntryHead, ...]]  # entries with a CPU, CUDA or MPS line, by family
    composite_only: int  # families with no CPU, CUDA or MPS line (they run on MPS by decomposition)
    mps_entries: tuple[Entry, ...]  # every entry with a dispatch line keyed MPS (SparseMPS is another key), parsed
    yaml_kernels: frozenset[str]  # every kernel named by an MPS-ish (MPS, SparseMPS, ...), CPU or CUDA line
    empty_dispatch: tuple[tuple[str, int], ...]  # (entry name, line) of each `dispatch:` with no keyed line under it


def dispatch_hits(index: NativeIndex) -> list[tuple[int, tuple[str, ...], str]]:
    """(head index, keys, kernel) of every dispatch line naming CPU, CUDA or an *MPS key.

    Found with literal-prefix regexes over the whole text (a few ms) instead of parsing all
    2,584 entries of the real yaml; only entries with an MPS line are parsed afterwards.
    """
    text = index.text
    starts = [h.start for h in index.heads]
    seen: set[int] = set()
    hits = []
    for word in ("MPS", "CPU", "CUDA"):
        for m in re.finditer(word + r"[\w, \t]*:[ \t]+([A-Za-z_][\w:]*)", text):
            line_start = text.rfind("\n", 0, m.start()) + 1
            if line_start in seen or not _DISPATCH_PREFIX.fullmatch(text, line_start, m.start()):
                continue
            seen.add(line_start)
            keys = tuple(k.strip() for k in text[line_start : m.start(1)].rstrip(" \t:").split(","))
            hits.append((bisect_right(starts, line_start) - 1, keys, m.group(1)))
    return hits


def yaml_facts(index: NativeIndex) -> YamlFacts:
    heads = index.heads
    hits = dispatch_hits(index)
    wanted = sorted({i for i, keys, _ in hits if i >= 0 and set(keys) & _BACKENDS})
    groups: dict[str, list[EntryHead]] = {}
    for i in wanted:
        groups.setdefault(family_key(heads[i].name.partition(".")[0]), []).append(heads[i])
    names = {family_key(h.name.partition(".")[0]) for h in heads}
    mps = sorted({i for i, keys, _ in hits if i >= 0 and "MPS" in keys})
    return YamlFacts(
        family_heads={k: tuple(v) for k, v in groups.items()},
        composite_only=len(names - groups.keys()),
        mps_entries=tuple(index.parse(heads[i]) for i in mps),
        yaml_kernels=frozenset(k.rsplit("::", 1)[-1] for _, _, k in hits),
        empty_dispatch=empty_dispatch(index),
    )


# A block-style `dispatch:` (a flow `dispatch: {}` is deliberate) followed, after any comment lines, by
# a line that is not indented under it: the next field, the blank line between entries, the end.
# Opening with its literal, the line start tested behind it, so the engine skips to it in C.
_EMPTY_DISPATCH = re.compile(r"  dispatch:(?<![^\n]  dispatch:)[ \t]*(?:#[^\n]*)?\n(?:[ \t]*#[^\n]*\n)*+(?!   [ \t]*[^\s#])")


def empty_dispatch(index: NativeIndex) -> tuple[tuple[str, int], ...]:
    """(entry name, line) of each `dispatch:` with no `KEYS: kernel` line under it."""
    text = index.text
    starts = [h.start for h in index.heads]
    found = []
    line, seen = 1, 0  # the line at offset *seen*
    for m in _EMPTY_DISPATCH.finditer(text):
        line += text.count("\n", seen, m.start())
        seen = m.start()
        found.append((index.heads[bisect_right(starts, m.start()) - 1].name, line))
    return tuple(found)
