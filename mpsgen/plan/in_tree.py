"""The kernel an op already runs on Metal, as the numeric check needs it: what `mpsgen try OP` checks
after `migrate OP` (or upstream's own move).

What the kernel receives (its registered dtypes, its scalars and their struct, how the op's own
arguments reach it: plan/binding) is what planning the op reads from the tree, and planning stops at
"already on a native Metal kernel".  So the op is planned again as `new-op` on the tree without the
one line that makes it native, its stub's registration (in a throwaway changeset: nothing is
written).  The planner then finds the kernel registered in the .metal and reuses it, as it does
upstream's, and the functor checked is the one in the .metal, lifted out of it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mpsgen.errors import MpsgenError
from mpsgen.model import KernelOptions, KernelSpec
from mpsgen.plan.binding import Binding
from mpsgen.plan.kernelplan import plan_kernel_command
from mpsgen.plan.routing import route
from mpsgen.plan.texts import folder_files, mentioning, planned_texts
from mpsgen.records import NamedTuple
from mpsgen.scan.lines import split_lines
from mpsgen.tree.changeset import Changeset
from mpsgen.tree.checkout import Checkout

if TYPE_CHECKING:
    from mpsgen.plan.routing import Routing
    from mpsgen.sources.host.register import Registration
    from mpsgen.sources.native_yaml.facts import Entry


class InTree(NamedTuple):
    """The tree's kernel of an op on Metal: the spec its registrations make, its functor's text."""

    spec: KernelSpec
    functor: str
    binding: Binding | None
    at: str  # where the functor is, path:line


class Unplannable(MpsgenError):
    """The op could not be planned again without its registration (a layout the planner refuses there):
    `try` then checks the catalog's body, and says so."""


def kernel_in_tree(checkout: Checkout, opts: KernelOptions) -> tuple[InTree, ...]:
    """The kernels behind an op already on native Metal, one per output for an op of several
    (plan/split_outputs.py); () when the op is not: plan it instead.
    Raises MpsgenError, one line, when a kernel cannot be checked (a macro-made functor, a host
    that calls a kernel of another name, a kernel registered without every dtype the op declares)."""
    cs = Changeset(checkout)
    routing = route("migrate", checkout, cs, opts)
    if routing.native is None:
        return ()
    op = _overload(cs, routing)
    if op != opts.op:  # the registration of that overload's stub (pow's overloads run two)
        routing = route("migrate", checkout, cs, opts._replace(op=op))
    reg = routing.native
    if reg is None:
        return ()
    called = _kernels_called(cs, reg)
    lines = split_lines(cs.current(reg.path))
    del lines[reg.line - 1 : reg.end_line]
    cs.set_text(reg.path, "".join(lines), f"{reg.stub}'s registration, set aside")
    drop = _unregistered(cs, checkout, called)  # as the migration's --drop-dtypes left them out
    try:
        plan = plan_kernel_command("new-op", checkout, opts._replace(op=op, drop_complex=False, drop_dtypes=drop),
                                   changeset=cs)
    except MpsgenError as err:
        raise Unplannable(f"{err.where()}{err.message}") from None  # its context and hint are a planner's
    spec = plan.spec
    if spec is None:
        return ()
    if called and spec.name not in called:
        raise MpsgenError(f"{reg.fn or reg.macro} runs kernel '{'/'.join(sorted(called))}', not '{spec.name}', "
                          f"the kernel mpsgen would check", path=reg.path, line=reg.line,
                          hint=f"check it on a Mac with test_mps.py -k {plan.family}")
    if plan.two_outputs is not None:  # upstream's two-output kernels: the function they apply
        kernels = plan.two_outputs
        return (InTree(spec, kernels.helpers, None,
                       f"{kernels.call}, which the kernels {kernels.shown()} registers apply"),)
    found: list[InTree] = []
    for each in plan.kernel_plans:  # an op of several outputs: a kernel each
        if each.spec is None:
            continue
        functor = _functor(cs, checkout, each.spec.name)
        if functor is None:
            raise MpsgenError(f"kernel '{each.spec.name}' has no `struct {each.spec.name}_functor` in the .metal "
                              "files to lift out (a macro makes it, or another layout)", path=reg.path, line=reg.line,
                              hint=f"check it on a Mac with test_mps.py -k {plan.family}")
        found.append(InTree(each.spec, functor[1], each.binding, functor[0]))
    return tuple(found)


def _overload(cs: Changeset, routing: Routing) -> str:
    """The overload to plan again: new-op would give MPS to every entry of the family, also those that
    never had it (logit_), so the one MPS shares a kernel with that has the most tensors (the one the
    migration read the kernel's arguments from), named so that only it and its delegates are chosen."""
    from mpsgen.plan.binding import schema_args
    from mpsgen.plan.texts import yaml_index
    from mpsgen.tree.checkout import YAML_REL

    family = yaml_index(cs.current(YAML_REL)).family(routing.family)
    chosen = [e for e in family.entries if e.mps_route == "shared" and (not routing.overloads or e.name in routing.overloads)]
    if not chosen:
        return routing.family

    def tensors(e: Entry) -> int:
        return sum(a.type.startswith("Tensor") for a in schema_args(e.func))
    best = max(chosen, key=lambda e: (tensors(e), "." in e.name))  # the default overload's name is the family's
    return best.name if "." in best.name else routing.family


def _kernels_called(cs: Changeset, reg: Registration) -> frozenset[str]:
    """The Metal kernel names the registered host function passes to exec_*_kernel (empty: not read)."""
    from mpsgen.sources.host.register import host_kernel_calls

    if reg.macro == "REGISTER_UNARY_TI_DISPATCH":
        return frozenset({reg.stub.removesuffix("_stub")})
    return frozenset(c.kernel for c in host_kernel_calls(cs.current(reg.path), reg.path) if c.function == reg.fn)


def _unregistered(cs: Changeset, checkout: Checkout, kernels: frozenset[str]) -> str | None:
    """The dtypes the tree's REGISTER_* lines leave out of *kernels* (torch names, as --drop-dtypes takes
    them), so the check covers what the kernel serves; None where nothing is read (2.7's host_name instances)."""
    from mpsgen.plan.dtypes import METAL_NAME
    from mpsgen.sources.metal.names import registrations_of

    texts = planned_texts(cs, folder_files(cs, "metal_files"), checkout)
    have = {args[2] for k in kernels for path, text in mentioning(texts, k).items()
            for args in registrations_of(text, path, k) if len(args) > 2}
    if not have & set(METAL_NAME.values()):
        return None
    return ",".join(torch for torch, metal in METAL_NAME.items() if metal not in have) or None


def _functor(cs: Changeset, checkout: Checkout, name: str) -> tuple[str, str] | None:
    """(path:line, text) of `struct <name>_functor` in the .metal files."""
    from mpsgen.model import Location
    from mpsgen.sources.metal.index import index_metal

    for path, text in mentioning(planned_texts(cs, folder_files(cs, "metal_files"), checkout), name).items():
        found = index_metal(text, path).functor(name)
        if found is not None and found.macro is None:
            return f"{Location(path, found.line)}", found.text
    return None
