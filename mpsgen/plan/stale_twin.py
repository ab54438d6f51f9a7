"""A stub declared twice, once stale: 2.7's UnaryOps.h still declares clamp_stub as (iter, min, max), which
no file defines, beside TensorCompare.h's (iter), which TensorCompare.cpp defines.  A host file that comes
to include both headers (UnaryKernel.mm adding TensorCompare.h for isposinf_stub) no longer compiles
(redefinition of clamp_stub_DECLARE_DISPATCH_type).  The change then deletes the stale declaration, as
upstream did, when every file naming the stub includes the live declaration's header: nothing can be
using the stale one.  The live one is the declaration the file defining the stub includes.
"""

from __future__ import annotations

from pathlib import Path

from mpsgen.plan.texts import Draft, folder_files, planned_texts
from mpsgen.scan.includes import includes_header
from mpsgen.sources.native.stub_twins import defines_stub, uses_name, without_declaration
from mpsgen.sources.native.stubs import StubDecl, index_stub_declarations
from mpsgen.tree.changeset import Changeset

# Where code can name a stub: ATen's native folder, its backends' subfolders included.
_SOURCE_SUFFIXES = (".cpp", ".cu", ".cuh", ".h", ".mm", ".hip")


def _live_and_stale(cs: Changeset, twins: list[StubDecl]) -> tuple[StubDecl, StubDecl] | None:
    """(live, stale) of two declarations: the live one's header is the one the DEFINE_DISPATCH file includes."""
    sources = planned_texts(cs, folder_files(cs, "native_sources"), cs.checkout)
    definer = next((t for t in sources.values() if defines_stub(t, twins[0].name)), None)
    if definer is None:
        return None
    live = [d for d in twins if includes_header(definer, d.header)]
    if len(live) != 1:
        return None
    return live[0], next(d for d in twins if d is not live[0])


def _only_live_users(cs: Changeset, live: StubDecl, stale: StubDecl) -> bool:
    """Every file naming the stub, but the two headers, includes the live declaration's header."""
    known = {*cs.base_paths, *cs.changed_paths}  # a stacked commit's text, or this plan's
    native = cs.checkout.native_dir
    found = cs.checkout.sources_naming(native, live.name, _SOURCE_SUFFIXES)
    inside = cs.checkout.rel(native) + "/"
    for rel in sorted(set(found) | {k for k in known if k.startswith(inside) and k.endswith(_SOURCE_SUFFIXES)}):
        if rel in (live.path, stale.path):
            continue
        text = cs.current(rel) if rel in known else found[rel]
        if uses_name(text, live.name) and not includes_header(text, live.header):
            return False
    return True


def drop_stale_twins(draft: Draft, mm_rel: str, new_mm: str) -> list[str]:
    """Delete, in the draft, each stale stub declaration that *new_mm* (the host file's planned text) now
    sees beside its live twin through a header the change includes anew; one line per deletion, for the
    summary's "removed".  A twin something may still use is left: the compile check then refuses, saying why."""
    cs = draft.cs
    old_mm = cs.current(mm_rel)
    headers = planned_texts(cs, folder_files(cs, "native_headers"), cs.checkout)
    declared: dict[str, list[StubDecl]] = {}
    for path, text in headers.items():
        if "DECLARE_DISPATCH" in text and includes_header(new_mm, _header_of(path)):
            for name, decl in index_stub_declarations({path: text}).items():
                declared.setdefault(name, []).append(decl)
    removed = []
    for twins in declared.values():
        if len(twins) != 2 or all(includes_header(old_mm, d.header) for d in twins):
            continue  # not twins, or both seen before this change: not its business
        pair = _live_and_stale(cs, twins)
        if pair is None or not _only_live_users(cs, *pair):
            continue
        live, stale = pair
        without = without_declaration(draft.current(stale.path), stale.line)
        if without is None:
            continue
        draft.set_text(stale.path, without, f"stale DECLARE_DISPATCH of {live.name}")
        removed.append(f"{stale.location}: DECLARE_DISPATCH of a second {live.name} ({stale.fn_type}), which nothing "
                       f"defines and {Path(live.path).name}'s conflicts with in {Path(mm_rel).name}")
    return removed


def _header_of(path: str) -> str:
    """The include path of a native header (aten/src/ATen/native/UnaryOps.h -> ATen/native/UnaryOps.h)."""
    return path[path.index("ATen/"):] if "ATen/" in path else path
