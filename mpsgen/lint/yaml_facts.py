"""What `check` and `status` need of native_functions.yaml: the entries with a CPU, CUDA or MPS
dispatch line, grouped by family, and the MPS ones parsed (a value the fact store keeps)."""

from __future__ import annotations

import re
from bisect import bisect_right
from itertools import accumulate, chain, repeat
from operator import itemgetter
from typing import TYPE_CHECKING, Any

from mpsgen.records import NamedTuple
from mpsgen.sources.native_yaml.facts import DispatchLine, Entry, EntryHead, family_key

if TYPE_CHECKING:  # the index is built only when the yaml's facts are not in the store
    from mpsgen.sources.native_yaml.index import NativeIndex

class YamlFacts(NamedTuple):
    family_heads: dict[str, tuple[EntryHead, ...]]  # entries with a CPU, CUDA or MPS line, by family
    composite_only: int  # families with no CPU, CUDA or MPS line (they run on MPS by decomposition)
    mps_entries: tuple[Entry, ...]  # every entry with a dispatch line keyed MPS (SparseMPS is another key), parsed
    yaml_kernels: frozenset[str]  # every kernel named by an MPS-ish (MPS, SparseMPS, ...), CPU or CUDA line
    empty_dispatch: tuple[tuple[str, int], ...]  # (entry name, line) of each `dispatch:` with no keyed line under it

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        """Pickled (the fact store keeps this value) as columns: pickle reduces each head, entry and dispatch
        line with Python calls, a column of str or int it writes and reads in C."""
        groups, entries = self.family_heads, self.mps_entries
        dispatch = [e.dispatch for e in entries]
        return _rebuilt, (tuple(groups), list(map(len, groups.values())), _columns(chain.from_iterable(groups.values())),
                          self.composite_only, _columns(e[:-2] for e in entries), list(map(len, dispatch)),
                          _columns(chain.from_iterable(dispatch)), [e.odd_lines for e in entries],
                          list(map(_state, entries)), self.yaml_kernels, self.empty_dispatch)


def _columns(records: Any) -> list[tuple[Any, ...]]:
    return list(zip(*records))


def _state(entry: Entry) -> dict[str, Any]:
    """The entry's cached properties (check computes them before the store is written), its MPS lines
    as positions in its dispatch."""
    state = entry.__dict__
    lines = state.get("mps_lines")
    return state if lines is None else {**state, "mps_lines": tuple(map(entry.dispatch.index, lines))}


def _rebuilt(families: tuple[str, ...], sizes: list[int], heads: list[tuple[Any, ...]], composite_only: int,
             entries: list[tuple[Any, ...]], dispatch_sizes: list[int], dispatch: list[tuple[Any, ...]],
             odd_lines: list[tuple[int, ...]], states: list[dict[str, Any]], yaml_kernels: frozenset[str],
             empty_dispatch: tuple[tuple[str, int], ...]) -> YamlFacts:
    """The YamlFacts YamlFacts.__reduce__ wrote, its records made in C loops."""
    lines = _grouped(tuple(map(_new_tuple, repeat(DispatchLine), zip(*dispatch))), dispatch_sizes)
    mps_entries = tuple(map(_new_tuple, repeat(Entry), zip(*entries, lines, odd_lines)))
    for entry, state in zip(mps_entries, states):
        if state:
            positions = state.get("mps_lines")
            if positions is not None:
                state["mps_lines"] = tuple(map(entry.dispatch.__getitem__, positions))
            entry.__dict__.update(state)
    return YamlFacts(dict(zip(families, _grouped(tuple(map(_new_tuple, repeat(EntryHead), zip(*heads))), sizes))),
                     composite_only, mps_entries, yaml_kernels, empty_dispatch)


def _grouped(records: tuple[Any, ...], sizes: list[int]) -> list[tuple[Any, ...]]:
    """*records* cut into consecutive groups of these sizes."""
    ends = list(accumulate(sizes))
    return list(map(records.__getitem__, map(slice, [0, *ends[:-1]], ends)))


_new_tuple = tuple.__new__  # what a named tuple's own (Python) __new__ calls


_DISPATCH_PREFIX = re.compile(r"[ \t]+(?:[A-Za-z]\w*[ \t]*,[ \t]*)*[A-Za-z]*")  # indent and the keys before the match
_TAIL = r"[\w, \t]*:[ \t]+([A-Za-z_][\w:]*)"  # the keys after the word, and the kernel
# The word's line from the word on, searched for: CPU and CUDA in one search, which opens with a literal
# too (the engine skips to it in C).
_LINE_OF_WORD = {"MPS": re.compile("MPS" + _TAIL), "CPU": re.compile("C(?:PU|UDA)" + _TAIL)}
_LINE_OF_WORD["CUDA"] = _LINE_OF_WORD["CPU"]
_BACKENDS = frozenset(_LINE_OF_WORD)


