"""After planning: every DispatchStub a moved entry's shared kernel calls must be registered for MPS.

`sgn_out` calls sgn_stub for complex inputs and sign_stub otherwise; `mpsgen migrate sgn --stub
sgn_stub` alone would route every sgn overload to it while sign_stub has no MPS kernel, and
`torch.sgn` on a float MPS tensor would raise "DispatchStub: missing kernel for mps".  Checked on the
planned texts once all ops of a run are planned (a group may register the other stub), and before
anything is written.
"""

from __future__ import annotations

from mpsgen.errors import MpsgenError
from mpsgen.plan.result import Plan
from mpsgen.plan.texts import folder_files, mentioning, planned_texts
from mpsgen.sources.host import mm as host
from mpsgen.sources.native import stubs
from mpsgen.tree.checkout import Checkout


def mps_registered_stubs(plan: Plan, checkout: Checkout) -> frozenset[str]:
    """Stubs registered for MPS in the planned MPS sources, counted as `check` counts them."""
    cs = plan.changeset
    paths = [*folder_files(cs, "mm_files"), *folder_files(cs, "other_mps_sources")]
    return frozenset(r.stub for path, text in planned_texts(cs, paths, checkout).items()
                     for r in host.registrations(text, path) if host.registers_for_mps(r))


def require_stubs_registered(plan: Plan, checkout: Checkout) -> None:
    """Refuse a plan whose moved entries' shared kernels call a stub MPS would not run."""
    if not plan.moved:
        return
    cs = plan.changeset
    sources = mentioning(planned_texts(cs, folder_files(cs, "native_sources"), checkout), plan.family)
    registered: frozenset[str] | None = None
    for kernel in dict.fromkeys(m.shared_kernel.rsplit("::", 1)[-1] for m in plan.moved):
        impl = stubs.find_shared_impl(sources, kernel)
        if impl is None or len(impl.stub_names) < 2:
            continue  # one stub: the plan registers it (guard_edits checks that)
        if registered is None:
            registered = mps_registered_stubs(plan, checkout)
        missing = [s for s in impl.stub_names if s not in registered]
        if missing:
            raise MpsgenError(
                f"{kernel} also calls {' and '.join(missing)}, which no operations/*.mm registers for MPS: "
                f"after this change {plan.op} would fail on MPS for the inputs that reach "
                f"{'them' if len(missing) > 1 else 'it'} (it calls {', '.join(impl.stub_names)})",
                path=impl.path, line=impl.line,
                hint=f"migrate the op that owns {missing[0]} first (e.g. `mpsgen migrate "
                f"{missing[0].removesuffix('_stub')}`), then run this again (runs stack without a commit)",
            )
