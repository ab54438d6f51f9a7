"""Everything `mpsgen check` and `mpsgen status` know about a tree, read once and indexed once.

The readers (nativefunctions, host, stubs, metal, testlists) answer questions about one op; here
their answers are computed for the whole tree in one pass per file, lazily (a property is only
computed when a rule or the dashboard asks for it), so both commands stay well under 0.3 s on
the real 600 KB native_functions.yaml.  No file is read twice, and the 1.4 MB OpInfo file is only
read when the stale-xfail rule runs.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

from mpsgen.lint.source_words import WordsIn, definition_sites
from mpsgen.sources import host
from mpsgen.sources.host import Definition
from mpsgen.sources.index import index_of
from mpsgen.tree.checkout import Checkout
from mpsgen.sources.native_yaml.facts import Entry, EntryHead, family_key
from mpsgen.sources.native_yaml.index import NativeIndex, index_text
from mpsgen.sources.stubs import SharedImpl, find_shared_impl

# Dashboard states of one op family (stable strings: they appear in --format json).
NATIVE = "native Metal"
MPSGRAPH = "MPSGraph"
METAL_LEGACY = "Metal via _mps name"
SPLIT = "split"
NO_MPS = "no MPS kernel"
UNKNOWN = "unknown"
STATES = (NATIVE, MPSGRAPH, METAL_LEGACY, SPLIT, NO_MPS, UNKNOWN)

_DISPATCH_PREFIX = re.compile(r"[ \t]+(?:[A-Za-z]\w*[ \t]*,[ \t]*)*[A-Za-z]*")  # indent and the keys before the match
_BACKENDS = frozenset({"CPU", "CUDA", "MPS"})
_IDENT = re.compile(r"[A-Za-z_]\w*")
_METALLIB = re.compile(r"#\s*include\s*[<\"]ATen/native/mps/(\w+)_metallib\.h[>\"]")


@dataclass(frozen=True)
class StubUse:
    """What the shared kernel of an MPS entry calls, and how that stub is registered for MPS."""

    kernel: str
    impl: SharedImpl | None  # None: no definition found in native/*.cpp
    stub: str | None  # None: unknown (no impl, no stub, or several stubs)
    registrations: tuple[host.Registration, ...]


@dataclass(frozen=True)
class FamilyState:
    name: str
    state: str
    entries: tuple[str, ...]  # names of the entries with an MPS, CPU or CUDA dispatch line
    why: str


def _bare(kernel: str) -> str:
    return kernel.rsplit("::", 1)[-1]


def index_definitions(path: str, text: str) -> list[Definition]:
    """Every function and CREATE_MPS_* generated kernel in one .mm/.cpp text, with its backend."""
    return list(host.definitions(path, text))


class Inventory:
    """The facts of one checkout shared by `check` and `status` (computed on first use)."""

    def __init__(self, checkout: Checkout) -> None:
        self.checkout = checkout

    # -- texts ------------------------------------------------------------------------------
    def _texts(self, paths: list[Path]) -> dict[str, str]:
        return {self.checkout.rel(p): self.checkout.read_text(p) for p in paths}

    @cached_property
    def yaml_rel(self) -> str:
        return self.checkout.rel(self.checkout.yaml_path)

    @cached_property
    def index(self) -> NativeIndex:
        return index_text(self.checkout.read_text(self.checkout.yaml_path), self.yaml_rel)

    @cached_property
    def mm_texts(self) -> dict[str, str]:
        return self._texts(self.checkout.mm_files())

    @cached_property
    def metal_texts(self) -> dict[str, str]:
        return self._texts(self.checkout.metal_files())

    @cached_property
    def native_sources(self) -> dict[str, str]:
        """native/*.cpp: the shared CPU/CUDA kernels and the stubs they call."""
        return self._texts(self.checkout.native_sources())

    @cached_property
    def other_mps_sources(self) -> dict[str, str]:
        """native/mps/*.mm, *.cpp and operations/*.cpp: MPS code outside operations/*.mm."""
        mps = self.checkout.path("aten/src/ATen/native/mps")
        paths = [*mps.glob("*.mm"), *mps.glob("*.cpp"), *self.checkout.operations_dir.glob("*.cpp")]
        return self._texts(sorted(paths))

    # -- yaml -------------------------------------------------------------------------------
    @cached_property
    def _dispatch_hits(self) -> list[tuple[int, tuple[str, ...], str]]:
        """(head index, keys, kernel) of every dispatch line naming CPU, CUDA or an *MPS key.

        Found with literal-prefix regexes over the whole text (a few ms) instead of parsing all
        2,584 entries of the real yaml; only entries with an MPS line are parsed afterwards.
        """
        text = self.index.text
        starts = [h.start for h in self.index.heads]
        seen: set[int] = set()
        hits = []
        for word in ("MPS", "CPU", "CUDA"):
            for m in re.finditer(word + r"[\w, \t]*:[ \t]+([A-Za-z_][\w:]*)", text):
                line_start = text.rfind("\n", 0, m.start()) + 1
                if line_start in seen or not _DISPATCH_PREFIX.fullmatch(text, line_start, m.start()):
                    continue
                seen.add(line_start)
                keys = tuple(k.strip() for k in text[line_start : m.start(1)].rstrip(" \t:").split(","))
                hits.append((bisect_right(starts, line_start) - 1, keys, m.group(1)))
        return hits

    @cached_property
    def family_heads(self) -> dict[str, tuple[EntryHead, ...]]:
        """Entries grouped by family, keeping only those with a CPU, CUDA or MPS dispatch line."""
        heads = self.index.heads
        wanted = sorted({i for i, keys, _ in self._dispatch_hits if i >= 0 and set(keys) & _BACKENDS})
        groups: dict[str, list[EntryHead]] = {}
        for i in wanted:
            groups.setdefault(family_key(heads[i].name.partition(".")[0]), []).append(heads[i])
        return {k: tuple(v) for k, v in groups.items()}

    @cached_property
    def _mps_heads(self) -> frozenset[int]:
        return frozenset(i for i, keys, _ in self._dispatch_hits if i >= 0 and "MPS" in keys)

    @cached_property
    def composite_only(self) -> int:
        """Families with no CPU, CUDA or MPS line at all (composite: they run on MPS by decomposition)."""
        names = {family_key(h.name.partition(".")[0]) for h in self.index.heads}
        return len(names - self.family_heads.keys())

    @cached_property
    def mps_entries(self) -> tuple[Entry, ...]:
        """Every entry with a dispatch line keyed MPS (SparseMPS is another key), parsed."""
        heads = self.index.heads
        return tuple(self.index.parse(heads[i]) for i in sorted(self._mps_heads))

    @cached_property
    def _mps_by_family(self) -> dict[str, tuple[Entry, ...]]:
        groups: dict[str, list[Entry]] = {}
        for e in self.mps_entries:
            groups.setdefault(family_key(e.base), []).append(e)
        return {k: tuple(v) for k, v in groups.items()}

    @cached_property
    def yaml_kernels(self) -> frozenset[str]:
        """Every kernel named by an MPS-ish dispatch line (MPS, SparseMPS, ...) or a CPU/CUDA one."""
        return frozenset(_bare(k) for _, _, k in self._dispatch_hits)

    # -- MPS host code ------------------------------------------------------------------------
    @cached_property
    def definitions(self) -> dict[str, list[Definition]]:
        """{function name: definitions} over operations/*.mm and the other MPS sources."""
        result: dict[str, list[Definition]] = {}
        for texts in (self.mm_texts, self.other_mps_sources):
            for path, text in texts.items():
                for d in index_definitions(path, text):
                    result.setdefault(d.name, []).append(d)
        return result

    @cached_property
    def macro_arguments(self) -> frozenset[str]:
        """Identifiers passed to any UPPER_CASE macro in the MPS sources (kernels made by macros we do not know)."""
        names: set[str] = set()
        for texts in (self.mm_texts, self.other_mps_sources):
            for path, text in texts.items():
                names.update(_MACRO_FIRST_ARG.findall(index_of(path, text).masked))
        return frozenset(names)

    @cached_property
    def native_identifiers(self) -> WordsIn:
        """Identifiers in native/*.cpp (a kernel named there may be defined there); answered per
        name, reading only the files whose text contains it."""
        return WordsIn(self.native_sources)

    @cached_property
    def mm_identifier_counts(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for texts in (self.mm_texts, self.other_mps_sources):
            for path, text in texts.items():
                for name, n in index_of(path, text).identifier_counts.items():
                    counts[name] = counts.get(name, 0) + n
        return counts

    @cached_property
    def registrations(self) -> dict[str, list[host.Registration]]:
        """{stub: MPS registrations}.  In a .cpp only REGISTER_MPS_DISPATCH registers for MPS."""
        result = host.registered_stubs(self.mm_texts)
        for path, text in self.other_mps_sources.items():
            for reg in host.registrations(text, path):
                if path.endswith(".mm") or reg.macro == "REGISTER_MPS_DISPATCH":
                    result.setdefault(reg.stub, []).append(reg)
        return result

    @cached_property
    def metal_indexes(self) -> list:
        from mpsgen.sources import metal

        return [metal.index_metal(t, p) for p, t in self.metal_texts.items()]

    @cached_property
    def metal_kernels(self) -> dict[str, list[tuple[str, int, str]]]:
        """Kernel name -> [(metal path, line, macro)] (names are global across the metallib)."""
        from mpsgen.sources import metal

        return metal.registered_kernel_names(self.metal_indexes)

    @cached_property
    def metal_names(self):  # -> metal_names.MetalNames
        """Kernel names the .metal files register, in every layout (template host_name kernels too)."""
        from mpsgen.sources.metal_names import index_names

        return index_names(self.metal_texts)

    @cached_property
    def host_calls(self) -> dict[str, list[host.KernelCall]]:
        """Kernel names each operations/*.mm passes to the bundled library (files with inline shaders skipped)."""
        return {p: host.host_kernel_calls(t, p) for p, t in self.mm_texts.items() if uses_bundled_library(t)}

    def metal_stems(self, mm_path: str) -> tuple[str, ...]:
        """The .metal stems a JIT-shader build of *mm_path* sees: its `<X>_metallib.h` includes, else its own stem."""
        found = tuple(dict.fromkeys(_METALLIB.findall(self.mm_texts.get(mm_path, ""))))
        return found or (Path(mm_path).stem,)

    # -- shared kernels and stubs -----------------------------------------------------------
    @cached_property
    def _definition_sites(self) -> dict[str, list[str]]:
        return definition_sites(self.native_sources)

    @cached_property
    def _stub_uses(self) -> dict[str, StubUse]:
        return {}

    def stub_use(self, kernel: str) -> StubUse:
        """The stub shared kernel *kernel* calls (searched only in the .cpp files that could define it).

        First in the files where a TORCH_IMPL_FUNC or a generating macro names the kernel or a
        prefix of it (eq_Tensor_out from CREATE_...(eq)); a miss or a plain function widens the
        search to every file whose text contains the kernel's name."""
        kernel = _bare(kernel)
        cached = self._stub_uses.get(kernel)
        if cached is not None:
            return cached
        words = {kernel} | {kernel[:k] for k in range(1, len(kernel)) if kernel[k] == "_"}
        named = {p for w in words for p in self._definition_sites.get(w, ())}
        sources = {p: t for p, t in self.native_sources.items() if p in named}
        impl = find_shared_impl(sources, kernel) if sources else None
        if impl is None or impl.form == "function":
            wider = {p: t for p, t in self.native_sources.items() if p in named or kernel in t}
            if wider.keys() - sources.keys():
                impl = find_shared_impl(wider, kernel)
        names = impl.stub_names if impl else ()
        stub = names[0] if len(names) == 1 else None
        if stub is None and len(names) > 1:
            registered = [n for n in names if n in self.registrations]
            stub = registered[0] if registered else None
        regs = tuple(self.registrations.get(stub, ())) if stub else ()
        use = self._stub_uses[kernel] = StubUse(kernel, impl, stub, regs)
        return use

    def registration_backend(self, reg: host.Registration) -> str:
        """"mpsgraph" for REGISTER_MPS_UNARY_STUB or a registered function whose body runs MPSGraph."""
        if reg.macro == "REGISTER_MPS_UNARY_STUB":
            return "mpsgraph"
        if reg.macro == "REGISTER_UNARY_TI_DISPATCH":
            return "metal"
        defs = [d for d in self.definitions.get(reg.fn, ()) if d.impl.path == reg.path] or self.definitions.get(reg.fn, [])
        return defs[0].impl.backend if defs else "unknown"

    def legacy_definitions(self, kernel: str) -> list[Definition]:
        """Definitions of an MPS-only yaml kernel in the MPS sources."""
        return [d for d in self.definitions.get(_bare(kernel), ()) if d.impl.form != "function" or not d.static]

    # -- family states ------------------------------------------------------------------------
    def family_state(self, name: str) -> FamilyState:
        entries = tuple(h.name for h in self.family_heads[name])
        mps = self._mps_by_family.get(name, ())
        if not mps:
            return FamilyState(name, NO_MPS, entries, "no dispatch line has the MPS key")
        legacy = [e for e in mps if e.mps_route == "legacy"]
        shared = [e for e in mps if e.mps_route == "shared"]
        if legacy and shared:
            return FamilyState(name, SPLIT, entries,
                               f"{len(shared)} entr{'y' if len(shared) == 1 else 'ies'} shared, {len(legacy)} on MPS-only kernels")
        if legacy:
            backends = set()
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
        kinds = set()
        for e in shared:
            use = self.stub_use(e.mps_kernel or "")
            kinds.update(self.registration_backend(r) for r in use.registrations)
        if "mpsgraph" in kinds:
            return FamilyState(name, MPSGRAPH, entries, "shared kernel, but its stub is registered by MPSGraph code")
        return FamilyState(name, NATIVE, entries, "every MPS entry shares the CPU/CUDA kernel")

    def family_states(self) -> list[FamilyState]:
        return [self.family_state(name) for name in sorted(self.family_heads)]

    # -- test lists (read only for the stale-xfail rule) --------------------------------------
    @cached_property
    def test_tables(self) -> tuple[str, list] | None:
        """(common_mps.py path, its table entries); None when the file is absent."""
        from mpsgen.sources.testlists import entries

        c = self.checkout
        if not c.common_mps_path.is_file():
            return None
        rel = c.rel(c.common_mps_path)
        return rel, entries(c.read_text(c.common_mps_path), path=rel)

    @cached_property
    def opinfo_strings(self) -> frozenset[str] | None:
        """Every quoted name-like string of the OpInfo files (None when common_methods_invocations.py is absent).

        OpInfo names and variant_test_names are among them.  A text scan of the 1.4 MB file takes
        ~20 ms where parsing each OpInfo call takes over a second (testlists.stale_keys).
        """
        c = self.checkout
        if not c.cmi_path.is_file():
            return None
        names: set[str] = set()
        for path in (c.cmi_path, *c.opinfo_definition_files()):
            names.update(_QUOTED.findall(c.read_text(path)))
        return frozenset(names)


_QUOTED = re.compile(r"""['"]([\w.]+)['"]""")
_MACRO_FIRST_ARG = re.compile(r"\b[A-Z][A-Z0-9_]+\(\s*([A-Za-z_]\w*)")


def could_be_opinfo_key(key: str, strings: frozenset[str]) -> bool:
    """True when *key* is a quoted name, or a quoted name followed by a quoted variant_test_name."""
    if key in strings:
        return True
    return any(key[:k] in strings and key[k:] in strings for k in range(1, len(key)))


def uses_bundled_library(text: str) -> bool:
    """True when the .mm runs kernels of the prebuilt metallib (not an inline shader string)."""
    return "getBundledLibrary" in text or _METALLIB.search(text) is not None
