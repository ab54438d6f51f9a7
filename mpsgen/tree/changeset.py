"""The changeset: the single way mpsgen changes files.

Edits are planned in memory (``set_text``), shown as one combined diff, and applied all or
nothing.  Apply order: refuse stale / dirty / read-only targets, write the journal with every
old file's bytes (``pending.json``), replace each target (temp file in the same folder, mode
and owner copied, fsync, ``os.replace``), then turn the journal into ``last.json``.  Any
failure or KeyboardInterrupt restores what was already replaced; a process that dies leaves
``pending.json`` behind and the next command's ``recover_if_interrupted`` restores it.

Read-only targets: mpsgen usually runs as the owner or root, and root may write anything, so
"read-only" is judged like editors do: a file without any ``w`` bit is refused (and so is any
file ``os.access`` says is not writable).

Undo is one level: ``undo`` restores the last applied change and forgets it.

Fault injection for tests: ``_replace`` (module level, patchable) performs each target's
rename, and ``apply``/``undo`` take ``_fault_hook(index, path)`` called before each write.
"""

from __future__ import annotations

import contextlib
import difflib
import os
import stat
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable

from mpsgen.tree import journal as jr
from mpsgen.tree.checkout import Checkout
from mpsgen.errors import MpsgenError

FaultHook = Callable[[int, Path], None]

# The rename that installs each target; tests replace it to fail on the n-th write.
_replace = os.replace

_BOM = "\ufeff"
_TEMP_SUFFIX = ".mpsgen-tmp"


@dataclass(frozen=True)
class Fingerprint:
    """How a file looked when it was read (the content hash decides; size/mtime are for messages)."""

    sha256: str
    size: int
    mtime_ns: int


@dataclass
class _Entry:
    rel: str
    original: str | None  # None: the file did not exist (a new file)
    fingerprint: Fingerprint | None
    planned: str | None = None
    reasons: list[str] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        return self.planned is not None and self.planned != self.original


@dataclass(frozen=True)
class _Write:
    rel: str
    target: Path  # the real path written (symlinks are written through, not replaced)
    data: bytes | None  # None: delete the file
    mode: int | None  # None: the umask default (new files)
    owner: tuple[int, int] | None


