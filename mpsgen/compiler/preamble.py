"""A .mm file's #include block compiled once into a precompiled header kept in mpsgen's cache.

Parsing a 2.7 operations/*.mm file cold costs ~6-12 s of CPU, nearly all of it in the ~1000 headers
its #include block pulls in; the file itself parses in well under a second. Every family `migrate
--all` checks, and every commit the pre-commit hook checks, changes the file's body, not its
headers: so the block (the file's leading preprocessor lines, per-operator `ATen/ops/` includes
left out because a change's yaml rewrites those headers) is compiled once per checkout into a PCH
(clang's `-include-pch`), validated like a ninja depfile by the size and modification time of every
header it read, and the file is then parsed behind it. The file's own `ATen/ops/` includes and
anything after the block still come from disk or the change, so what is compiled is the file the
change writes; a change that edits a header the block reads gets a PCH of its own.

The PCH's header keeps the file's line numbers (left-out lines are blank), so a header's error is
still placed at the file's #include line that leads to it.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Sequence

from mpsgen.compiler.memo import key_of, stamp
from mpsgen.records import NamedTuple
from mpsgen.scan.lines import split_lines

if TYPE_CHECKING:
    from clang import cindex

# Per-operator headers: the ones a change's yaml regenerates (compiler/derived_headers.py).
LEFT_OUT = "ATen/ops/"
KEPT = 16  # PCH files kept in the cache (one is ~30 MB): the newest, by use


class Preamble(NamedTuple):
    """A usable PCH of a file's #include block."""

    path: str  # the .pch file, for -include-pch
    header: str  # the path the block was compiled as (stands for the file in include chains)
    deps: tuple[str, ...]  # every file it read
    included_from: dict[str, tuple[str, int]]  # header -> (the file including it, line)
    errors: tuple[tuple[str | None, int, int, str], ...]  # the block's own: (file, line, column, message)


def include_block(text: str) -> str:
    """The leading preprocessor lines of *text* (with the comments and blank lines between them),
    per-operator includes blanked; "" when there is none. Line numbers are the file's."""
    out: list[str] = []
    in_comment = False
    for line in split_lines(text):
        s = line.strip()
        if in_comment:
            in_comment = "*/" not in s
        elif s.startswith("/*"):
            in_comment = "*/" not in s
        elif s and not s.startswith(("#", "//")):
            break
        elif s.endswith("\\"):
            return ""  # a continued directive (a multi-line #define): not a block we can cut safely
        out.append("\n" if LEFT_OUT in line else line)
    return "".join(out) if any(line.lstrip().startswith("#include") for line in out) else ""


def preamble_for(index: "cindex.Index", root: Path, rel: str, text: str, args: Sequence[str], options: int,
                 cache_dir: Path, *, overlay: Sequence[tuple[str, str]] = (),
                 derived: Sequence[tuple[str, str]] = ()) -> Preamble | None:
    """The PCH of *text*'s #include block under *args* and parse *options*, built when the cache has
    none that still stands; None when the block is empty or its PCH cannot be saved (the caller then
    parses the file whole). *overlay*: the headers the change writes (part of the block's key);
    *derived*: the generated headers its yaml rewrites, which only matter to a block that reads one."""
    block = include_block(text)
    if not block:
        return None
    header = str(root / Path(rel).parent / f".{Path(rel).stem}.mpsgen-preamble.h")
    header_args = [("objective-c++-header" if a == "objective-c++" else a) for a in args]
    folder = cache_dir / "pch"
    base = key_of("2", block, " ".join(header_args), str(options), repr(sorted(overlay)))
    found = _valid(folder / f"{base}.json") or _build(index, folder, base, header, block, header_args, overlay, options)
    if found is None:
        return None
    edited = sorted((p, t) for p, t in derived if p in set(found.deps))
    if not edited:
        return found
    key = key_of(base, repr(edited))  # the block reads a rewritten header: a PCH of its own
    return _valid(folder / f"{key}.json") or \
        _build(index, folder, key, header, block, header_args, [*overlay, *edited], options)


def _build(index: "cindex.Index", folder: Path, key: str, header: str, block: str, args: Sequence[str],
           unsaved: Sequence[tuple[str, str]], options: int) -> Preamble | None:
    from clang import cindex

    tu = index.parse(header, args=[*args, *KEEP_ERRORS], unsaved_files=[(header, block), *unsaved],
                     options=options | _INCOMPLETE)
    # A block that does not compile (a tree whose headers fail in this setup) is kept all the same: its
    # errors are kept beside it and become part of every compile behind it.
    errors = tuple((str(d.location.file.name) if d.location.file is not None else None, d.location.line,
                    d.location.column, d.spelling) for d in tu.diagnostics if d.severity >= cindex.Diagnostic.Error)
    included_from = {str(inc.include.name): (str(inc.source.name), inc.location.line) for inc in tu.get_includes()
                     if inc.include is not None and inc.source is not None}
    deps = tuple(sorted(included_from))
    folder.mkdir(parents=True, exist_ok=True)
    pch = folder / f"{key}.pch"
    tmp = pch.with_name(f"{pch.name}.{os.getpid()}")
    try:
        tu.save(str(tmp))
    except cindex.TranslationUnitSaveError:
        tmp.unlink(missing_ok=True)
        return None
    tmp.replace(pch)
    found = Preamble(str(pch), header, deps, included_from, errors)
    entry = folder / f"{key}.json"
    stamped = {"pch": found.path, "header": header, "deps": [[p, *stamp(p)] for p in deps],
               "included_from": found.included_from, "errors": found.errors}
    tmp_entry = entry.with_name(f"{entry.name}.{os.getpid()}")
    tmp_entry.write_text(json.dumps(stamped), encoding="utf-8")
    tmp_entry.replace(entry)
    _evict(folder)
    return found


# A PCH is written, and read, even when its headers have errors (clang refuses both otherwise).
KEEP_ERRORS = ("-Xclang", "-fallow-pch-with-compiler-errors")
# CXTranslationUnit_Incomplete: a header's TU, whose unresolved templates and tentative definitions
# stay as they are (what a PCH needs).
_INCOMPLETE = 0x02


def _valid(entry: Path) -> Preamble | None:
    try:
        data = json.loads(entry.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not os.path.isfile(data["pch"]):
        return None
    for path, size, mtime in data["deps"]:
        if stamp(path) != (size, mtime):
            return None
    os.utime(data["pch"])  # used: the newest survive eviction
    return Preamble(data["pch"], data["header"], tuple(p for p, _, _ in data["deps"]),
                    {k: (v[0], v[1]) for k, v in data["included_from"].items()},
                    tuple((f, line, col, msg) for f, line, col, msg in data["errors"]))


def _evict(folder: Path) -> None:
    pchs = sorted(folder.glob("*.pch"), key=lambda p: p.stat().st_mtime, reverse=True)
    for old in pchs[KEPT:]:
        old.unlink(missing_ok=True)
        old.with_suffix(".json").unlink(missing_ok=True)

