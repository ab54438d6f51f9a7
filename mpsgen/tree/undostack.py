"""The undo stack: every applied change, newest on top, and which uncommitted edits are mpsgen's.

``last.json`` is the top; older changes wait in ``stack/0001.json`` … (oldest first).  Each
book-keeping step is a single rename and can be repeated after a crash: an apply pushes the old
top before its pending journal becomes ``last.json``; an undo deletes the top only if it is the
change it undid (by id), then pops the newest stacked change back.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
from pathlib import Path

from mpsgen.tree import journal as jr


def stacked_paths(root: Path) -> list[Path]:
    """``stack/NNNN.json`` files, oldest first."""
    folder = jr.stack_dir(root)
    try:
        names = [p for p in folder.iterdir() if p.suffix == ".json" and p.stem.isdigit()]
    except FileNotFoundError:
        return []
    return sorted(names, key=lambda p: int(p.stem))


def load_stack(root: Path) -> list[jr.Journal]:
    """Every applied change, newest first.  A damaged journal is refused, naming its file,
    before anything uses the stack (so an undo never restores part of it)."""
    changes = []
    top = jr.load(jr.last_path(root))
    if top is not None:
        changes.append(top)
        for path in reversed(stacked_paths(root)):
            older = jr.load(path)
            if older is not None:
                changes.append(older)
    return changes


def finalize(root: Path, done: jr.Journal) -> jr.Journal:
    """Book-keeping after every file was written: push an apply, pop after an undo."""
    pending_file, last_file = jr.pending_path(root), jr.last_path(root)
    if done.kind == jr.KIND_APPLY:
        if last_file.exists():
            _push(root, last_file)
        os.replace(pending_file, last_file)
        _trim(root)
        return done.with_state(jr.APPLIED, last_file)
    pop(root, done.undoes)
    jr.remove(pending_file)
    _tidy(root)
    return done.with_state(jr.APPLIED, None)


def pop(root: Path, change_id: str | None) -> None:
    """Delete the top change if it is *change_id*, then bring the newest stacked change up (repeatable)."""
    last_file = jr.last_path(root)
    top = jr.load(last_file) if last_file.exists() else None
    if top is not None and top.id == change_id:
        last_file.unlink()
    if not last_file.exists():
        older = stacked_paths(root)
        if older:
            os.replace(older[-1], last_file)


def _tidy(root: Path) -> None:
    with contextlib.suppress(OSError):  # an empty stack leaves no folder behind
        jr.stack_dir(root).rmdir()
    if not jr.last_path(root).exists():
        jr.remove(jr.last_path(root))  # and an empty journal folder none either


def drop_top(root: Path, change_id: str | None) -> None:
    """Forget the top change without writing any file (its files are already back as they were)."""
    pop(root, change_id)
    _tidy(root)


def _push(root: Path, last_file: Path) -> None:
    older = stacked_paths(root)
    number = int(older[-1].stem) + 1 if older else 1
    folder = jr.stack_dir(root)
    folder.mkdir(parents=True, exist_ok=True)
    os.replace(last_file, folder / f"{number:04d}.json")


def _trim(root: Path) -> None:
    older = stacked_paths(root)
    for path in older[: max(0, len(older) - (jr.STACK_LIMIT - 1))]:
        with contextlib.suppress(FileNotFoundError):
            path.unlink()


def git_blob_id(data: bytes | None) -> str | None:
    """The id git gives *data* as a blob (None: no file)."""
    if data is None:
        return None
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def written_by_mpsgen(root: Path, rels: list[str], head_blobs: dict[str, str | None]) -> set[str]:
    """Those of *rels* whose uncommitted changes are exactly what mpsgen wrote."""
    return set(mpsgen_chains(root, rels, head_blobs))


def mpsgen_chains(root: Path, rels: list[str], head_blobs: dict[str, str | None]) -> dict[str, list[str]]:
    """For each of *rels* whose uncommitted changes are exactly mpsgen's: the ids of the changes
    that made them, newest first.

    Walking the stack from the newest change, each change that touched the file must have
    written what the file holds now (or what the next change found), until a change whose
    old bytes are the file at HEAD (*head_blobs*: git blob ids, None when not in HEAD)."""
    changes = load_stack(root) if rels else []
    walks = {rel: _walk(root, rel, changes, head_blobs.get(rel)) for rel in rels}
    return {rel: chain for rel, (chain, end) in walks.items() if end == "head"}


def older_than_the_stack(root: Path, rels: list[str], head_blobs: dict[str, str | None]) -> list[str]:
    """Those of *rels* whose changes are mpsgen's as far back as the full undo stack goes, but began in
    a change the stack no longer keeps (more than STACK_LIMIT uncommitted runs)."""
    changes = load_stack(root) if rels else []
    if len(changes) < jr.STACK_LIMIT:
        return []
    walks = {rel: _walk(root, rel, changes, head_blobs.get(rel)) for rel in rels}
    return [rel for rel, (chain, end) in walks.items() if chain and end == "stack"]


def _walk(root: Path, rel: str, changes: list[jr.Journal], head_blob: str | None) -> tuple[list[str], str]:
    """The ids of the changes, newest first, that wrote what *rel* holds now (each what the next one
    found), and where the walk ended: "head" (the oldest started from the file at HEAD), "edited" (a
    hand edit between two runs, or an unreadable file) or "stack" (the stack ran out first)."""
    try:
        current: bytes | None = (root / rel).read_bytes()
    except FileNotFoundError:
        current = None
    except OSError:
        return [], "edited"  # unreadable: leave it to the dirty check's refusal
    expect = None if current is None else jr.sha256(current)
    chain: list[str] = []
    for change in changes:
        f = change.file(rel)
        if f is None:
            continue
        if f.new_sha256 != expect:
            return chain, "edited"
        chain.append(change.id)
        if git_blob_id(f.old) == head_blob:
            return chain, "head"
        expect = None if f.old is None else jr.sha256(f.old)
    return chain, "stack"


def uncommitted_earlier_changes(root: Path) -> tuple[list[jr.Journal], list[str]]:
    """The applied changes below the top that are still uncommitted, and their files: what a
    commit of the top change must take along (git only)."""
    from mpsgen.tree import gitops

    changes = load_stack(root)
    rels = sorted({f.rel for change in changes[1:] for f in change.files})
    dirty = sorted(gitops.dirty_paths(root, rels)) if rels else []
    chains = mpsgen_chains(root, dirty, gitops.head_blob_ids(root, dirty)) if dirty else {}
    ids = {i for chain in chains.values() for i in chain}
    earlier = [c for c in changes[1:] if c.id and c.id in ids]
    return earlier, sorted(chains)
