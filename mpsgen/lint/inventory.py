"""Everything `mpsgen check` and `mpsgen status` know about a tree, read once and indexed once.

The readers (nativefunctions, host, stubs, metal, testlists) answer questions about one op; here
their answers are computed for the whole tree in one pass per file, lazily (a property is only
computed when a rule or the dashboard asks for it).  Each per-file fact goes through the fact
store (tree/factcache.py), so a file unchanged since the last run is not read again; the answers
that span native/*.cpp are kept by lint/shared_kernels.py.
"""

from __future__ import annotations

import functools
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterable, TypeVar

from mpsgen.lint import file_facts
from mpsgen.lint.finding import Bases, bases
from mpsgen.lint.macro_arguments import MacroArguments
from mpsgen.lint.shared_kernels import SharedKernels
from mpsgen.lint.yaml_facts import YamlFacts, yaml_facts
from mpsgen.records import NamedTuple
from mpsgen.sources.host import mm as host
from mpsgen.sources.host.mm import Definition
from mpsgen.sources.host.register import registers_for_mps
from mpsgen.tree.checkout import Checkout
from mpsgen.sources.native_yaml.facts import Entry, EntryHead, family_key
from mpsgen.sources.native.shared_impl import SharedImpl
from mpsgen.tree.factcache import FactCache

if TYPE_CHECKING:
    from mpsgen.sources.metal.names import MetalName, MetalNames
    from mpsgen.sources.native_yaml.index import NativeIndex
    from mpsgen.sources.native.stub_lookup import StubLookup
    from mpsgen.sources.native.stubs import StubDecl

# Dashboard states of one op family (stable strings: they appear in --format json).
NATIVE = "native Metal"
UNREGISTERED = "stub unregistered"  # shares the CPU/CUDA kernel, whose stub no .mm registers (MPS005)
MPSGRAPH = "MPSGraph"
METAL_LEGACY = "Metal via _mps name"
SPLIT = "split"
NO_MPS = "no MPS kernel"
UNKNOWN = "unknown"
STATES = (NATIVE, UNREGISTERED, MPSGRAPH, METAL_LEGACY, SPLIT, NO_MPS, UNKNOWN)

T = TypeVar("T")


class StubUse(NamedTuple):
    """What the shared kernel of an MPS entry calls, and how that stub is registered for MPS."""

    kernel: str
    impl: SharedImpl | None  # None: no definition found in native/*.cpp
    stub: str | None  # None: unknown (no impl, no stub, or several stubs)
    registrations: tuple[host.Registration, ...]
    missing: tuple[str, ...] = ()  # the stubs impl calls that no operations/*.mm registers (MPS005)


class FamilyState(NamedTuple):
    name: str
    state: str
    entries: tuple[str, ...]  # names of the entries with an MPS, CPU or CUDA dispatch line
    why: str


def _bare(kernel: str) -> str:
    return kernel.rsplit("::", 1)[-1]


