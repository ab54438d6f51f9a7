"""Delete the MPSGraph implementation of a legacy yaml kernel, the helpers only it used, and its
now unused include."""

from __future__ import annotations

from dataclasses import dataclass, field

from mpsgen.errors import MpsgenError
from mpsgen.plan.texts import folder_files, mentioning, planned_texts, yaml_index
from mpsgen.sources.host import mm as host
from mpsgen.sources.host.callers import only_returns_a_method_call, only_returns_an_at_call
from mpsgen.model import Location
from mpsgen.scan.lines import split_lines
from mpsgen.tree.changeset import Changeset
from mpsgen.tree.checkout import YAML_REL, Checkout


def callers_first(cs: Changeset, checkout: Checkout, names: tuple[str, ...] | list[str]) -> list[str]:
    """*names* with those whose body calls another of them first: hardtanh_backward_mps only calls
    hardtanh_backward_out_mps, and is MPSGraph code only while that one is still there to say so."""
    callers = calling(cs, checkout, names)
    return sorted(names, key=lambda n: n not in callers)


def calling(cs: Changeset, checkout: Checkout, names: tuple[str, ...] | list[str]) -> set[str]:
    """Those of *names* whose body calls another of them."""
    texts = planned_texts(cs, folder_files(cs, "mm_files"), checkout)

    def calls_another(name: str) -> bool:
        impls = host.find_implementations(mentioning(texts, name), name)
        bodies = ["".join(split_lines(texts[i.path])[i.line - 1 : i.end_line]) for i in impls]
        return any(other != name and f"{other}(" in body for body in bodies for other in names)

    return {n for n in names if calls_another(n)}


@dataclass(frozen=True)
class LegacyRemoval:
    """What deleting one legacy kernel's MPSGraph code changes: new texts of its .mm files, and the lines
    the summary reports (removed code, helpers kept because a macro could paste their name)."""

    texts: dict[str, str] = field(default_factory=dict)
    removed: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()


def _op_header(cs: Changeset, family: str) -> dict[str, frozenset[str]]:
    """What ATen/ops/<family>_native.h declares (its entries' kernels, in the planned yaml), and the longer
    families whose own headers declare the `<family>_*` names it does not (softplus_backward)."""
    index = yaml_index(cs.current(YAML_REL))
    declared = frozenset(d.kernel for e in index.family(family).entries for d in e.dispatch) \
        if index.has_family(family) else frozenset()
    longer = frozenset(f for f in index.family_names() if f.startswith(f"{family}_"))
    return {"declared": declared, "longer_ops": longer}


def remove_legacy(cs: Changeset, checkout: Checkout, name: str, family: str) -> LegacyRemoval:
    """Delete the implementation of a legacy yaml kernel, and its now unused include.

    Its yaml entries no longer call it, so whatever it runs goes: MPSGraph code, or bespoke Metal code
    that does not go through the stub (2.7's bitwise_and_out_mps in BitwiseOps.mm, as upstream moved
    it onto the shared binary iterator); the summary says which."""
    mm_texts = mentioning(planned_texts(cs, folder_files(cs, "mm_files"), checkout), name)
    impls = host.find_implementations(mm_texts, name)
    if not impls:
        return LegacyRemoval(notes=(f"no implementation of {name} found in operations/*.mm (already removed?)",))
    from mpsgen.sources.host.deadcode import (drop_emptied_namespaces, drop_orphaned_comments, first_changed_line,
                                              holds_no_code, referenced_names, remove_unused_helpers,
                                              remove_unused_op_headers)

    texts: dict[str, str] = {}
    removed: list[str] = []
    notes: list[str] = []
    used_before: set[str] = set()  # what the overloads deleted so far used (normal_mps's three call one helper)
    for impl in impls:
        before = texts.get(impl.path, cs.current(impl.path))
        # its lines in the text it was found in: an earlier overload's removal moved them in *before*
        body = "".join(split_lines(cs.current(impl.path))[impl.line - 1 : impl.end_line])
        used = referenced_names(body) | used_before
        used_before = used
        # one `return at::op(...)`: it runs neither MPSGraph nor Metal itself, only the op its yaml line no
        # longer reaches (2.7's zero_mps_ once `migrate fill_` pointed it at at::fill_)
        at_call = impl.backend == "unknown" and only_returns_an_at_call(body)
        redispatch = at_call or impl.backend == "unknown" and only_returns_a_method_call(body)  # self.op(...)
        text = host.remove_implementation(before, impl, allow_metal=True, allow_unknown=redispatch)
        # its section's comment, once nothing is under it
        text = drop_orphaned_comments(text, first_changed_line(before, text), {name})
        text, dead, kept = remove_unused_helpers(text, impl.path, used)
        text = drop_emptied_namespaces(before, text, impl.path)  # a scope only they filled
        text, headers = remove_unused_op_headers(text, used)  # at::view_as_real's, only the deleted code called
        texts[impl.path] = host.remove_op_include(text, family, **_op_header(cs, family))
        if holds_no_code(texts[impl.path], impl.path):
            notes.append(f"{impl.path} holds no code any more: delete the file (mpsgen edits, it does not delete)")
        kind = impl.macro or impl.form
        runs = " (bespoke Metal, not through the stub)" if impl.backend == "metal" else \
            " (a call of an at:: op only)" if at_call else " (a method call of an op only)" if redispatch else ""
        removed.append(f"{impl.location}: {kind} {name}{runs}")
        removed.extend(f"{Location(impl.path, line)}: {what} (used only by {name})" for line, what in dead)
        removed.extend(f"{impl.path}: #include <{h}> (used only by {name})" for h in headers)
        notes.extend(f"{Location(impl.path, line)}: {what} is not named any more, but a macro's `##` could build "
                     "its name: left in place" for line, what in kept)
    return LegacyRemoval(texts, tuple(removed), tuple(notes))
