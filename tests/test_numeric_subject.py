"""Which functor the numeric check runs for a planned kernel is one decision (emulate/plan_numerics.planned_subject),
shared by `try` and migrate/new-op's check: both run the same functor, and where there is none to run (upstream's
registered kernel whose functor is no struct to lift out) `try` refuses with the same line migrate's check notes."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from mpsgen.emulate import plan_numerics
from mpsgen.emulate.compile import ToolMissing
from mpsgen.emulate.plan_numerics import Subject, check_plans
from mpsgen.emulate.reference import NoReference
from mpsgen.model import KernelOptions
from mpsgen.plan.group import GroupPlan
from mpsgen.plan.kernelplan import plan_kernel_command
from mpsgen.plan.result import Plan
from mpsgen.tree.checkout import Checkout

UPSTREAM = "aten/src/ATen/native/mps/kernels/BinaryKernel.metal:12"
LIFTED = "struct atan2_functor {\n  template <typename T> T operator()(T a, T b) { return a; }\n};\n"


def _both_paths(plan: Plan, checkout: Checkout, monkeypatch: pytest.MonkeyPatch) -> tuple[object, object]:
    """(what `try` plans to check, or its refusal; what migrate's check ran, or its note), on *plan*."""
    from mpsgen.commands import try_op

    monkeypatch.setattr(try_op, "_plan_for_try", lambda checkout, opts: plan)
    try:
        tried: object = try_op.plan_subjects(checkout, op="atan2", expr=None, int_expr=None, complex_expr=None,
                                             dtypes=None, templates_dir=None)
    except NoReference as refusal:
        tried = refusal.render()
    ran: list[Subject] = []

    def record(subject: Subject, **_: object) -> None:
        ran.append(subject)
        raise ToolMissing("no compiler here")  # the check stops here: what it was given is what matters

    monkeypatch.setattr(plan_numerics, "check_subject", record)
    checked = check_plans(GroupPlan("migrate", plan.changeset, [plan]), checkout, kernel=KernelOptions(op="atan2"))
    [op] = checked.ops
    return tried, (ran if ran else op.reason)


@pytest.fixture()
def planned(sample_tree: Path) -> tuple[Plan, Checkout]:
    checkout = Checkout(sample_tree)
    return plan_kernel_command("migrate", checkout, KernelOptions(op="atan2")), checkout


def test_both_run_the_functor_the_plan_renders(planned: tuple[Plan, Checkout], monkeypatch: pytest.MonkeyPatch) -> None:
    plan, checkout = planned
    tried, ran = _both_paths(plan, checkout, monkeypatch)
    assert tried == ran
    assert [(s.source, s.functor) for s in ran] == [("plan", plan.rendered.functor)]
    assert "struct atan2_functor" in plan.rendered.functor


def test_both_run_upstreams_functor_when_the_plan_calls_its_kernel(planned: tuple[Plan, Checkout],
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    plan, checkout = planned
    tried, ran = _both_paths(replace(plan, reused_kernel=UPSTREAM, reused_functor=LIFTED), checkout, monkeypatch)
    assert tried == ran
    assert [(s.source, s.functor) for s in ran] == [("upstream", LIFTED)]


def test_try_refuses_with_the_line_migrate_notes_when_upstreams_functor_cannot_be_lifted(
        planned: tuple[Plan, Checkout], monkeypatch: pytest.MonkeyPatch) -> None:
    plan, checkout = planned
    tried, noted = _both_paths(replace(plan, reused_kernel=UPSTREAM, reused_functor=""), checkout, monkeypatch)
    assert tried == noted == (f"atan2 would call upstream's registered kernel 'atan2' ({UPSTREAM}), whose functor is no "
                              "struct mpsgen can lift out (hint: run test_mps.py on a Mac to check it)")
