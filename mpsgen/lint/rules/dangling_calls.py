"""A call left to a kernel-named function that is gone (MPS020): what deleting an MPSGraph kernel by hand
leaves when other code still calls it.  MPS003 covers the other side, a yaml line naming a kernel no
file defines; this rule reads the MPS sources' calls."""

from __future__ import annotations

import functools
import re
from pathlib import Path
from typing import TYPE_CHECKING, Iterator

from mpsgen.lint.finding import Basis, Finding, bases
from mpsgen.lint.rules import ERROR, rule
from mpsgen.records import NamedTuple

if TYPE_CHECKING:
    from mpsgen.lint.inventory import Inventory
    from mpsgen.sources.host.callers import NameUse

# `foo_out_mps`, `floor_divide_mps_`, `fmod_mps_out`: a name with `mps` as one of its `_` parts
_KERNEL_NAME = re.compile(r"(?:^|_)mps(?:_|$)")


class KernelCall(NamedTuple):
    name: str
    line: int
    col: int
    function: str | None  # the function the call is in


class CallFacts(NamedTuple):
    """One MPS source's calls of kernel-named functions it neither defines nor declares (the only ones that
    can dangle), and the names it defines or declares itself."""

    calls: tuple[KernelCall, ...]
    defined: frozenset[str]  # functions it defines (non-static ones are what other files may call)
    declared: frozenset[str]  # prototypes, and names it uses otherwise (a variable, a macro's argument);
    # a name the file defines is left out: its uses are not read


def call_facts(rel: str, text: str) -> CallFacts:
    """The fact kept per MPS source (and MPS header): a pure function of its text."""
    from mpsgen.sources.host import mm as host
    from mpsgen.sources.host.callers import NATIVE_QUALIFIERS, uses_named
    from mpsgen.sources.index import index_of

    if "mps" not in text:
        return CallFacts((), frozenset(), frozenset())
    ix = index_of(rel, text)
    defined = host.defined_names(rel, text)
    # every kernel-named identifier's uses, from the offsets one walk over the text's `mps` found; a call
    # of a name the file defines never dangles, so those names' uses (most of them) are not read
    starts = {n: ks for n, ks in ix.identifier_starts("mps").items()
              if n != "mps" and n not in defined and _KERNEL_NAME.search(n)}
    called: list[NameUse] = []
    declared: set[str] = set()
    for u in uses_named(rel, text, starts):
        if u.form in ("call", "address") and u.qualifier in NATIVE_QUALIFIERS and not u.in_directive:
            called.append(u)
        else:
            declared.add(u.name)
    calls = [KernelCall(u.name, ix.line(u.pos), ix.col(u.pos), ix.enclosing_function(u.pos))
             for u in called if u.name not in declared]
    calls.sort(key=lambda c: (c.line, c.col))
    return CallFacts(tuple(calls), defined, frozenset(declared))


def _facts(inv: "Inventory", files: dict[str, Path]) -> dict[str, CallFacts]:
    read, per_file = inv.checkout.read_text, inv.facts.per_file
    return {rel: per_file("kernel-calls", p, rel, read, functools.partial(call_facts, rel)) for rel, p in files.items()}


@rule("MPS020", "dangling-call", ERROR,
      "MPS code calls a kernel-named function (`..._mps`) that nothing defines, or that nothing it sees "
      "declares any more (a compile error left by deleting an MPSGraph kernel)")
def dangling_call(inv: "Inventory") -> Iterator[Finding]:
    """A compile error a migration by hand leaves: the MPSGraph kernel `foo_out_mps` and its
    `MPS: foo_out_mps` yaml line were deleted, but other code still calls it (2.7's
    `_bitwise_not_out_mps` calls `logical_not_out_mps` for bool inputs; `floor_divide_mps_` calls
    `floor_divide_out_mps`).  Its declaration in ATen/ops/<op>_native.h went with the yaml line.

    Fires on a call (or `&name`) in the MPS sources, unqualified or `at::native::`-qualified, of a
    name with `mps` as one of its `_`-separated parts, when

    * nothing defines it: no function, TORCH_IMPL_FUNC or CREATE_MPS_* kernel of that name in the MPS
      sources or headers, no yaml dispatch line naming it, no other macro passed it first, and
      native/*.cpp never spells it; or
    * it is defined in another MPS source but declared nowhere the caller sees: no yaml dispatch
      line names it, no MPS header and not the caller's file declares it.

    A name the caller's file uses other than as a call (a variable, a lambda) is its own, and never
    reported.  Fix: call the op's `at::` function instead (`at::foo_outf(self, out)` for
    `foo_out_mps(self, out)`, with `#include <ATen/ops/foo.h>`), or restore the function and its
    yaml line; `mpsgen migrate` does the former itself.
    """
    sources = _facts(inv, inv.mps_files)
    headers = _facts(inv, {inv.checkout.rel(p): p for p in inv.checkout.mps_headers()})
    in_headers = frozenset().union(*(f.defined | f.declared for f in headers.values()))
    defined_in: dict[str, list[str]] = {}
    for rel, f in sources.items():
        for name in f.defined:
            defined_in.setdefault(name, []).append(rel)
    for rel, f in sources.items():
        for call in f.calls:
            name = call.name
            if name in inv.yaml_kernels or name in in_headers:  # (the file's own names: left out of its calls)
                continue
            others = [d for d in defined_in.get(name, ()) if d != rel]
            if not others and (name in inv.macro_arguments or name in inv.native_identifiers):
                continue  # a macro mpsgen does not expand, or native/*.cpp, may define it: never guess
            where = f"{call.function}" if call.function else "code at namespace scope"
            if others:
                message = (f"{where} calls {name}, which {others[0]} defines but nothing this file sees declares "
                           "(no native_functions.yaml line names it, no MPS header declares it): a compile error")
                rests = bases([Basis(others[0], 1)], [inv.yaml_rel])
            else:
                message = (f"{where} calls {name}, which nothing defines any more (no MPS source, no "
                           "native_functions.yaml line): a compile error")
                rests = bases([inv.yaml_rel], inv.mps_files)
            yield dangling_call.finding(
                rel, call.line, message, col=call.col,
                hint=f"call the op's at:: function instead (its _outf form for an out kernel, with "
                     f"#include <ATen/ops/OP.h>), or restore {name} and its `MPS: {name}` yaml line",
                rests_on=rests,
            )
