"""The compile check of one change: which files to compile, each compiled before and after, what is new.

A change is two maps of checkout-relative path -> text: *after* (every file it writes, its new text)
and *before* (the same paths' texts before it, None for a file it creates). Compiled are the .mm and
.metal files it writes, and the files it leaves alone whose meaning it changes: an operations/*.mm
naming a kernel whose native_functions.yaml line it removes (its generated declaration goes), and a
.mm or .metal including a header it edits. Each is compiled against the change's own headers and
yaml, then against the old ones; a finding is a diagnostic only the new side has.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Mapping

from mpsgen.compiler.diagnostic import Diagnostic, new_diagnostics
from mpsgen.compiler.header_reach import MPS_DIR, reached_headers
from mpsgen.records import NamedTuple
from mpsgen.scan.includes import included_names

if TYPE_CHECKING:
    from mpsgen.tree.changeset import Changeset

YAML_REL = "aten/src/ATen/native/native_functions.yaml"
COMPILED_SUFFIXES = (".mm", ".metal")
_KERNEL = re.compile(r"^\s+[\w, ]*MPS[\w, ]*:\s*(\w+)\s*$", re.MULTILINE)


class CompileCheck(NamedTuple):
    """What the compile check of a change found."""

    findings: tuple[Diagnostic, ...]  # diagnostics the change adds
    compiled: tuple[str, ...]  # the files compiled (each before and after)
    skipped: tuple[str, ...]  # one line per file or kind not compiled, and why

    @property
    def ok(self) -> bool:
        return not self.findings

    def summary(self) -> str:
        n = len(self.compiled)
        files = f"{n} file{'' if n == 1 else 's'}"
        said = f"compiled {files}: no new diagnostic" if self.ok else \
            f"compiled {files}: {len(self.findings)} new diagnostic{'' if len(self.findings) == 1 else 's'}"
        return said + "".join(f"; {s}" for s in self.skipped)


def compile_change(root: Path, after: Mapping[str, str], before: Mapping[str, str | None], *,
                   disk_text: Callable[[str], str | None], base: Mapping[str, str] | None = None,
                   cache_dir: Path | None = None, thorough: bool = True) -> CompileCheck:
    """Compile every file the change (*after*, *before*) writes or affects, before and after it.
    *disk_text(rel)*: a file's text where the change does not name it (None when there is none);
    *base*: texts standing for the disk's on both sides (the commit a stacked change builds on).
    Not *thorough*: the bodies of the .mm files' headers' functions are not checked (objcxx.tu_options;
    a header the change edits is checked whole all the same, see _checked_whole): a planned change's
    check, which `migrate --all` runs per family, at a third of the cost."""
    shared = {rel: t for rel, t in (base or {}).items() if rel.endswith(".h") or rel == YAML_REL}
    after = {**shared, **after}
    before = {**shared, **before}
    from mpsgen.compiler.objcxx import CompilerUnavailable
    from mpsgen.emulate.compile import ToolMissing

    changed = {rel: t for rel, t in after.items() if before.get(rel, None) != t}
    targets, unreached, headers = affected(root, changed, before, disk_text, beyond_disk=tuple(base or {}))
    deep = _checked_whole(targets, changed, thorough, disk_text, headers)
    findings: list[Diagnostic] = []
    compiled: list[str] = []
    skipped: dict[str, list[str]] = {}  # why -> the files not compiled for it
    for rel in targets:
        new = after[rel] if rel in after else disk_text(rel)
        old = before[rel] if rel in before else disk_text(rel)
        if new is None:
            continue  # deleted by the change: nothing left to compile
        try:
            now = _compile(root, rel, new, _headers(after), after.get(YAML_REL), cache_dir, rel in deep)
            # a clean new side has nothing new: the old side is compiled only to excuse what it shares
            then = [] if old is None or not now else \
                _compile(root, rel, old, _headers(before), before.get(YAML_REL), cache_dir, rel in deep)
        except (ToolMissing, CompilerUnavailable) as err:  # no compiler: said, not a finding
            skipped.setdefault(err.render(), []).append(Path(rel).name)
            continue
        compiled.append(rel)
        findings += new_diagnostics(now, then)
    said = [f"{', '.join(files)} not compiled: {why}" for why, files in skipped.items()]
    if unreached:
        n = len(unreached)
        said.append(f"{n} more file{'' if n == 1 else 's'} including an edited header not compiled: "
                    f"{'it names' if n == 1 else 'they name'} nothing the edit declares")
    # one macro line can fail the same way for several kernels: say each place and message once
    return CompileCheck(tuple(dict.fromkeys(findings)), tuple(compiled), tuple(said))


def _checked_whole(targets: list[str], changed: Mapping[str, str], thorough: bool,
                   text_of: Callable[[str], str | None], headers: frozenset[str]) -> set[str]:
    """The .mm targets compiled with their headers' bodies: all when *thorough*; else, when the change
    edits a header, those of its .mm files that include it or a header that does (*headers*; when none
    does, the first file that does), whose compile checks the header's bodies. The files a header
    edit reaches but the change leaves alone are checked against its declarations (the quick parse),
    as a change's own .mm files are otherwise; headers only a stack's lower commits changed are the
    same on both sides and were checked with those commits."""
    mm = [rel for rel in targets if rel.endswith(".mm")]
    if thorough:
        return set(mm)
    if not headers:
        return set()
    reached = [rel for rel in mm if included_names(changed[rel] if rel in changed else text_of(rel) or "") & headers]
    return {rel for rel in reached if rel in changed} or set(reached[:1])


class Affected(NamedTuple):
    files: list[str]  # to compile: the files the change writes, then those it reaches
    unreached: list[str]  # files including a header it edits that name nothing the edit declares
    headers: frozenset[str]  # the file names of the headers it edits and of those including them


def affected_files(root: Path, after: Mapping[str, str], before: Mapping[str, str | None],
                   disk_text: Callable[[str], str | None], beyond_disk: tuple[str, ...] = ()) -> list[str]:
    """The .mm/.metal files the change writes, then those it leaves alone that name a yaml kernel it
    removes or include a header it edits (and name what the edit declares, see affected), in path order."""
    return affected(root, after, before, disk_text, beyond_disk).files


def affected(root: Path, after: Mapping[str, str], before: Mapping[str, str | None],
             disk_text: Callable[[str], str | None], beyond_disk: tuple[str, ...] = ()) -> Affected:
    """affected_files, and the includers of an edited header left out because the edit only inserts or
    removes declarations (scan/declared.py) and they name none of them.  *beyond_disk*: files the tree
    the change is made on holds besides the disk's (a stacked commit below created them; *disk_text*
    reads them)."""
    written = [rel for rel in after if rel.endswith(COMPILED_SUFFIXES)]
    removed = removed_kernels(before.get(YAML_REL), after.get(YAML_REL))
    edited = reached_headers(root, after, before, disk_text, beyond_disk)
    if not removed and not edited:
        return Affected(sorted(written), [], frozenset(edited))
    words = re.compile(r"\b(?:%s)\b" % "|".join(map(re.escape, removed))) if removed else None
    more: list[str] = []
    unreached: list[str] = []
    listed = [path.relative_to(root).as_posix() for path in
              (*(root / MPS_DIR).glob("operations/*.mm"), *(root / MPS_DIR).glob("kernels/*.metal"))]
    listed += [rel for rel in beyond_disk if re.fullmatch(rf"{MPS_DIR}/(operations/[^/]+\.mm|kernels/[^/]+\.metal)", rel)]
    for rel in sorted(dict.fromkeys(listed), key=lambda rel: (rel.endswith(".metal"), rel)):
        if rel in after:
            continue
        text = disk_text(rel) or ""
        if words and rel.endswith(".mm") and words.search(text):
            more.append(rel)
            continue
        reached = [edited[header] for header in included_names(text) & edited.keys()]
        if any(names is None or any(name in text for name in names) for names in reached):
            more.append(rel)
        elif reached:
            unreached.append(rel)
    return Affected(sorted(written) + more, unreached, frozenset(edited))


def removed_kernels(old_yaml: str | None, new_yaml: str | None) -> list[str]:
    """The kernel names an MPS dispatch line of *old_yaml* names and no MPS line of *new_yaml* does."""
    if old_yaml is None or new_yaml is None:
        return []
    return sorted(set(_KERNEL.findall(old_yaml)) - set(_KERNEL.findall(new_yaml)))


def _headers(texts: Mapping[str, str | None]) -> dict[str, str]:
    return {rel: t for rel, t in texts.items() if rel.endswith(".h") and t is not None}


def _compile(root: Path, rel: str, text: str, overlay: dict[str, str], yaml_text: str | None,
             cache_dir: Path | None, thorough: bool) -> list[Diagnostic]:
    if rel.endswith(".metal"):
        from mpsgen.compiler.metal import compile_metal

        return compile_metal(root, rel, text, overlay=overlay, cache_dir=cache_dir)
    from mpsgen.compiler.objcxx import compile_mm

    return compile_mm(root, rel, text, overlay=overlay, yaml_text=yaml_text, cache_dir=cache_dir,
                      skip_header_bodies=not thorough)


def compile_planned(changeset: Changeset) -> CompileCheck:
    """The compile check of a planned change before anything is written: its new texts against the
    files as they are (the changeset reads every other file, so what it compiled is what it verifies)."""
    from mpsgen.tree.factcache import cache_root

    root = changeset.checkout.root
    rels = changeset.changed_paths
    after = {rel: changeset.current(rel) for rel in rels}
    before = {rel: None if changeset.is_new(rel) else changeset.original(rel) for rel in rels}
    base = {rel: changeset.original(rel) for rel in changeset.base_paths if rel not in after}

    def disk_text(rel: str) -> str | None:
        return changeset.original(rel) if rel in base or (root / rel).is_file() else None

    return compile_change(root, after, before, disk_text=disk_text, base=base, cache_dir=cache_root() / "compile",
                          thorough=False)
