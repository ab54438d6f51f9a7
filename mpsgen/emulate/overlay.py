"""The include root the numeric check compiles against when the change edits c10/metal: the
checkout's headers with the planned texts in their place (a REGISTER_* macro the change adds to
indexing.h is compiled here, through its own kernel templates, before anything is written).

The overlay is a folder under the cache, named by its content: c10/metal/*.h copied (planned texts
replacing theirs), every other top-level entry of the checkout a symbolic link, so kernels/<Stem>.h
and the like still resolve.  The checkout itself is never written.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mpsgen.tree.changeset import Changeset

METAL_HEADERS = "c10/metal"


def planned_headers(changeset: Changeset) -> dict[str, str]:
    """The c10/metal headers *changeset* edits, or holds from the commit it
    builds on (its base), by path, with their texts."""
    rels = dict.fromkeys([*changeset.base_paths, *changeset.changed_paths])
    return {rel: changeset.current(rel) for rel in rels if rel.startswith(f"{METAL_HEADERS}/")}


def include_root(root: str | Path, headers: dict[str, str], cache: Path) -> Path:
    """*root* when nothing is planned for c10/metal, else the overlay folder (made once per content)."""
    root = Path(root)
    if not headers:
        return root
    key = hashlib.sha256(str(root).encode() + b"\0" + repr(sorted(headers.items())).encode()).hexdigest()[:24]
    overlay = cache / f"overlay-{key}"
    if (overlay / ".complete").is_file():
        return overlay
    tmp = cache / f"overlay-{key}.{os.getpid()}"
    metal = tmp / METAL_HEADERS
    metal.mkdir(parents=True, exist_ok=True)
    for header in sorted((root / METAL_HEADERS).glob("*")):
        if header.is_file():
            rel = f"{METAL_HEADERS}/{header.name}"
            text = headers.get(rel)
            (metal / header.name).write_bytes(text.encode("utf-8") if text is not None else header.read_bytes())
    for entry in root.iterdir():
        if entry.name not in ("c10", ".git"):
            (tmp / entry.name).symlink_to(entry)
    (tmp / ".complete").write_text("", encoding="utf-8")
    try:
        os.replace(tmp, overlay)
    except OSError:  # another run made it meanwhile
        import shutil

        shutil.rmtree(tmp, ignore_errors=True)
    return overlay
