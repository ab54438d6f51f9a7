"""The file transaction behind apply, undo and recovery: journal first, then each target.

Order: refuse unwritable targets, write ``pending.json`` with every old file's bytes, replace
each target (temp file in the same folder, mode and owner copied, fsync, rename), then finish
the book-keeping (``undostack.finalize``).  Any failure or KeyboardInterrupt restores what was
already replaced; a process that dies leaves ``pending.json`` for ``recover_if_interrupted``.
"""

from __future__ import annotations

import contextlib
import os
import stat
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable

from mpsgen.errors import MpsgenError
from mpsgen.records import NamedTuple
from mpsgen.tree import journal as jr
from mpsgen.tree import undostack

FaultHook = Callable[[int, Path], None]
Replace = Callable[[Path, Path], None]

_TEMP_SUFFIX = ".mpsgen-tmp"


class Write(NamedTuple):
    rel: str
    target: Path  # the real path written (symlinks are written through, not replaced)
    data: bytes | None  # None: delete the file
    mode: int | None  # None: the umask default (new files)
    owner: tuple[int, int] | None


def transact(
    root: Path,
    kind: str,
    files: list[jr.JournalFile],
    writes: list[Write],
    fault_hook: FaultHook | None,
    remove_dirs: tuple[str, ...] = (),
    *,
    replace: Replace = os.replace,
    undoes: str = "",
    label: str = "",
) -> jr.Journal:
    """Write every target or none; returns the finished journal (``last.json`` for an apply)."""
    made_dirs = preflight(root, writes)
    pending_file = jr.pending_path(root)
    record = jr.Journal(None, kind, jr.IN_PROGRESS, now(), tuple(files), made_dirs,
                        id=jr.new_id(), undoes=undoes, label=label)
    pending = jr.save(record, pending_file)
    current_rel = writes[0].rel if writes else ""
    try:
        for index, w in enumerate(writes):
            current_rel = w.rel
            if fault_hook is not None:
                fault_hook(index, w.target)
            write_one(w, replace)
        for rel in reversed(remove_dirs):  # an undo removes the folders its apply made
            with contextlib.suppress(OSError):
                (root / rel).rmdir()
    except BaseException as exc:
        try:
            restore(root, pending, strict=False)
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
    return undostack.finalize(root, done)


def preflight(root: Path, writes: list[Write]) -> tuple[str, ...]:
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


def write_one(w: Write, replace: Replace = os.replace) -> None:
    if w.data is None:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(w.target)
        fsync_dir(w.target.parent)
        return
    w.target.parent.mkdir(parents=True, exist_ok=True)
    tmp = temp_path(w.target)
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
    replace(tmp, w.target)
    fsync_dir(w.target.parent)


def restore(root: Path, record: jr.Journal, strict: bool) -> list[str]:
    """Put back every file of *record* that no longer holds its old bytes.

    strict: refuse (before restoring anything) if a file holds neither its old nor its new
    bytes, i.e. someone edited it after the interruption.
    """
    todo: list[Write] = []
    for f in record.files:
        target = real_target(root, f.rel)
        current = read_or_none(target, f.rel)
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
        todo.append(Write(f.rel, target, f.old, f.old_mode, f.old_owner))
    for w in todo:
        write_one(w, replace=os.replace)  # a restore never goes through the patchable rename
    for f in record.files:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temp_path(real_target(root, f.rel)))
    for rel in reversed(record.created_dirs):
        with contextlib.suppress(OSError):  # not empty (a user's file) or already gone
            (root / rel).rmdir()
    return [w.rel for w in todo]


def real_target(root: Path, rel: str) -> Path:
    return Path(os.path.realpath(root / rel))


def stat_target(target: Path, rel: str) -> os.stat_result:
    try:
        return target.stat()
    except OSError as err:
        raise MpsgenError(f"cannot stat the file ({err.strerror})", path=rel) from None


def read_or_none(target: Path, rel: str) -> bytes | None:
    try:
        return target.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as err:
        raise MpsgenError(f"cannot read the file ({err.strerror})", path=rel, hint="check its permissions") from None


def temp_path(target: Path) -> Path:
    # Same folder, so os.replace is an atomic rename; a fixed name so recovery can clean it.
    return target.with_name(f".{target.name}{_TEMP_SUFFIX}")


def fsync_dir(folder: Path) -> None:
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


def now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")
