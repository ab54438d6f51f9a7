"""One plan's report as a frozen record: the command summary, the PR text of `--all`'s branches and
the JSON are all rendered from it, so no part re-reads another part's printed lines."""

from __future__ import annotations

from dataclasses import dataclass

from mpsgen.plan.dtypes import Row, format_rows
from mpsgen.plan.result import Plan


@dataclass(frozen=True)
class PlanSummary:
    """What one plan moves, writes, removes and notes, each item one line of text."""

    dispatch: tuple[str, ...]  # "atan2.out (line 9770): MPS atan2_out_mps -> atan2_out"
    stub: str | None  # "atan2_stub (structured_binary_fn, aten/src/ATen/native/BinaryOps.h:21)"
    dtype_rows: tuple[Row, ...]
    backfilled: tuple[str, ...]  # host API forms the checkout lacked, added by this change (backfill/host_api)
    added: tuple[str, ...]
    removed: tuple[str, ...]
    tests: tuple[str, ...]
    notes: tuple[str, ...]
    # A family calling several stubs: each other stub's line and its kernel's dtype rows (plan/multistub.py).
    other_stubs: tuple[tuple[str, str, tuple[Row, ...]], ...] = ()  # (stub line, kernel, rows)
    kernel: str = ""  # the first stub's kernel

    def sections(self) -> tuple[tuple[str, tuple[str, ...]], ...]:
        """(key, items) in the order the summary shows them; empty sections included."""
        # one stub line each (an op of several outputs has one kernel per output behind one stub)
        stubs = tuple(dict.fromkeys(((self.stub,) if self.stub else ()) + tuple(line for line, _, _ in self.other_stubs)))
        dtypes = tuple(format_rows(list(self.dtype_rows))) if self.dtype_rows else ()
        if self.other_stubs and self.kernel:  # several kernels: each row says whose
            dtypes = tuple(f"{self.kernel}: {line}" for line in dtypes)
        for _, kernel, rows in self.other_stubs:
            dtypes += tuple(f"{kernel}: {line}" for line in format_rows(list(rows)))
        return (("dispatch", self.dispatch), ("stub", stubs),
                ("dtype", dtypes),
                ("api", self.backfilled), ("added", self.added), ("removed", self.removed), ("tests", self.tests), ("note", self.notes))

    def lines(self) -> list[str]:
        """The command's summary lines: `dispatch  ...`, `dtype     ...`, ... (keys padded to 10)."""
        return [f"{key:<9} {item}" for key, items in self.sections() for item in items]


def _stub_line(plan: Plan) -> str | None:
    stub = plan.stub
    return None if stub is None else f"{stub.name} ({stub.fn_type}, {stub.path}:{stub.line})"


def summarize(plan: Plan) -> PlanSummary:
    return PlanSummary(
        dispatch=tuple(f"{m.entry} (line {m.line}): MPS {f'{m.legacy_kernel} -> ' if m.legacy_kernel else ''}"
                       f"{m.shared_kernel}" for m in plan.moved),
        stub=_stub_line(plan),
        dtype_rows=tuple(plan.dtype_rows),
        backfilled=tuple(plan.backfilled),
        added=tuple(plan.added),
        removed=tuple(plan.removed),
        tests=tuple(plan.test_lists),
        notes=tuple(plan.notes),
        other_stubs=tuple((_stub_line(p) or "", p.kernel or "(kept)", tuple(p.dtype_rows)) for p in plan.stub_plans),
        kernel=plan.kernel,
    )
