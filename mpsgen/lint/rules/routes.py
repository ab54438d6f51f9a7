"""Rules on the route from native_functions.yaml to a registered MPS kernel: a dispatch edit that
leaves a REGISTER_DISPATCH nothing reaches, and an entry left with an empty `dispatch:`."""

from __future__ import annotations

import re
from bisect import bisect_right
from typing import TYPE_CHECKING, Iterator

from mpsgen.lint.finding import Basis, Finding, bases
from mpsgen.lint.rules import ERROR, rule
from mpsgen.lint.rules.shared import bare
from mpsgen.model import Location
from mpsgen.scan.words import whole_word

if TYPE_CHECKING:
    from mpsgen.lint.inventory import Inventory


def covers_mps(keys: tuple[str, ...]) -> bool:
    """A dispatch line whose kernel runs on MPS tensors: an MPS key (MPS, SparseMPS, ...) or a composite."""
    return any("MPS" in k or k.startswith("Composite") for k in keys)


@rule("MPS018", "unreachable-registration", ERROR,
      "an MPS source registers a DispatchStub whose only callers are shared kernels that no yaml line routes "
      "MPS to (an `MPS` key removed: a runtime error on MPS, the Metal kernel unreachable)")
def unreachable_registration(inv: "Inventory") -> Iterator[Finding]:
    """A runtime error on MPS with a Metal kernel registered for it: the yaml no longer routes the
    op to MPS (`CPU, CUDA, MPS: fmax_out` became `CPU, CUDA: fmax_out`), so `torch.fmax` on MPS
    tensors raises NotImplementedError while REGISTER_DISPATCH(fmax_stub, ...) registers a kernel
    nothing can reach.

    Conservative: the stub's uses in native/*.cpp must all be placed, each inside a shared kernel
    (a function, a TORCH_IMPL_FUNC or a kernel-making macro such as CREATE_UNARY_TORCH_IMPL_FUNC)
    that native_functions.yaml names on a dispatch line, no such line may cover MPS (an MPS key or
    a composite one), no entry naming it may route MPS elsewhere, and the kernel must be spelled
    nowhere else in native/*.cpp or the MPS sources (a direct C++ call could reach it).  A stub
    used by a helper or from C++ outside the yaml's routes is never reported.

    Fix: put MPS back on the yaml line shown (`CPU, CUDA, MPS: fmax_out`), or, when MPS is to lose
    the op, delete the registration and its host kernel too.
    """
    reached: set[str] = set()
    for e in inv.mps_entries:
        if e.mps_route == "shared" and e.mps_kernel:
            impl = inv.stub_use(e.mps_kernel).impl
            reached.update(impl.stub_names if impl else ())
    on_mps = {bare(d.kernel) for e in inv.mps_entries for d in e.mps_lines}
    for stub, regs in inv.registrations.items():
        if stub in reached:
            continue
        users = inv.shared_kernels.users(stub)
        if not users or any(u.kernel not in inv.yaml_kernels or u.kernel in on_mps for u in users):
            continue  # unknown uses, a helper or C++ outside the yaml, or a kernel MPS runs
        named = [_lines_naming(inv, u.kernel) for u in users]
        if not all(named) or any(covers_mps(keys) for n in named for _, _, keys in n):
            continue
        routed = {e.name for e in inv.mps_entries}
        if any(name in routed for n in named for name, _, _ in n):
            continue  # the op still runs on MPS through another kernel (split-family's case)
        if not all(_confirmed(inv, u.kernel, stub) for u in users if u.by_macro):
            continue
        if any(_called_elsewhere(inv, u.kernel, u.path) for u in users):
            continue
        entries = [(name, line) for n in named for name, line, _ in n]
        shown = ", ".join(f"{name} ({Location(inv.yaml_rel, line)})" for name, line in entries[:3])
        callers = ", ".join(f"{u.kernel} ({u.path}:{u.line})" for u in users)
        first = entries[0]
        for r in regs:
            yield unreachable_registration.finding(
                r.path, r.line,
                f"{r.macro}({stub}, ...) registers a kernel nothing runs: {stub}'s only caller{'s' if len(users) > 1 else ''} "
                f"{callers} {'are' if len(users) > 1 else 'is'} dispatched without MPS by {shown}, so the op raises "
                "NotImplementedError on MPS tensors",
                hint=f"add MPS to the dispatch line at {Location(inv.yaml_rel, first[1])}, or delete this registration "
                "and its host kernel",
                rests_on=bases([Basis(inv.yaml_rel, line) for _, line in entries], [Basis(u.path, u.line) for u in users]),
            )


