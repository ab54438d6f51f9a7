"""Rules on the #include lines a hand edit can drop: the header declaring a registered stub (in the
.mm), the c10/metal header whose macros and functions a .metal uses (the cheap lint; the compile
check is the full answer)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Callable, Iterator

from mpsgen.lint.finding import Basis, Finding, bases
from mpsgen.lint.wiring import wiring
from mpsgen.lint.rules import ERROR, rule

if TYPE_CHECKING:
    from mpsgen.lint.inventory import Inventory

_OPENS_C10 = re.compile(r"namespace\s+c10(?:\s*::\s*metal)?\s*\{")  # the file declares into c10 itself


@rule("MPS015", "stub-header-missing", ERROR,
      "an MPS source registers a DispatchStub whose declaring header it no longer includes, directly or "
      "through its headers (a compile error)")
def stub_header_missing(inv: "Inventory") -> Iterator[Finding]:
    """A compile error: `REGISTER_DISPATCH(x_stub, ...)` (or REGISTER_MPS_DISPATCH,
    REGISTER_UNARY_TI_DISPATCH, REGISTER_MPS_UNARY_STUB) names a stub that nothing the file
    includes declares, so `x_stub` is an undeclared identifier.

    The stub's DECLARE_DISPATCH is looked up in ATen/native/*.h; the file's #include lines are
    followed through the checkout's own headers (every level, each header read once and kept
    between runs); a header the checkout does not hold (generated, system) is not followed, and
    none of those declares a stub.  Reported only when no ATen/native header reached spells the
    stub's name (a declaration made by some other macro would).

    Fix: include the header the hint names (`#include <ATen/native/UnaryOps.h>`).
    """
    wires = wiring(inv)
    by_file: dict[str, list] = {}
    for regs in inv.registrations.values():
        for r in regs:
            by_file.setdefault(r.path, []).append(r)
    for path, regs in sorted(by_file.items()):
        declared = wires.declared_stubs(path)
        missing: dict[str, list] = {}  # header -> the registrations needing it
        for r in sorted(regs, key=lambda r: r.line):
            decl = None if r.stub in declared else inv.stub_declarations.get(r.stub)
            if decl is not None:  # (None: declared outside ATen/native/*.h, not judged)
                missing.setdefault(decl.header, []).append((r, decl))
        if not missing:
            continue
        reached = wires.walk(path)
        texts = [inv.checkout.read_text(h) for h in reached if h.startswith("aten/src/ATen/native/")]
        for header, needing in missing.items():
            # declared again some way the reader does not see: not judged
            needing = [(r, d) for r, d in needing if not any(re.search(r"\b" + r.stub + r"\b", t) for t in texts)]
            if not needing:
                continue
            r, decl = needing[0]
            others = [x.stub for x, _ in needing[1:]]
            also = f" (and {len(others)} more: {', '.join(others[:4])}{', ...' if len(others) > 4 else ''})" if others else ""
            yield stub_header_missing.finding(
                path, r.line,
                f"{r.macro}({r.stub}, ...){also} needs the DECLARE_DISPATCH in {header} ({decl.path}:{decl.line}), "
                "which this file no longer includes, directly or through its headers: the stub is undeclared "
                "(a compile error)",
                hint=f"add `#include <{header}>`",
                rests_on=bases([Basis(decl.path, decl.line)], [h for h in reached if h.startswith("aten/")]),
            )


@rule("MPS016", "metal-header-missing", ERROR,
      "a .metal uses a c10/metal macro or c10::metal name from a header it no longer includes (a compile error)")
def metal_header_missing(inv: "Inventory") -> Iterator[Finding]:
    """A compile error of a .metal: it calls a macro a c10/metal (or kernels/*.h) header defines
    (`REGISTER_UNARY_OP`, `DEFINE_UNARY_FLOATING_FUNCTOR`), spells `c10::metal::X` for an X only a
    header declares, or says `using namespace c10::metal;`, and no header it includes, directly or
    through others, provides it.

    The cheap part of what the no-Mac compile check finds in full: only macros defined in those
    headers and names spelled with the `c10::metal::` prefix are judged (an unqualified name may
    come from Metal's own headers), and only when no header reached spells the name at all.

    Fix: include the header the hint names (`#include <c10/metal/indexing.h>`).
    """
    wires = wiring(inv)
    symbols = wires.metal_symbols
    headers = wires.metal_headers
    words = wires.header_words  # each header's read only when asked
    for rel in inv.metal_files:
        own = symbols.get(rel)
        if own is None or not (own.macro_uses or own.qualified or own.c10_namespace_line):
            continue
        reached = [h for h in wires.walk(rel) if h in headers]
        missing: dict[str, list[tuple[str, int]]] = {}  # header to include -> (what, line)
        for macro, line in own.macro_uses:
            if _spelled_in(macro, reached, words):  # asked first: the headers' macros are read only for a finding
                continue
            home = next((h for h in headers if macro in wires.header_macros[h]), None)
            if home is not None:
                missing.setdefault(home, []).append((macro, line))
        declares_c10 = _OPENS_C10.search(inv.checkout.read_text(rel)) is not None
        for name, line in own.qualified if not declares_c10 else ():
            home = next((h for h in headers if h.startswith("c10/") and name in words(h)), None)
            if home is not None and not _spelled_in(name, reached, words):
                missing.setdefault(home, []).append((f"c10::metal::{name}", line))
        if own.c10_namespace_line and not declares_c10 and not any(h.startswith("c10/metal/") for h in reached):
            c10 = [h for h in headers if h.startswith("c10/metal/")]
            home = "c10/metal/utils.h" if "c10/metal/utils.h" in c10 else c10[0] if c10 else None
            if home is not None and not any(h.startswith("c10/metal/") for h in missing):
                missing[home] = [("`using namespace c10::metal`", own.c10_namespace_line)]
        for home, uses in missing.items():
            uses = sorted(uses, key=lambda u: u[1])
            shown = ", ".join(f"{what} (line {line})" for what, line in uses[:3])
            more = f" and {len(uses) - 3} more" if len(uses) > 3 else ""
            yield metal_header_missing.finding(
                rel, uses[0][1],
                f"uses {shown}{more} from {home}, which this file no longer includes, directly or through "
                "its headers (a compile error)",
                hint=f"add `#include <{home}>`",
                rests_on=bases([home], reached),
            )


def _spelled_in(name: str, headers: list[str], words: Callable[[str], frozenset[str]]) -> bool:
    """Whether one of *headers* spells *name* (their words read in turn, up to the first that does)."""
    return any(name in words(h) for h in headers)
