"""The facts of the rules on hand-made wiring (lint/rules/registrations.py, includes.py, routes.py):
the registration lines of each .metal, what each Metal file declares and uses of c10/metal, the
host kernels REGISTER_DISPATCH names, and the include graph of the checkout's own headers.

Every per-file fact goes through the fact store like the Inventory's (a file unchanged since the
last run is not read again); the include graph is walked on demand, one header's includes at a time.
"""

from __future__ import annotations

import functools
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Callable, TypeVar
from weakref import WeakKeyDictionary

from mpsgen.lint import file_facts
from mpsgen.scan.includes import candidates

if TYPE_CHECKING:
    from mpsgen.lint.file_facts import HostSignature
    from mpsgen.lint.inventory import Inventory
    from mpsgen.scan.includes import Include
    from mpsgen.sources.metal.registration_sites import RegistrationSite
    from mpsgen.sources.metal.symbols import MetalSymbols
    from mpsgen.sources.native.stubs import StubDecl

T = TypeVar("T")

# Where `#include <X>` is looked for in a checkout (the build's generated headers are not there,
# and none of them includes an ATen/native header or a c10/metal one).
INCLUDE_ROOTS = ("aten/src", "")
_WIRINGS: "WeakKeyDictionary[Inventory, Wiring]" = WeakKeyDictionary()


def wiring(inv: "Inventory") -> "Wiring":
    """The Wiring of *inv* (one per Inventory: the rules share what it has read)."""
    found = _WIRINGS.get(inv)
    if found is None:
        found = _WIRINGS[inv] = Wiring(inv)
    return found


class Wiring:
    """Read on first use, per file, through *inv*'s fact store."""

    def __init__(self, inv: "Inventory") -> None:
        self.inv = inv
        self._exists: dict[str, bool] = {}
        self._declared: dict[str, dict[str, StubDecl]] = {}
        self._words: dict[str, frozenset[str]] = {}

    def _facts(self, kind: str, files: dict[str, Path], compute: Callable[[str, str], T]) -> dict[str, T]:
        read, per_file = self.inv.checkout.read_text, self.inv.facts.per_file
        return {rel: per_file(kind, p, rel, read, functools.partial(compute, rel)) for rel, p in files.items()}

    # -- kernels/*.metal and the Metal headers --------------------------------------------------
    @cached_property
    def registration_sites(self) -> dict[str, tuple["RegistrationSite", ...]]:
        """{.metal: its registration lines} (sources/metal/registration_sites)."""
        return self._facts("registration-sites", self.inv.metal_files, file_facts.registration_sites)

    @cached_property
    def metal_headers(self) -> dict[str, Path]:
        """c10/metal/*.h and kernels/*.h: the headers a .metal file can include from the checkout."""
        c = self.inv.checkout
        return {**c.listed("c10_metal_headers"), **c.listed("kernel_headers")}

    @cached_property
    def metal_symbols(self) -> dict[str, "MetalSymbols"]:
        """{.metal: what it uses of c10/metal} (sources/metal/symbols)."""
        return self._facts("metal-symbols", self.inv.metal_files, file_facts.metal_symbols)

    @cached_property
    def header_macros(self) -> dict[str, frozenset[str]]:
        """{Metal header: the macros it #defines}."""
        return self._facts("metal-macros", self.metal_headers, file_facts.metal_macros)

    def header_words(self, rel: str) -> frozenset[str]:
        """The identifiers Metal header *rel* spells, read when first asked: a header is asked only
        while no header before it answered (2026's attention and sort headers, a third of the bytes,
        never are)."""
        words = self._words.get(rel)
        if words is None:
            words = self._words[rel] = self._facts("metal-words", {rel: self.metal_headers[rel]},
                                                   file_facts.metal_words)[rel]
        return words

    @cached_property
    def declared_types(self) -> frozenset[str]:
        """Type names the .metal files and the Metal headers declare (a dtype argument may name one)."""
        files = {**self.inv.metal_files, **self.metal_headers}
        return frozenset().union(*self._facts("metal-types", files, file_facts.metal_types).values())

    # -- operations/*.mm --------------------------------------------------------------------------
    @cached_property
    def host_signatures(self) -> dict[str, dict[str, tuple["HostSignature", ...]]]:
        """{MPS source: {registered function: its definitions there}}."""
        return self._facts("host-signatures", self.inv.mps_files, file_facts.host_signatures)

    @cached_property
    def host_words(self) -> dict[str, frozenset[str]]:
        """{MPS source: the name-like string literals it spells} (a kernel name built with
        fmt::format("{}_{}", "lgamma", ...) is run by the host too)."""
        return self._facts("quoted-words", self.inv.mps_files, file_facts.quoted_names)

    # -- the include graph --------------------------------------------------------------------------
    def _header(self, rel: str) -> tuple[tuple["Include", ...], dict[str, "StubDecl"]]:
        p = self.inv.checkout.path(rel)
        return self.inv.facts.per_file("c-header", p, rel, self.inv.checkout.read_text,
                                       lambda text: file_facts.c_header(rel, text))

    def includes(self, rel: str) -> tuple["Include", ...]:
        """The #include lines of a checkout file (kept between runs like the other facts)."""
        return self._header(rel)[0]

    def declared_stubs(self, rel: str) -> dict[str, "StubDecl"]:
        """{stub: its DECLARE_DISPATCH} for each stub *rel* registers that *rel* or a header it
        includes (directly or through others) declares; the walk ends once all are found.  A type
        naming another header's alias is resolved through the Inventory's index of ATen/native/*.h."""
        held = self._declared.get(rel)
        if held is not None:
            return held
        wanted = {r.stub for regs in self.inv.registrations.values() for r in regs if r.path == rel}
        found: dict[str, StubDecl] = {}

        def look(h: str) -> bool:
            found.update((s, d) for s, d in self._header(h)[1].items() if s in wanted and s not in found)
            return len(found) == len(wanted)

        if wanted and not look(rel):
            self.walk(rel, until=look)
        for s, d in found.items():
            if not d.resolved:
                found[s] = self.inv.stub_declarations.get(s, d)
        self._declared[rel] = found
        return found

    def resolve(self, including: str, include: "Include") -> str | None:
        """The checkout file an #include of *including* names, or None (a system or generated header)."""
        for rel in candidates(include, including, INCLUDE_ROOTS):
            found = self._exists.get(rel)
            if found is None:
                found = self._exists[rel] = self.inv.checkout.path(rel).is_file()
            if found:
                return rel
        return None

    def walk(self, rel: str, until: Callable[[str], bool] | None = None) -> dict[str, int]:
        """{header: depth} of every checkout header *rel* includes, directly (1) or through others,
        breadth first; it ends early once *until*(header) is true."""
        seen: dict[str, int] = {}
        level, depth = [rel], 0
        while level:
            depth += 1
            following = []
            for f in level:
                for inc in self.includes(f):
                    h = self.resolve(f, inc)
                    if h is None or h in seen or h == rel:
                        continue
                    seen[h] = depth
                    if until is not None and until(h):
                        return seen
                    following.append(h)
            level = following
        return seen