class Inventory:
    """The facts of one checkout shared by `check` and `status` (computed on first use).  Per-file
    facts go through *facts* (kept between runs while the file is unchanged); call `save_facts()`."""

    def __init__(self, checkout: Checkout, facts: FactCache | None = None) -> None:
        self.checkout = checkout
        self.facts = facts or FactCache.disabled()
        self._stub_uses: dict[str, StubUse] = {}  # stub_use's answers

    def save_facts(self) -> None:
        if "shared_kernels" in self.__dict__:
            self.shared_kernels.save()
        self.facts.save()

    # -- files ------------------------------------------------------------------------------
    def _per_file(self, kind: str, files: dict[str, Path], compute: Callable[[str, str], T]) -> dict[str, T]:
        """{rel: compute(rel, text)} over *files*, each value re-used from the fact store when its file is unchanged."""
        read, per_file = self.checkout.read_text, self.facts.per_file
        return {rel: per_file(kind, p, rel, read, functools.partial(compute, rel)) for rel, p in files.items()}

    @cached_property
    def yaml_rel(self) -> str:
        return self.checkout.rel(self.checkout.yaml_path)

    @cached_property
    def index(self) -> "NativeIndex":
        from mpsgen.sources.native_yaml.index import index_text  # only `status --op` and a changed yaml need it

        return index_text(self.checkout.read_text(self.checkout.yaml_path), self.yaml_rel)

    @cached_property
    def mm_files(self) -> dict[str, Path]:
        return self.checkout.listed("mm_files")

    @cached_property
    def other_mps_files(self) -> dict[str, Path]:
        """native/mps/*.mm, *.cpp and operations/*.cpp: MPS code outside operations/*.mm."""
        return self.checkout.listed("other_mps_sources")

    @cached_property
    def mps_files(self) -> dict[str, Path]:
        """operations/*.mm, then the other MPS sources."""
        return {**self.mm_files, **self.other_mps_files}

    @cached_property
    def mps_file_bases(self) -> Bases:
        """mps_files as findings' bases, made once (an MPS003 or MPS005 finding rests on each MPS source)."""
        return bases(self.mps_files)

    @cached_property
    def metal_files(self) -> dict[str, Path]:
        return self.checkout.listed("metal_files")

    @cached_property
    def native_files(self) -> dict[str, Path]:
        """native/*.cpp: the shared CPU/CUDA kernels and the stubs they call."""
        return self.checkout.listed("native_sources")

    # -- yaml -------------------------------------------------------------------------------
    @cached_property
    def yaml(self) -> YamlFacts:
        def compute(rel: str, text: str) -> YamlFacts:
            from mpsgen.lint.yaml_check import check_yaml_syntax
            from mpsgen.sources.native_yaml.index import index_text

            check_yaml_syntax(text, rel)  # a yaml that does not parse is an input error (exit 2), not "no findings"
            self.__dict__["index"] = index = index_text(text, rel)
            return yaml_facts(index)

        c = self.checkout
        return self._per_file("yaml", {self.yaml_rel: c.yaml_path}, compute)[self.yaml_rel]

    @property
    def family_heads(self) -> dict[str, tuple[EntryHead, ...]]:
        """Entries grouped by family, keeping only those with a CPU, CUDA or MPS dispatch line."""
        return self.yaml.family_heads

    @property
    def composite_only(self) -> int:
        """Families with no CPU, CUDA or MPS line at all (composite: they run on MPS by decomposition)."""
        return self.yaml.composite_only

    @property
    def mps_entries(self) -> tuple[Entry, ...]:
        """Every entry with a dispatch line keyed MPS (SparseMPS is another key), parsed."""
        return self.yaml.mps_entries

    @property
    def yaml_kernels(self) -> frozenset[str]:
        """Every kernel named by an MPS-ish dispatch line (MPS, SparseMPS, ...) or a CPU/CUDA one."""
        return self.yaml.yaml_kernels

    @cached_property
    def _mps_by_family(self) -> dict[str, tuple[Entry, ...]]:
        groups: dict[str, list[Entry]] = {}
        for e in self.mps_entries:
            groups.setdefault(family_key(e.base), []).append(e)
        return {k: tuple(v) for k, v in groups.items()}

    def mps_family(self, name: str) -> tuple[Entry, ...]:
        """The entries of family *name* with an MPS dispatch line, in yaml order."""
        return self._mps_by_family.get(name, ())

    # -- MPS host code ------------------------------------------------------------------------
    @cached_property
    def definitions(self) -> dict[str, list[Definition]]:
        """{function name: definitions} over operations/*.mm and the other MPS sources."""
        result: dict[str, list[Definition]] = {}
        for defs in self._per_file("definitions", self.mps_files, file_facts.definitions).values():
            for d in defs:
                result.setdefault(d.name, []).append(d)
        return result

    @cached_property
    def macro_arguments(self) -> MacroArguments:
        """`name in inv.macro_arguments`: an UPPER_CASE macro of the MPS sources is passed *name* (lint/macro_arguments.py)."""
        return MacroArguments(self.mps_files, lambda: self.mps_identifiers_per_file, lambda: self.mm_mps_identifier_counts,
                              lambda files: self._per_file("macro-arguments", files, file_facts.macro_arguments))

    @property
    def native_identifiers(self) -> SharedKernels:
        """`name in inv.native_identifiers`: *name* is an identifier of a native/*.cpp (kept between runs)."""
        return self.shared_kernels

    @cached_property
    def mm_mps_identifier_counts(self) -> dict[str, int]:  # mps_identifiers_per_file summed
        return _summed(self.mps_identifiers_per_file.values())

    @cached_property
    def mps_identifiers_per_file(self) -> dict[str, dict[str, int]]:
        """{MPS source: how often each identifier spelling `mps` occurs in it (code only)}."""
        return self._per_file("mps-identifier-counts", self.mps_files, file_facts.mps_identifier_counts)

    @cached_property
    def registrations(self) -> dict[str, list[host.Registration]]:
        """{stub: MPS registrations} (host_register.registers_for_mps)."""
        result: dict[str, list[host.Registration]] = {}
        for regs in self._per_file("registrations", self.mps_files, file_facts.registrations).values():
            for reg in regs:
                if registers_for_mps(reg):
                    result.setdefault(reg.stub, []).append(reg)
        return result

    @cached_property
    def metal_indexes(self) -> list:
        return list(self._per_file("metal-index", self.metal_files, file_facts.metal_index).values())

    @cached_property
    def metal_names(self) -> MetalNames:
        """Kernel names the .metal files register, in every layout (template host_name kernels too)."""
        from mpsgen.sources.metal.names import MetalNames

        return MetalNames(n for names, _ in self._metal_facts.values() for n in names)

    @cached_property
    def _metal_facts(self) -> dict[str, tuple[list["MetalName"], dict[str, frozenset[str]]]]:
        return self._per_file("metal-names", self.metal_files, file_facts.metal_names)

    @cached_property
    def registered_dtypes(self) -> dict[str, frozenset[str]]:
        """{kernel name: the input dtypes the .metal files' REGISTER_* lines register for it}."""
        result: dict[str, frozenset[str]] = {}
        for _, per_name in self._metal_facts.values():
            for name, dtypes in per_name.items():
                result[name] = result.get(name, frozenset()) | dtypes
        return result

    @cached_property
    def functor_uses(self) -> dict[str, int]:
        """How often each `<name>_functor` is spelled in the .metal files (comments included)."""
        return _summed(self._per_file("functor-uses", self.metal_files, file_facts.functor_uses).values())

    @cached_property
    def _host_facts(self) -> dict[str, tuple[tuple[host.KernelCall, ...] | None, tuple[str, ...]]]:
        """{.mm: (kernel calls into the bundled library or None for inline shaders, its metallib includes)}."""
        return self._per_file("host-calls", self.mm_files, file_facts.host_calls)

    @property
    def host_calls(self) -> dict[str, tuple[host.KernelCall, ...]]:
        """Kernel names each operations/*.mm passes to the bundled library (files with inline shaders skipped)."""
        return {p: calls for p, (calls, _) in self._host_facts.items() if calls is not None}

    def metal_stems(self, mm_path: str) -> tuple[str, ...]:
        """The .metal stems a JIT-shader build of *mm_path* sees: its `<X>_metallib.h` includes, else its own stem."""
        found = self._host_facts[mm_path][1] if mm_path in self._host_facts else ()
        return found or (Path(mm_path).stem,)

    # -- shared kernels and stubs -----------------------------------------------------------
    @cached_property
    def stub_declarations(self) -> "StubLookup":
        """`.get(stub)`: its DECLARE_DISPATCH over native/*.h, read on first ask from the headers spelling the
        stub (a check asks about ~60 of ~370); the answers kept while every header keeps its stamp."""
        from mpsgen.sources.native.stub_lookup import StubLookup

        headers, facts, kind = self.checkout.listed("native_headers"), self.facts, "stub-declarations"
        answers: dict[str, StubDecl | None] = facts.over_files(kind, headers, lambda _: "", lambda _: {})  # none read yet
        return StubLookup(list(headers), lambda rel: self.checkout.read_text(headers[rel]), answers,
                          on_answer=lambda: facts.put_named(kind, facts.named(kind)))  # the answers grew: store them

    @cached_property
    def shared_kernels(self) -> SharedKernels:
        return SharedKernels(self.native_files, self.checkout.read_text, self.facts, self.checkout.utf8)

    def start_native_search(self) -> None:
        """On a first run, fork the child that reads and indexes native/*.cpp while this one parses the yaml."""
        self.shared_kernels.start_search()

    def prefetch_stub_uses(self) -> None:
        """Start the child's search for the kernels stub_use() is asked about (each MPS entry's CPU/CUDA
        kernel, and the shared kernel of a shared MPS line) while the caller reads the MPS sources."""
        kernels = [_bare(k) for e in self.mps_entries
                   for k in (e.shared_kernel().kernel, e.mps_kernel if e.mps_route == "shared" else None) if k]
        self.shared_kernels.prefetch(kernels)

    def read_while_searching(self, facts: tuple[str, ...]) -> None:
        """The named facts, read while the child searches native/*.cpp, and the fact store written."""
        for fact in facts:
            getattr(self, fact)
        self.facts.save()

    def stub_use(self, kernel: str) -> StubUse:
        """The stub shared kernel *kernel* calls, and its MPS registrations."""
        kernel = _bare(kernel)
        cached = self._stub_uses.get(kernel)
        if cached is not None:
            return cached
        impl = self.shared_kernels.impl(kernel)
        names = impl.stub_names if impl else ()
        stub = names[0] if len(names) == 1 else None
        if stub is None and len(names) > 1:
            registered = [n for n in names if n in self.registrations]
            stub = registered[0] if registered else None
        regs = tuple(self.registrations.get(stub, ())) if stub else ()
        missing = tuple(n for n in names if n not in self.registrations)
        use = self._stub_uses[kernel] = StubUse(kernel, impl, stub, regs, missing)
        return use

    def registration_backend(self, reg: host.Registration) -> str:
        """"mpsgraph" for REGISTER_MPS_UNARY_STUB or a registered function whose body runs MPSGraph."""
        return host.registration_backend(reg, self.definitions.get(reg.fn, ()))

    def legacy_definitions(self, kernel: str) -> list[Definition]:
        """Definitions of an MPS-only yaml kernel in the MPS sources."""
        return [d for d in self.definitions.get(_bare(kernel), ()) if d.impl.form != "function" or not d.static]

    # -- family states ------------------------------------------------------------------------
    def family_state(self, name: str) -> FamilyState:
        entries = tuple(h.name for h in self.family_heads[name])
        mps = self.mps_family(name)
        if not mps:
            return FamilyState(name, NO_MPS, entries, "no dispatch line has the MPS key")
        legacy = [e for e in mps if e.mps_route == "legacy"]
        shared = [e for e in mps if e.mps_route == "shared"]
        if legacy and shared:
            return FamilyState(name, SPLIT, entries,
                               f"{len(shared)} entr{'y' if len(shared) == 1 else 'ies'} shared, {len(legacy)} on MPS-only kernels")
        if legacy:
            backends: set[str] = set()  # a Backend, or "missing"
            for e in legacy:
                defs = self.legacy_definitions(e.mps_kernel or "")
                backends.update([d.impl.backend for d in defs] or ["missing"])
            if backends == {"metal"}:
                return FamilyState(name, METAL_LEGACY, entries, "MPS-only kernels whose bodies already run Metal")
            if "mpsgraph" in backends:
                return FamilyState(name, MPSGRAPH, entries, "MPS-only kernels running MPSGraph")
            if "missing" in backends:
                return FamilyState(name, UNKNOWN, entries, "MPS-only kernel not found in operations/*.mm")
            return FamilyState(name, UNKNOWN, entries, "cannot tell whether the MPS-only kernels run MPSGraph or Metal")
        unregistered = [use for use in map(self.stub_use, (e.mps_kernel or "" for e in shared)) if use.missing]
        if unregistered:  # a half-done move: the yaml line switched before the Metal kernel landed
            use = unregistered[0]
            return FamilyState(name, UNREGISTERED, entries, f"shares {use.kernel} with MPS, but no operations/*.mm "
                                                            f"registers {' and '.join(use.missing)} (MPS005)")
        kinds: set[str] = set()
        graph_too: list[host.Registration] = []
        for e in shared:
            use = self.stub_use(e.mps_kernel or "")
            runs = [(r, self.registration_backend(r)) for r in use.registrations]
            if len({kind == "mpsgraph" for _, kind in runs}) == 2:
                # Registered by Metal and by MPSGraph code: the duplicate is `check`'s (MPS006); the op has moved.
                graph_too += [r for r, kind in runs if kind == "mpsgraph"]
            else:
                kinds.update(kind for _, kind in runs)
        if "mpsgraph" in kinds:
            return FamilyState(name, MPSGRAPH, entries, "shared kernel, but its stub is registered by MPSGraph code")
        if graph_too:
            return FamilyState(name, NATIVE, entries, "every MPS entry shares the CPU/CUDA kernel; its stub is also "
                                                      f"registered by MPSGraph code at {graph_too[0].path}:"
                                                      f"{graph_too[0].line}, a duplicate")
        return FamilyState(name, NATIVE, entries, "every MPS entry shares the CPU/CUDA kernel")

    def family_states(self) -> list[FamilyState]:
        return [self.family_state(name) for name in sorted(self.family_heads)]

    # -- test lists (read only for the stale-xfail rule) --------------------------------------
    @cached_property
    def test_tables(self) -> tuple[str, tuple[file_facts.TableKey, ...]] | None:
        """(the test lists' path: common_mps.py, or 2.7's test_mps.py; the keys of its tables); None when absent."""
        from mpsgen.tree.capabilities import of_checkout

        rel = of_checkout(self.checkout).test_lists_rel
        if rel is None:
            return None
        return rel, self._per_file("test-tables", {rel: self.checkout.path(rel)}, file_facts.table_keys)[rel]

    @cached_property
    def opinfo_strings(self) -> frozenset[str] | None:
        """Every quoted name-like string of the OpInfo files (None when common_methods_invocations.py is absent).

        OpInfo names and variant_test_names are among them.  A text scan of the 1.4 MB file takes
        ~20 ms where parsing each OpInfo call takes over a second (testlists.stale_keys).
        """
        if not self.checkout.cmi_path.is_file():
            return None
        return frozenset().union(*self._per_file("quoted-strings", self.opinfo_files, file_facts.quoted_names).values())

    @cached_property
    def opinfo_files(self) -> dict[str, Path]:
        """common_methods_invocations.py and opinfo/definitions/*.py (where OpInfos are declared)."""
        c = self.checkout
        return {c.rel(c.cmi_path): c.cmi_path, **c.listed("opinfo_definition_files")} if c.cmi_path.is_file() else {}


def _summed(counts: Iterable[dict[str, int]]) -> dict[str, int]:  # per-file counts added up
    total: dict[str, int] = {}
    for file_counts in counts:
        for name, n in file_counts.items():
            total[name] = total.get(name, 0) + n
    return total
