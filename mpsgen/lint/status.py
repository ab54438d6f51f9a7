"""`mpsgen status`: the migration dashboard, built from the same Inventory as `mpsgen check`.

One row per op family that has a CPU, CUDA or MPS kernel (composite-only families run on MPS by
decomposition and are only counted), with totals; `--op NAME` shows where every piece of one
family lives: yaml entries, MPS-only kernels and their bodies, shared kernel, stub, registrations
and Metal kernels.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from mpsgen.errors import MpsgenError
from mpsgen.lint.inventory import (
    METAL_LEGACY, MPSGRAPH, NATIVE, NO_MPS, SPLIT, STATES, UNKNOWN, FamilyState, Inventory, _bare,
)

FORMATS = ("table", "json", "markdown")


@dataclass(frozen=True)
class Dashboard:
    families: tuple[FamilyState, ...]
    composite_only: int

    def totals(self) -> dict[str, int]:
        counts = {s: 0 for s in STATES}
        for f in self.families:
            counts[f.state] += 1
        return counts


def dashboard(inv: Inventory) -> Dashboard:
    return Dashboard(tuple(inv.family_states()), inv.composite_only)


# -- whole tree -----------------------------------------------------------------------------


def _state_rows(board: Dashboard) -> list[tuple[str, str, str]]:
    # Most interesting first: what still needs work, then what is done.
    order = {s: k for k, s in enumerate((SPLIT, MPSGRAPH, METAL_LEGACY, UNKNOWN, NATIVE, NO_MPS))}
    rows = sorted(board.families, key=lambda f: (order[f.state], f.name))
    return [(f.name, f.state, f.why) for f in rows]


def render_dashboard(board: Dashboard, fmt: str) -> str:
    totals = board.totals()
    if fmt == "json":
        doc = {
            "families": [{"family": f.name, "state": f.state, "why": f.why,
                          "entries": list(f.entries)} for f in board.families],
            "totals": totals,
            "composite_only": board.composite_only,
        }
        return json.dumps(doc, indent=2) + "\n"
    rows = _state_rows(board)
    summary = list(totals.items())
    if fmt == "markdown":
        out = ["| family | state | why |", "|---|---|---|"]
        out += [f"| `{n}` | {s} | {w} |" for n, s, w in rows]
        out += ["", "| state | families |", "|---|---:|"]
        out += [f"| {s} | {n} |" for s, n in summary]
        out += ["", f"{board.composite_only} composite-only families (no CPU/CUDA/MPS kernel) are not listed."]
        return "\n".join(out) + "\n"
    if fmt != "table":
        raise MpsgenError(f"unknown status format {fmt!r}", hint="use one of: " + ", ".join(FORMATS))
    width = max([len(n) for n, _, _ in rows] + [6])
    swidth = max(len(s) for s in STATES)
    out = [f"{'family':<{width}}  {'state':<{swidth}}  why"]
    out += [f"{n:<{width}}  {s:<{swidth}}  {w}" for n, s, w in rows]
    out.append("")
    out.append("totals: " + ", ".join(f"{s} {n}" for s, n in summary if n) + f" ({len(rows)} families)")
    out.append(f"not listed: {board.composite_only} composite-only families (no CPU/CUDA/MPS kernel)")
    return "\n".join(out) + "\n"


# -- one family -----------------------------------------------------------------------------


def family_details(inv: Inventory, name: str) -> dict[str, Any]:
    """Everything known about one family, as plain data (for json) with file:line locations."""
    key = inv.index.resolve_family_name(name)
    if key not in inv.family_heads:
        # Composite-only: no backend kernel at all.
        entries = [inv.index.parse(h) for h in inv.index.heads if h.name.partition(".")[0] in (key, key + "_")]
        return {"family": key, "state": "composite only", "why": "no CPU, CUDA or MPS dispatch line",
                "entries": [{"name": e.name, "at": f"{inv.yaml_rel}:{e.line}"} for e in entries]}
    state = inv.family_state(key)
    entries = []
    legacy: dict[str, Any] = {}
    shared: dict[str, Any] = {}
    parsed = inv.index.family(key).entries  # all overloads, including those without a dispatch
    for e in parsed:
        row: dict[str, Any] = {"name": e.name, "at": f"{inv.yaml_rel}:{e.line}", "route": e.mps_route,
                               "mps_kernel": e.mps_kernel}
        if e.mps_route == "none" and e.structured_delegate:
            row["delegates_to"] = e.structured_delegate
        if e.mps_lines:
            row["mps_line"] = f"{inv.yaml_rel}:{e.mps_lines[-1].line}"
        if e.duplicate_mps:
            row["duplicate_mps_lines"] = [d.line for d in e.mps_lines]
        entries.append(row)
        for d in e.legacy_lines:
            k = _bare(d.kernel)
            legacy.setdefault(k, [
                {"at": f"{x.impl.path}:{x.impl.line}", "form": x.impl.macro or x.impl.form, "backend": x.impl.backend}
                for x in inv.legacy_definitions(k)
            ])
        if e.mps_route == "shared" and e.mps_kernel and e.mps_kernel not in shared:
            shared[e.mps_kernel] = _shared_details(inv, e.mps_kernel)
    if state.state == NO_MPS:  # show what a new-op would share
        for e in parsed:
            k = e.shared_kernel().kernel
            if k and k not in shared:
                shared[k] = _shared_details(inv, k)
    return {"family": key, "state": state.state, "why": state.why, "entries": entries,
            "legacy_kernels": legacy, "shared_kernels": shared}


def _shared_details(inv: Inventory, kernel: str) -> dict[str, Any]:
    use = inv.stub_use(kernel)
    out: dict[str, Any] = {
        "defined_at": f"{use.impl.path}:{use.impl.line}" if use.impl else None,
        "form": use.impl.form if use.impl else None,
        "stub": use.stub,
        "stubs_called": list(use.impl.stub_names) if use.impl else [],
        "registrations": [],
    }
    for reg in use.registrations:
        calls = [c for c in inv.host_calls.get(reg.path, []) if c.function == reg.fn]
        metal = []
        for c in calls:
            for path, line, macro in inv.metal_kernels.get(c.kernel, [])[:1]:
                metal.append({"kernel": c.kernel, "host_call": f"{reg.path}:{c.line}", "registered_at": f"{path}:{line}",
                              "macro": macro})
            if c.kernel not in inv.metal_kernels:
                metal.append({"kernel": c.kernel, "host_call": f"{reg.path}:{c.line}", "registered_at": None})
        out["registrations"].append({
            "at": f"{reg.path}:{reg.line}", "macro": reg.macro, "function": reg.fn,
            "backend": inv.registration_backend(reg), "metal_kernels": metal,
        })
    return out


def render_details(details: dict[str, Any], fmt: str) -> str:
    if fmt == "json":
        return json.dumps(details, indent=2) + "\n"
    bullet = "-" if fmt == "markdown" else " "
    code = (lambda s: f"`{s}`") if fmt == "markdown" else (lambda s: str(s))
    out = [f"{'## ' if fmt == 'markdown' else ''}{details['family']}: {details['state']} ({details['why']})", ""]
    out.append("entries:")
    for e in details["entries"]:
        route = e.get("route", "")
        extra = f" -> MPS {code(e['mps_kernel'])} ({route})" if e.get("mps_kernel") else (
            f" (delegates to {e['delegates_to']})" if e.get("delegates_to") else " (no MPS key)" if route else "")
        dup = f"  DUPLICATE MPS on lines {e['duplicate_mps_lines']}" if e.get("duplicate_mps_lines") else ""
        out.append(f"  {bullet} {code(e['name'])}  {e['at']}{extra}{dup}")
    for k, defs in details.get("legacy_kernels", {}).items():
        out.append(f"MPS-only kernel {code(k)}:")
        if not defs:
            out.append(f"  {bullet} not defined in operations/*.mm")
        for d in defs:
            out.append(f"  {bullet} {d['form']} at {d['at']} ({d['backend']})")
    for k, s in details.get("shared_kernels", {}).items():
        where = f"{s['form']} at {s['defined_at']}" if s["defined_at"] else "not found in native/*.cpp"
        out.append(f"shared kernel {code(k)}: {where}")
        if s["stub"]:
            out.append(f"  {bullet} stub {code(s['stub'])}")
        elif s["stubs_called"]:
            out.append(f"  {bullet} stubs called: {', '.join(s['stubs_called'])} (none registered for MPS)")
        if s["stub"] and not s["registrations"]:
            out.append(f"  {bullet} no MPS registration of {s['stub']}")
        for r in s["registrations"]:
            out.append(f"  {bullet} registered by {r['macro']} at {r['at']} ({r['function'] or '?'}, {r['backend']})")
            for m in r["metal_kernels"]:
                reg = f"registered at {m['registered_at']}" if m["registered_at"] else "NOT registered in any .metal"
                out.append(f"      {bullet} kernel {code(m['kernel'])}: run at {m['host_call']}, {reg}")
    return "\n".join(out) + "\n"
