"""The rules of `mpsgen check`: broken or half-done MPS wiring, as located findings.

Each rule is a function Inventory -> findings.  Locations follow the piece a human must edit:
the yaml dispatch line (split family, duplicate key, missing implementation, stub not registered),
the .mm line (dead implementation, stub registered twice, unregistered host kernel name), the .metal
line (functor never registered, stem mismatch) and the common_mps.py line (stale xfail).
"""

from __future__ import annotations

import difflib
import re
from pathlib import Path
from typing import Callable, Iterable, Iterator

from mpsgen.lint import report
from mpsgen.lint.inventory import Inventory, _bare, could_be_opinfo_key
from mpsgen.sources.nativefunctions import DispatchLine, Entry, family_key
from mpsgen.lint.report import Finding

_NAME = re.compile(r"[A-Za-z_]\w*")


def _col(d: DispatchLine, word: str) -> int:
    """1-based column of *word* (a key or the kernel) in a dispatch line."""
    m = re.search(r"\b" + re.escape(word) + r"\b", d.text)
    return m.start() + 1 if m else 1


def _mps_col(d: DispatchLine) -> int:
    return _col(d, "MPS")


def _kernel_col(d: DispatchLine) -> int:
    return d.text.rfind(d.kernel) + 1 if d.kernel in d.text else 1


def _families(entries: Iterable[Entry]) -> dict[str, list[Entry]]:
    groups: dict[str, list[Entry]] = {}
    for e in entries:
        groups.setdefault(family_key(e.base), []).append(e)
    return groups


# -- native_functions.yaml ------------------------------------------------------------------


def split_family(inv: Inventory) -> Iterator[Finding]:
    """Some overloads share the CPU/CUDA kernel on MPS while others still call an MPS-only one."""
    for family, entries in _families(inv.mps_entries).items():
        shared = [e for e in entries if e.mps_route == "shared"]
        if not shared:
            continue
        for e in entries:
            if e.mps_route != "legacy" or e.duplicate_mps:
                continue  # a duplicated key is reported by its own rule
            d = e.mps_lines[-1]
            other = shared[0]
            yield Finding.of(
                report.SPLIT_FAMILY, inv.yaml_rel, d.line,
                f"{family} is half migrated: {e.name} dispatches MPS to the MPS-only {d.kernel}, while "
                f"{other.name} (line {other.mps_lines[-1].line}) shares {other.mps_kernel}",
                col=_mps_col(d),
                hint=f"run `mpsgen migrate {family}` to move every overload to the shared kernel",
            )


def duplicate_key(inv: Inventory) -> Iterator[Finding]:
    """MPS on two dispatch lines of one entry: torchgen silently keeps the later one."""
    for e in inv.mps_entries:
        if not e.duplicate_mps:
            continue
        lines = e.mps_lines
        winner = lines[-1]
        # Point at the line to delete: an MPS-only kernel beside a shared one, else a line keyed
        # only MPS (deleting it keeps CPU/CUDA), else the overridden first line.
        legacy = e.legacy_lines
        alone = [d for d in lines if d.keys == ("MPS",)]
        if legacy and len(legacy) < len(lines):
            target = legacy[0]
        elif alone and len(alone) < len(lines):
            target = alone[0]
        else:
            target = lines[0]
        where = ", ".join(str(d.line) for d in lines)
        yield Finding.of(
            report.DUPLICATE_KEY, inv.yaml_rel, target.line,
            f"{e.name} has MPS on lines {where}; torchgen silently uses the last one ({winner.kernel})",
            col=_mps_col(target),
            hint=f"delete the MPS: line at {inv.yaml_rel}:{target.line}",
        )


def missing_implementation(inv: Inventory) -> Iterator[Finding]:
    """An MPS-only yaml kernel that no operations/*.mm defines (a link error later)."""
    for e in inv.mps_entries:
        for d in e.legacy_lines:
            kernel = _bare(d.kernel)
            if inv.legacy_definitions(kernel):
                continue
            if kernel in inv.macro_arguments or kernel in inv.native_identifiers:
                continue  # made by a macro we do not expand, or defined outside the MPS sources
            yield Finding.of(
                report.MISSING_IMPLEMENTATION, inv.yaml_rel, d.line,
                f"{e.name} dispatches MPS to {kernel}, which no operations/*.mm defines "
                "(TORCH_IMPL_FUNC, function or CREATE_MPS_* macro)",
                col=_kernel_col(d),
                hint=f"restore {kernel} in operations/*.mm, or route MPS to the shared kernel with "
                f"`mpsgen migrate {family_key(e.base)}`",
            )