class Changeset:
    """Planned edits to files of one checkout."""

    def __init__(self, checkout: Checkout) -> None:
        self.checkout = checkout
        self._entries: dict[str, _Entry] = {}
        self._applied = False

    # -- planning -------------------------------------------------------------------------
    def _key(self, path: str | Path) -> str:
        p = Path(path)
        rel = self.checkout.rel(p if p.is_absolute() else self.checkout.root / p)
        if Path(rel).is_absolute() or rel.startswith("../") or rel in ("", "."):
            raise MpsgenError("is outside the PyTorch checkout; mpsgen only edits files inside it", path=path)
        return rel

    def _abs(self, rel: str) -> Path:
        return self.checkout.root / rel

    def original(self, path: str | Path) -> str:
        """The file's text as read (once, through the checkout); remembers its fingerprint."""
        rel = self._key(path)
        entry = self._entries.get(rel)
        if entry is None:
            text = self.checkout.read_text(self._abs(rel))
            try:
                st = os.stat(self._abs(rel))
            except OSError as err:
                raise MpsgenError(f"cannot stat the file ({err.strerror})", path=rel) from None
            fp = Fingerprint(jr.sha256(text.encode("utf-8")), st.st_size, st.st_mtime_ns)
            entry = self._entries[rel] = _Entry(rel, text, fp)
        if entry.original is None:
            raise MpsgenError("file not found (mpsgen plans to create it)", path=rel)
        return entry.original

    def is_new(self, path: str | Path) -> bool:
        """True if *path* is planned as a new file."""
        entry = self._entries.get(self._key(path))
        return entry is not None and entry.original is None

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
                entry = self._entries[rel] = _Entry(rel, None, None)
        # An editor that rebuilt the text from scratch may drop the BOM; the file keeps it.
        if entry.original is not None and entry.original.startswith(_BOM) and not new_text.startswith(_BOM):
            new_text = _BOM + new_text
        new_text.encode("utf-8")  # a lone surrogate is an editor bug: fail while planning
        entry.planned = new_text
        if why and why not in entry.reasons:
            entry.reasons.append(why)

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
        """Refuse if any file read (or to be created) changed on disk since it was read."""
        for rel in sorted(self._entries):
            e = self._entries[rel]
            abs_path = self._abs(rel)
            if e.original is None:
                if e.changed and os.path.lexists(abs_path):
                    raise MpsgenError(
                        "appeared on disk after mpsgen planned to create it; refusing to overwrite it",
                        path=rel,
                        hint="move it away or run the command again",
                    )
                continue
            try:
                data = abs_path.read_bytes()
            except FileNotFoundError:
                raise MpsgenError(
                    "was deleted after mpsgen read it", path=rel, hint="restore it, then run the command again"
                ) from None
            except OSError as err:
                raise MpsgenError(f"cannot read the file again ({err.strerror})", path=rel) from None
            assert e.fingerprint is not None
            if jr.sha256(data) != e.fingerprint.sha256:
                raise MpsgenError(
                    "changed on disk after mpsgen read it; refusing to overwrite it",
                    path=rel,
                    hint="run the command again so the edit is planned on the new text",
                )

    def check_dirty(self, allow_dirty: bool) -> None:
        """Refuse to edit files with uncommitted changes (git only) unless *allow_dirty*."""
        if allow_dirty:
            return
        paths = [rel for rel in self.changed_paths if self._entries[rel].original is not None]
        dirty = dirty_paths(self.checkout.root, paths)
        if dirty:
            more = f" (and {len(dirty) - 1} more: {', '.join(dirty[1:])})" if len(dirty) > 1 else ""
            raise MpsgenError(
                f"has uncommitted changes and mpsgen would edit it{more}",
                path=dirty[0],
                hint="commit or stash them first, or pass --allow-dirty",
            )

    # -- applying -------------------------------------------------------------------------
    def apply(self, allow_dirty: bool = False, *, _fault_hook: FaultHook | None = None) -> jr.Journal:
        """Write every planned file or none; returns the journal (``last.json``) of the change."""
        if self._applied:
            raise RuntimeError("this changeset was already applied")
        root = self.checkout.root
        recover_if_interrupted(self.checkout)  # never stack a change on a half-written tree
        if self.is_empty:
            return jr.Journal(None, jr.KIND_APPLY, jr.APPLIED, _now(), ())
        self.verify_unchanged_on_disk()
        self.check_dirty(allow_dirty)
        files: list[jr.JournalFile] = []
        writes: list[_Write] = []
        for rel in self.changed_paths:
            e = self._entries[rel]
            data = (e.planned or "").encode("utf-8")  # the text carries its own newlines
            target = _real_target(root, rel)
            mode = owner = None
            old = None
            if e.original is not None:
                st = _stat_target(target, rel)
                mode, owner = stat.S_IMODE(st.st_mode), (st.st_uid, st.st_gid)
                old = e.original.encode("utf-8")  # == the bytes on disk (verified above)
            files.append(jr.JournalFile(rel, old, mode, owner, jr.sha256(data), mode))
            writes.append(_Write(rel, target, data, mode, owner))
        result = _transact(root, jr.KIND_APPLY, files, writes, _fault_hook)
        self._applied = True
        for rel in self.changed_paths:
            self.checkout.forget(rel)
        return result


# -- undo and recovery -------------------------------------------------------------------
def undo(checkout: Checkout, *, _fault_hook: FaultHook | None = None) -> list[str]:
    """Restore the last applied change exactly; returns the restored paths ([] = nothing to undo).

    An interrupted run is recovered first and counts as the change undone.  Refuses, naming
    the file, if any file was edited after mpsgen wrote it.
    """
    root = checkout.root
    recovered = recover_if_interrupted(checkout)
    if recovered:
        return recovered
    last = jr.load(jr.last_path(root))
    if last is None or last.state != jr.APPLIED or not last.files:
        return []
    files: list[jr.JournalFile] = []
    writes: list[_Write] = []
    for f in last.files:
        target = _real_target(root, f.rel)
        current = _read_or_none(target, f.rel)
        if f.new_sha256 is None:
            expected_ok = current is None
        else:
            expected_ok = current is not None and jr.sha256(current) == f.new_sha256
        if not expected_ok:
            what = "was deleted" if current is None else "was edited"
            raise MpsgenError(
                f"{what} after mpsgen applied the last change ({last.created}); undo would lose that",
                path=f.rel,
                hint="revert or commit your edit to it first (git diff shows it), or restore the files by hand",
            )
        mode = owner = None
        if current is not None:
            st = _stat_target(target, f.rel)
            mode, owner = stat.S_IMODE(st.st_mode), (st.st_uid, st.st_gid)
        new_sha = None if f.old is None else jr.sha256(f.old)
        files.append(jr.JournalFile(f.rel, current, mode, owner, new_sha, f.old_mode))
        writes.append(_Write(f.rel, target, f.old, f.old_mode, f.old_owner))
    _transact(root, jr.KIND_UNDO, files, writes, _fault_hook, remove_dirs=last.created_dirs)
    for f in last.files:
        checkout.forget(f.rel)
    return [f.rel for f in last.files]


