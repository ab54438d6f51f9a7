"""Never delete what the change keeps calling: the callers a migration's deletions would leave.

Moving a family deletes the MPS-only kernels its entries named (plan/legacy.py) and their yaml lines,
whose declarations in ATen/ops/<op>_native.h go with them.  Code the change keeps may still call such
a kernel: 2.7's `_bitwise_not_out_mps` calls `logical_not_out_mps` for bool inputs.  Each call left in
the planned texts (the legacy code removed on a copy, as the legacy phase will remove it) is either

* rewritten to the op's `at::` function, which dispatches to the kernel MPS now shares, when the
  call's arguments are the kernel's own, one for one (`at::logical_not_outf(self, out)`), with the
  operator header the file then needs; or
* a reason to keep the kernel: its yaml line stays, so the entries on it stay too (the caller is told
  by the routing phase, which moves the other entries).

A family's own in-place or out variant that calls it moves with the family instead (plan/routing.py
routes it to its shared kernel when that kernel delegates to the stub's caller in one call).
"""

from __future__ import annotations

from typing import Callable

from mpsgen.errors import MpsgenError
from mpsgen.plan.texts import TextEdit, folder_files, mentioning, planned_texts
from mpsgen.records import NamedTuple
from mpsgen.sources.host.callers import NATIVE_QUALIFIERS, Use, rewrite_call, uses_of
from mpsgen.sources.native_yaml import cpp_api
from mpsgen.sources.native_yaml.edits import DispatchEdit
from mpsgen.sources.native_yaml.facts import Entry, Family
from mpsgen.tree.changeset import Changeset
from mpsgen.tree.checkout import YAML_REL, Checkout

# Where code can call an at::native kernel: the MPS sources, and native/*.cpp and *.h.
_FOLDERS = ("mm_files", "other_mps_sources", "native_sources", "native_headers")


class CallerPlan(NamedTuple):
    """What the deletions' callers need: the texts with calls rewritten, the kernels kept and why."""

    edits: tuple[TextEdit, ...] = ()
    kept: tuple[tuple[str, str], ...] = ()  # (kernel, the note saying who still calls it)
    notes: tuple[str, ...] = ()  # the calls rewritten


def _key(uses: list[Use], use: Use) -> tuple[str | None, int]:
    """A use named by its function and its rank there: removals elsewhere in the file keep it."""
    same = [u for u in uses if u.function == use.function]
    return use.function, same.index(use)


def _texts(cs: Changeset, checkout: Checkout) -> dict[str, str]:
    return {path: text for folder in _FOLDERS for path, text in planned_texts(cs, folder_files(cs, folder), checkout).items()}


def _after_removal(cs: Changeset, checkout: Checkout, family: str, yaml_text: str,
                   going: tuple[str, ...]) -> dict[str, str]:
    """{path: text} of the files the legacy phase will change, planned on a copy of the changeset."""
    from mpsgen.plan.legacy import callers_first, remove_legacy

    scratch = cs.scratch()
    scratch.set_text(YAML_REL, yaml_text)
    for legacy in callers_first(scratch, checkout, going):
        for path, text in remove_legacy(scratch, checkout, legacy, family).texts.items():
            scratch.set_text(path, text)
    return {rel: scratch.current(rel) for rel in scratch.changed_paths if rel != YAML_REL}


def _native_uses(path: str, text: str, name: str) -> list[Use]:
    """The uses of the at::native function *name* (`mps::name` would be another one)."""
    return [u for u in uses_of(path, text, name) if u.qualifier in NATIVE_QUALIFIERS]


def _surviving(path: str, uses: list[Use], after: dict[str, str], name: str) -> list[Use]:
    if path not in after:
        return uses
    still = _native_uses(path, after[path], name)
    keys = {_key(still, u) for u in still}
    return [u for u in uses if _key(uses, u) in keys]


def _why_not_rewritten(uses: list[Use], entries: list[Entry], yaml_text: str) -> tuple[str, Use]:
    """Why the calls cannot become calls of the op's `at::` function ("" when they can), and the use
    that says so."""
    for u in uses:
        if u.form == "address":
            return "its address is taken", u
        if u.form != "call":
            return "it is named without being called", u
        if u.in_directive:
            return "a #define calls it", u
    callees = {cpp_api.at_function(e, yaml_text) for e in entries}
    counts = {cpp_api.argument_count(e) for e in entries}
    if len(callees) != 1 or None in callees or len(counts) != 1:
        names = ", ".join(e.name for e in entries) or "no entry"
        return f"{names} has no one `at::` function taking its arguments", uses[0]
    n = counts.pop()
    for u in uses:
        if u.args is None:
            return "the call's arguments cannot be read", u
        if len(u.args) != n:
            return f"the call's arguments do not map one for one onto {entries[0].name}'s {n}", u
    return "", uses[0]


def _who(u: Use) -> str:
    return f"{u.function or 'code at namespace scope'} at {u.location}"


