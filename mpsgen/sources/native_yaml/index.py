"""native_functions.yaml scanned line by line: where each entry is, its fields, its family.

The file is scanned instead of being parsed with a YAML library: the real file takes seconds to
round-trip through ruamel, a scan takes milliseconds, and every fact keeps its exact line number.
"""

from __future__ import annotations

import re
from functools import cached_property
from itertools import accumulate, compress, count, repeat
from typing import Mapping

from mpsgen.errors import MpsgenError
from mpsgen.sources.native_yaml.facts import DEFAULT_PATH, DISPATCH_LINE, DispatchLine, Entry, EntryHead, Family, family_key
from mpsgen.tree.checkout import newline_of

# The signature after `- func:` (a `\r` left at its end is whitespace the comment strip removes; the lazy
# `(.*?)\r?$` that left it out tried the end at every character of the 100-character line).
_FUNC = re.compile(r"-[ \t]+func:[ \t]*(.*)")
# Split on from the newline before it (a literal prefix is far faster than `^` with re.M); the
# split, not finditer, because it makes no match object per entry.
_HEAD_SPLIT = re.compile(r"(\n-[ \t]+func:[ \t]*['\"]?)([\w.]+)")
_FIELD = re.compile(r"  ([A-Za-z_][A-Za-z0-9_]*):(?=\s|$)(.*)$")
# A named tuple's own __new__ is a Python function; this is what it calls (thousands of heads, entries
# and dispatch lines are made per index).
_new_tuple = tuple.__new__
_PLUS_ONE = (1).__add__  # a line's length with its "\n"
# One family found without splitting the text: its key's occurrences that start a head's name.
_HEAD_PREFIX = re.compile(r"-[ \t]+func:[ \t]*['\"]?")
_NAME = re.compile(r"[\w.]+")
_WORD = re.compile(r"\w+")
_NEXT_HEAD = re.compile(r"\n-[ \t]+func:[ \t]*['\"]?[\w.]")
_NAME_AFTER = frozenset(" \t:'\"")  # the characters a head's name can follow
_MAX_MISSES = 200  # a key spelled that often after a space outside head names (`t`): splitting the text is cheaper


