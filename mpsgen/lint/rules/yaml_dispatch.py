"""Rules on native_functions.yaml's MPS dispatch lines (located on the yaml line to edit)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Iterator

from mpsgen.lint.finding import Basis, Finding, bases
from mpsgen.lint.rules import ERROR, WARNING, rule
from mpsgen.lint.rules.shared import bare, families, kernel_col, migrate_hint, mps_col
from mpsgen.model import Location
from mpsgen.scan.lines import plain_lines
from mpsgen.sources.native_yaml.facts import Entry, family_key

if TYPE_CHECKING:
    from mpsgen.lint.inventory import Inventory


@rule("MPS001", "split-family", WARNING,
      "an overload still dispatches MPS to an MPS-only kernel although MPS already runs the DispatchStub "
      "its shared CPU/CUDA kernel calls (a half-done migration)")
def split_family(inv: "Inventory") -> Iterator[Finding]:
    """A half-done migration that `mpsgen migrate FAMILY` finishes.

    Fires on the `MPS: x_mps` line of an overload when all of these hold:

    * its CPU and CUDA dispatch name one kernel K (a deliberate split such as `set_` or `_ctc_loss`,
      where CPU and CUDA use different kernels, has nothing to share);
    * K is defined in native/*.cpp and calls one DispatchStub S (a composite-style K that calls
      other ops, such as `pow_Scalar_out` or `remainder(Scalar, Tensor)`, has no stub to run on MPS);
    * MPS already runs S: S has an MPS registration (REGISTER_DISPATCH in operations/*.mm), or
      another overload of the family routes MPS to a shared kernel that calls S; and when K calls
      several stubs (`sgn_out`: sgn_stub for complex inputs, sign_stub otherwise), every one of
      them has an MPS registration (else routing the overload to K breaks the inputs that reach
      the missing one);
    * the MPS-only kernel does not itself call S (a macOS-version fallback wrapper is deliberate).

    Then the MPS-only kernel is a second implementation of what the registered Metal kernel already
    does, and one overload bypasses it.  The tree builds and runs; the overloads may give different
    results.  An overload whose stub MPS does not run yet is a migration candidate (see
    `mpsgen status`), not a finding.

    Fix: `mpsgen migrate FAMILY` routes the overload to K and deletes the MPS-only kernel.
    """
    for family, entries in families(inv.mps_entries).items():
        # Only an overload still on an MPS-only kernel can be half migrated: the stub lookups (a search
        # of native/*.cpp each) are made for families that have one.
        legacy = [(e, kernel) for e in entries if e.mps_route == "legacy" and not e.duplicate_mps
                  and (kernel := e.shared_kernel().kernel)]  # a duplicated key is reported by its own rule
        if not legacy:
            continue
        shared_stub_users: dict[str, Entry] = {}
        for e in entries:
            if e.mps_route == "shared" and e.mps_kernel:
                stub = inv.stub_use(e.mps_kernel).stub
                if stub:
                    shared_stub_users.setdefault(stub, e)
        for e, kernel in legacy:
            use = inv.stub_use(kernel)
            if use.impl is None or use.stub is None:
                continue
            sibling = shared_stub_users.get(use.stub)
            if sibling is None and not use.registrations:
                continue
            if any(n != use.stub and not inv.registrations.get(n) for n in use.impl.stub_names):
                continue  # K also calls a stub MPS does not run (sgn_out: sgn_stub for complex inputs)
            d = e.mps_lines[-1]
            if _mps_kernel_calls(inv, d.kernel, use.stub):
                continue
            if sibling is not None:
                why = f"while {sibling.name} (line {sibling.mps_lines[-1].line}) shares {sibling.mps_kernel}, which calls the same {use.stub}"
            else:
                reg = use.registrations[0]
                why = f"although {use.stub}, which its CPU/CUDA kernel {kernel} calls, is registered for MPS at {reg.location}"
            yield split_family.finding(
                inv.yaml_rel, d.line,
                f"{family} is half migrated: {e.name} dispatches MPS to the MPS-only {d.kernel}, {why}",
                col=mps_col(d),
                hint=migrate_hint(inv, family, f"to route {e.name} to {kernel} and delete {d.kernel}",
                                  f"route {e.name}'s MPS to {kernel} (`CPU, CUDA, MPS: {bare(kernel)}`) and "
                                  f"delete {d.kernel}"),
                rests_on=bases([Basis(use.impl.path, use.impl.line)],
                               [Basis(r.path, r.line) for r in use.registrations],
                               [Basis(x.impl.path, x.impl.line) for x in inv.legacy_definitions(d.kernel)],
                               inv.mps_file_bases),
            )


def _mps_kernel_calls(inv: "Inventory", kernel: str, stub: str) -> bool:
    """True when a definition of the MPS-only *kernel* mentions *stub* (it already wraps the Metal kernel)."""
    word = re.compile(r"\b" + re.escape(stub) + r"\b")
    for d in inv.legacy_definitions(kernel):
        text = inv.checkout.read_text(d.impl.path)
        body = "\n".join(plain_lines(text)[d.impl.line - 1 : d.impl.end_line])
        if word.search(body):
            return True
    return False


@rule("MPS002", "duplicate-key", ERROR,
      "MPS appears on two dispatch lines of one native_functions.yaml entry; torchgen silently keeps the later one")
def duplicate_key(inv: "Inventory") -> Iterator[Finding]:
    """A silently wrong dispatch: one of the two MPS kernels never runs.

    torchgen reads each dispatch key into a dict without a duplicate check, so with
    `CPU, CUDA, MPS: x_out` followed by `MPS: x_out_mps` the later line wins and the other kernel
    is dead.  This is what an interrupted migration leaves (the shared key added, the legacy line
    kept).  The finding points at the line to delete: an MPS-only kernel beside a shared one, else
    a line keyed only MPS, else the overridden first line.

    Fix: delete that MPS line (or run `mpsgen migrate FAMILY`, which rewrites the entry).
    """
    for e in inv.mps_entries:
        if not e.duplicate_mps:
            continue
        lines = e.mps_lines
        winner = lines[-1]
        legacy = e.legacy_lines
        alone = [d for d in lines if d.keys == ("MPS",)]
        if legacy and len(legacy) < len(lines):
            target = legacy[0]
        elif alone and len(alone) < len(lines):
            target = alone[0]
        else:
            target = lines[0]
        where = ", ".join(str(d.line) for d in lines)
        yield duplicate_key.finding(
            inv.yaml_rel, target.line,
            f"{e.name} has MPS on lines {where}; torchgen silently uses the last one ({winner.kernel})",
            col=mps_col(target),
            hint=f"delete the MPS: line at {Location(inv.yaml_rel, target.line)}",
        )


@rule("MPS003", "missing-implementation", ERROR,
      "native_functions.yaml names an MPS-only kernel that no operations/*.mm defines (a link error)")
def missing_implementation(inv: "Inventory") -> Iterator[Finding]:
    """A link error: torchgen's generated RegisterMPS.cpp calls `at::native::<kernel>`, which nothing defines.

    Looked for in operations/*.mm, the other MPS sources (native/mps/*.mm, *.cpp, operations/*.cpp)
    as a function, a TORCH_IMPL_FUNC or a CREATE_MPS_* macro.  A name passed to any other
    UPPER_CASE macro of those files, or spelled anywhere in native/*.cpp, is taken as defined (a
    macro mpsgen does not expand), so this rule never guesses.  Typical cause: the MPSGraph
    implementation was deleted but the yaml `MPS:` line kept.

    Fix: restore the implementation, or route MPS to the shared kernel with `mpsgen migrate FAMILY`.
    """
    for e in inv.mps_entries:
        for d in e.legacy_lines:
            kernel = bare(d.kernel)
            if inv.legacy_definitions(kernel):
                continue
            if kernel in inv.macro_arguments or kernel in inv.native_identifiers:
                continue
            yield missing_implementation.finding(
                inv.yaml_rel, d.line,
                f"{e.name} dispatches MPS to {kernel}, which no operations/*.mm defines "
                "(TORCH_IMPL_FUNC, function or CREATE_MPS_* macro)",
                col=kernel_col(d),
                hint=f"restore {kernel} in operations/*.mm, or " + migrate_hint(
                    inv, family_key(e.base), "to route MPS to the shared kernel",
                    "delete the `MPS:` line (the op then has no MPS kernel)"),
                rests_on=inv.mps_file_bases,  # where the definition should be
            )


@rule("MPS005", "stub-not-registered", ERROR,
      "an overload routes MPS to a shared CPU/CUDA kernel whose DispatchStub has no MPS registration (a runtime error)")
def stub_not_registered(inv: "Inventory") -> Iterator[Finding]:
    """A runtime error: the shared kernel calls a DispatchStub on an MPS tensor and no MPS kernel is registered.

    PyTorch raises "DispatchStub: missing kernel for mps" on the first call that reaches the stub.
    Reported only when the shared kernel's definition in native/*.cpp is found, for each stub it
    calls (directly, or passed to a helper such as comparison_op_out) that no operations/*.mm
    registers.  A kernel that calls several stubs by input (`sgn_out`: sgn_stub for complex
    inputs, sign_stub otherwise) needs every one: with only sgn_stub registered, `torch.sgn` on a
    float MPS tensor fails.  Typical cause: the yaml line was switched to `CPU, CUDA, MPS: x_out`
    before the Metal kernel and its REGISTER_DISPATCH landed, or only one of the stubs was migrated.

    Fix: `mpsgen migrate FAMILY` writes the Metal kernel and the registration (migrate the op that
    owns the other stub too: `mpsgen migrate sgn sign`), or add REGISTER_DISPATCH(<stub>, ...) to
    operations/*.mm.
    """
    for e in inv.mps_entries:
        if e.mps_route != "shared" or not e.mps_kernel:
            continue
        use = inv.stub_use(e.mps_kernel)
        if use.impl is None:
            continue
        missing = use.missing
        if not missing:
            continue
        d = e.mps_lines[-1]
        calls = ", ".join(use.impl.stub_names)
        names = " and ".join(missing)
        yield stub_not_registered.finding(
            inv.yaml_rel, d.line,
            f"{e.name} shares {use.kernel} with MPS, which calls {calls} ({use.impl.location}), "
            f"but no operations/*.mm registers {names} for MPS (a runtime error on MPS)",
            col=kernel_col(d),
            hint=migrate_hint(inv, family_key(e.base), "to write the Metal kernel and its registration (or restore "
                              f"REGISTER_DISPATCH({missing[0]}, ...) if it was deleted)",
                              f"add a host kernel and REGISTER_DISPATCH({missing[0]}, ...) to operations/*.mm "
                              "(restore the registration if it was deleted)"),
            # the shared kernel's definition, and every MPS source that could hold the registration
            rests_on=bases([Basis(use.impl.path, use.impl.line)], inv.mps_file_bases),
        )
