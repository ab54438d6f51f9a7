"""Why an op returning two tensors is refused, said precisely: how many outputs its shared kernel's
iterator holds (read from the CPU source), and whether the checkout already registers Metal kernels
writing them (2026's frexp_dense_<T> / frexp_strided_<T>), which only a host binding both outputs
would still need.  mpsgen's hosts and registration macros carry one output."""

from __future__ import annotations

import re

from mpsgen.errors import MpsgenError
from mpsgen.model import Location
from mpsgen.plan.texts import folder_files, mentioning, planned_texts
from mpsgen.sources.native import stubs
from mpsgen.sources.native_yaml.facts import Entry
from mpsgen.tree.changeset import Changeset
from mpsgen.tree.checkout import YAML_REL, Checkout

_ADD_OUTPUT = re.compile(r"\.\s*add_output\s*\(")
# upstream's two-output kernels are registered once per layout: <family>_dense_<T>, <family>_strided_<T>
_LAYOUTS = ("dense", "strided")


def refuse_outputs(family: str, entry: Entry, returns: str, shared: tuple[str, ...],
                   cs: Changeset, checkout: Checkout) -> MpsgenError:
    """The one-line refusal for *entry* returning *returns* (a tuple): where its iterator's outputs are
    built, and upstream's kernels of the family's name that already write them, if any."""
    from mpsgen.sources.metal.names import names_in

    what = f"{entry.name} returns {returns}: mpsgen writes kernels with one output"
    native = planned_texts(cs, folder_files(cs, "native_sources"), checkout)
    built = _iterator_outputs(native, shared, family)
    if built:
        what += f" (its iterator has {built[0]} outputs, {built[1]})"
    metal = planned_texts(cs, folder_files(cs, "metal_files"), checkout)
    found: dict[str, set[str]] = {layout: set() for layout in _LAYOUTS}
    first: Location | None = None
    for path, text in mentioning(metal, family).items():
        for name in names_in(text, path):
            for layout in _LAYOUTS:
                prefix = f"{family}_{layout}_"
                if name.name.startswith(prefix) and "_" not in name.name[len(prefix):]:
                    found[layout].add(name.name[len(prefix):])
                    first = first or name.location
    types = found["dense"] & found["strided"]
    if first is not None and types:
        listed = ", ".join(sorted(types))
        return MpsgenError(
            f"{what}; {first} registers upstream's kernels {family}_dense_<T>/{family}_strided_<T> ({listed}) "
            "writing both, but this checkout's MetalShaderLibrary.h has no exec_*_kernel binding two outputs",
            path=YAML_REL, line=entry.line,
            hint=f"write {family}_mps_kernel by hand: bind output(0), output(1) and input(0) as those kernels' "
                 "parameters declare, then REGISTER_DISPATCH its stub")
    return MpsgenError(what, path=YAML_REL, line=entry.line,
                       hint="write the kernel by hand (c10/metal has no multiple-output registration macro)")


def _iterator_outputs(native: dict[str, str], shared: tuple[str, ...], family: str) -> tuple[int, Location] | None:
    """How many `add_output` calls the shared kernel's TensorIteratorConfig makes, and where the first is."""
    from mpsgen.scan.lines import LineTable

    for kernel in shared:
        sources = mentioning(native, kernel) or mentioning(native, family)
        impl = stubs.find_shared_impl(sources, kernel)
        if impl is None or impl.path not in sources:
            continue
        text = sources[impl.path]
        table = LineTable(text)
        ends = [*table.starts, len(text)]
        calls = list(_ADD_OUTPUT.finditer(text, ends[impl.line - 1], ends[min(impl.end_line, len(ends) - 1)]))
        if len(calls) > 1:
            return len(calls), Location(impl.path, table.line(calls[0].start()))
    return None