def dispatch_hits(index: NativeIndex) -> list[tuple[int, tuple[str, ...], str]]:
    """(head index, keys, kernel) of every dispatch line naming CPU, CUDA or an *MPS key.

    A line is one when, for one of the words, the first `WORD...: kernel` on the line follows a
    dispatch line's indent and keys.  Found with literal-prefix regexes over the whole text (a
    few ms) instead of parsing all 2,584 entries of the real yaml; only entries with an MPS line
    are parsed afterwards.
    """
    text, starts = index.text, index.starts
    judged: set[int] = set()
    hits = []
    keys_of: dict[str, tuple[str, ...]] = {}  # a line's keys by its text up to the kernel (few distinct: ~100)
    # CPU and CUDA first: on most lines (`    CPU, CUDA, MPS: k`) the word found first follows the indent alone.
    for search in (_LINE_OF_WORD["CPU"], _LINE_OF_WORD["MPS"]):
        for found in search.finditer(text):
            start = found.start()
            line_start = text.rfind("\n", 0, start) + 1
            if line_start in judged:
                continue
            judged.add(line_start)
            # What a search finds first on a line is its word's first there; when keys do not precede it
            # (`A1CPU, CUDA: k`), another word may still make the line one: each is then judged alone.
            before = text[line_start:start]
            indent_alone = bool(before) and not before.strip(" \t")  # what the prefix pattern passes, tested faster
            m = found if indent_alone or _DISPATCH_PREFIX.fullmatch(before) else _first_word_hit(text, line_start)
            if m is None:
                continue
            written = text[line_start : m.start(1)]
            keys = keys_of.get(written)
            if keys is None:
                keys = keys_of[written] = tuple(map(str.strip, written.rstrip(" \t:").split(",")))
            hits.append((bisect_right(starts, line_start) - 1, keys, m.group(1)))
    return hits


def _first_word_hit(text: str, line_start: int) -> re.Match[str] | None:
    """The `WORD...: kernel` of one of the words on the line that follows a dispatch line's indent and
    keys, judged at each word's first spelling: when no `...: kernel` follows it, or keys do not
    precede it, none of its later ones on the line is preceded by keys."""
    end = text.find("\n", line_start)
    end = len(text) if end < 0 else end
    for word, line_of_word in _LINE_OF_WORD.items():
        k = text.find(word, line_start, end)
        m = line_of_word.match(text, k, end) if k >= 0 else None
        if m is not None and _DISPATCH_PREFIX.fullmatch(text, line_start, k):
            return m
    return None


def yaml_facts(index: NativeIndex) -> YamlFacts:
    hits = dispatch_hits(index)
    names = index.names
    # The family of each base name, found once per base (an op's overloads share theirs).
    family_of = {base: family_key(base) for base in {name.partition(".")[0] for name in names}}
    wanted = sorted({i for i, keys, _ in hits if i >= 0 and not _BACKENDS.isdisjoint(keys)})
    heads = dict(zip(wanted, index.heads_at(wanted)))  # only theirs are made (941 of the real yaml's 2,665)
    groups: dict[str, list[EntryHead]] = {}
    for head in heads.values():
        groups.setdefault(family_of[head.name.partition(".")[0]], []).append(head)
    mps = sorted({i for i, keys, _ in hits if i >= 0 and "MPS" in keys})  # a key MPS is a backend: among wanted
    kernels = map(itemgetter(2), hits)
    return YamlFacts(
        family_heads={k: tuple(v) for k, v in groups.items()},
        composite_only=len(set(family_of.values()) - groups.keys()),
        mps_entries=tuple(index.parse(heads[i]) for i in mps),
        yaml_kernels=frozenset(map(itemgetter(2), map(str.rpartition, kernels, repeat("::")))),  # each without its namespace
        empty_dispatch=empty_dispatch(index),
    )


# A block-style `dispatch:` (a flow `dispatch: {}` is deliberate) followed, after any comment lines, by
# a line that is not indented under it: the next field, the blank line between entries, the end.
# Opening with `dispatch:`, its indent and the line start tested behind it, so the engine skips to
# its `d` in C (to the `  ` it opened with, at every space of the text, 2x slower).
_EMPTY_DISPATCH = re.compile(
    r"dispatch:(?<![^\n]  dispatch:)(?<=  dispatch:)[ \t]*(?:#[^\n]*)?\n(?:[ \t]*#[^\n]*\n)*+(?!   [ \t]*[^\s#])")


def empty_dispatch(index: NativeIndex) -> tuple[tuple[str, int], ...]:
    """(entry name, line) of each `dispatch:` with no `KEYS: kernel` line under it."""
    text = index.text
    found = []
    line, seen = 1, 0  # the line at offset *seen*
    for m in _EMPTY_DISPATCH.finditer(text):
        line += text.count("\n", seen, m.start())
        seen = m.start()
        found.append((index.names[bisect_right(index.starts, m.start()) - 1], line))
    return tuple(found)
