"""`mpsgen status --op NAME`: everything known about one family, as frozen data with file:line locations."""

from __future__ import annotations

from typing import Any

from mpsgen.lint.frontier import Frontier, FrontierIndex
from mpsgen.lint.inventory import NATIVE, NO_MPS, Inventory
from mpsgen.model import Location
from mpsgen.records import NamedTuple


class EntryRow(NamedTuple):
    name: str
    at: str  # yaml path:line of its `- func:` line
    route: str | None = None  # "shared" | "legacy" | "none"; None for a composite-only family
    mps_kernel: str | None = None
    delegates_to: str | None = None
    mps_line: str | None = None
    duplicate_mps_lines: tuple[int, ...] = ()


class LegacyDefinition(NamedTuple):
    at: str
    form: str  # TORCH_IMPL_FUNC, function, or the CREATE_MPS_* macro
    backend: str  # mpsgraph | metal | unknown


class MetalKernelUse(NamedTuple):
    kernel: str
    host_call: str
    registered_at: str | None  # None: no .metal registers it
    macro: str | None = None


class StubRegistration(NamedTuple):
    at: str
    macro: str
    function: str | None
    backend: str
    metal_kernels: tuple[MetalKernelUse, ...]


class SharedKernel(NamedTuple):
    kernel: str
    defined_at: str | None
    form: str | None
    stub: str | None
    stubs_called: tuple[str, ...]
    registrations: tuple[StubRegistration, ...]


class FamilyDetails(NamedTuple):
    family: str
    state: str
    why: str
    entries: tuple[EntryRow, ...]
    legacy_kernels: tuple[tuple[str, tuple[LegacyDefinition, ...]], ...] = ()  # (kernel, definitions), yaml order
    shared_kernels: tuple[SharedKernel, ...] = ()
    frontier: Frontier | None = None  # for families with MPS-only overloads or an MPSGraph stub
    composite_only: bool = False

    def legacy(self, kernel: str) -> tuple[LegacyDefinition, ...]:
        return dict(self.legacy_kernels)[kernel]

    def shared(self, kernel: str) -> SharedKernel:
        return next(s for s in self.shared_kernels if s.kernel == kernel)

    def to_json(self) -> dict[str, Any]:
        """Plain data for --format json (optional fields only when set)."""
        entries = []
        for e in self.entries:
            row: dict[str, Any] = {"name": e.name, "at": e.at}
            if not self.composite_only:
                row.update(route=e.route, mps_kernel=e.mps_kernel)
            for key in ("delegates_to", "mps_line"):
                if getattr(e, key):
                    row[key] = getattr(e, key)
            if e.duplicate_mps_lines:
                row["duplicate_mps_lines"] = list(e.duplicate_mps_lines)
            entries.append(row)
        doc: dict[str, Any] = {"family": self.family, "state": self.state, "why": self.why, "entries": entries}
        if self.composite_only:
            return doc
        doc["legacy_kernels"] = {k: [d._asdict() for d in defs] for k, defs in self.legacy_kernels}
        doc["shared_kernels"] = {s.kernel: _shared_json(s) for s in self.shared_kernels}
        if self.frontier is not None:
            doc["frontier"] = {"state": self.frontier.label, "why": self.frontier.why,
                               "overloads": [o._asdict() | {"stubs": list(o.stubs)} for o in self.frontier.overloads]}
        return doc


def _shared_json(s: SharedKernel) -> dict[str, Any]:
    return {
        "defined_at": s.defined_at, "form": s.form, "stub": s.stub, "stubs_called": list(s.stubs_called),
        "registrations": [{"at": r.at, "macro": r.macro, "function": r.function, "backend": r.backend,
                           "metal_kernels": [_metal_json(m) for m in r.metal_kernels]} for r in s.registrations],
    }


def _metal_json(m: MetalKernelUse) -> dict[str, Any]:
    out: dict[str, Any] = {"kernel": m.kernel, "host_call": m.host_call, "registered_at": m.registered_at}
    if m.registered_at:
        out["macro"] = m.macro
    return out


