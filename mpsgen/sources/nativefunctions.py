"""native_functions.yaml: a line-scanned index, op families and MPS dispatch edits.

The file is scanned line by line instead of being parsed with a YAML library: the real
file takes seconds to round-trip through ruamel, a scan takes milliseconds, and every
fact keeps its exact line number.  Edits are pure text -> text and touch only the
dispatch lines they must.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field
from functools import cached_property
from typing import Literal, Mapping, NamedTuple

from mpsgen.tree.checkout import newline_of
from mpsgen.errors import MpsgenError

MPS = "MPS"
SHARED_BACKENDS = ("CPU", "CUDA")
Route = Literal["legacy", "shared", "none"]
KernelOverride = str | Mapping[str, str] | None

DEFAULT_PATH = "aten/src/ATen/native/native_functions.yaml"

_FUNC = re.compile(r"-[ \t]+func:[ \t]*(.*?)\r?$")
# Searched from the newline before it (a literal prefix is far faster than `^` with re.M).
_FUNC_HEAD = re.compile(r"\n-[ \t]+func:[ \t]*['\"]?([\w.]+)")
_FIELD = re.compile(r"  ([A-Za-z_][A-Za-z0-9_]*):(?=\s|$)(.*)$")
# `    CPU, CUDA: kernel   # comment` -> indent, keys, colon, kernel, trailing comment.
_DISPATCH = re.compile(
    r"(\s+)([A-Za-z][A-Za-z0-9_]*(?:\s*,\s*[A-Za-z][A-Za-z0-9_]*)*)\s*:\s+([A-Za-z_][A-Za-z0-9_:]*)(\s*(?:#.*)?)$"
)


# --------------------------------------------------------------------------------------
# Facts
# --------------------------------------------------------------------------------------
@dataclass(frozen=True)
class DispatchLine:
    """One `KEYS: kernel` line of a dispatch block."""

    line: int
    keys: tuple[str, ...]
    kernel: str
    text: str  # as written, without its newline (or its \r)
    offset: int  # where the line starts in the file's text

    @property
    def has_mps(self) -> bool:
        return MPS in self.keys

    @property
    def has_cpu_or_cuda(self) -> bool:
        return any(k in self.keys for k in SHARED_BACKENDS)


@dataclass(frozen=True)
class SharedKernelSite:
    """Where an entry's kernel shared by CPU and CUDA lives (kernel None: there is none)."""

    kernel: str | None
    line: DispatchLine | None  # the `CPU, CUDA[, ...]` line; None when CPU and CUDA are on separate lines
    reason: str  # why there is none (empty when there is one)


@dataclass(frozen=True)
class Entry:
    """One `- func:` entry, with the fields mpsgen needs and where they are."""

    func: str
    name: str  # "add.out"
    base: str  # "add"
    overload: str  # "out" ("" for the default overload)
    line: int
    end_line: int
    structured: bool
    structured_inherits: str | None
    structured_delegate: str | None
    tags: tuple[str, ...]
    dispatch_line: int | None  # the `dispatch:` line (None: no dispatch field)
    dispatch: tuple[DispatchLine, ...]
    odd_lines: tuple[int, ...]  # lines in a shape the scanner does not understand (flow dispatch, ...)

    @property
    def mps_lines(self) -> tuple[DispatchLine, ...]:
        return tuple(d for d in self.dispatch if d.has_mps)

    @property
    def duplicate_mps(self) -> bool:
        """MPS on two lines: torchgen silently lets the later one win."""
        return len(self.mps_lines) > 1

    @property
    def cpu_cuda_kernels(self) -> frozenset[str]:
        return frozenset(d.kernel for d in self.dispatch if d.has_cpu_or_cuda)

    def _is_shared(self, d: DispatchLine) -> bool:
        # `MPS: signbit_out` beside `CPU: signbit_out` / `CUDA: signbit_out` is shared too.
        return d.has_cpu_or_cuda or d.kernel in self.cpu_cuda_kernels

    @property
    def mps_route(self) -> Route:
        """Where MPS dispatches, judged by the line torchgen would keep (the last)."""
        lines = self.mps_lines
        if not lines:
            return "none"
        return "shared" if self._is_shared(lines[-1]) else "legacy"

    @property
    def mps_kernel(self) -> str | None:
        lines = self.mps_lines
        return lines[-1].kernel if lines else None

    @property
    def legacy_lines(self) -> tuple[DispatchLine, ...]:
        """MPS lines that call an MPS-only kernel."""
        return tuple(d for d in self.mps_lines if not self._is_shared(d))

    def shared_kernel(self) -> SharedKernelSite:
        """The CPU/CUDA kernel MPS could share: one `CPU, CUDA[, ...]` line or equal separate lines."""
        for d in self.dispatch:
            if all(k in d.keys for k in SHARED_BACKENDS):
                return SharedKernelSite(d.kernel, d, "")
        cpu = [d for d in self.dispatch if "CPU" in d.keys]
        cuda = [d for d in self.dispatch if "CUDA" in d.keys]
        if cpu and cuda:
            if cpu[-1].kernel == cuda[-1].kernel:
                return SharedKernelSite(cpu[-1].kernel, None, "")
            return SharedKernelSite(
                None, None, f"CPU uses {cpu[-1].kernel} but CUDA uses {cuda[-1].kernel}, so there is no kernel to share"
            )
        if cpu or cuda:
            only = (cpu or cuda)[-1]
            backend = "CPU" if cpu else "CUDA"
            return SharedKernelSite(None, None, f"only {backend} has a kernel ({only.kernel}), not both CPU and CUDA")
        return SharedKernelSite(None, None, "it has no CPU or CUDA kernel to share")