def recover_if_interrupted(checkout: Checkout) -> list[str]:
    """Finish or roll back a transaction a dead process left behind; returns restored paths.

    Call at the start of every editing command.  Refuses (naming the file) if a file was
    edited after the interruption, since restoring it would lose that edit.
    """
    root = checkout.root
    pending_file = jr.pending_path(root)
    pending = jr.load(pending_file)
    if pending is None:
        return []
    if pending.state == jr.APPLIED:  # all files were written; only book-keeping was left
        _finalize(root, pending)
        return []
    restored = _restore(root, pending, strict=True)
    jr.remove(pending_file)
    for rel in restored:
        checkout.forget(rel)
    return restored


def dirty_paths(root: Path, rels: list[str]) -> list[str]:
    """Those of *rels* (checkout-relative) with uncommitted changes; [] if not in a git repo.
    The checkout may be the top of its repository or sit inside a larger one."""
    if not rels or jr.find_git_dir(root) is None:
        return []
    from mpsgen.tree import gitops

    return sorted(gitops.dirty_paths(root, rels))


# -- the transaction ---------------------------------------------------------------------
def _transact(
    root: Path,
    kind: str,
    files: list[jr.JournalFile],
    writes: list[_Write],
    fault_hook: FaultHook | None,
    remove_dirs: tuple[str, ...] = (),
) -> jr.Journal:
    made_dirs = _preflight(root, writes)
    pending_file = jr.pending_path(root)
    pending = jr.save(jr.Journal(None, kind, jr.IN_PROGRESS, _now(), tuple(files), made_dirs), pending_file)
    current_rel = writes[0].rel if writes else ""
    try:
        for index, w in enumerate(writes):
            current_rel = w.rel
            if fault_hook is not None:
                fault_hook(index, w.target)
            _write_one(w)
        for rel in reversed(remove_dirs):  # an undo removes the folders its apply made
            with contextlib.suppress(OSError):
                (root / rel).rmdir()
    except BaseException as exc:
        try:
            _restore(root, pending, strict=False)
        except BaseException:
            raise MpsgenError(
                "interrupted, and restoring the files written so far failed too",
                path=current_rel,
                hint=f"run mpsgen again to restore them from the journal {pending_file}",
            ) from exc
        jr.remove(pending_file)
        if isinstance(exc, OSError):
            raise MpsgenError(
                f"could not write the file ({exc.strerror or exc}); every file was restored, nothing changed",
                path=current_rel,
                hint="check permissions and free space, then run the command again",
            ) from None
        raise  # KeyboardInterrupt, MpsgenError, bugs: the tree is restored, let it through
    done = jr.save(pending.with_state(jr.APPLIED), pending_file)
    return _finalize(root, done)


def _finalize(root: Path, done: jr.Journal) -> jr.Journal:
    """Book-keeping after every file was written: keep an apply for undo, drop an undone one."""
    pending_file, last_file = jr.pending_path(root), jr.last_path(root)
    if done.kind == jr.KIND_APPLY:
        os.replace(pending_file, last_file)
        return done.with_state(jr.APPLIED, last_file)
    jr.remove(last_file)
    jr.remove(pending_file)
    return done.with_state(jr.APPLIED, None)


