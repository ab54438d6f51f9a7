"""The numeric check of a planned kernel, as a typed result: what `migrate`, `new-op`, `try` and the
`--all` workers run before writing, each rendering the same `NumericCheck` record its own way."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from mpsgen.errors import MpsgenError
from mpsgen.records import NamedTuple
from mpsgen.scan.lines import plain_lines

if TYPE_CHECKING:
    from mpsgen.emulate.compare import TryResult
    from mpsgen.model import KernelOptions, KernelSpec
    from mpsgen.plan.binding import Binding
    from mpsgen.plan.group import GroupPlan
    from mpsgen.plan.result import Plan
    from mpsgen.tree.changeset import Changeset
    from mpsgen.tree.checkout import Checkout


class Subject(NamedTuple):
    """What to check: the spec, the functor text migrate/new-op would write, where it came from."""

    spec: KernelSpec
    functor: str
    source: str  # "plan" (the checkout's planner) or "catalog" / "--expr" (op already native)
    binding: Binding | None = None  # how the op's arguments reach the kernel
    headers: dict[str, str] = {}  # headers of the planned tree (overlay.planned_headers): path -> text
    label: str = ""  # which kernel, when the op has several (div's div_trunc): "" for its only one


OpCheckState = Literal["agreed", "disagreed", "skipped"]


@dataclass(frozen=True)
class OpCheck:
    """One op's check: its result table, or why it was skipped."""

    op: str
    state: OpCheckState
    result: TryResult | None = None
    reason: str = ""  # why it was skipped
    kernel: str = ""  # which of the op's kernels, when it has one per stub (div_trunc)

    def line(self) -> str:
        """The one line a person reads (the table itself is render_text's)."""
        of = f" of {self.kernel}" if self.kernel else ""
        if self.state == "skipped":
            return f"numeric check{of} skipped: {self.reason}"
        assert self.result is not None
        if self.state == "agreed":
            return f"numeric check{of}: {len(self.result.rows)} dtype(s) agree with {self.result.reference} " \
                   f"({self.result.backend})"
        crashes = [f"{r.dtype} ({r.crash})" for r in self.result.rows if r.crash]
        what = f"crashes on {', '.join(crashes)}" if crashes else "disagrees with the CPU"
        return f"the {self.op} kernel {what}: nothing written (--no-try skips this check)"


@dataclass(frozen=True)
class NumericCheck:
    """Every planned op's check, in plan order; it stops at the first op that disagrees."""

    ops: tuple[OpCheck, ...]

    @property
    def agreed(self) -> bool:
        return all(c.state != "disagreed" for c in self.ops)

    @property
    def failure(self) -> OpCheck | None:
        return next((c for c in self.ops if c.state == "disagreed"), None)

    def summary(self) -> str:
        """One line for the `--all` table and the PR text: the failure, or every op's line."""
        failed = self.failure
        if failed is not None:
            return failed.line()
        return "; ".join(c.line() for c in self.ops) or "nothing to check"


def catalog_flags(op: str, **given: str | None) -> dict[str, str]:
    """Names for compiler errors in bodies the user did not give (they come from the catalog)."""
    keys = [k for k in ("expr", "int_expr", "complex_expr") if given.get(k) is None] + ["bool_expr"]
    return {k: f"catalog.yaml {op}.{k}" for k in keys}


def check_subject(subject: Subject, *, op: str, include_root: str | Path, emulate: bool,
          flags: dict[str, str] | None = None) -> TryResult:
    """Run the numeric check on the GPU (macOS with MPS, unless *emulate*) or emulated on the host."""
    from mpsgen.emulate import bound, gpu
    from mpsgen.emulate.compile import cache_dir
    from mpsgen.emulate.overlay import include_root as with_planned

    # the headers of the tree the plan is made on: a macro the change adds, a helper a stacked commit below added
    include_root = with_planned(include_root, subject.headers, cache_dir())
    if subject.spec.two_outputs:  # upstream's frexp: the lifted function, both outputs
        from mpsgen.emulate.two_output_check import check_two_outputs

        spec = subject.spec
        types = tuple(t for t in ("float", "half", "bfloat") if t not in spec.skip)
        return check_two_outputs(op, spec.expr.split("(", 1)[0], subject.functor, types, include_root)
    # The GPU runner drives unary/binary/alpha kernels; scalars in a struct, ternary alphas and
    # bound arguments are checked emulated.
    simple = subject.spec.arity in ("unary", "binary", "unary_alpha", "binary_alpha", "ternary")
    if not emulate and simple and not bound.needed(subject.spec, subject.binding) and gpu.available():
        return gpu.check_on_mps(subject.spec, subject.functor, op=op, include_root=include_root)
    from mpsgen.emulate.numerics import check_kernel

    return check_kernel(subject.spec, subject.functor, op=op, include_root=include_root, flags=flags,
                        binding=subject.binding)


