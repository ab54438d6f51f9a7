"""A compile's diagnostics kept between runs, like ninja's depfiles: the entry names every file the compile
read (with its size and modification time) and is used only while they all still stand as they were.

The HEAD version of a file is compiled once per tree, not once per family of `migrate --all` or per
commit the pre-commit hook checks; a rerun compiles only what changed."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Callable, Iterable

from mpsgen.compiler.diagnostic import Diagnostic

VERSION = "1"  # bump when what a compile returns changes shape


def key_of(*parts: str) -> str:
    h = hashlib.sha256(VERSION.encode())
    for part in parts:
        h.update(b"\0" + part.encode("utf-8", "surrogatepass"))
    return h.hexdigest()[:32]


def remembered(cache_dir: Path | None, key: str,
               compute: Callable[[], tuple[list[Diagnostic], Iterable[str]]]) -> list[Diagnostic]:
    """*compute*'s diagnostics, from the cache while every file it read is unchanged; *compute* returns
    the diagnostics and the paths of the files it read."""
    entry = None if cache_dir is None else cache_dir / f"mm-{key}.json"
    if entry is not None:
        found = _valid(entry)
        if found is not None:
            return found
    diagnostics, read = compute()
    if entry is not None:
        deps = [[p, *stamp(p)] for p in sorted(set(read))]
        entry.parent.mkdir(parents=True, exist_ok=True)
        tmp = entry.with_name(f"{entry.name}.{os.getpid()}")
        tmp.write_text(json.dumps({"deps": deps, "found": [list(d) for d in diagnostics]}), encoding="utf-8")
        tmp.replace(entry)
    return diagnostics


def _valid(entry: Path) -> list[Diagnostic] | None:
    try:
        data = json.loads(entry.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    for path, size, mtime in data["deps"]:
        if stamp(path) != (size, mtime):
            return None
    return [Diagnostic(*row) for row in data["found"]]


def stamp(path: str) -> tuple[int, int]:
    """A file's size and modification time ((-1, -1): none)."""
    try:
        st = os.stat(path)
    except OSError:
        return (-1, -1)
    return (st.st_size, st.st_mtime_ns)
