"""The kernel phases for one stub of a family calling several (plan/multistub.py), as one frozen
`StubKernel`: the registration MPS already runs (kept), or the kernel's choice and code, planned with
what the branch around the stub's call says (the argument that selects it, held for the numeric
check; complex inputs that never reach it; dtypes its CPU kernel has no case for)."""

from __future__ import annotations

from dataclasses import dataclass, replace

from mpsgen.model import Command, KernelOptions
from mpsgen.plan.kernel_choice import KernelChoice, choose_kernel
from mpsgen.plan.kernel_code import KernelCode, plan_kernel_code, registered_metal_kernel
from mpsgen.plan.multistub import StubTarget
from mpsgen.plan.retired import Retired
from mpsgen.plan.routing import Routing
from mpsgen.plan.split_outputs import OutputKernel
from mpsgen.sources.native import stubs
from mpsgen.sources.native_yaml.facts import Entry
from mpsgen.tree.changeset import Changeset
from mpsgen.tree.checkout import Checkout


@dataclass(frozen=True)
class StubKernel:
    """One stub's kernel records (none when MPS already runs the stub: kept_kernel says where)."""

    stub: stubs.StubDecl
    choice: KernelChoice | None = None
    code: KernelCode | None = None
    kept_kernel: str = ""
    notes: tuple[str, ...] = ()  # what the stub's branch changed: complex left to another stub, ...
    opts: KernelOptions | None = None  # what the code phase runs with (the branch may drop complex or dtypes)


def choose_stub_kernel(command: Command, routing: Routing, stub: stubs.StubDecl, entry: Entry,
                       target: StubTarget | None, checkout: Checkout, cs: Changeset, opts: KernelOptions,
                       retired: Retired = Retired(), output: OutputKernel | None = None) -> StubKernel:
    """*stub*'s kernel choice (its texts for the planner to apply before the code phase: plan_stub_code);
    *routing*: the family, index, shared kernels, moved entries; *target*: the stub's StubTarget when the
    family calls several; *retired*: the bespoke kernels the legacy code ran, and those a kept host file
    still runs; *output*: the kernel computes one of the op's outputs (plan/split_outputs.py)."""
    kept = registered_metal_kernel(stub, cs, checkout)
    if kept:
        return StubKernel(stub, kept_kernel=kept)
    legacy = tuple(m.legacy_kernel for m in routing.moved if m.legacy_kernel)
    name = target.kernel if target is not None else output.name if output is not None else ""
    choice = choose_kernel(command, routing.family, stub, checkout, cs, routing.index, entry, routing.shared,
                           legacy, name=name)
    if output is not None and choice.binding is not None:  # torch's op returns the tuple: compare this element
        choice = replace(choice, binding=choice.binding._replace(output=output.index))
    notes: list[str] = []
    runs_it = retired.kept_at(choice.kernel)
    if runs_it:  # a bespoke kernel of that name stays (2.7's Gamma.metal digamma, run by polygamma_out_mps)
        own = f"{choice.kernel}_ti"
        notes.append(f"the bespoke kernel '{choice.kernel}' stays: {runs_it} still runs it, and kernel names are "
                     f"global; the new kernel is '{own}' (the shared iterator's)")
        choice = replace(choice, kernel=own)
    if target is not None:
        from mpsgen.plan.binding import fixing

        choice = replace(choice, other_stub=target is not routing.targets[0])
        if target.fixed:  # the numeric check calls the op with the argument that selects the stub
            choice = replace(choice, binding=fixing(choice.binding, entry.name, entry.func, choice.shape.inputs,
                                                    target.fixed))
        if target.complex == "never":
            opts = opts._replace(drop_complex=True)
            notes.append(f"complex inputs reach another stub ({target.at}): {choice.kernel} registers none")
        refused = _cpu_refuses(choice.kernel)
        if refused:  # div_trunc has no bool case on the CPU, while div's OpInfo (without a mode) declares bool
            opts = opts._replace(drop_dtypes=",".join(filter(None, (opts.drop_dtypes, *refused))))
            notes.append(f"the CPU kernel has no {', '.join(refused)} case (torch raises): {choice.kernel} "
                         "registers none")
    else:
        lost, where = _refused_and_unregistered(choice.kernel, cs, checkout)
        if lost:  # upstream's ceil (REGISTER_ROUNDING_OPS: float, half, bfloat) and bool, which reaches ceil_stub
            opts = opts._replace(drop_dtypes=",".join(filter(None, (opts.drop_dtypes, *lost))))
            notes.append(f"the CPU kernel has no {', '.join(lost)} case (torch raises) and {where} registers none: "
                         f"{', '.join(lost)} dropped, as --drop-dtypes {','.join(lost)} would")
    return StubKernel(stub, choice, notes=tuple(notes), opts=opts)


def plan_stub_code(sk: StubKernel, routing: Routing, cs: Changeset, checkout: Checkout,
                   output: OutputKernel | None = None) -> KernelCode:
    """The code of the kernel *sk* chose (its choice's texts applied), as plan/kernel_code writes it, or the
    host of upstream's kernels of two outputs (plan/two_output_ops)."""
    assert sk.choice is not None and sk.opts is not None  # a stub MPS already runs has no code to plan
    if routing.two_outputs is not None:  # upstream's kernels write both outputs: only their host
        from mpsgen.plan.two_output_ops import plan_two_output_code

        return plan_two_output_code(sk.choice, routing.two_outputs, cs, checkout, sk.opts)
    return plan_kernel_code(sk.choice, cs, checkout, sk.opts, output)


def _cpu_refuses(kernel: str) -> tuple[str, ...]:
    from mpsgen.generate import catalog

    return tuple((catalog.load_catalog().get(kernel) or {}).get("cpu_refuses", ()))


def _refused_and_unregistered(kernel: str, cs: Changeset, checkout: Checkout) -> tuple[tuple[str, ...], str]:
    """The dtypes the CPU kernel has no case for (the catalog's cpu_refuses) that a kernel of this name the
    tree already registers lacks, and where that kernel is: reusing it loses only what torch's CPU refuses
    too.  ((), "") when no kernel has the name: mpsgen's own then registers what it can (2.7's ceil: bool)."""
    refused = _cpu_refuses(kernel)
    if not refused:
        return (), ""
    from mpsgen.plan.dtypes import METAL_NAME
    from mpsgen.plan.texts import folder_files, mentioning, planned_texts
    from mpsgen.sources.metal.names import registered_input_types

    texts = mentioning(planned_texts(cs, folder_files(cs, "metal_files"), checkout), kernel)
    have = {p: registered_input_types(t, p, kernel, alpha=False) for p, t in texts.items()}
    found = [p for p, types in have.items() if types]
    if not found:
        return (), ""
    registered = set().union(*have.values())
    return tuple(d for d in refused if METAL_NAME.get(d) not in registered), f"{found[0]}'s {kernel} kernel"
