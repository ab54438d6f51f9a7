"""native_functions.yaml scanned line by line: where each entry is, its fields, its family.

The file is scanned instead of being parsed with a YAML library: the real file takes seconds to
round-trip through ruamel, a scan takes milliseconds, and every fact keeps its exact line number.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field
from functools import cached_property
from typing import Mapping

from mpsgen.errors import MpsgenError
from mpsgen.sources.native_yaml.facts import DEFAULT_PATH, DISPATCH_LINE, DispatchLine, Entry, EntryHead, Family, family_key
from mpsgen.tree.checkout import newline_of

_FUNC = re.compile(r"-[ \t]+func:[ \t]*(.*?)\r?$")
# Searched from the newline before it (a literal prefix is far faster than `^` with re.M).
_FUNC_HEAD = re.compile(r"\n-[ \t]+func:[ \t]*['\"]?([\w.]+)")
_FIELD = re.compile(r"  ([A-Za-z_][A-Za-z0-9_]*):(?=\s|$)(.*)$")


@dataclass(frozen=True)
class NativeIndex:
    """All entries of one text.  Entries are parsed on first use, so a family lookup stays cheap."""

    path: str
    text: str = field(repr=False)
    newline: str
    heads: tuple[EntryHead, ...]

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
    def _parsed(self) -> dict[int, Entry]:
        return {}

    @cached_property
    def by_name(self) -> dict[str, EntryHead]:
        return {h.name: h for h in self.heads}

    @cached_property
    def _families(self) -> dict[str, tuple[EntryHead, ...]]:
        groups: dict[str, list[EntryHead]] = {}
        for h in self.heads:
            groups.setdefault(family_key(h.name.partition(".")[0]), []).append(h)
        return {k: tuple(v) for k, v in groups.items()}

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
        return Family(key, tuple(self.parse(h) for h in self._families[key]))

    def resolve_family_name(self, name: str) -> str:
        typed = name.strip()
        for prefix in ("torch.", "aten::", "aten."):
            if typed.startswith(prefix):
                typed = typed[len(prefix) :]
        candidates = [typed, family_key(typed)]
        if "." in typed:
            candidates += [typed.replace(".", "_"), family_key(typed.split(".", 1)[0])]
        for c in candidates:
            if c in self._families:
                return c
        raise MpsgenError(
            f"no op family named {name!r} in native_functions.yaml", path=self.path, hint=_closest(typed, self._families)
        )


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
    if not dot or typed.replace(".", "_") in index._families:
        return index.family(name)
    family = index.family(base)  # `special.log_ndtr.out`: the family special_log_ndtr
    names = [e.name for e in family.entries]
    if typed not in names:
        typed = f"{family.name}.{overload}"
    if typed not in names:
        named = [n for n in names if "." in n]
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
    close = difflib.get_close_matches(name, list(names), n=5, cutoff=0.6)
    return "closest names: " + ", ".join(close) if close else "check the spelling against native_functions.yaml"



# --------------------------------------------------------------------------------------
# Scanner
# --------------------------------------------------------------------------------------
def _strip_comment(value: str) -> str:
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


class _Builder:
    __slots__ = ("func", "line", "end", "fields", "tags", "dispatch_line", "dispatch", "odd")

    def __init__(self, func: str, line: int) -> None:
        self.func = func
        self.line = line
        self.end = line
        self.fields: dict[str, str] = {}
        self.tags: list[str] = []
        self.dispatch_line: int | None = None
        self.dispatch: list[DispatchLine] = []
        self.odd: list[int] = []

    def build(self) -> Entry:
        name = self.func.split("(", 1)[0].strip()
        base, _, overload = name.partition(".")
        f = self.fields
        return Entry(
            func=self.func,
            name=name,
            base=base,
            overload=overload,
            line=self.line,
            end_line=self.end,
            structured=f.get("structured", "").lower() == "true",
            structured_inherits=f.get("structured_inherits") or None,
            structured_delegate=f.get("structured_delegate") or None,
            tags=tuple(self.tags),
            dispatch_line=self.dispatch_line,
            dispatch=tuple(self.dispatch),
            odd_lines=tuple(self.odd),
        )


def _split_tags(value: str) -> list[str]:
    if value.startswith("[") and value.endswith("]"):
        value = value[1:-1]
    return [t.strip() for t in value.split(",") if t.strip()]


def index_text(text: str, path: str = DEFAULT_PATH) -> NativeIndex:
    """Index native_functions.yaml from its text: where each entry is (details parsed on demand)."""
    found = [(m.start() + 1, m.group(1)) for m in _FUNC_HEAD.finditer("\n" + text)]
    heads: list[EntryHead] = []
    line, pos = 1, 0
    for i, (start, name) in enumerate(found):
        start -= 1  # the search ran on "\n" + text
        line += text.count("\n", pos, start)
        pos = start
        end = found[i + 1][0] - 1 if i + 1 < len(found) else len(text)
        heads.append(EntryHead(name, line, start, end))
    return NativeIndex(path=str(path), text=text, newline=newline_of(text), heads=tuple(heads))


def _parse_entry(text: str, head: EntryHead) -> Entry:
    """Scan one entry line by line (its `- func:` line up to the next entry)."""
    chunk = text[head.start : head.end]
    cur: _Builder | None = None
    block: str | None = None  # the field whose block we are inside (`dispatch`, `tags`, ...)
    offset = head.start
    for number, raw in enumerate(chunk.split("\n"), head.line):
        start, offset = offset, offset + len(raw) + 1
        line = raw[:-1] if raw.endswith("\r") else raw
        stripped = line.lstrip()
        if not stripped:
            continue  # blank lines never end a block
        if stripped[0] == "#":
            if cur is not None and line[0] in " \t":
                cur.end = number  # an indented comment belongs to the entry; one at column 0 does not
            continue
        if cur is None:
            m = _FUNC.match(line)
            assert m is not None  # heads start at a `- func:` line
            cur = _Builder(_unquote(_strip_comment(m.group(1))), number)
            continue
        cur.end = number
        indent = len(line) - len(stripped)
        if indent < 2:
            cur.odd.append(number)  # not part of any field we know
            continue
        if indent == 2:
            m = _FIELD.match(line)
            if m is not None:
                key, value = m.group(1), _strip_comment(m.group(2))
                block = key if value == "" else None
                if key == "dispatch":
                    cur.dispatch_line = number
                    if value not in ("", "{}"):
                        cur.odd.append(number)  # flow-style dispatch with keys
                elif key == "tags":
                    cur.tags.extend(_split_tags(value))
                else:
                    cur.fields[key] = value
                continue
        # A line inside the current field's block.
        if block == "dispatch":
            m = DISPATCH_LINE.match(line)
            if m is None:
                cur.odd.append(number)
            else:
                keys = tuple(k.strip() for k in m.group(2).split(","))
                cur.dispatch.append(DispatchLine(number, keys, m.group(3), line, start))
        elif block == "tags" and stripped.startswith("- "):
            cur.tags.append(_strip_comment(stripped[2:]))
    assert cur is not None
    return cur.build()
