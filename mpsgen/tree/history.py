"""Going back: `undo` (one applied change per call, newest first) and crash recovery."""

from __future__ import annotations

import stat

from mpsgen.errors import MpsgenError
from mpsgen.tree import journal as jr
from mpsgen.tree import transaction as tx
from mpsgen.tree import undostack
from mpsgen.tree.checkout import Checkout


def undo(checkout: Checkout, *, _fault_hook: tx.FaultHook | None = None) -> list[str]:
    """Restore the newest applied change exactly; returns the restored paths ([] = nothing to undo).

    The next call restores the change before it.  An interrupted run is recovered first and
    counts as the change undone.  Refuses, naming the file, if any file was edited after
    mpsgen wrote it, and, naming the journal, if any journal of the stack is damaged.
    """
    root = checkout.root
    recovered = recover_if_interrupted(checkout)
    if recovered:
        return recovered
    stack = undostack.load_stack(root)  # every journal read (and checked) before any write
    last = stack[0] if stack else None
    if last is None or last.state != jr.APPLIED or not last.files:
        return []
    files: list[jr.JournalFile] = []
    writes: list[tx.Write] = []
    for f in last.files:
        target = tx.real_target(root, f.rel)
        current = tx.read_or_none(target, f.rel)
        if current == f.old:
            continue  # already back as it was (reverted by hand): nothing to restore, nothing lost
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
            st = tx.stat_target(target, f.rel)
            mode, owner = stat.S_IMODE(st.st_mode), (st.st_uid, st.st_gid)
        new_sha = None if f.old is None else jr.sha256(f.old)
        files.append(jr.JournalFile(f.rel, current, mode, owner, new_sha, f.old_mode))
        writes.append(tx.Write(f.rel, target, f.old, f.old_mode, f.old_owner))
    if not files:  # every file reverted by hand already
        undostack.drop_top(root, last.id)
        return []
    tx.transact(root, jr.KIND_UNDO, files, writes, _fault_hook, remove_dirs=last.created_dirs,
                undoes=last.id, label=f"undo {last.label}".strip())
    for f in last.files:
        checkout.forget(f.rel)
    return [f.rel for f in files]


def drop_if_reverted(checkout: Checkout) -> jr.Journal | None:
    """When every file of the newest applied change is already back to its state before the change
    (reverted by hand, `git checkout .`), forget that change and return it; else None (nothing done).
    An interrupted run is left to undo(), which recovers it first."""
    root = checkout.root
    if jr.load(jr.pending_path(root)) is not None:
        return None
    stack = undostack.load_stack(root)
    last = stack[0] if stack else None
    if last is None or last.state != jr.APPLIED or not last.files:
        return None
    for f in last.files:
        if tx.read_or_none(tx.real_target(root, f.rel), f.rel) != f.old:
            return None
    undostack.drop_top(root, last.id)
    return last


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
        undostack.finalize(root, pending)
        return []
    restored = tx.restore(root, pending, strict=True)
    jr.remove(pending_file)
    for rel in restored:
        checkout.forget(rel)
    return restored