@dataclass(frozen=True)
class Family:
    """An op's entries: functional, in-place (`op_`), `.out` and named overloads."""

    name: str
    entries: tuple[Entry, ...]

    @property
    def has_mps(self) -> bool:
        return any(e.mps_lines for e in self.entries)

    @property
    def legacy_entries(self) -> tuple[Entry, ...]:
        return tuple(e for e in self.entries if e.legacy_lines)

    @property
    def legacy_kernels(self) -> tuple[str, ...]:
        """MPS-only kernels (their .mm implementations go when the family migrates)."""
        return _unique(d.kernel for e in self.entries for d in e.legacy_lines)

    @property
    def shared_kernels(self) -> tuple[str, ...]:
        """CPU/CUDA kernels of the entries that would move to a shared key."""
        return _unique(k for e in self.legacy_entries if (k := e.shared_kernel().kernel))

    @property
    def is_migrated(self) -> bool:
        """Every MPS key is shared with CPU/CUDA: `migrate` has nothing to do."""
        return self.has_mps and not self.legacy_entries

    def routes(self) -> dict[str, Route]:
        return {e.name: e.mps_route for e in self.entries}

    def effective_route(self, entry: Entry) -> Route:
        """Follow `structured_delegate` for entries without an MPS key of their own."""
        if entry.mps_route == "none" and entry.structured_delegate:
            for other in self.entries:
                if other.name == entry.structured_delegate:
                    return other.mps_route
        return entry.mps_route


class EntryHead(NamedTuple):
    """Where an entry is, found without parsing it (a tuple: thousands are made per index)."""

    name: str
    line: int
    start: int  # offset of its `- func:` line
    end: int  # offset of the next entry's `- func:` line (or the end of the text)


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


def family_key(base: str) -> str:
    """`relu_` -> `relu`; dunders (`__iand__`) keep their name."""
    if base.endswith("_") and not base.endswith("__") and len(base) > 1:
        return base[:-1]
    return base


def _closest(name: str, names: Mapping[str, object] | dict) -> str:
    close = difflib.get_close_matches(name, list(names), n=5, cutoff=0.6)
    return "closest names: " + ", ".join(close) if close else "check the spelling against native_functions.yaml"


def _unique(items) -> tuple[str, ...]:
    return tuple(dict.fromkeys(items))


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
            m = _DISPATCH.match(line)
            if m is None:
                cur.odd.append(number)
            else:
                keys = tuple(k.strip() for k in m.group(2).split(","))
                cur.dispatch.append(DispatchLine(number, keys, m.group(3), line, start))
        elif block == "tags" and stripped.startswith("- "):
            cur.tags.append(_strip_comment(stripped[2:]))
    assert cur is not None
    return cur.build()


# --------------------------------------------------------------------------------------
# Edits
# --------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Change:
    """One changed line.  `line` is in the original text; an insertion follows that line."""

    entry: str
    line: int
    old: str | None  # None: inserted line
    new: str | None  # None: deleted line
    description: str


@dataclass(frozen=True)
class MovedEntry:
    """An entry whose MPS dispatch now goes to a shared kernel."""

    entry: str
    line: int
    legacy_kernel: str | None  # the MPS-only kernel it used to call (None for new-op)
    shared_kernel: str


@dataclass(frozen=True)
class DispatchEdit:
    family: str
    text: str
    changes: tuple[Change, ...]
    moved: tuple[MovedEntry, ...]

    @property
    def changed(self) -> bool:
        return bool(self.changes)

    @property
    def legacy_kernels(self) -> tuple[str, ...]:
        return _unique(m.legacy_kernel for m in self.moved if m.legacy_kernel)

    @property
    def shared_kernels(self) -> tuple[str, ...]:
        return _unique(m.shared_kernel for m in self.moved)