def family_details(inv: Inventory, name: str) -> FamilyDetails:
    """Everything known about one family (MpsgenError with a suggestion when there is no such family)."""
    key = inv.index.resolve_family_name(name)
    if key not in inv.family_heads:
        entries = [inv.index.parse(h) for h in inv.index.heads if h.name.partition(".")[0] in (key, key + "_")]
        return FamilyDetails(key, "composite only", "no CPU, CUDA or MPS dispatch line",
                             tuple(EntryRow(e.name, f"{Location(inv.yaml_rel, e.line)}") for e in entries), composite_only=True)
    state = inv.family_state(key)
    rows: list[EntryRow] = []
    legacy: dict[str, tuple[LegacyDefinition, ...]] = {}
    shared: dict[str, SharedKernel] = {}
    parsed = inv.index.family(key).entries  # all overloads, including those without a dispatch
    for e in parsed:
        rows.append(EntryRow(
            e.name, f"{Location(inv.yaml_rel, e.line)}", e.mps_route, e.mps_kernel,
            e.structured_delegate if e.mps_route == "none" else None,
            f"{inv.yaml_rel}:{e.mps_lines[-1].line}" if e.mps_lines else None,
            tuple(d.line for d in e.mps_lines) if e.duplicate_mps else (),
        ))
        for d in e.legacy_lines:
            k = d.kernel.rsplit("::", 1)[-1]
            legacy.setdefault(k, tuple(
                LegacyDefinition(f"{x.impl.location}", x.impl.macro or x.impl.form, x.impl.backend)
                for x in inv.legacy_definitions(k)))
        if e.mps_route == "shared" and e.mps_kernel and e.mps_kernel not in shared:
            shared[e.mps_kernel] = _shared_kernel(inv, e.mps_kernel)
    if state.state == NO_MPS:  # show what a new-op would share
        for e in parsed:
            kernel = e.shared_kernel().kernel
            if kernel and kernel not in shared:
                shared[kernel] = _shared_kernel(inv, kernel)
    frontier = (FrontierIndex(inv).new_op(key) if state.state == NO_MPS
                else FrontierIndex(inv).family(key) if state.state != NATIVE else None)
    return FamilyDetails(key, state.state, state.why, tuple(rows), tuple(legacy.items()), tuple(shared.values()), frontier)


def _shared_kernel(inv: Inventory, kernel: str) -> SharedKernel:
    use = inv.stub_use(kernel)
    regs = []
    for reg in use.registrations:
        metal = []
        for c in (c for c in inv.host_calls.get(reg.path, []) if c.function == reg.fn):
            where = inv.metal_names.where(c.kernel)
            first = where[0] if where else None
            metal.append(MetalKernelUse(c.kernel, f"{Location(reg.path, c.line)}",
                                        f"{first.location}" if first else None, first.macro if first else None))
        regs.append(StubRegistration(f"{reg.location}", reg.macro, reg.fn, inv.registration_backend(reg), tuple(metal)))
    return SharedKernel(kernel, f"{use.impl.location}" if use.impl else None,
                        use.impl.shown_form if use.impl else None, use.stub,
                        tuple(use.impl.stub_names) if use.impl else (), tuple(regs))


def render_details(d: FamilyDetails, fmt: str) -> str:
    if fmt == "json":
        import json  # only for --format json

        return json.dumps(d.to_json(), indent=2) + "\n"
    bullet = "-" if fmt == "markdown" else " "
    code = (lambda s: f"`{s}`") if fmt == "markdown" else (lambda s: str(s))
    out = [f"{'## ' if fmt == 'markdown' else ''}{d.family}: {d.state} ({d.why})", ""]
    out.append("entries:")
    for e in d.entries:
        extra = f" -> MPS {code(e.mps_kernel)} ({e.route})" if e.mps_kernel else (
            f" (delegates to {e.delegates_to})" if e.delegates_to else " (no MPS key)" if e.route else "")
        dup = f"  DUPLICATE MPS on lines {list(e.duplicate_mps_lines)}" if e.duplicate_mps_lines else ""
        out.append(f"  {bullet} {code(e.name)}  {e.at}{extra}{dup}")
    for k, defs in d.legacy_kernels:
        out.append(f"MPS-only kernel {code(k)}:")
        if not defs:
            out.append(f"  {bullet} not defined in operations/*.mm")
        for x in defs:
            out.append(f"  {bullet} {x.form} at {x.at} ({x.backend})")
    for s in d.shared_kernels:
        where = f"{s.form} at {s.defined_at}" if s.defined_at else "not found in native/*.cpp"
        out.append(f"shared kernel {code(s.kernel)}: {where}")
        if s.stub:
            out.append(f"  {bullet} stub {code(s.stub)}")
        elif s.stubs_called:
            out.append(f"  {bullet} stubs called: {', '.join(s.stubs_called)} (none registered for MPS)")
        if s.stub and not s.registrations:
            out.append(f"  {bullet} no MPS registration of {s.stub}")
        for r in s.registrations:
            out.append(f"  {bullet} registered by {r.macro} at {r.at} ({r.function or '?'}, {r.backend})")
            for m in r.metal_kernels:
                reg = f"registered at {m.registered_at}" if m.registered_at else "NOT registered in any .metal"
                out.append(f"      {bullet} kernel {code(m.kernel)}: run at {m.host_call}, {reg}")
    if d.frontier is not None:
        out.append(f"frontier: {d.frontier.label or 'not a new-op candidate'}")
        if d.frontier.note:
            out.append(f"  {bullet} {d.frontier.note}")
        for o in d.frontier.overloads:
            via = f" ({o.mps_kernel})" if o.mps_kernel else ""
            out.append(f"  {bullet} {code(o.entry)}{via}: {'candidate' if o.candidate else 'not a candidate'}: {o.why}")
    return "\n".join(out) + "\n"
