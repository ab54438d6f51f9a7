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
    # kernel -> (entry name, line, keys) of every dispatch line naming it (any key)
    kernel_lines: dict[str, tuple[tuple[str, int, tuple[str, ...]], ...]]
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
        **_dispatch_blocks(index),
    )


# A block-style `dispatch:` (a flow `dispatch: {}` names no kernel and is deliberate) and the lines
# under it: indented deeper than the entry's fields, or comments.
_DISPATCH_BLOCK = re.compile(r"^  dispatch:[ \t]*(?:#[^\n]*)?\n((?:(?:   [^\n]*|[ \t]*#[^\n]*)\n)*)", re.M)
_KEYED = re.compile(r"[ \t]+([A-Za-z][\w, \t]*?)[ \t]*:[ \t]+([A-Za-z_][\w:]*)")


def _dispatch_blocks(index: NativeIndex) -> dict:
    """kernel_lines and empty_dispatch, from one pass over the text's dispatch blocks."""
    text = index.text
    starts = [h.start for h in index.heads]
    kernel_lines: dict[str, list[tuple[str, int, tuple[str, ...]]]] = {}
    empty = []
    line, seen = 1, 0  # the line at offset *seen*
    for m in _DISPATCH_BLOCK.finditer(text):
        line += text.count("\n", seen, m.start())
        seen = m.start()
        name = index.heads[bisect_right(starts, m.start()) - 1].name
        keyed = 0
        for k, row in enumerate(m.group(1).split("\n")[:-1], start=1):
            hit = _KEYED.match(row)
            if hit and not row.lstrip().startswith("#"):
                keyed += 1
                keys = tuple(x.strip() for x in hit.group(1).split(","))
                kernel_lines.setdefault(hit.group(2).rsplit("::", 1)[-1], []).append((name, line + k, keys))
        if not keyed:
            empty.append((name, line))
    return {"kernel_lines": {k: tuple(v) for k, v in kernel_lines.items()}, "empty_dispatch": tuple(empty)}