def _with_mps_key(d: DispatchLine) -> str:
    """`    CPU, CUDA: k` -> `    CPU, CUDA, MPS: k`, everything else as written."""
    m = _DISPATCH.match(d.text)
    assert m is not None  # DispatchLine texts always match
    return d.text[: m.end(2)] + ", " + MPS + d.text[m.end(2) :]


def _with_kernel(d: DispatchLine, kernel: str) -> str:
    m = _DISPATCH.match(d.text)
    assert m is not None
    return d.text[: m.start(3)] + kernel + d.text[m.end(3) :]


def _override_for(entry: Entry, shared_kernel: KernelOverride) -> str | None:
    if shared_kernel is None or isinstance(shared_kernel, str):
        return shared_kernel
    return shared_kernel.get(entry.name)


def _carrier(entry: Entry, kernel: str) -> DispatchLine | None:
    """The single CPU/CUDA line that already calls *kernel*, if there is exactly one."""
    lines = [d for d in entry.dispatch if d.kernel == kernel and d.has_cpu_or_cuda and not d.has_mps]
    return lines[0] if len(lines) == 1 else None


def _check_shape(entry: Entry, path: str) -> None:
    if entry.odd_lines:
        raise MpsgenError(
            f"entry {entry.name} has a line mpsgen does not understand",
            path=path,
            line=entry.odd_lines[0],
            hint="write its dispatch as a block of `KEYS: kernel` lines, then run mpsgen again",
        )


def _refuse(entry: Entry, line: int, reason: str, path: str) -> MpsgenError:
    return MpsgenError(
        f"cannot share a kernel with MPS for {entry.name}: {reason}; nothing was written",
        path=path,
        line=line,
        hint="name the kernel MPS should call with --shared-kernel NAME",
    )


def _duplicate(entry: Entry, lines: list[DispatchLine], path: str) -> MpsgenError:
    return MpsgenError(
        f"entry {entry.name} has MPS on {len(lines)} lines ({', '.join(str(d.line) for d in lines)})",
        path=path,
        line=lines[1].line,
        hint="keep one MPS line (torchgen silently uses the last), then run mpsgen again",
    )


def _index_for(text: str, path: str, index: NativeIndex | None) -> NativeIndex:
    if index is None:
        return index_text(text, path)
    if index.text is not text and index.text != text:
        raise ValueError("index was built from a different text")  # a caller bug, not a user mistake
    return index


def migrate_family(
    text: str,
    name: str,
    *,
    path: str = DEFAULT_PATH,
    shared_kernel: KernelOverride = None,
    index: NativeIndex | None = None,
) -> DispatchEdit:
    """Move every legacy `MPS: k_mps` entry of the family onto its shared CPU/CUDA kernel.

    `shared_kernel` (`--shared-kernel`) names the kernel MPS should call instead of the one
    found automatically: one name for every legacy entry, or a mapping entry name -> kernel
    (entries not in the mapping use the automatic one).  Raises MpsgenError, and returns no
    text, when an entry cannot be moved.
    """
    idx = _index_for(text, path, index)
    family = idx.family(name)
    plan = _Plan(idx)
    for entry in family.entries:
        _check_shape(entry, idx.path)
        alone = [d for d in entry.mps_lines if not d.has_cpu_or_cuda]
        shared_lines = [d for d in entry.mps_lines if d.has_cpu_or_cuda]
        if len(shared_lines) > 1:
            raise _duplicate(entry, shared_lines, idx.path)
        if not alone:
            continue
        if shared_lines:
            # MPS is already shared, but a leftover MPS-only line overrides it in torchgen.
            for d in alone:
                plan.delete(entry, d, f"removed leftover MPS line (MPS already shared on line {shared_lines[0].line})")
            plan.moved(entry, alone[-1].kernel, shared_lines[0].kernel)
            continue
        if len(alone) > 1:
            raise _duplicate(entry, alone, idx.path)
        old = alone[0]
        if old.keys != (MPS,):
            raise MpsgenError(
                f"entry {entry.name}: MPS shares its line with {', '.join(k for k in old.keys if k != MPS)}",
                path=idx.path,
                line=old.line,
                hint="put MPS on a line of its own, then run mpsgen again",
            )
        override = _override_for(entry, shared_kernel)
        if override is not None:
            kernel, carrier = override, _carrier(entry, override)
        else:
            found = entry.shared_kernel()
            if found.kernel is None:
                raise _refuse(entry, old.line, found.reason, idx.path)
            kernel, carrier = found.kernel, found.line
        if carrier is None and old.kernel == kernel:
            continue  # already calls the shared kernel from a line of its own
        if carrier is not None:
            plan.replace(entry, carrier, _with_mps_key(carrier), f"MPS now shares {kernel}")
            plan.delete(entry, old, f"removed legacy MPS kernel {old.kernel}")
        else:
            plan.replace(entry, old, _with_kernel(old, kernel), f"MPS now calls {kernel} instead of {old.kernel}")
        plan.moved(entry, old.kernel, kernel)
    return plan.finish(text, family.name)