def planned_subject(plan: Plan, headers: dict[str, str], label: str = "") -> Subject:
    """What the numeric check runs for *plan*'s kernel, the one decision `try` and migrate/new-op's check
    share: upstream's two-output function (frexp) or registered functor when the plan calls upstream's
    kernel, else the functor the plan renders.  Upstream's functor being no struct to lift out raises
    NoReference: `try` refuses in one line (exit 2), migrate's check is skipped with it as the note."""
    from mpsgen.emulate.reference import NoReference

    assert plan.spec is not None  # a stub MPS already runs writes no kernel to check
    if plan.two_outputs is not None:  # upstream's frexp kernels: the function they apply, lifted
        return Subject(plan.spec, plan.two_outputs.helpers, "upstream", plan.binding, headers, label)
    if plan.reused_kernel:  # upstream's functor is what MPS will run: check that one
        if not plan.reused_functor:
            raise NoReference(f"{plan.family} would call upstream's registered kernel '{plan.kernel}' ({plan.reused_kernel}), "
                              "whose functor is no struct mpsgen can lift out", hint="run test_mps.py on a Mac to check it")
        return Subject(plan.spec, plan.reused_functor, "upstream", plan.binding, headers, label)
    return Subject(plan.spec, plan.rendered.functor, "plan", plan.binding, headers, label)


def check_plans(group: GroupPlan, checkout: Checkout, *, kernel: KernelOptions) -> NumericCheck:
    """Check every op of *group* that writes a kernel, before anything is written.  A missing compiler
    or torch skips an op (said so); a body that does not compile raises, as the planner does."""
    from mpsgen.emulate.compile import ToolMissing
    from mpsgen.emulate.reference import NoReference

    from mpsgen.emulate.overlay import planned_headers

    headers = planned_headers(group.changeset)  # the whole group's: a macro an earlier op added
    done: list[OpCheck] = []
    for plan in group.kernel_plans:
        if plan.kind != "pointwise":  # a kind with a check of its own: fills, indexing, random, reductions
            try:
                own = kind_check(plan, group.changeset, checkout.root, headers)
            except ToolMissing as why:
                done.append(OpCheck(plan.family, "skipped", reason=why.render()))
                continue
            done.append(OpCheck(plan.family, "agreed" if own.ok else "disagreed", own))
            if not own.ok:
                break
            continue
        if plan.spec is None:  # a stub MPS already runs: no new kernel to check
            continue
        # Another family's stub called in one branch (clamp.Tensor's minimum_stub, when only max is given):
        # checked against that family's op (torch.minimum), plan/kernel_choice says which.
        op = plan.check_op or plan.family
        try:
            result = check_subject(planned_subject(plan, headers), op=op, include_root=checkout.root, emulate=False,
                           flags=catalog_flags(plan.family, expr=kernel.expr, int_expr=kernel.int_expr,
                                               complex_expr=kernel.complex_expr))
        except (ToolMissing, NoReference) as why:
            done.append(OpCheck(plan.family, "skipped", reason=why.render()))
            continue
        except MpsgenError as err:
            if plan.reused_kernel:
                first = plain_lines(err.message)[0]
                done.append(OpCheck(plan.family, "skipped", reason=(
                    f"upstream's {plan.kernel}_functor ({plan.reused_kernel}) does not build apart from its file: "
                    f"{first}")))
                continue
            err.hint = (err.hint + "; " if err.hint else "") + "--no-try skips this check"
            raise
        several = plan.other_stub or bool(plan.stub_plans)  # a kernel per stub: say which
        label = f"{plan.family} ({plan.kernel})" if several and plan.kernel != plan.family else plan.family
        done.append(OpCheck(label, "agreed" if result.ok else "disagreed", result, kernel=plan.kernel if several else ""))
        if not result.ok:
            break
    return NumericCheck(tuple(done))


def kind_check(plan: Plan, changeset: Changeset, root: str | Path, headers: dict[str, str]) -> TryResult:
    """The planned .metal of a kind other than pointwise against torch CPU: the nullary kind (fill_), the
    indexing kind (index_fill_, gather, scatter_add, scatter), the random kind (in distribution) and the
    reduction kind (sum, mean, amax, ...); each against *headers* (overlay.planned_headers) over *root*'s."""
    from mpsgen.emulate.compile import cache_dir
    from mpsgen.emulate.overlay import include_root as with_planned

    current = changeset.current
    if plan.random is not None:
        from mpsgen.emulate.random_check import check_planned_random

        return check_planned_random(plan, changeset, root)
    where = with_planned(root, headers, cache_dir())  # the headers of the tree the plan is made on
    if plan.nullary is not None:
        from mpsgen.emulate.fill_check import check_fill

        return check_fill(plan.kernel, current(plan.nullary.metal_path), where)
    if plan.reduction is not None:
        from mpsgen.emulate.reduce_check import check_reduction

        return check_reduction(plan.reduction.name, current(plan.reduction.metal_path), where)
    from importlib import import_module

    assert plan.indexing is not None  # the last kind with a check of its own
    module, function = INDEXING_CHECKS[plan.indexing.stub]
    kind_numerics = getattr(import_module(f"mpsgen.emulate.{module}"), function)
    return kind_numerics(plan.kernel, plan.indexing.stub, current(plan.indexing.metal_path), where)


# the indexing kind's stub -> the module and function of its numeric check
INDEXING_CHECKS = {"index_fill_stub": ("index_fill_check", "check_index_fill"),
                   "gather_stub": ("gather_check", "check_gather"),
                   "scatter_add_stub": ("scatter_add_check", "check_scatter_add"),
                   "scatter_stub": ("scatter_check", "check_scatter")}
