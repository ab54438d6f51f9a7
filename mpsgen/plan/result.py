"""What planning one op produced: the edits (in a changeset), what was rendered, and what to report.

Built once by the planner (kernelplan) and read by edit_guard and the commands that show it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Literal

from mpsgen.model import Arity, Command, KernelKind, KernelSpec
from mpsgen.sources.native_yaml import names as nf
from mpsgen.sources.native import stubs
from mpsgen.tree.changeset import Changeset

if TYPE_CHECKING:
    from mpsgen.plan.kind_record import KindCode
    from mpsgen.plan.indexing_record import IndexingCode
    from mpsgen.plan.nullary_record import NullaryCode
    from mpsgen.plan.random_record import RandomCode
    from mpsgen.plan.reduction_record import ReductionCode
    from mpsgen.sources.metal.two_output_kernels import TwoOutputKernels
    from mpsgen.plan.binding import Binding
    from mpsgen.plan.dtypes import Row
    from mpsgen.plan.shape import KernelShape


@dataclass(frozen=True)
class Rendered:
    """What --print shows: the generated code, before placement."""

    functor: str = ""
    registrations: tuple[str, ...] = ()
    host_code: str = ""
    register_line: str = ""
    metal_path: str = ""
    mm_path: str = ""


@dataclass(frozen=True)
class Plan:
    """One op's plan, assembled by the planner (kernelplan) from its phases' records once they all ran:
    routing.Routing, kernel_choice.KernelChoice, kernel_code.KernelCode, legacy.LegacyRemoval,
    test_lists.TestListsPhase; the summary, JSON and PR text are rendered from it (summary.PlanSummary)."""

    command: Command
    op: str
    family: str
    changeset: Changeset
    nothing_to_do: str = ""  # why there is nothing to do (empty: there is work)
    moved: tuple[nf.MovedEntry, ...] = ()
    stub: stubs.StubDecl | None = None
    spec: KernelSpec | None = None  # what was rendered (the numeric check tries the same)
    kernel: str = ""
    arity: Arity | Literal[""] = ""  # "" when no kernel is needed
    shape: KernelShape | None = None  # tensor inputs, scalars and how they reach the kernel
    reused_kernel: str = ""  # where upstream's kernel of that name is registered, when the host reuses it
    reused_functor: str = ""  # that kernel's `struct <name>_functor {...}` ("" when a macro makes it)
    two_outputs: TwoOutputKernels | None = None  # upstream's kernels of two outputs, when the host runs them
    binding: Binding | None = None  # the op's arguments -> the kernel's (for the numeric check)
    operands_at: str = ""  # where the iterator's inputs were read (path:line), when they were
    # ceil_out copies integer inputs itself: (kind, "ceil_out at path:line"); those dtypes never reach the stub.
    diverted: tuple[str, str] | None = None
    dtypes: tuple[str, ...] = ()
    rendered: Rendered = field(default_factory=Rendered)
    added: tuple[str, ...] = ()
    backfilled: tuple[str, ...] = ()  # host API forms this change adds (backfill/host_api)
    removed: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    test_lists: tuple[str, ...] = ()  # xfail/skip/decorator/complex-set edits
    # OpInfo names to run tests for, and test-name op part ("special_log_ndtr") -> common_mps.py key.
    test_names: tuple[str, ...] = ()
    test_keys: Mapping[str, str] = field(default_factory=dict)
    # A backward op with no OpInfo of its own: the forward OpInfos whose test_output_grad_match runs it.
    grad_test_names: tuple[str, ...] = ()
    # `migrate pow.Tensor_Tensor_out`: the entries selected (empty: the whole family).
    overloads: tuple[str, ...] = ()
    files: tuple[str, ...] = ()  # the files this op's edits touched
    dtype_rows: tuple[Row, ...] = ()  # per dtype, before -> after
    dropped: tuple[str, ...] = ()  # --drop-dtypes (torch names)
    # A family calling several stubs (plan/multistub.py): the plans of its other stubs' kernels, on the
    # same changeset; this plan holds the first stub's.  other_stub: this plan is one of those.
    stub_plans: tuple[Plan, ...] = ()
    other_stub: bool = False
    check_op: str = ""  # the op the numeric check compares with, when not the family's (KernelChoice.check_op)
    kind: KernelKind = "pointwise"  # "nullary": a stub filling its output with a scalar (fill_stub)
    nullary: NullaryCode | None = None  # that kind's kernels and host (plan/nullary_code.py)
    indexing: IndexingCode | None = None  # "indexing": index_fill_stub's kernel and host (plan/indexing_code.py)
    random: RandomCode | None = None  # "random": a distribution stub's kernels and host (plan/random_code.py)
    reduction: ReductionCode | None = None  # "reduction": a reduce stub's kernels (plan/reduction_code.py)

    @property
    def own_kernels(self) -> KindCode | None:
        """The code of a kind writing its own .metal and host (nullary, indexing, random, reduction), else None."""
        return self.nullary or self.indexing or self.random or self.reduction

    @property
    def kernel_plans(self) -> tuple[Plan, ...]:
        """This plan and its other stubs' plans: each stub's kernel, its spec, binding and dtype rows."""
        return (self, *self.stub_plans)

    def to_json(self) -> dict[str, Any]:
        return {
            "command": self.command,
            "op": self.op,
            "family": self.family,
            "overloads": list(self.overloads),
            "nothing_to_do": self.nothing_to_do or None,
            "moved": [{"entry": m.entry, "line": m.line, "from": m.legacy_kernel, "to": m.shared_kernel}
                      for m in self.moved],
            "stub": None if self.stub is None else {
                "name": self.stub.name, "type": self.stub.fn_type, "header": self.stub.header,
                "declared_at": f"{self.stub.location}"},
            "kernel": self.kernel,
            "kind": self.kind,
            "arity": self.arity,
            "scalars": [] if self.shape is None else [p.name for p in self.shape.scalars],
            "stub_kernels": [{"stub": p.stub.name if p.stub else None, "kernel": p.kernel, "arity": p.arity,
                              "dtypes": list(p.dtypes)} for p in self.stub_plans],
            "dtypes": list(self.dtypes),
            "dtype_table": [r.to_json() for r in self.dtype_rows],
            "added": list(self.added),
            "api_added": list(self.backfilled),
            "removed": list(self.removed),
            "notes": list(self.notes),
            "test_lists": list(self.test_lists),
            "files": list(self.files),
        }
