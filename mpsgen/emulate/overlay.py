"""The include root the numeric checks compile against: the tree the plan is made on, its headers.

That is the checkout's files, with the texts of the commit a stacked change builds on (`migrate --all
--stack`: the Changeset's base) and the change's own edits over them: a REGISTER_* macro the change adds
to indexing.h, a helper or header an earlier commit of the stack added, compiled before anything is written.

The overlay is a folder under the cache, named by its content: each planned header written at its
place, every folder on the way to one a real folder whose other entries are symbolic links to the
checkout's, every other top-level entry a link too (kernels/<Stem>.h, cmake/, ... still resolve).
The checkout itself is never written.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mpsgen.tree.changeset import Changeset

LAYOUT = "2"  # part of the overlay's name: bump when the folder's shape changes


def planned_headers(changeset: Changeset) -> dict[str, str]:
    """The headers of the plan's tree that differ from the disk's, by path, with their texts: those the
    commit it builds on (its base) holds and those *changeset* edits or creates, its edits winning."""
    rels = dict.fromkeys([*changeset.base_paths, *changeset.changed_paths])
    return {rel: changeset.current(rel) for rel in rels if rel.endswith(".h")}


def include_root(root: str | Path, headers: dict[str, str], cache: Path) -> Path:
    """*root* when no header is planned, else the overlay folder (made once per content)."""
    root = Path(root)
    if not headers:
        return root
    content = repr(sorted(headers.items())).encode()
    key = hashlib.sha256(LAYOUT.encode() + b"\0" + str(root).encode() + b"\0" + content).hexdigest()[:24]
    overlay = cache / f"overlay-{key}"
    if (overlay / ".complete").is_file():
        return overlay
    tmp = cache / f"overlay-{key}.{os.getpid()}"
    tmp.mkdir(parents=True, exist_ok=True)
    _fill(tmp, root, {tuple(rel.split("/")): text for rel, text in headers.items()})
    (tmp / ".complete").write_text("", encoding="utf-8")
    try:
        os.replace(tmp, overlay)
    except OSError:  # another run made it meanwhile
        import shutil

        shutil.rmtree(tmp, ignore_errors=True)
    return overlay


def _fill(folder: Path, source: Path, planned: dict[tuple[str, ...], str]) -> None:
    """*folder* as *source* with *planned* (path parts below it -> text) in place: planned files written,
    folders holding one made real (recursively), every other entry of *source* linked."""
    here = {parts[0]: text for parts, text in planned.items() if len(parts) == 1}
    below: dict[str, dict[tuple[str, ...], str]] = {}
    for parts, text in planned.items():
        if len(parts) > 1:
            below.setdefault(parts[0], {})[parts[1:]] = text
    for name, text in here.items():
        (folder / name).write_bytes(text.encode("utf-8"))
    for name, deeper in below.items():
        (folder / name).mkdir(exist_ok=True)
        _fill(folder / name, source / name, deeper)
    if source.is_dir():
        for entry in source.iterdir():
            if entry.name not in here and entry.name not in below and entry.name != ".git":
                (folder / entry.name).symlink_to(entry)
