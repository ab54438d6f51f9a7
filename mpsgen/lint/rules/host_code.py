"""Rules on the MPS host code in operations/*.mm (located on the .mm line to edit)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterator

from mpsgen.lint.finding import Finding
from mpsgen.lint.rules import ERROR, WARNING, rule

if TYPE_CHECKING:
    from mpsgen.lint.inventory import Inventory


@rule("MPS004", "dead-implementation", WARNING,
      "an operations/*.mm implementation that no native_functions.yaml entry names (left after a migration)")
def dead_implementation(inv: "Inventory") -> Iterator[Finding]:
    """Code a migration left behind: an MPS implementation no yaml dispatch line names any more.

    * `TORCH_IMPL_FUNC(x_out_mps)` or a `CREATE_MPS_*(x_out_mps, ...)` macro line: its
      `structured_x_out_mps` class is no longer generated, so the file does not compile.
    * a non-static MPSGraph function in at::native named like a kernel (`..._mps...`) and used
      nowhere else in the MPS sources: dead code.

    Static helpers and functions used elsewhere are never reported.  Fix: delete the lines shown,
    or restore the `MPS: <name>` dispatch line if the yaml edit was the mistake.
    """
    referenced = inv.yaml_kernels
    for name, defs in inv.definitions.items():
        if name in referenced:
            continue
        for d in defs:
            impl = d.impl
            if impl.path not in inv.mm_files or d.namespace != "at::native":
                continue
            if impl.form == "function":
                if d.static or impl.backend != "mpsgraph" or "mps" not in name:
                    continue
                if inv.mm_mps_identifier_counts.get(name, 0) > 1:
                    continue
            what = {"TORCH_IMPL_FUNC": f"TORCH_IMPL_FUNC({name})", "macro": f"{impl.macro}({name}, ...)"}.get(
                impl.form, f"{name}()")
            why = "; its structured class is no longer generated, so it does not compile" if impl.form != "function" else ""
            yield dead_implementation.finding(
                impl.path, impl.line,
                f"{what} ({impl.backend}) is not named by any native_functions.yaml entry{why}",
                col=impl.col,
                hint=f"delete it (lines {impl.line}-{impl.end_line}), or restore the `MPS: {name}` dispatch line",
            )


@rule("MPS006", "stub-registered-twice", ERROR,
      "a DispatchStub is registered for MPS more than once (e.g. a leftover REGISTER_MPS_UNARY_STUB)")
def stub_registered_twice(inv: "Inventory") -> Iterator[Finding]:
    """A silently wrong kernel at run time: two MPS registrations of one DispatchStub.

    REGISTER_DISPATCH on MPS sets the stub's MPS pointer from a static initialiser, so with two
    registrations in different files the one initialised last wins (often the old MPSGraph
    `REGISTER_MPS_UNARY_STUB` over the new Metal kernel); in one file it is a redefinition error.
    The finding is on each registration to delete: the MPSGraph ones when a Metal one exists,
    else every one after the first.

    Fix: delete the leftover registration (and its MPSGraph function).
    """
    for stub, regs in inv.registrations.items():
        if len(regs) < 2:
            continue
        regs = sorted(regs, key=lambda r: (r.path, r.line))
        graph = [r for r in regs if inv.registration_backend(r) == "mpsgraph"]
        extra = graph if graph and len(graph) < len(regs) else regs[1:]
        listed = ", ".join(f"{r.path}:{r.line} ({r.macro})" for r in regs)
        for r in extra:
            yield stub_registered_twice.finding(
                r.path, r.line,
                f"{stub} is registered for MPS {len(regs)} times ({listed}); which one runs depends on "
                "static initialisation order",
                hint=f"delete the registration at {r.path}:{r.line}",
            )
