"""A family whose shared kernels call several DispatchStubs: one kernel per stub, planned together.

div_out_mode calls div_true_stub, div_trunc_stub or div_floor_stub by its rounding_mode; sgn_out calls
sgn_stub for complex inputs and sign_stub for the others; lerp.Scalar and lerp.Tensor call one stub
each.  MPS must run every one of them once the family's overloads route to the shared kernels, so
each stub MPS does not already run gets its own kernel, named after the stub (div_trunc, sign), and
the family's overloads move together.  What selects a stub is read from the branch around its call
(sources/native/stub_guard.py): an argument held at a value (rounding_mode="trunc") is what the numeric
check passes torch for that kernel; a complex test decides whether the kernel serves complex inputs.
"""

from __future__ import annotations

import re
from typing import Callable, Literal

from mpsgen.errors import MpsgenError
from mpsgen.plan.texts import folder_files, mentioning, planned_texts
from mpsgen.records import NamedTuple
from mpsgen.sources.native import stubs
from mpsgen.sources.native_yaml.facts import Entry
from mpsgen.sources.native.stub_guard import Guard, condition_of, guard_of_call
from mpsgen.tree.changeset import Changeset
from mpsgen.tree.checkout import Checkout

Complex = Literal["", "only", "never"]  # complex inputs reach the stub: as any other, only they, never


class StubTarget(NamedTuple):
    """One stub of the family and what its kernel is checked and named by."""

    stub: stubs.StubDecl
    shared: str  # the shared kernel that calls it
    entry: Entry  # the overload whose schema describes the kernel's arguments
    kernel: str  # the kernel's name (div_trunc, sign; the family's for its first stub when so catalogued)
    fixed: tuple[tuple[str, str | None], ...] = ()  # op arguments that select the stub: rounding_mode="trunc"
    complex: Complex = ""
    at: str = ""  # where the shared kernel calls it (path:line)


def stub_kernel_name(stub: str) -> str:
    """div_trunc for div_trunc_stub; lerp_scalar_weight for lerp_kernel_scalar_weight."""
    if stub.endswith("_stub"):
        return stub[: -len("_stub")]
    return re.sub(r"_kernel(?=_|$)", "", stub)


def meaning(guard: Guard, arg_names: frozenset[str]) -> tuple[tuple[tuple[str, str | None], ...], Complex]:
    """What a branch's condition says of the inputs reaching the stub: arguments it fixes (only those
    the op's schema names) and whether complex inputs get there.  Anything else: nothing."""
    cond = condition_of(guard.condition)
    if cond.kind == "complex":
        return (), ("never" if guard.negated else "only")
    if guard.negated or cond.argument not in arg_names:
        return (), ""
    if cond.kind == "equals":
        return ((cond.argument, cond.value),), ""
    if cond.kind == "absent":
        return ((cond.argument, None),), ""
    return (), ""


def stub_targets(checkout: Checkout, cs: Changeset, family: str, shared: tuple[str, ...],
                 entry_for: Callable[[str], Entry], catalogued: Callable[[str], bool]) -> tuple[StubTarget, ...]:
    """Every stub the family's shared kernels call, in call order, when there are several; () when
    there is one (the single-stub path of plan/routing.py decides then).  *entry_for*: the overload
    describing a shared kernel; *catalogued*: whether the catalog has a body of that name."""
    from mpsgen.plan.binding import schema_args

    sources = mentioning(planned_texts(cs, folder_files(cs, "native_sources"), checkout), family)
    calls: dict[str, tuple[str, stubs.SharedImpl, stubs.StubCall]] = {}
    for kernel in shared:
        impl = stubs.find_shared_impl(sources, kernel)
        if impl is None:
            continue  # routing's single-stub path reports a kernel it cannot find
        for call in impl.stubs:
            calls.setdefault(call.stub, (kernel, impl, call))
    if len(calls) < 2:
        return ()
    all_headers = planned_texts(cs, folder_files(cs, "native_headers"), checkout)
    targets: list[StubTarget] = []
    # The family's own stub first (sgn_stub for sgn, whatever the branch order): its overloads' schema
    # and OpInfo describe it; the others follow in call order.
    order = sorted(calls, key=lambda name: stub_kernel_name(name) != family)
    for name in order:
        kernel, impl, call = calls[name]
        headers = mentioning(all_headers, name) or all_headers
        if name not in stubs.index_stub_declarations(headers):
            raise MpsgenError(f"{impl.shown_form} {kernel} calls {name}, but no DECLARE_DISPATCH(..., {name}) was "
                              "found in aten/src/ATen/native/*.h", path=impl.path, line=call.line,
                              hint="is the header outside aten/src/ATen/native? name the stub with --stub NAME")
        decl = stubs.infer_stub(headers, sources, kernel, name)  # the declaration's type, read
        entry = entry_for(kernel)
        guard = guard_of_call(sources[impl.path], call.line, name, impl.line)
        fixed, complex_ = meaning(guard, frozenset(a.name for a in schema_args(entry.func)))
        own = stub_kernel_name(name)
        # The first stub keeps the family's name where the catalog knows the family's body and not
        # the stub's (pow_tensor_tensor_stub: the `pow` kernel); later ones are named after their stub.
        kernel_name = family if not targets and not catalogued(own) and catalogued(family) else own
        targets.append(StubTarget(decl, kernel, entry, kernel_name, fixed, complex_, f"{impl.path}:{call.line}"))
    names = [t.kernel for t in targets]
    if len(set(names)) != len(names):
        raise MpsgenError(f"the stubs of {family} ({', '.join(calls)}) would give kernels of one name",
                          path=targets[0].stub.path, line=targets[0].stub.line, hint="migrate them by hand")
    return tuple(targets)
