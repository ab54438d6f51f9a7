"""Rules on the MPS host code in operations/*.mm (located on the .mm line to edit)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterator

from mpsgen.lint.finding import Basis, Finding, bases
from mpsgen.lint.wiring import wiring
from mpsgen.lint.rules import ERROR, WARNING, rule

if TYPE_CHECKING:
    from mpsgen.sources.host.mm import Impl
    from mpsgen.lint.inventory import Inventory


@rule("MPS004", "dead-implementation", ERROR,
      "an operations/*.mm TORCH_IMPL_FUNC that no native_functions.yaml entry names (left after a migration; "
      "it does not compile)")
def dead_impl_func(inv: "Inventory") -> Iterator[Finding]:
    """A compile error a migration leaves behind: `TORCH_IMPL_FUNC(x_out_mps)`, or a
    `CREATE_MPS_*` macro line that expands to one (the STRUCTURED and TORCH_IMPL_FUNC macros), for a
    kernel no yaml dispatch line names any more.  Its `structured_x_out_mps` class is no longer
    generated, so the file does not compile.

    Fix: delete the lines shown, or restore the `MPS: <name>` dispatch line if the yaml edit was
    the mistake.
    """
    for name, impl in _unnamed_implementations(inv):
        if not _compiles(impl):
            what = f"TORCH_IMPL_FUNC({name})" if impl.form == "TORCH_IMPL_FUNC" else f"{impl.macro}({name}, ...)"
            yield dead_impl_func.finding(
                impl.path, impl.line,
                f"{what} ({impl.backend}) is not named by any native_functions.yaml entry; its structured class "
                "is no longer generated, so it does not compile",
                col=impl.col,
                hint=f"delete it (lines {impl.line}-{impl.end_line}), or restore the `MPS: {name}` dispatch line",
                rests_on=[inv.yaml_rel],
            )


@rule("MPS011", "dead-function", WARNING,
      "an operations/*.mm MPSGraph function named like a kernel that no native_functions.yaml entry names "
      "and nothing calls (dead code left after a migration)")
def dead_function(inv: "Inventory") -> Iterator[Finding]:
    """Dead code a migration left behind: a non-static MPSGraph function in at::native named like a
    kernel (`..._mps...`, or made by a CREATE_MPS_* macro that expands to a plain function), which
    no yaml dispatch line names and no other MPS source uses.  The tree builds; the code never runs.

    Static helpers and functions used elsewhere are never reported.  Fix: delete the lines shown,
    or restore the `MPS: <name>` dispatch line if the yaml edit was the mistake.
    """
    for name, impl in _unnamed_implementations(inv):
        if _compiles(impl):
            what = f"{name}()" if impl.form == "function" else f"{impl.macro}({name}, ...)"
            yield dead_function.finding(
                impl.path, impl.line,
                f"{what} ({impl.backend}) is not named by any native_functions.yaml entry",
                col=impl.col,
                hint=f"delete it (lines {impl.line}-{impl.end_line}), or restore the `MPS: {name}` dispatch line",
                rests_on=bases([inv.yaml_rel], inv.mps_files),
            )


def _compiles(impl: "Impl") -> bool:
    """A plain function (or a macro making one) compiles without its yaml line; a TORCH_IMPL_FUNC does not."""
    if impl.form == "function":
        return True
    macro = impl.macro or ""
    return impl.form != "TORCH_IMPL_FUNC" and "STRUCTURED" not in macro and "TORCH_IMPL" not in macro


def _unnamed_implementations(inv: "Inventory") -> Iterator[tuple[str, "Impl"]]:
    """(name, implementation) of each at::native MPS implementation in operations/*.mm no yaml line names."""
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
            yield name, impl


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
        listed = ", ".join(f"{r.location} ({r.macro})" for r in regs)
        for r in extra:
            yield stub_registered_twice.finding(
                r.path, r.line,
                f"{stub} is registered for MPS {len(regs)} times ({listed}); which one runs depends on "
                "static initialisation order",
                hint=f"delete the registration at {r.location}",
                rests_on=[Basis(o.path, o.line) for o in regs],
            )


@rule("MPS017", "host-kernel-signature", ERROR,
      "a host kernel registered with REGISTER_DISPATCH takes parameters that differ from its stub's "
      "DECLARE_DISPATCH type (a compile error)")
def host_kernel_signature(inv: "Inventory") -> Iterator[Finding]:
    """A compile error: `REGISTER_DISPATCH(stub, &fn)` converts `fn` to the stub's function-pointer
    type, and C++ converts a function only to its exact type, so every parameter of `fn` must have
    the type DECLARE_DISPATCH gives (after its `using` alias): `TensorIteratorBase&` is not
    `TensorIterator&`, `int64_t` is not `long`, `const Scalar&` is not `Scalar`.

    Compared as the compiler compares function types: parameter names, default arguments, a
    top-level `const` on a parameter taken by value and namespace qualifiers do not count;
    `const T&` is `T const&`.  Only functions defined in the registering file with a parameter
    list mpsgen reads are judged; with several definitions (overloads) one matching is enough.

    Fix: give the host kernel the stub's parameter list (the hint spells it).
    """
    from mpsgen.sources.host.param_types import comparable_type
    from mpsgen.sources.native.stubs import host_params

    signatures = wiring(inv).host_signatures
    for stub, regs in inv.registrations.items():
        for r in regs:
            defs = signatures.get(r.path, {}).get(r.fn.rsplit("::", 1)[-1], ())
            decl = wiring(inv).declared_stubs(r.path).get(stub) if defs else None
            if decl is None or not decl.resolved:
                continue  # no definition here, or no declaration it includes (stub-header-missing's case)
            want = tuple(comparable_type(p) for p in decl.params)
            if None in want or any(d.params is None or d.params == want for d in defs):
                continue
            d = defs[0]
            assert d.params is not None
            yield host_kernel_signature.finding(
                r.path, d.line,
                f"{d.fn}({', '.join(d.params)}) does not have the type of {stub}, {decl.fn_type} "
                f"({decl.path}:{decl.line}): REGISTER_DISPATCH at line {r.line} does not compile",
                hint=f"declare it as `static void {d.fn}({host_params(decl)})`",
                rests_on=[Basis(decl.path, decl.line)],
            )
