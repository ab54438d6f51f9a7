"""native_functions.yaml dispatch edits: pure text -> text, touching only the lines they must."""

from __future__ import annotations

import re

from mpsgen.errors import MpsgenError
from mpsgen.records import NamedTuple
from mpsgen.sources.native_yaml.facts import (
    DEFAULT_PATH, DISPATCH_LINE, MPS, DispatchLine, Entry, KernelOverride, unique,
)
from mpsgen.sources.native_yaml.index import NativeIndex, index_text


class Change(NamedTuple):
    """One changed line.  `line` is in the original text; an insertion follows that line."""

    entry: str
    line: int
    old: str | None  # None: inserted line
    new: str | None  # None: deleted line
    description: str


class MovedEntry(NamedTuple):
    """An entry whose MPS dispatch now goes to a shared kernel."""

    entry: str
    line: int
    legacy_kernel: str | None  # the MPS-only kernel it used to call (None for new-op)
    shared_kernel: str


class DispatchEdit(NamedTuple):
    family: str
    text: str
    changes: tuple[Change, ...]
    moved: tuple[MovedEntry, ...]

    @property
    def changed(self) -> bool:
        return bool(self.changes)

    @property
    def legacy_kernels(self) -> tuple[str, ...]:
        return unique(m.legacy_kernel for m in self.moved if m.legacy_kernel)

    @property
    def shared_kernels(self) -> tuple[str, ...]:
        return unique(m.shared_kernel for m in self.moved)


def _with_mps_key(d: DispatchLine) -> str:
    """`    CPU, CUDA: k` -> `    CPU, CUDA, MPS: k`, everything else as written.  MPS goes where
    native_functions.yaml puts it: before MTIA (`CPU, CUDA, MPS, MTIA`, 42 lines of 2.13's yaml against
    6), else last (2.14's `CPU, CUDA, XPU, MPS: asinh_out`)."""
    m = DISPATCH_LINE.match(d.text)
    assert m is not None  # DispatchLine texts always match
    mtia = re.search(r"(?<![\w])MTIA\b", m.group(2))
    at = m.start(2) + mtia.start() if mtia else m.end(2)
    if mtia:
        return d.text[:at] + MPS + ", " + d.text[at:]
    return d.text[:at] + ", " + MPS + d.text[at:]


def _with_kernel(d: DispatchLine, kernel: str) -> str:
    m = DISPATCH_LINE.match(d.text)
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
    only: tuple[str, ...] | None = None,
) -> DispatchEdit:
    """Move every legacy `MPS: k_mps` entry of the family onto its shared CPU/CUDA kernel.

    `shared_kernel` (`--shared-kernel`) names the kernel MPS should call instead of the one
    found automatically: one name for every legacy entry, or a mapping entry name -> kernel
    (entries not in the mapping use the automatic one).  Raises MpsgenError, and returns no
    text, when an entry cannot be moved.  `only` limits the move to those entries (one overload).
    """
    idx = _index_for(text, path, index)
    family = idx.family(name)
    plan = _Plan(idx)
    for entry in _selected(family.entries, only):
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
    only: tuple[str, ...] | None = None,
) -> DispatchEdit:
    """Give MPS the shared CPU/CUDA kernel of every entry of the family that has none (new-op)."""
    idx = _index_for(text, path, index)
    family = idx.family(name)
    plan = _Plan(idx)
    for entry in _selected(family.entries, only):
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


def _selected(entries: tuple[Entry, ...], only: tuple[str, ...] | None) -> tuple[Entry, ...]:
    return entries if only is None else tuple(e for e in entries if e.name in only)


def entry_calling(text: str, kernel: str) -> str | None:
    """The name of an entry whose dispatch still calls *kernel* (for keeping a shared legacy kernel)."""
    pattern = re.compile(r"^[ \t]+[A-Za-z][\w, \t]*:[ \t]+" + re.escape(kernel) + r"[ \t]*(?:#.*)?\r?$", re.M)
    m = pattern.search(text)
    if m is None:
        return None
    head = text.rfind("\n- func:", 0, m.start())
    return text[head + len("\n- func:"):].split("(", 1)[0].strip() if head >= 0 else kernel


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
