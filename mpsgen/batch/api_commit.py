"""The host API a family's change adds (backfill/host_api), as a change of its own.

`migrate --all --stack` lands it as one commit below the first family that uses it, as upstream lands an
API before the ops that call it; the families after find it in their parent's tree and add nothing.
The API's texts are not cut out of the family's: the backfills the plans chose (each kernel plan's
shape names its own) are applied again, by the same editors, to the texts the change starts from, and
their lines laid out by clang-format as the plan lays out its own.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mpsgen.errors import MpsgenError
from mpsgen.records import NamedTuple
from mpsgen.tree.gitops import MPSGEN_TRAILER

if TYPE_CHECKING:
    from mpsgen.plan.group import GroupPlan


class ApiChange(NamedTuple):
    files: dict[str, str]  # path -> the change's starting text with only the API's edits
    added: tuple[str, ...]  # "path: what" per piece (backfill/host_api's lines)
    forms: tuple[str, ...]  # the backfills' names, in the order the plans needed them
    why_kept: str = ""  # why the API stays in the family's commit (files empty), for its PR text


def api_forms(group: "GroupPlan") -> tuple[str, ...]:
    """The host API backfills the group's kernels run through, in the order they were planned."""
    return tuple(dict.fromkeys(p.shape.backfill for p in group.kernel_plans if p.shape is not None and p.shape.backfill))


def api_change(group: "GroupPlan") -> ApiChange:
    """The API the group's change adds, applied alone to the texts it starts from (empty files: it adds
    none, or every form it needs must land with its first caller)."""
    from mpsgen.backfill.host_api import FORMS, backfill
    from mpsgen.generate.clang_format import FORMATTED_SUFFIXES, format_lines

    cs = group.changeset
    checkout = cs.checkout
    forms = api_forms(group)
    kept = tuple(f for f in forms if f in FORMS and not FORMS[f].alone)
    texts: dict[str, str] = {}
    added: list[str] = []

    def read(rel: str) -> str | None:  # as kernel_choice reads them, on the change's starting texts
        if rel in texts:
            return texts[rel]
        return cs.original(rel) if rel in cs.base_paths or checkout.path(rel).is_file() else None

    if kept:  # one commit for all: a form landing alone would sit on one that cannot
        return ApiChange({}, (), forms, f"The host API is in this commit, the first to call it: alone, "
                                        f"{' and '.join(FORMS[f].title for f in kept)} would leave a file-local "
                                        "function nobody calls (-Wunused-function).")
    for form in forms:
        fill = backfill(form, read)
        texts.update(fill.texts)
        added += fill.added
    for rel, text in texts.items():
        if rel.endswith(FORMATTED_SUFFIXES):
            texts[rel] = format_lines(cs.original(rel), text, checkout.root / rel, checkout.root)[0]
        if not keeps_added_lines(cs.original(rel), texts[rel], cs.current(rel)):
            raise MpsgenError(f"the change lays out the host API it adds to {rel} otherwise than the API alone",
                              path=rel, hint="the API stays in the family's commit")
    return ApiChange(texts, tuple(added), forms)


def keeps_added_lines(base: str, api: str, final: str) -> bool:
    """Whether *final* keeps every line *api* added to *base* as it is: the family's commit on top
    of the API's then changes nothing the API commit wrote."""
    import difflib

    from mpsgen.scan.lines import split_lines

    old, mid, new = split_lines(base), split_lines(api), split_lines(final)
    ours = {k for tag, _, _, j1, j2 in difflib.SequenceMatcher(None, old, mid, autojunk=False).get_opcodes()
            if tag != "equal" for k in range(j1, j2)}
    return not any(tag != "equal" and ours & set(range(i1, i2))
                   for tag, i1, i2, _, _ in difflib.SequenceMatcher(None, mid, new, autojunk=False).get_opcodes())


def safe_api_change(group: "GroupPlan") -> ApiChange:
    """api_change, or none when the backfill does not apply to the starting texts alone (an edit of
    the family's own came first): the API then stays in the family's commit, as with --branch-per-op."""
    try:
        return api_change(group)
    except MpsgenError as err:
        return ApiChange({}, (), api_forms(group), f"The host API is in this commit: applied alone to the parent's "
                                                   f"files it would differ from this change's ({err.render()}).")


def api_message(change: ApiChange, families: list[str], user_title: str) -> str:
    """The API commit's message: which forms it adds, modeled on which siblings, who needs it."""
    from mpsgen.backfill.host_api import FORMS

    forms = [FORMS[f] for f in change.forms if f in FORMS]
    names = " and ".join(families)
    title = f"[MPS] Add {' and '.join(f.title for f in forms) or 'a host API form'}, for {names}"
    body = [f"This checkout lacks the host API {'forms' if len(forms) > 1 else 'form'} {names} needs; this commit adds "
            "only that, each piece derived from its sibling in the same file, so that the ops using it land on top.",
            "", "Modeled on:", *(f"- {f.title}: {f.modeled_on}" for f in forms), "",
            "Added:", *(f"- {item}" for item in change.added), "",
            f"Nothing calls it yet: the next commit is its first user ({user_title}).", ""]
    return f"{title}\n\n" + "\n".join(body) + f"\n{MPSGEN_TRAILER}\n"