def add_mps_to_family(
    text: str,
    name: str,
    *,
    path: str = DEFAULT_PATH,
    shared_kernel: KernelOverride = None,
    index: NativeIndex | None = None,
) -> DispatchEdit:
    """Give MPS the shared CPU/CUDA kernel of every entry of the family that has none (new-op)."""
    idx = _index_for(text, path, index)
    family = idx.family(name)
    plan = _Plan(idx)
    for entry in family.entries:
        _check_shape(entry, idx.path)
        if entry.duplicate_mps:
            raise _duplicate(entry, list(entry.mps_lines), idx.path)
        if entry.mps_lines or not any(d.has_cpu_or_cuda for d in entry.dispatch):
            continue  # already dispatched on MPS, or nothing backend-specific to share
        override = _override_for(entry, shared_kernel)
        if override is not None:
            kernel, carrier = override, _carrier(entry, override)
        else:
            found = entry.shared_kernel()
            if found.kernel is None:
                raise _refuse(entry, entry.dispatch_line or entry.line, found.reason, idx.path)
            kernel, carrier = found.kernel, found.line
        if carrier is not None:
            plan.replace(entry, carrier, _with_mps_key(carrier), f"MPS now shares {kernel}")
        else:
            after = max((d for d in entry.dispatch if d.has_cpu_or_cuda), key=lambda d: d.line)
            indent = after.text[: len(after.text) - len(after.text.lstrip())]
            plan.insert_after(entry, after, f"{indent}{MPS}: {kernel}", f"MPS now calls {kernel}")
        plan.moved(entry, None, kernel)
    if not plan.changes and not family.has_mps:
        first = family.entries[0]
        raise MpsgenError(
            f"no entry of {family.name} has a CPU/CUDA kernel MPS could share",
            path=idx.path,
            line=first.line,
            hint="add the CPU/CUDA kernel first, or write the MPS dispatch line by hand",
        )
    return plan.finish(text, family.name)


class _Plan:
    """Line operations collected before anything is applied, so a refusal leaves no trace."""

    def __init__(self, index: NativeIndex) -> None:
        self.newline = index.newline
        self.changes: list[Change] = []
        self._moved: list[MovedEntry] = []
        # offset of the line -> (order, old line length without newline, replacement with newline)
        self._ops: list[tuple[int, int, int, str]] = []

    def replace(self, entry: Entry, d: DispatchLine, new: str, why: str) -> None:
        self._ops.append((d.offset, 0, len(d.text), new))
        self.changes.append(Change(entry.name, d.line, d.text, new, why))

    def delete(self, entry: Entry, d: DispatchLine, why: str) -> None:
        self._ops.append((d.offset, 0, -1, ""))  # -1: the whole line with its newline
        self.changes.append(Change(entry.name, d.line, d.text, None, why))

    def insert_after(self, entry: Entry, d: DispatchLine, new: str, why: str) -> None:
        self._ops.append((d.offset, 1, len(d.text), new))
        self.changes.append(Change(entry.name, d.line, None, new, why))

    def moved(self, entry: Entry, legacy: str | None, shared: str) -> None:
        self._moved.append(MovedEntry(entry.name, entry.line, legacy, shared))

    def finish(self, text: str, family: str) -> DispatchEdit:
        changes = tuple(sorted(self.changes, key=lambda c: (c.line, c.old is None)))
        return DispatchEdit(family, self._apply(text), changes, tuple(self._moved))

    def _apply(self, text: str) -> str:
        pieces: list[str] = []
        pos = 0
        for offset, after, length, new in sorted(self._ops, key=lambda op: (op[0], op[1])):
            eol = text.find("\n", offset)
            line_end = len(text) if eol < 0 else eol + 1  # just past this line's newline
            if length < 0:  # delete the line and its newline
                pieces.append(text[pos:offset])
                pos = line_end
            elif after:  # a new line after this one, in the file's newline style
                pieces.append(text[pos:line_end])
                if eol < 0:  # last line without a newline: separate, and keep the missing final newline
                    pieces.append(self.newline + new)
                else:
                    pieces.append(new + self.newline)
                pos = line_end
            else:  # replace the line's content, keep its own newline (and \r)
                pieces.append(text[pos:offset])
                pieces.append(new)
                pos = offset + length
        pieces.append(text[pos:])
        return "".join(pieces)
