"""Delete the MPSGraph registrations of a stub the new kernel takes over: REGISTER_MPS_UNARY_STUB lines
(and the macro's #define with its last use), or REGISTER_DISPATCH(stub, &fn) with fn and the
file-local helpers only fn used.  Part of the kernel-code phase, planned on its Draft."""

from __future__ import annotations

from mpsgen.model import Location
from mpsgen.plan.texts import Draft
from mpsgen.records import NamedTuple
from mpsgen.scan.lines import split_lines
from mpsgen.sources.host import mm as host


class GraphRemoval(NamedTuple):
    removed: tuple[str, ...]  # located lines for the summary
    notes: tuple[str, ...]  # helpers kept because a macro could paste their name


def remove_graph_registration(draft: Draft, reg: host.Registration) -> GraphRemoval:
    """Delete an MPSGraph registration of the stub: REGISTER_MPS_UNARY_STUB(op, …) (and the macro's
    #define with its last use), or REGISTER_DISPATCH(stub, &fn) with fn and the file-local helpers
    only fn used.  Located again by what it registers: an earlier removal may have moved it."""
    same = (reg.stub, reg.fn, reg.macro)
    now = [r for r in host.registrations(draft.current(reg.path), reg.path) if (r.stub, r.fn, r.macro) == same]
    if not now:
        return GraphRemoval((), ())
    reg = now[0]
    if reg.macro == "REGISTER_MPS_UNARY_STUB":
        from mpsgen.sources.host import unary_stub_macro

        removed = [_remove_lines(draft, reg.path, reg.line, reg.end_line,
                                 f"{reg.macro}({reg.stub.removesuffix('_stub')}, …)")]
        text, line = unary_stub_macro.remove_if_unused(draft.current(reg.path), reg.path)
        if line is not None:  # that was its last use: the macro goes too
            draft.set_text(reg.path, text, f"removed #define {reg.macro}")
            removed.append(f"{Location(reg.path, line)}: #define {reg.macro} (no use left)")
        return GraphRemoval(tuple(removed), ())
    from mpsgen.sources.host.deadcode import remove_unused_helpers

    first = _remove_lines(draft, reg.path, reg.line, reg.end_line, f"{reg.macro}({reg.stub}, {reg.fn}) (MPSGraph)")
    text, dead, kept = remove_unused_helpers(draft.current(reg.path), reg.path, {reg.fn})
    if dead:
        draft.set_text(reg.path, text, f"removed the MPSGraph kernel of {reg.stub}")
    return GraphRemoval(
        (first, *(f"{Location(reg.path, line)}: {what} (used only by the MPSGraph kernel of {reg.stub})"
                  for line, what in dead)),
        tuple(f"{Location(reg.path, line)}: {what} is not named any more, but a macro's `##` could build its name: "
              "left in place" for line, what in kept))


def _remove_lines(draft: Draft, path: str, line: int, end_line: int, what: str) -> str:
    lines = split_lines(draft.current(path))
    del lines[line - 1 : end_line]
    draft.set_text(path, "".join(lines), f"removed {what}")
    return f"{Location(path, line)}: {what}"