class NativeIndex:
    """All entries of one text, found on first use: `migrate` asks for one family, found by
    searching the text for its name (~0.5 ms on the real yaml); `status` and `check` ask for
    every entry, found in one split of the text.  Line numbers, heads, families and entries are
    made as they are asked for."""

    def __init__(self, path: str, text: str) -> None:
        self.path = path
        self.text = text
        self._parsed: dict[int, Entry] = {}
        self._one_family: dict[str, tuple[EntryHead, ...]] = {}

    def __repr__(self) -> str:
        return f"NativeIndex(path={self.path!r})"

    @cached_property
    def newline(self) -> str:
        return newline_of(self.text)

    @cached_property
    def _scan(self) -> tuple[list[str], list[int]]:
        """Every entry's name and the offset of its `- func:` line."""
        # [before, head prefix, name, rest, head prefix, name, rest, ...] of "\n" + text: a head
        # prefix starts at the newline before its `-`, which is the `-`'s offset in text itself.
        parts = _HEAD_SPLIT.split("\n" + self.text)
        offsets = list(accumulate(map(len, parts), initial=0))
        return parts[2::3], offsets[1:-1:3]

    @cached_property
    def _lines(self) -> list[int]:
        starts = self._scan[1]
        counts = map(self.text.count, repeat("\n"), [0, *starts[:-1]], starts)  # C loops: one pass over the text
        return list(accumulate(counts, initial=1))[1:]

    @cached_property
    def heads(self) -> tuple[EntryHead, ...]:
        names, starts = self._scan
        ends = [*starts[1:], len(self.text)]
        return tuple(map(_new_tuple, repeat(EntryHead), zip(names, self._lines, starts, ends)))

    @property
    def names(self) -> list[str]:
        """Every entry's name, in the file's order (no head made)."""
        return self._scan[0]

    @property
    def starts(self) -> list[int]:
        """The offset of every entry's `- func:` line, in the file's order (no head made)."""
        return self._scan[1]

    def heads_at(self, indices: list[int]) -> tuple[EntryHead, ...]:
        """The heads of the entries at these (increasing) positions, counting lines only up to the last."""
        if "_lines" in self.__dict__:
            return tuple(self.heads[i] for i in indices)
        (names, starts), text = self._scan, self.text
        at = [starts[i] for i in indices]
        lines = accumulate(map(text.count, repeat("\n"), [0, *at[:-1]], at), initial=1)  # C loops, as _lines
        next(lines)
        ends = [starts[i + 1] if i + 1 < len(starts) else len(text) for i in indices]
        return tuple(map(_new_tuple, repeat(EntryHead), zip([names[i] for i in indices], lines, at, ends)))

    def _search_family(self, key: str) -> tuple[EntryHead, ...] | None:
        """The heads of family *key*, found where its key starts a head's name (None: split the text instead)."""
        if not key:
            return None
        if not _WORD.fullmatch(key):
            return ()  # a family's key is the part of a [\w.]+ name before its first dot
        text, find = self.text, self.text.find
        heads: list[EntryHead] = []
        line, counted, misses = 1, 0, 0
        pos = find(key, 1)  # a name follows `- func:`, so never starts the text
        while pos >= 0:
            if text[pos - 1] in _NAME_AFTER:
                start = text.rfind("\n", 0, pos) + 1
                if _HEAD_PREFIX.fullmatch(text, start, pos):  # then the name starts at pos, as _HEAD_SPLIT reads it
                    name = _NAME.match(text, pos).group()  # type: ignore[union-attr]  # key is a \w+ word
                    if _family_of(name) == key:
                        line, counted = line + text.count("\n", counted, start), start
                        after = _NEXT_HEAD.search(text, pos)
                        heads.append(EntryHead(name, line, start, len(text) if after is None else after.start() + 1))
                        pos = find(key, pos + 1)
                        continue
                misses += 1
                if misses > _MAX_MISSES:
                    return None
            pos = find(key, pos + 1)
        return tuple(heads)

    def _family_heads(self, key: str) -> tuple[EntryHead, ...]:
        """The heads of family *key* (empty: no such family), without grouping every entry."""
        if "_families" in self.__dict__:
            return self._families.get(key, ())
        heads = self._one_family.get(key)
        if heads is None and "_scan" not in self.__dict__:
            heads = self._search_family(key)
        if heads is None:
            names = self._scan[0]
            # A family's names start with its key: a C-speed prefix test rejects nearly all others.
            near = compress(count(), map(str.startswith, names, repeat(key)))
            heads = self.heads_at([i for i in near if _family_of(names[i]) == key])
        self._one_family[key] = heads
        return heads

    @cached_property
    def entries(self) -> tuple[Entry, ...]:
        return tuple(self.parse(h) for h in self.heads)

    def parse(self, head: EntryHead) -> Entry:
        cache = self._parsed
        entry = cache.get(head.line)
        if entry is None:
            entry = cache[head.line] = _parse_entry(self.text, head)
        return entry

    @cached_property
    def by_name(self) -> dict[str, EntryHead]:
        return dict(zip(self._scan[0], self.heads))

    @cached_property
    def _families(self) -> dict[str, tuple[EntryHead, ...]]:
        groups: dict[str, list[EntryHead]] = {}
        for key, head in zip(map(_family_of, self._scan[0]), self.heads):
            groups.setdefault(key, []).append(head)
        return {k: tuple(v) for k, v in groups.items()}

    def family_names(self) -> frozenset[str]:
        """Every family's name (each is the root of an ATen/ops/<name>_native.h)."""
        return frozenset(self._families)

    def has_family(self, key: str) -> bool:
        return bool(self._family_heads(key))

    def entry(self, name: str) -> Entry:
        try:
            return self.parse(self.by_name[name])
        except KeyError:
            raise MpsgenError(f"no entry named {name!r}", path=self.path, hint=_closest(name, self.by_name)) from None

    def families(self) -> dict[str, Family]:
        """Every family of the file, by name (for `status` and `check`)."""
        return {k: Family(k, tuple(self.parse(h) for h in v)) for k, v in self._families.items()}

    def family(self, name: str) -> Family:
        """The family of a name the user typed (`pow`, `logical_xor_`, `special.log_ndtr`, `torch.atan2`)."""
        key = self.resolve_family_name(name)
        return Family(key, tuple(self.parse(h) for h in self._family_heads(key)))

    def resolve_family_name(self, name: str) -> str:
        typed = name.strip()
        for prefix in ("torch.", "aten::", "aten."):
            if typed.startswith(prefix):
                typed = typed[len(prefix) :]
        candidates = [typed, family_key(typed)]
        if "." in typed:
            candidates += [typed.replace(".", "_"), family_key(typed.split(".", 1)[0])]
        for c in candidates:
            if self.has_family(c):
                return c
        raise MpsgenError(
            f"no op family named {name!r} in native_functions.yaml", path=self.path, hint=_closest(typed, self._families)
        )