def _preflight(root: Path, writes: list[_Write]) -> tuple[str, ...]:
    """Refuse unwritable targets before anything is written; returns folders to create."""
    to_make: list[str] = []
    for w in writes:
        if os.path.lexists(w.target):
            if w.target.is_dir():
                raise MpsgenError("expected a file, found a folder", path=w.rel)
            if w.data is not None:
                mode = stat.S_IMODE(w.target.stat().st_mode)
                if not mode & 0o222 or not os.access(w.target, os.W_OK):
                    raise MpsgenError(
                        "file is read-only; nothing was written",
                        path=w.rel,
                        hint="make it writable (chmod u+w) and run the command again",
                    )
        folder = w.target.parent
        missing: list[Path] = []
        while not folder.exists():
            missing.append(folder)
            folder = folder.parent
        if not folder.is_dir():
            raise MpsgenError("a parent of this path is not a folder", path=w.rel)
        if not os.access(folder, os.W_OK | os.X_OK):
            raise MpsgenError(
                "folder is not writable; nothing was written",
                path=_shown(root, folder),
                hint="fix its permissions and run the command again",
            )
        for m in reversed(missing):
            rel = _shown(root, m)
            if rel not in to_make:
                to_make.append(rel)
    return tuple(to_make)


def _write_one(w: _Write, replace: Callable[[Path, Path], None] | None = None) -> None:
    if w.data is None:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(w.target)
        _fsync_dir(w.target.parent)
        return
    w.target.parent.mkdir(parents=True, exist_ok=True)
    tmp = _temp_path(w.target)
    with contextlib.suppress(FileNotFoundError):
        os.unlink(tmp)  # left by a dead run
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    try:
        view = memoryview(w.data)
        while view:
            view = view[os.write(fd, view) :]
        if w.mode is not None:
            os.fchmod(fd, w.mode)
        if w.owner is not None:
            with contextlib.suppress(PermissionError):  # only root may give files away
                os.fchown(fd, *w.owner)
        os.fsync(fd)
    finally:
        os.close(fd)
    (replace or _replace)(tmp, w.target)  # _replace looked up now, so tests can patch it
    _fsync_dir(w.target.parent)


def _restore(root: Path, record: jr.Journal, strict: bool) -> list[str]:
    """Put back every file of *record* that no longer holds its old bytes.

    strict: refuse (before restoring anything) if a file holds neither its old nor its new
    bytes, i.e. someone edited it after the interruption.
    """
    todo: list[_Write] = []
    for f in record.files:
        target = _real_target(root, f.rel)
        current = _read_or_none(target, f.rel)
        if current == f.old:
            continue
        if strict:
            is_new = (current is None) if f.new_sha256 is None else (
                current is not None and jr.sha256(current) == f.new_sha256
            )
            if not is_new:
                raise MpsgenError(
                    "was changed after an interrupted mpsgen run; cannot restore it safely",
                    path=f.rel,
                    hint=f"check the file by hand, then delete the journal {jr.pending_path(root)}",
                )
        todo.append(_Write(f.rel, target, f.old, f.old_mode, f.old_owner))
    for w in todo:
        _write_one(w, replace=os.replace)  # a restore never goes through the patchable rename
    for f in record.files:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(_temp_path(_real_target(root, f.rel)))
    for rel in reversed(record.created_dirs):
        with contextlib.suppress(OSError):  # not empty (a user's file) or already gone
            (root / rel).rmdir()
    return [w.rel for w in todo]


# -- small helpers -----------------------------------------------------------------------
def _lines(text: str) -> list[str]:
    """Split on '\\n' only (str.splitlines also splits on \\f, \\x1c, U+2028, ...)."""
    parts = text.split("\n")
    lines = [p + "\n" for p in parts[:-1]]
    if parts[-1]:
        lines.append(parts[-1])
    return lines


def _file_diff(rel: str, old: str | None, new: str) -> list[str]:
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


def _real_target(root: Path, rel: str) -> Path:
    return Path(os.path.realpath(root / rel))


def _stat_target(target: Path, rel: str) -> os.stat_result:
    try:
        return target.stat()
    except OSError as err:
        raise MpsgenError(f"cannot stat the file ({err.strerror})", path=rel) from None


def _read_or_none(target: Path, rel: str) -> bytes | None:
    try:
        return target.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as err:
        raise MpsgenError(f"cannot read the file ({err.strerror})", path=rel, hint="check its permissions") from None


def _temp_path(target: Path) -> Path:
    # Same folder, so os.replace is an atomic rename; a fixed name so recovery can clean it.
    return target.with_name(f".{target.name}{_TEMP_SUFFIX}")


def _fsync_dir(folder: Path) -> None:
    with contextlib.suppress(OSError):
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def _shown(root: Path, path: Path) -> str:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return str(path)


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")
