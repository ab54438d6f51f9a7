"""What planning one op produced: the edits (in a changeset), what was rendered, and what to report.

Shared by the planner's parts (kernelplan, kernel_code, legacy, verify) and the commands that show it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from mpsgen.model import Arity, Command, KernelSpec
from mpsgen.sources import nativefunctions as nf
from mpsgen.sources import stubs
from mpsgen.tree.changeset import Changeset

if TYPE_CHECKING:
    from mpsgen.plan.binding import Binding
    from mpsgen.plan.dtypes import Row
    from mpsgen.plan.shape import KernelShape


@dataclass
class Rendered:
    """What --print shows: the generated code, before placement."""

    functor: str = ""
    registrations: list[str] = field(default_factory=list)
    host_code: str = ""
    register_line: str = ""
    metal_path: str = ""
    mm_path: str = ""


@dataclass
class Plan:
    command: Command
    op: str
    family: str
    changeset: Changeset
    nothing_to_do: str = ""  # why there is nothing to do (empty: there is work)
    moved: list[nf.MovedEntry] = field(default_factory=list)
    stub: stubs.StubDecl | None = None
    spec: KernelSpec | None = None  # what was rendered (the numeric check tries the same)
    kernel: str = ""
    arity: Arity | Literal[""] = ""  # "" until the kernel is chosen (or none is needed)
    shape: KernelShape | None = None  # tensor inputs, scalars and how they reach the kernel
    reused_kernel: str = ""  # where upstream's kernel of that name is registered, when the host reuses it
    reused_functor: str = ""  # that kernel's `struct <name>_functor {...}` ("" when a macro makes it)
    binding: Binding | None = None  # the op's arguments -> the kernel's (for the numeric check)
    operands_at: str = ""  # where the iterator's inputs were read (path:line), when they were
    # ceil_out copies integer inputs itself: (kind, "ceil_out at path:line"); those dtypes never reach the stub.
    diverted: tuple[str, str] | None = None
    dtypes: tuple[str, ...] = ()
    rendered: Rendered = field(default_factory=Rendered)
    added: list[str] = field(default_factory=list)
    api_added: list[str] = field(default_factory=list)  # host API forms this change adds (generate/api_extension)
    removed: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    test_lists: list[str] = field(default_factory=list)  # xfail/skip/decorator/complex-set edits
    # OpInfo names to run tests for, and test-name op part ("special_log_ndtr") -> common_mps.py key.
    test_names: list[str] = field(default_factory=list)
    test_keys: dict[str, str] = field(default_factory=dict)
    # A backward op with no OpInfo of its own: the forward OpInfos whose test_output_grad_match runs it.
    grad_test_names: list[str] = field(default_factory=list)
    # `migrate pow.Tensor_Tensor_out`: the entries selected (empty: the whole family).
    overloads: tuple[str, ...] = ()
    files: list[str] = field(default_factory=list)  # the files this op's edits touched
    dtype_rows: list[Row] = field(default_factory=list)  # per dtype, before -> after
    dropped: list[str] = field(default_factory=list)  # --drop-dtypes (torch names)
    # A family calling several stubs: the kernels of its other stubs, each planned as a plan of its own
    # on the same changeset (plan/multistub.py); this plan holds the first stub's.
    stub_plans: list[Plan] = field(default_factory=list)
    other_stub: bool = False  # this plan is one of those: the family's OpInfo describes its first stub

    @property
    def kernel_plans(self) -> list[Plan]:
        """This plan and its other stubs' plans: each stub's kernel, its spec, binding and dtype rows."""
        return [self, *self.stub_plans]

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
            "arity": self.arity,
            "scalars": [] if self.shape is None else [p.name for p in self.shape.scalars],
            "stub_kernels": [{"stub": p.stub.name if p.stub else None, "kernel": p.kernel, "arity": p.arity,
                              "dtypes": list(p.dtypes)} for p in self.stub_plans],
            "dtypes": list(self.dtypes),
            "dtype_table": [r.to_json() for r in self.dtype_rows],
            "added": self.added,
            "api_added": self.api_added,
            "removed": self.removed,
            "notes": self.notes,
            "test_lists": self.test_lists,
            "files": self.files,
        }