def _family_of(name: str) -> str:
    return family_key(name.partition(".")[0])


def select_overloads(index: NativeIndex, name: str) -> Family:
    """The family a name the user typed stands for; `OP.OVERLOAD` selects one overload only.

    The selection is the named entry, the `.out` entry it delegates to, and the entries that
    delegate to either (`pow.Tensor_Tensor` brings `pow.Tensor_Tensor_out` and `pow_.Tensor`).
    A dot may also be a namespace (`special.log_ndtr`): a family of that name wins.
    """
    typed = name.strip()
    for prefix in ("torch.", "aten::", "aten."):
        typed = typed.removeprefix(prefix)
    base, dot, overload = typed.rpartition(".")
    if not dot or index.has_family(typed.replace(".", "_")):
        return index.family(name)
    family = index.family(base)  # `special.log_ndtr.out`: the family special_log_ndtr
    names = [e.name for e in family.entries]
    if typed not in names:
        typed = f"{family.name}.{overload}"
    if typed not in names:
        named = [n for n in names if "." in n]
        import difflib  # only for an error's hint

        close = difflib.get_close_matches(typed, named, n=5, cutoff=0.6)
        raise MpsgenError(
            f"{family.name} has no overload {overload!r}", path=index.path, line=family.entries[0].line,
            hint=("closest names: " if close else "its overloads: ") + ", ".join(close or named[:12]),
        )
    chosen = {typed}
    for e in family.entries:
        if e.name == typed and e.structured_delegate:
            chosen.add(e.structured_delegate)
    chosen |= {e.name for e in family.entries if e.structured_delegate in chosen}
    selected = tuple(e for e in family.entries if e.name in chosen)
    if len(selected) == len(family.entries):
        return family
    return Family(family.name, selected, partial=True)


def _closest(name: str, names: Mapping[str, object] | dict) -> str:
    import difflib  # only for an error's hint

    close = difflib.get_close_matches(name, list(names), n=5, cutoff=0.6)
    return "closest names: " + ", ".join(close) if close else "check the spelling against native_functions.yaml"



# --------------------------------------------------------------------------------------
# Scanner
# --------------------------------------------------------------------------------------
def _strip_comment(value: str) -> str:
    if "#" not in value:
        return value.strip()  # what the rest does to a value without a comment
    value = value.strip()
    if value.startswith("#"):
        return ""
    cut = value.find(" #")
    if cut < 0:
        cut = value.find("\t#")
    return (value[:cut] if cut >= 0 else value).strip()


def _unquote(value: str) -> str:
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
        return value[1:-1]
    return value


def _split_tags(value: str) -> list[str]:
    if value.startswith("[") and value.endswith("]"):
        value = value[1:-1]
    return [t.strip() for t in value.split(",") if t.strip()]