def stub_not_registered(inv: Inventory) -> Iterator[Finding]:
    """A shared kernel routed to MPS whose stub has no MPS registration (a runtime error)."""
    for e in inv.mps_entries:
        if e.mps_route != "shared" or not e.mps_kernel:
            continue
        use = inv.stub_use(e.mps_kernel)
        if use.stub is None or use.registrations or use.impl is None:
            continue  # only report what can be determined
        d = e.mps_lines[-1]
        yield Finding.of(
            report.STUB_NOT_REGISTERED, inv.yaml_rel, d.line,
            f"{e.name} shares {use.kernel} with MPS, which calls {use.stub} ({use.impl.path}:{use.impl.line}), "
            f"but no operations/*.mm registers {use.stub} for MPS (a runtime error on MPS)",
            col=_kernel_col(d),
            hint=f"run `mpsgen migrate {family_key(e.base)}` to write the Metal kernel, "
            f"or add REGISTER_DISPATCH({use.stub}, ...) to operations/*.mm",
        )


# -- operations/*.mm ------------------------------------------------------------------------


def dead_implementation(inv: Inventory) -> Iterator[Finding]:
    """An MPS implementation in operations/*.mm that no yaml entry names any more."""
    referenced = inv.yaml_kernels
    for name, defs in inv.definitions.items():
        if name in referenced:
            continue
        for d in defs:
            impl = d.impl
            if impl.path not in inv.mm_texts or d.namespace != "at::native":
                continue
            if impl.form == "function":
                # Plain functions may be helpers: only MPSGraph ones named like a kernel and used nowhere else.
                if d.static or impl.backend != "mpsgraph" or "mps" not in name:
                    continue
                if inv.mm_identifier_counts.get(name, 0) > 1:
                    continue
            what = {"TORCH_IMPL_FUNC": f"TORCH_IMPL_FUNC({name})", "macro": f"{impl.macro}({name}, ...)"}.get(
                impl.form, f"{name}()")
            why = "; its structured class is no longer generated, so it does not compile" if impl.form != "function" else ""
            yield Finding.of(
                report.DEAD_IMPLEMENTATION, impl.path, impl.line,
                f"{what} ({impl.backend}) is not named by any native_functions.yaml entry{why}",
                col=impl.col,
                hint=f"delete it (lines {impl.line}-{impl.end_line}), or restore the `MPS: {name}` dispatch line",
            )


def stub_registered_twice(inv: Inventory) -> Iterator[Finding]:
    """A stub registered for MPS more than once: the winner depends on static initialisation order."""
    for stub, regs in inv.registrations.items():
        if len(regs) < 2:
            continue
        regs = sorted(regs, key=lambda r: (r.path, r.line))
        graph = [r for r in regs if inv.registration_backend(r) == "mpsgraph"]
        extra = graph if graph and len(graph) < len(regs) else regs[1:]
        listed = ", ".join(f"{r.path}:{r.line} ({r.macro})" for r in regs)
        for r in extra:
            yield Finding.of(
                report.STUB_REGISTERED_TWICE, r.path, r.line,
                f"{stub} is registered for MPS {len(regs)} times ({listed}); which one runs depends on "
                "static initialisation order",
                hint=f"delete the registration at {r.path}:{r.line}",
            )


# -- kernel names between .mm and .metal ----------------------------------------------------


