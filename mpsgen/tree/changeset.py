"""The changeset: the single way mpsgen changes files.

Edits are planned in memory (``set_text``), shown as one combined diff, and applied all or
nothing: refuse stale / dirty / read-only targets, then one file transaction (transaction.py:
journal first, then each target, restored on any failure) that ends on the undo stack
(undostack.py).  ``undo`` and ``recover_if_interrupted`` live in history.py.

Read-only targets: mpsgen usually runs as the owner or root, and root may write anything, so
"read-only" is judged like editors do: a file without any ``w`` bit is refused (and so is any
file ``os.access`` says is not writable).

Undo is a stack: each ``undo`` restores the change before it.  A file whose uncommitted
changes are exactly what the stack says mpsgen wrote is not dirty, so runs stack without a commit.

Fault injection for tests: ``_replace`` (module level, patchable) performs each target's
rename, and ``apply``/``undo`` take ``_fault_hook(index, path)`` called before each write.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping

from mpsgen.errors import MpsgenError
from mpsgen.tree import journal as jr
from mpsgen.tree import transaction as tx
from mpsgen.tree.checkout import Checkout, file_stamp, read_text_and_stamp
from mpsgen.tree.history import recover_if_interrupted, undo
from mpsgen.tree.transaction import FaultHook

__all__ = ["Changeset", "FaultHook", "dirty_paths", "recover_if_interrupted", "undo"]

# The rename that installs each target; tests replace it to fail on the n-th write.
_replace = os.replace

_BOM = "\ufeff"


@dataclass
class _Entry:
    rel: str
    original: str | None  # None: the file did not exist (a new file); else exactly its bytes, decoded
    planned: str | None = None
    reasons: list[str] = field(default_factory=list)
    stamp: tuple[int, ...] | None = None  # as read (checkout.read_text_and_stamp); None: compare bytes

    @property
    def changed(self) -> bool:
        return self.planned is not None and self.planned != self.original


class Changeset:
    """Planned edits to files of one checkout."""

    def __init__(self, checkout: Checkout, base: Mapping[str, str] | None = None) -> None:
        """*base*: texts that stand for the files' own (checkout-relative path -> text): the tree of a
        commit the plan builds on (`migrate --all --stack`: the previous family's), never written over
        the disk's; None reads every file from the disk."""
        self.checkout = checkout
        self._entries: dict[str, _Entry] = {rel: _Entry(rel, text) for rel, text in (base or {}).items()}
        self.base_paths = tuple(sorted(base or {}))  # the files *base* stands for
        self._base = base
        self._created: list[str] = []  # the files planned new, in order
        self._rels: dict[str, str] = {}
        self._root_prefix = os.path.join(checkout.root, "")
        self._verified: set[str] = set()  # files found unchanged on disk since they were read
        self._applied = False

    # -- planning -------------------------------------------------------------------------
    def rel(self, path: str | Path) -> str:
        """*path* (absolute, or relative to the root) relative to the checkout root.  Remembered:
        planners name the same few hundred files many times, and each resolve costs system calls."""
        s = os.fspath(path)
        rel = self._rels.get(s)
        if rel is None:
            rel = self._rels[s] = self.checkout.rel(s if s.startswith("/") else self.checkout.root / s)
        return rel

    def _key(self, path: str | Path) -> str:
        rel = self.rel(path)
        if rel.startswith("/") or rel.startswith("../") or rel in ("", "."):
            raise MpsgenError("is outside the PyTorch checkout; mpsgen only edits files inside it", path=path)
        return rel

    def _abs(self, rel: str) -> str:
        # A string join: a plan names ~750 files, and each pathlib join costs more than the read.
        return self._root_prefix + rel

    def original(self, path: str | Path) -> str:
        """The file's text as read (once, strictly as UTF-8): its bytes are checked again before writing.

        Read straight from the file, the changeset being its own cache: a plan reads a few hundred
        files, and the checkout's cache would resolve each path once more."""
        rel = self._key(path)
        entry = self._entries.get(rel)
        if entry is None:
            text, stamp = read_text_and_stamp(self._abs(rel), shown=rel)
            entry = self._entries[rel] = _Entry(rel, text, stamp=stamp)
        if entry.original is None:
            raise MpsgenError("file not found (mpsgen plans to create it)", path=rel)
        return entry.original

    def is_new(self, path: str | Path) -> bool:
        """True if *path* is planned as a new file."""
        entry = self._entries.get(self._key(path))
        return entry is not None and entry.original is None

    def exists(self, path: str | Path) -> bool:
        """Whether the plan's tree holds *path*: a file of *base* (a stacked commit's), one planned new, or
        one on the disk.  A plan asks this, never the disk: under --stack the disk is HEAD's tree."""
        rel = self._key(path)
        entry = self._entries.get(rel)
        if entry is not None:
            return entry.original is not None or entry.planned is not None
        return os.path.isfile(self._abs(rel))

    @property
    def beyond_disk(self) -> tuple[str, ...]:
        """The files the plan's tree may hold that a listing of the disk lacks: *base*'s and those planned new."""
        return (*self.base_paths, *self._created)

    def current(self, path: str | Path) -> str:
        """The planned text if the file was edited, else its original."""
        entry = self._entries.get(self._key(path))
        if entry is not None and entry.planned is not None:
            return entry.planned
        return self.original(path)

    def set_text(self, path: str | Path, new_text: str, why: str = "") -> None:
        """Plan *new_text* for *path*; a path that does not exist yet becomes a new file."""
        if self._applied:
            raise RuntimeError("this changeset was already applied; start a new one")
        if not isinstance(new_text, str):
            raise TypeError(f"new_text must be str, not {type(new_text).__name__}")
        rel = self._key(path)
        entry = self._entries.get(rel)
        if entry is None:
            if os.path.lexists(self._abs(rel)):
                self.original(rel)
                entry = self._entries[rel]
            else:
                entry = self._entries[rel] = _Entry(rel, None)
                self._created.append(rel)
        # An editor that rebuilt the text from scratch may drop the BOM; the file keeps it.
        if entry.original is not None and entry.original.startswith(_BOM) and not new_text.startswith(_BOM):
            new_text = _BOM + new_text
        new_text.encode("utf-8")  # a lone surrogate is an editor bug: fail while planning
        entry.planned = new_text
        if why and why not in entry.reasons:
            entry.reasons.append(why)

    def scratch(self) -> Changeset:
        """A new changeset over the same texts: this one's *base* and planned texts, to plan a what-if
        on without touching this one.  (A plain Changeset(checkout) would read the disk: under --stack
        that is HEAD's files, not the parent commit's, and the what-if would undo the commits before.)"""
        copy = Changeset(self.checkout, self._base)
        for rel in self.changed_paths:
            copy.set_text(rel, self.current(rel))
        return copy

    def snapshot(self) -> dict[str, str | None]:
        """Every known file's current planned text (None: not there), to tell later edits apart."""
        return {rel: (e.planned if e.planned is not None else e.original) for rel, e in self._entries.items()}

    def changed_since(self, snapshot: dict[str, str | None]) -> list[str]:
        """The files whose planned text differs from *snapshot* (files read since: from their original)."""
        now = self.snapshot()
        return sorted(rel for rel, text in now.items()
                      if text != snapshot.get(rel, self._entries[rel].original))

    # -- looking at the plan --------------------------------------------------------------
    @property
    def changed_paths(self) -> list[str]:
        return sorted(rel for rel, e in self._entries.items() if e.changed)

    @property
    def is_empty(self) -> bool:
        return not self.changed_paths

    @property
    def summary(self) -> list[str]:
        """One line per changed file: ``created|modified path (+A -D): why; why``."""
        lines = []
        for rel in self.changed_paths:
            e = self._entries[rel]
            body = _file_diff(rel, e.original, e.planned or "")
            hunks = body[next((i for i, line in enumerate(body) if line.startswith("@@")), len(body)) :]
            added = sum(1 for line in hunks if line.startswith("+"))
            removed = sum(1 for line in hunks if line.startswith("-"))
            verb = "created" if e.original is None else "modified"
            why = f": {'; '.join(e.reasons)}" if e.reasons else ""
            lines.append(f"{verb} {rel} (+{added} -{removed}){why}")
        return lines

    def diff(self, color: bool = False) -> str:
        """One combined unified diff of every change, git style (a/ b/), files sorted.

        color: ANSI colours like git's (the CLI passes ``sys.stdout.isatty()``).
        """
        out: list[str] = []
        for rel in self.changed_paths:
            e = self._entries[rel]
            lines = _file_diff(rel, e.original, e.planned or "")
            out.extend(_colorize(lines) if color else lines)
        return "".join(out)

    # -- safety checks --------------------------------------------------------------------
    def verify_unchanged_on_disk(self) -> None:
        """Refuse if any file read (or to be created) changed on disk since it was read.

        A file mpsgen will write is compared byte for byte; an input it only read (a plan reads
        hundreds) by its stamp, as git's index does, and byte for byte if the stamp moved or was racy."""
        self._verify(sorted(self._entries), inputs_by_stamp=True)

    def _verify(self, rels: list[str], inputs_by_stamp: bool = False) -> None:
        targets = set(self.changed_paths)
        for rel in rels:
            e = self._entries[rel]
            abs_path = self._abs(rel)
            if inputs_by_stamp and rel not in targets and e.stamp is not None and _same_stamp(abs_path, e.stamp):
                self._verified.add(rel)
                continue
            if e.original is None:
                if e.changed and os.path.lexists(abs_path):
                    raise MpsgenError(
                        "appeared on disk after mpsgen planned to create it; refusing to overwrite it",
                        path=rel,
                        hint="move it away or run the command again",
                    )
                continue
            try:
                with open(abs_path, "rb") as fh:
                    data = fh.read()
            except FileNotFoundError:
                raise MpsgenError(
                    "was deleted after mpsgen read it", path=rel, hint="restore it, then run the command again"
                ) from None
            except OSError as err:
                raise MpsgenError(f"cannot read the file again ({err.strerror})", path=rel) from None
            if data != e.original.encode("utf-8"):  # strict UTF-8 round-trips: equal text, equal bytes
                raise MpsgenError(
                    "changed on disk after mpsgen read it; refusing to overwrite it",
                    path=rel,
                    hint="run the command again so the edit is planned on the new text",
                )
            self._verified.add(rel)

    def check_dirty(self, allow_dirty: bool) -> None:
        """Refuse to edit files with uncommitted changes (git only) unless *allow_dirty*."""
        if allow_dirty:
            return
        paths = [rel for rel in self.changed_paths if self._entries[rel].original is not None]
        dirty = dirty_paths(self.checkout.root, paths)
        if dirty:  # mpsgen's own uncommitted edits (an earlier run, no commit since) are not dirty
            from mpsgen.tree import gitops, undostack

            heads = gitops.head_blob_ids(self.checkout.root, dirty)
            ours = undostack.written_by_mpsgen(self.checkout.root, dirty, heads)
            dirty = [rel for rel in dirty if rel not in ours]
            if dirty and undostack.older_than_the_stack(self.checkout.root, dirty, heads) == dirty:
                raise MpsgenError(
                    f"has uncommitted changes that go back further than mpsgen's last {jr.STACK_LIMIT} changes "
                    "(the undo stack keeps no more), so mpsgen cannot tell they are all its own",
                    path=dirty[0], hint="commit mpsgen's changes so far, or pass --allow-dirty")
        if dirty:
            more = f" (and {len(dirty) - 1} more: {', '.join(dirty[1:])})" if len(dirty) > 1 else ""
            raise MpsgenError(
                f"has uncommitted changes and mpsgen would edit it{more}",
                path=dirty[0],
                hint="commit or stash them first, or pass --allow-dirty",
            )

    # -- applying -------------------------------------------------------------------------
    def apply(self, allow_dirty: bool = False, *, label: str = "",
              _fault_hook: FaultHook | None = None) -> jr.Journal:
        """Write every planned file or none; returns the journal (``last.json``) of the change.

        label: what the change is (`migrate atan2 frac`), kept in the journal for messages."""
        if self._applied:
            raise RuntimeError("this changeset was already applied")
        root = self.checkout.root
        recover_if_interrupted(self.checkout)  # never stack a change on a half-written tree
        if self.is_empty:
            return jr.Journal(None, jr.KIND_APPLY, jr.APPLIED, tx.now(), ())
        # The targets are always read again; an input already found unchanged (the caller's
        # verify_unchanged_on_disk just before) is not re-read: a tree has hundreds of inputs.
        changed = set(self.changed_paths)
        self._verify(sorted(rel for rel in self._entries if rel in changed or rel not in self._verified),
                     inputs_by_stamp=True)
        self.check_dirty(allow_dirty)
        files: list[jr.JournalFile] = []
        writes: list[tx.Write] = []
        for rel in self.changed_paths:
            e = self._entries[rel]
            data = (e.planned or "").encode("utf-8")  # the text carries its own newlines
            target = tx.real_target(root, rel)
            mode = owner = None
            old = None
            if e.original is not None:
                st = tx.stat_target(target, rel)
                mode, owner = stat.S_IMODE(st.st_mode), (st.st_uid, st.st_gid)
                old = e.original.encode("utf-8")  # == the bytes on disk (verified above)
            files.append(jr.JournalFile(rel, old, mode, owner, jr.sha256(data), mode))
            writes.append(tx.Write(rel, target, data, mode, owner))
        # `_replace` is looked up now, so tests can patch it.
        result = tx.transact(root, jr.KIND_APPLY, files, writes, _fault_hook, replace=_replace, label=label)
        self._applied = True
        for rel in self.changed_paths:
            self.checkout.forget(rel)
        return result


def dirty_paths(root: Path, rels: list[str]) -> list[str]:
    """Those of *rels* (checkout-relative) with uncommitted changes; [] if not in a git repo.
    The checkout may be the top of its repository or sit inside a larger one."""
    if not rels or jr.find_git_dir(root) is None:
        return []
    from mpsgen.tree import gitops

    return sorted(gitops.dirty_paths(root, rels))


# -- small helpers -----------------------------------------------------------------------
def _same_stamp(path: str, stamp: tuple[int, ...]) -> bool:
    try:
        return file_stamp(os.stat(path)) == stamp
    except OSError:
        return False  # gone or unreadable: the byte comparison says which


def _lines(text: str) -> list[str]:
    """Split on '\\n' only (str.splitlines also splits on \\f, \\x1c, U+2028, ...)."""
    parts = text.split("\n")
    lines = [p + "\n" for p in parts[:-1]]
    if parts[-1]:
        lines.append(parts[-1])
    return lines


def _file_diff(rel: str, old: str | None, new: str) -> list[str]:
    import difflib  # only a dry run or a summary shows a diff

    out = [f"diff --git a/{rel} b/{rel}\n"]
    if old is None:
        out.append("new file mode 100644\n")
    body = list(
        difflib.unified_diff(
            _lines(old or ""),
            _lines(new),
            fromfile="/dev/null" if old is None else f"a/{rel}",
            tofile=f"b/{rel}",
            lineterm="\n",
        )
    )
    if not body and old is None:  # a new empty file still gets its header
        body = ["--- /dev/null\n", f"+++ b/{rel}\n"]
    for line in body:
        out.append(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n")
    return out


def _colorize(lines: list[str]) -> list[str]:
    """Colour one file's diff; header lines are told apart by position, not by prefix."""
    out = []
    in_header = True
    for line in lines:
        if line.startswith("@@"):
            in_header, code = False, "36"
        elif in_header:
            code = "1"
        else:
            code = {"-": "31", "+": "32"}.get(line[:1], "")
        if code:
            body = line.rstrip("\r\n")
            line = f"\x1b[{code}m{body}\x1b[0m{line[len(body):]}"
        out.append(line)
    return out