def index_text(text: str, path: str = DEFAULT_PATH) -> NativeIndex:
    """Index native_functions.yaml from its text: where each entry is (found and parsed on demand)."""
    return NativeIndex(str(path), text)


def _parse_entry(text: str, head: EntryHead) -> Entry:
    """Scan one entry line by line (its `- func:` line up to the next entry)."""
    block_text = text[head.start : head.end]
    raws = block_text.split("\n")
    # Each line's offset in the text, and the lines without a `\r` at their end, made in C loops.
    offsets = list(accumulate(map(_PLUS_ONE, map(len, raws)), initial=head.start))
    lines = [r[:-1] if r.endswith("\r") else r for r in raws] if "\r" in block_text else raws
    m = _FUNC.match(lines[0])
    assert m is not None  # heads start at a `- func:` line
    func = _unquote(_strip_comment(m.group(1)))
    end = 0  # the entry's last line, counted from its first
    fields: dict[str, str] = {}
    tags: list[str] = []
    dispatch_line: int | None = None
    dispatch: list[DispatchLine] = []
    odd: list[int] = []
    block: str | None = None  # the field whose block we are inside (`dispatch`, `tags`, ...)
    first = head.line
    for k in range(1, len(lines)):
        line = lines[k]
        if not line:
            continue  # (most blank lines: the one after the entry and the empty one after its last "\n")
        stripped = line.lstrip()
        if not stripped:
            continue  # blank lines never end a block
        if stripped[0] == "#":
            if line[0] in " \t":
                end = k  # an indented comment belongs to the entry; one at column 0 does not
            continue
        end = k
        indent = len(line) - len(stripped)
        if indent == 2:
            field = _FIELDS.get(line)
            if field is None:
                field = _FIELDS[line] = _field(line)
            if field:
                key, value = field
                block = key if value == "" else None
                if key == "dispatch":
                    dispatch_line = first + k
                    if value not in ("", "{}"):
                        odd.append(first + k)  # flow-style dispatch with keys
                elif key == "tags":
                    tags.extend(_split_tags(value))
                else:
                    fields[key] = value
                continue
        elif indent < 2:
            odd.append(first + k)  # not part of any field we know
            continue
        # A line inside the current field's block.
        if block == "dispatch":
            m = DISPATCH_LINE.match(line)
            if m is None:
                odd.append(first + k)
            else:
                written, kernel = m.group(2, 3)
                keys = _KEYS.get(written)
                if keys is None:
                    keys = _KEYS[written] = tuple(map(str.strip, written.split(",")))
                dispatch.append(_new_tuple(DispatchLine, (first + k, keys, kernel, line, offsets[k])))
        elif block == "tags" and stripped.startswith("- "):
            tags.append(_strip_comment(stripped[2:]))
    name = func.split("(", 1)[0].strip()
    base, _, overload = name.partition(".")
    return _new_tuple(Entry, (
        func, name, base, overload, first, first + end,
        fields.get("structured", "").lower() == "true",
        fields.get("structured_inherits") or None,
        fields.get("structured_delegate") or None,
        tuple(tags), dispatch_line, tuple(dispatch), tuple(odd),
    ))


# A dispatch line's keys by their text as written (a yaml spells a few dozen: `CPU, CUDA`, `MPS`, ...).
_KEYS: dict[str, tuple[str, ...]] = {}


def _field(line: str) -> tuple[str, str] | tuple[()]:
    """A field line's key and value (its comment stripped); () for a line at column 2 that is no field."""
    m = _FIELD.match(line)
    if m is None:
        return ()
    key, value = m.group(1, 2)
    return key, value.strip() if "#" not in value else _strip_comment(value)


# Each line at column 2 read once: most fields are spelled alike by many entries (`  dispatch:`,
# `  variants: function`, `  structured: True`, `  device_check: NoCheck   # TensorIterator`).
_FIELDS: dict[str, tuple[str, str] | tuple[()]] = {}