def kernel_linkage(inv: Inventory) -> Iterator[Finding]:
    """Host kernel names without a Metal registration, and kernels registered in the wrong .metal."""
    registered = inv.metal_kernels
    seen: set[tuple[str, str]] = set()
    for mm, calls in inv.host_calls.items():
        stems = inv.metal_stems(mm)
        for call in calls:
            if not _NAME.fullmatch(call.kernel):
                continue  # a formatted name: cannot be checked statically
            where = registered.get(call.kernel)
            if not where:
                yield Finding.of(
                    report.HOST_NAME_UNREGISTERED, mm, call.line,
                    f"kernel '{call.kernel}' is run here but no kernels/*.metal registers it",
                    col=call.col,
                    hint=f"add a {call.kernel}_functor and its REGISTER_* lines to kernels/{stems[0]}.metal, "
                    "or fix the name",
                )
                continue
            if (call.kernel, mm) in seen or any(Path(p).stem in stems for p, _, _ in where):
                continue
            seen.add((call.kernel, mm))
            path, line, macro = where[0]
            yield Finding.of(
                report.KERNEL_STEM_MISMATCH, path, line,
                f"kernel '{call.kernel}' is registered in {Path(path).name} but run from {mm}:{call.line}, "
                f"whose JIT-shader build only sees {', '.join(s + '.metal' for s in stems)}",
                hint=f"move {call.kernel}_functor and its registrations to kernels/{stems[0]}.metal",
            )


def functor_unregistered(inv: Inventory) -> Iterator[Finding]:
    """A <name>_functor that no REGISTER_* line instantiates (and nothing else uses)."""
    registered = inv.metal_kernels
    uses: dict[str, int] = {}
    for text in inv.metal_texts.values():
        for m in re.finditer(r"\b(\w+)_functor\b", text):
            uses[m.group(1)] = uses.get(m.group(1), 0) + 1
    for ix in inv.metal_indexes:
        for f in ix.functors:
            if f.name in registered:
                continue
            if uses.get(f.name, 0) > (0 if f.macro else 1):
                continue  # used by a hand-written kernel or another functor
            yield Finding.of(
                report.FUNCTOR_UNREGISTERED, ix.path, f.line,
                f"{f.name}_functor is never registered, so no kernel is built from it",
                hint=f"add REGISTER_*_OP({f.name}, ...) lines for it, or delete it",
            )


# -- test lists -----------------------------------------------------------------------------


def stale_xfail(inv: Inventory) -> Iterator[Finding]:
    """A common_mps.py key that names no OpInfo (misspelt, or the OpInfo was renamed).

    Judged by text: the key must be a quoted string of the OpInfo files, or a quoted name followed
    by a quoted variant_test_name.  Cheap, and it never flags an OpInfo whose name is passed to a
    helper (signal.windows.*); a key whose name and variant exist only in different OpInfos passes.
    """
    tables, strings = inv.test_tables, inv.opinfo_strings
    if tables is None or strings is None:
        return
    path, entries = tables
    for e in entries:
        if could_be_opinfo_key(e.key, strings):
            continue
        # Only similar-looking names are compared: difflib over all ~1,400 strings costs ~10 ms per key.
        near = [s for s in strings if s[:1] == e.key[:1] and abs(len(s) - len(e.key)) <= 3]
        close = difflib.get_close_matches(e.key, near, n=1, cutoff=0.8)
        yield Finding.of(
            report.STALE_XFAIL, path, e.line,
            f"'{e.key}' in {e.table} names no OpInfo (misspelt, or the OpInfo was renamed)",
            col=_key_col(inv, path, e.line, e.key),
            hint=(f"did you mean '{close[0]}'? " if close else "") + "use the OpInfo's name + variant_test_name, "
            "or delete the entry",
        )


def _key_col(inv: Inventory, path: str, line: int, key: str) -> int:
    text = inv.checkout.read_text(path)
    start = 0
    for _ in range(line - 1):
        start = text.index("\n", start) + 1
    end = text.find("\n", start)
    col = text[start : end if end >= 0 else len(text)].find(key)
    return col if col > 0 else 1  # the column of the opening quote


RULE_FUNCTIONS: tuple[Callable[[Inventory], Iterable[Finding]], ...] = (
    split_family,
    duplicate_key,
    missing_implementation,
    dead_implementation,
    stub_not_registered,
    stub_registered_twice,
    kernel_linkage,
    functor_unregistered,
    stale_xfail,
)


def run_checks(inv: Inventory) -> list[Finding]:
    """Every rule over the whole tree, sorted by place."""
    findings = [f for rule in RULE_FUNCTIONS for f in rule(inv)]
    return sorted(findings, key=report.sort_key)
