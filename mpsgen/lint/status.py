"""`mpsgen status`: the migration dashboard, built from the same Inventory as `mpsgen check`.

One row per op family that has a CPU, CUDA or MPS kernel (composite-only families run on MPS by
decomposition and are only counted), with totals.  MPSGraph families are split by the migration
frontier (lint/frontier.py): pointwise candidates first, then the MPSGraph ops that are not
candidates, each with the reason.  `--op NAME` shows where every piece of one family lives: yaml
entries, MPS-only kernels and their bodies, shared kernel, stub, registrations, Metal kernels,
and its place on the frontier.
"""

from __future__ import annotations

from mpsgen.errors import MpsgenError
from mpsgen.lint.details import FamilyDetails, family_details, render_details
from mpsgen.lint.frontier import CANDIDATE, NEW_OP, NOT_CANDIDATE, Frontier, FrontierIndex
from mpsgen.lint.inventory import (
    METAL_LEGACY, MPSGRAPH, NATIVE, NO_MPS, SPLIT, STATES, UNKNOWN, UNREGISTERED, FamilyState, Inventory,
)
from mpsgen.records import NamedTuple

__all__ = ["Dashboard", "Row", "dashboard", "render_dashboard", "FamilyDetails", "family_details", "render_details"]

FORMATS = ("table", "json", "markdown")
# States whose families are judged against the frontier.
_JUDGED = (MPSGRAPH, UNREGISTERED, METAL_LEGACY, SPLIT, UNKNOWN)


class Row(NamedTuple):
    state: FamilyState
    frontier: Frontier | None  # None for states not judged

    @property
    def name(self) -> str:
        return self.state.name

    @property
    def why(self) -> str:
        if self.frontier is None or (self.frontier.new_op and not self.frontier.candidate):
            return self.state.why
        return self.frontier.why


class Dashboard(NamedTuple):
    rows: tuple[Row, ...]
    composite_only: int

    @property
    def families(self) -> tuple[FamilyState, ...]:
        return tuple(r.state for r in self.rows)

    def totals(self) -> dict[str, int]:
        counts = {s: 0 for s in STATES}
        for r in self.rows:
            counts[r.state.state] += 1
        return counts

    def frontier_totals(self) -> dict[str, int]:
        """MPSGraph families: migration candidates (of every kind) and the others; new-op and half-done candidates."""
        graph = [r for r in self.rows if r.state.state == MPSGRAPH and r.frontier]
        yes = sum(r.frontier.candidate for r in graph if r.frontier)
        new = sum(1 for r in self.rows if r.state.state == NO_MPS and r.frontier and r.frontier.candidate)
        half_done = sum(1 for r in self.rows if r.state.state == UNREGISTERED and r.frontier and r.frontier.candidate)
        return {CANDIDATE: yes, NOT_CANDIDATE: len(graph) - yes, NEW_OP: new, UNREGISTERED: half_done}


def dashboard(inv: Inventory) -> Dashboard:
    front = FrontierIndex(inv)
    rows = tuple(Row(s, front.family(s.name) if s.state in _JUDGED else front.new_op(s.name) if s.state == NO_MPS
                     else None) for s in inv.family_states())
    return Dashboard(rows, inv.composite_only)


# -- whole tree -----------------------------------------------------------------------------


def _ordered(board: Dashboard) -> list[Row]:
    # Most interesting first: what is half done, the frontier, the rest of MPSGraph, then what is done.
    def rank(r: Row) -> int:
        s = r.state.state
        if s == MPSGRAPH:
            return 1 if r.frontier and r.frontier.candidate else 2
        return {SPLIT: 0, UNREGISTERED: 0, METAL_LEGACY: 3, UNKNOWN: 4, NATIVE: 5, NO_MPS: 6 if r.frontier and r.frontier.candidate else 7}[s]

    return sorted(board.rows, key=lambda r: (rank(r), r.name))


def _frontier_label(r: Row) -> str:
    return r.frontier.label if r.frontier else ""


def _frontier_line(board: Dashboard) -> str:
    f = board.frontier_totals()
    return (f"frontier: {f[CANDIDATE]} MPSGraph families are migration candidates (pointwise, fill, indexing, random and "
            f"reduction kernels: `mpsgen migrate NAME`), {f[NOT_CANDIDATE]} are not (no shared kernel reaching a "
            "DispatchStub mpsgen writes kernels for); "
            f"{f[NEW_OP]} families with no MPS kernel are pointwise new-op candidates (`mpsgen new-op NAME`)"
            + (f"; {f[UNREGISTERED]} half-done families route MPS to a stub no .mm registers (MPS005) and are "
               "candidates too" if f[UNREGISTERED] else ""))


def render_dashboard(board: Dashboard, fmt: str) -> str:
    totals = board.totals()
    if fmt == "json":
        doc = {
            "families": [{"family": r.name, "state": r.state.state, "why": r.state.why,
                          "frontier": _frontier_label(r) or None, "frontier_why": r.frontier.why if r.frontier else None,
                          "entries": list(r.state.entries)} for r in board.rows],
            "totals": totals,
            "frontier": board.frontier_totals(),
            "composite_only": board.composite_only,
        }
        import json  # only for --format json

        return json.dumps(doc, indent=2) + "\n"
    rows = _ordered(board)
    summary = list(totals.items())
    if fmt == "markdown":
        out = ["| family | state | frontier | why |", "|---|---|---|---|"]
        out += [f"| `{r.name}` | {r.state.state} | {_frontier_label(r)} | {r.why} |" for r in rows]
        out += ["", "| state | families |", "|---|---:|"]
        out += [f"| {s} | {n} |" for s, n in summary]
        out += ["", _frontier_line(board) + ".", ""]
        out += [f"{board.composite_only} composite-only families (no CPU/CUDA/MPS kernel) are not listed."]
        return "\n".join(out) + "\n"
    if fmt != "table":
        raise MpsgenError(f"unknown status format {fmt!r}", hint="use one of: " + ", ".join(FORMATS))
    width = max([len(r.name) for r in rows] + [6])
    swidth = max(len(s) for s in STATES)
    fwidth = max(len(CANDIDATE), len(NOT_CANDIDATE), len("frontier"))
    out = [f"{'family':<{width}}  {'state':<{swidth}}  {'frontier':<{fwidth}}  why"]
    out += [f"{r.name:<{width}}  {r.state.state:<{swidth}}  {_frontier_label(r):<{fwidth}}  {r.why}" for r in rows]
    out.append("")
    out.append(_frontier_line(board))
    out.append("totals: " + ", ".join(f"{s} {n}" for s, n in summary if n) + f" ({len(rows)} families)")
    out.append(f"not listed: {board.composite_only} composite-only families (no CPU/CUDA/MPS kernel)")
    return "\n".join(out) + "\n"