def _lines_naming(inv: "Inventory", kernel: str) -> list[tuple[str, int, tuple[str, ...]]]:
    """(entry name, line, keys) of each yaml dispatch line naming *kernel* (read from the text: asked
    only of the few kernels a candidate finding rests on)."""
    index = inv.index
    text = index.text
    starts = [h.start for h in index.heads]
    line_naming = re.compile(r"^[ \t]{3,}([A-Za-z][\w, \t]*?)[ \t]*:[ \t]+(?:\w+::)*" + re.escape(kernel)
                             + r"[ \t]*(?:#[^\n]*)?$", re.M)
    found = []
    # Only the lines spelling the kernel are matched (a `^` pattern run over the 600 KB yaml is tried
    # at every offset: ~20 ms a kernel).
    k = text.find(kernel)
    while k >= 0:
        line_start = text.rfind("\n", 0, k) + 1
        line_end = text.find("\n", k)
        line_end = len(text) if line_end < 0 else line_end
        m = line_naming.match(text, line_start, line_end)
        if m is not None:
            head = index.heads[bisect_right(starts, line_start) - 1]
            keys = tuple(key.strip() for key in m.group(1).split(","))
            found.append((head.name, head.line + text.count("\n", head.start, line_start), keys))
        k = text.find(kernel, line_end + 1)
    return found


def _confirmed(inv: "Inventory", kernel: str, stub: str) -> bool:
    """A kernel made by a macro call naming the stub: shared_impl finds it calling the stub."""
    impl = inv.stub_use(kernel).impl
    return impl is not None and stub in impl.stub_names


def _called_elsewhere(inv: "Inventory", kernel: str, defined_in: str) -> bool:
    """Whether *kernel* is spelled in another native/*.cpp, more than once in its own, or in an MPS source."""
    word = whole_word(kernel)
    native = inv.shared_kernels
    if any(word.search(native.text(rel)) for rel in native.spelling(kernel) - {defined_in}):
        return True
    if len(word.findall(native.text(defined_in))) > 1:
        return True
    return any(word.search(inv.checkout.read_text(p)) for p in inv.mps_files)


@rule("MPS019", "empty-dispatch", ERROR,
      "a native_functions.yaml entry has a `dispatch:` with no kernel line under it (its last line was deleted)")
def empty_dispatch(inv: "Inventory") -> Iterator[Finding]:
    """A compile error, or a silently wrong dispatch: an entry's `dispatch:` key with no `KEYS:
    kernel` line under it, as deleting its only line leaves it.  torchgen reads the empty key as
    no dispatch table at all, so the entry loses every kernel, CPU and CUDA too: a structured
    entry's TORCH_IMPL_FUNCs no longer compile (their classes are not generated), a plain one
    becomes CompositeImplicitAutograd `at::native::<name>` on every backend (a link error when no
    such function exists).  A flow `dispatch: {}` is deliberate and never reported.

    Fix: restore the entry's dispatch lines, or delete the `dispatch:` key.
    """
    for name, line in inv.yaml.empty_dispatch:
        yield empty_dispatch.finding(
            inv.yaml_rel, line,
            f"{name} has an empty `dispatch:`: torchgen reads it as no dispatch table, so the entry loses every "
            "kernel (CPU and CUDA too)",
            col=3,
            hint="restore its dispatch lines (`CPU, CUDA, MPS: <kernel>`), or delete the `dispatch:` key",
        )
