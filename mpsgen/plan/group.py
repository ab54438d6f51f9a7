"""Several ops in one change: each op planned on the texts the ops before it left, one changeset.

`migrate atan2 frac` edits native_functions.yaml, the .metal/.mm files and common_mps.py for
both ops; planning frac on atan2's planned texts makes the two edits compose.  Any refusal
refuses the whole group (nothing is written), naming the op.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

from mpsgen.errors import MpsgenError, context
from mpsgen.model import Command, KernelOptions
from mpsgen.plan.kernelplan import Plan, plan_kernel_command, guard_edits
from mpsgen.plan.stub_coverage import require_stubs_registered
from mpsgen.plan.texts import yaml_index
from mpsgen.sources.native_yaml import names as nf
from mpsgen.tree.changeset import Changeset
from mpsgen.tree.checkout import YAML_REL, Checkout

# Options that describe one op's kernel: ambiguous when several ops are named.
PER_OP_OPTIONS = {"expr": "--expr", "int_expr": "--int-expr", "complex_expr": "--complex-expr",
                  "stub_override": "--stub", "shared_kernel": "--shared-kernel"}


@dataclass
class GroupPlan:
    """The plans of every op named, sharing one changeset."""

    command: Command
    changeset: Changeset
    plans: list[Plan] = field(default_factory=list)

    @property
    def ops(self) -> list[str]:
        return [p.op for p in self.plans]

    @property
    def todo(self) -> list[Plan]:
        """The plans with work to do."""
        return [p for p in self.plans if not p.nothing_to_do]

    @property
    def kernel_plans(self) -> list[Plan]:
        """Every kernel the plans with work write: a family calling several stubs has one per stub."""
        return [k for p in self.todo for k in p.kernel_plans]

    @property
    def nothing_to_do(self) -> str:
        """Why no op has work (empty: some op has)."""
        if self.todo:
            return ""
        return "; ".join(p.nothing_to_do for p in self.plans)

    @property
    def grad_test_names(self) -> list[str]:
        """OpInfos whose gradient tests run a backward op that has none of its own (hardtanh's)."""
        return list(dict.fromkeys(n for p in self.todo for n in p.grad_test_names))

    @property
    def test_names(self) -> list[str]:
        names: list[str] = []
        for p in self.todo:
            for n in p.test_names:  # OpInfo names only: a name no OpInfo has selects no test
                if n not in names:
                    names.append(n)
        return names

    def plan_for_test(self, test_op: str) -> Plan:
        """The plan a test's op part (`special_log_ndtr`, `atan2`) belongs to."""
        for p in self.plans:
            if test_op in p.test_keys or test_op == p.family or test_op in p.test_names:
                return p
        return self.plans[0]

    def title_names(self) -> list[str]:
        """What the commit title names: each family, or the overload typed when only it moved."""
        return [p.op if p.overloads else p.family for p in self.todo]

    def to_json(self) -> dict[str, Any]:
        """One op: its plan as before.  Several: the ops, every moved entry and the files."""
        if len(self.plans) == 1:
            return self.plans[0].to_json()
        return {
            "command": self.command,
            "ops": self.ops,
            "nothing_to_do": self.nothing_to_do or None,
            "moved": [m for p in self.plans for m in p.to_json()["moved"]],
            "files": self.changeset.changed_paths,
        }


def plan_group(command: Command, checkout: Checkout, ops: list[str], base: KernelOptions,
               base_texts: Mapping[str, str] | None = None) -> GroupPlan:
    """Plan every op of `mpsgen migrate OP [OP…]` into one changeset (nothing written); *base_texts*
    stand for the files' own texts (Changeset's *base*)."""
    if not ops:
        raise MpsgenError(f"`mpsgen {command}` needs at least one OP")
    cs = Changeset(checkout, base_texts)
    group = GroupPlan(command, cs)
    if len(ops) == 1:
        group.plans.append(plan_kernel_command(command, checkout, base._replace(op=ops[0]), cs))
        require_stubs_registered(group.plans[0], checkout)
        return group
    _refuse_per_op_options(command, ops, base)
    _refuse_repeats(ops, yaml_index(cs.current(YAML_REL)))
    whole = f"planning the group `mpsgen {command} {' '.join(ops)}` (nothing is written for any op)"
    with context(lambda: whole):
        for op in _callers_first(ops, cs, checkout):
            group.plans.append(plan_kernel_command(command, checkout, base._replace(op=op), cs))
        # A later op edits files an earlier one planned: check each op again on the final texts.
        for p in group.todo:
            doing = f"re-checking {p.op} after the other ops"
            with context(lambda: doing):
                for each in p.kernel_plans:  # every stub's registration and kernel
                    guard_edits(each, checkout)
                require_stubs_registered(p, checkout)
    return group


def _refuse_per_op_options(command: Command, ops: list[str], base: KernelOptions) -> None:
    given = [flag for name, flag in PER_OP_OPTIONS.items() if getattr(base, name, None)]
    if given:
        raise MpsgenError(
            f"{', '.join(given)} describe one op's kernel, but {len(ops)} ops were named ({' '.join(ops)})",
            hint=f"run `mpsgen {command} OP {given[0]} …` for that op alone; successive runs stack without a commit",
        )


def _refuse_repeats(ops: list[str], index: nf.NativeIndex) -> None:
    """The same op (or overload) named twice: `atan2 torch.atan2`, `pow pow.Tensor_Tensor_out`."""
    owner: dict[str, str] = {}
    chosen: dict[str, frozenset[str]] = {}
    for op in ops:
        family = nf.select_overloads(index, op)
        names = frozenset(e.name for e in family.entries)
        for e in family.entries:
            if e.name in owner:
                first = owner[e.name]
                what = (f"the same op as {first!r}" if chosen[first] == names
                        else f"{e.name}, which {first!r} selects too")
                if first == op:
                    what = "the same op"
                raise MpsgenError(f"{op!r} is named twice: it selects {what}", path=index.path, line=e.line,
                                  hint="name each op or overload once")
            owner[e.name] = op
        chosen[op] = names



def _callers_first(ops: list[str], cs: Changeset, checkout: Checkout) -> list[str]:
    """*ops*, those whose MPSGraph kernel calls another op's first (zero_mps_ calls fill_scalar_mps): planned
    after, the callee's migration would point the caller at an at:: op, leaving a kernel its own migration
    cannot classify.  Otherwise the order given."""
    from mpsgen.plan.legacy import calling

    index = yaml_index(cs.current(YAML_REL))
    legacy = {op: nf.select_overloads(index, op).legacy_kernels for op in ops}

    def calls_other_op(op: str) -> bool:
        others = [k for other in ops if other != op for k in legacy[other]]
        return bool(others) and any(k in calling(cs, checkout, [k, *others]) for k in legacy[op])

    first = [op for op in ops if calls_other_op(op)]
    return first + [op for op in ops if op not in first]