def plan_callers(cs: Changeset, checkout: Checkout, family: str, entries: tuple[Entry, ...], yaml_text: str,
                 original_yaml: str, going: tuple[str, ...]) -> CallerPlan:
    """Rewrite or keep for each kernel in *going* (those the change deletes) that code left calls.

    *entries*: the family's entries as the original yaml has them (an entry's legacy line names the
    kernel); *yaml_text*: the yaml as the change leaves it."""
    texts = _texts(cs, checkout)
    found = {name: {path: uses for path, text in mentioning(texts, name).items() if (uses := _native_uses(path, text, name))}
             for name in going}
    found = {name: per_path for name, per_path in found.items() if per_path}
    if not found:
        return CallerPlan()
    after = _after_removal(cs, checkout, family, yaml_text, going)
    drafts: dict[str, str] = {}
    kept: list[tuple[str, str]] = []
    notes: list[str] = []
    for name, per_path in found.items():
        left = {path: s for path, uses in per_path.items() if (s := _surviving(path, uses, after, name))}
        if not left:
            continue
        users = [e for e in entries if name in {d.kernel for d in e.legacy_lines}]
        flat = [u for uses in left.values() for u in uses]
        why, culprit = _why_not_rewritten(flat, users, original_yaml)
        callee = cpp_api.at_function(users[0], original_yaml) if users and not why else None
        new: dict[str, str] = {}
        if callee is not None:
            from mpsgen.sources.host.op_headers import ensure_op_header

            try:
                for path, uses in left.items():
                    text = drafts.get(path, cs.current(path))
                    now = _native_uses(path, text, name)
                    wanted = {_key(uses, u) for u in uses}
                    for u in sorted((u for u in now if _key(now, u) in wanted), key=lambda u: -u.start):
                        text = rewrite_call(text, u, callee)
                    new[path] = ensure_op_header(text, cpp_api.op_header(users[0]), path=path)
            except MpsgenError as err:
                why = f"{callee} cannot be declared there: {err.where()}{err.message}"
                culprit = next(u for u in flat if u.path == err.path) if err.path in left else flat[0]
        if why or callee is None:
            kept.append((name, f"kept {name}: still called by {_who(culprit)} ({why}); its `MPS: {name}` line "
                               f"stays, and {', '.join(e.name for e in users) or 'no entry'} with it"))
            continue
        drafts.update(new)
        notes.extend(f"{_who(u)} now calls {callee} instead of {name}, which goes with the MPSGraph code" for u in flat)
    edits = tuple(TextEdit(path, text, (f"calls of deleted kernels rewritten to at:: ops ({family})",))
                  for path, text in drafts.items() if text != cs.current(path))
    return CallerPlan(edits, tuple(kept), tuple(notes))


class Spared(NamedTuple):
    """The yaml edit once no deletion leaves a caller behind, and what that took."""

    edit: DispatchEdit
    only: tuple[str, ...] | None  # the overloads moved (None: every one)
    edits: tuple[TextEdit, ...]  # calls rewritten to at:: functions
    kept: tuple[str, ...]  # notes: kernels kept for their callers, and the entries left on them
    notes: tuple[str, ...]  # notes: the calls rewritten


def spare_callers(checkout: Checkout, cs: Changeset, family: Family, yaml_text: str, edit: DispatchEdit,
                  only: tuple[str, ...] | None, migrate: Callable[[tuple[str, ...]], DispatchEdit],
                  delegating: frozenset[str] = frozenset()) -> Spared:
    """*edit* (the family's yaml edit), or, when a kernel it deletes keeps a caller that cannot be
    rewritten, the edit *migrate* makes of the overloads not on that kernel: to a fixed point, since a
    kernel kept may itself call another one the change deletes.  Refused when only overloads whose
    shared kernel is in *delegating* (it reaches the stub through another overload's) would move."""
    from mpsgen.sources.native_yaml.edits import entry_calling

    excluded: set[str] = set()
    kept: dict[str, str] = {}
    while True:
        going = tuple(k for k in edit.legacy_kernels if not (k in edit.text and entry_calling(edit.text, k)))
        plan = plan_callers(cs, checkout, family.name, family.entries, edit.text, yaml_text, going)
        kept.update(plan.kept)
        on_kept = {e.name for e in family.entries if {d.kernel for d in e.legacy_lines} & set(kept)}
        on_kept |= {e.name for e in family.entries if e.structured_delegate in on_kept}
        if not on_kept - excluded:
            return Spared(edit, only, plan.edits, tuple(kept.values()), plan.notes)
        excluded |= on_kept
        chosen = tuple(n for n in (only if only is not None else [e.name for e in family.entries]) if n not in excluded)
        if not any(e.legacy_lines and not e.cpu_cuda_kernels & delegating for e in family.entries if e.name in chosen):
            raise MpsgenError(f"{family.name} cannot move without breaking code that stays: "
                              + "; ".join(kept.values()), path=YAML_REL,
                              line=next((e.line for e in family.entries if e.name in excluded), None),
                              hint="rewrite those calls (e.g. to the op's at:: function) first, or move it by hand")
        edit, only = migrate(chosen), chosen
