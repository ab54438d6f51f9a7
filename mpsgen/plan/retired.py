"""The bespoke Metal kernels a family's legacy host code alone runs, retired with it.

2.7 runs lgamma, digamma and polygamma through Gamma.mm's own code and kernels/Gamma.metal's template
kernels (`getCPLState(self, output, "lgamma")`), renorm through RenormKernel.mm and RenormKernel.metal.
The legacy phase deletes that host code; a kernel whose name no host file spells any more is then dead,
and its host names (`lgamma_float_float`) are those the shared kernel of the same name gets: it goes
in the same change (sources/metal/retire.py).  One still spelled by a host file the change keeps
(polygamma_out_mps runs Gamma.metal's digamma for n == 0) stays, and `kept` says who runs it, so the
new kernel takes a name of its own rather than a duplicate host name.
"""

from __future__ import annotations

from mpsgen.model import Location
from mpsgen.plan.legacy import callers_first, remove_legacy
from mpsgen.plan.texts import TextEdit, folder_files, planned_texts
from mpsgen.records import NamedTuple
from mpsgen.sources.host.callers import identifier_literals
from mpsgen.sources.metal.index import index_metal, registered_kernel_names
from mpsgen.sources.native_yaml import names as nf
from mpsgen.tree.changeset import Changeset
from mpsgen.tree.checkout import YAML_REL, Checkout


class Retired(NamedTuple):
    """The .metal texts without the retired kernels, what went, and the bespoke kernels that stay."""

    edits: tuple[TextEdit, ...] = ()
    removed: tuple[str, ...] = ()
    kept: tuple[tuple[str, str], ...] = ()  # (kernel name, "path:line" of a kept host file spelling it)

    def kept_at(self, name: str) -> str:
        return next((where for kernel, where in self.kept if kernel == name), "")


def _runs(literal: str, kernel: str) -> bool:
    """Whether a host's literal is *kernel*'s name: "lgamma", or the prefix "renorm_" it appends a type to."""
    return literal in (kernel, kernel + "_")


def _spells(literal: str, kernel: str, known: set[str]) -> bool:
    """Whether a literal could name *kernel*, a host name built from it included ("digamma_float_float"),
    but not another kernel of the metallib (the "digamma_ti" a first migration gave digamma)."""
    return literal == kernel or (literal.startswith(kernel + "_") and literal not in known)


def retire_bespoke_kernels(cs: Changeset, checkout: Checkout, legacy_kernels: tuple[str, ...],
                           family: str) -> Retired:
    """What retiring the bespoke kernels only *legacy_kernels* (those no yaml entry still calls) run
    changes, planned on a copy of the changeset's texts with the legacy code removed as the legacy
    phase will remove it; *cs* itself is not touched."""
    yaml_now = cs.current(YAML_REL)
    going = [k for k in legacy_kernels if not (k in yaml_now and nf.entry_calling(yaml_now, k))]
    if not going:
        return Retired()
    metal = planned_texts(cs, folder_files(cs, "metal_files"), checkout)
    indexes = [index_metal(text, path) for path, text in metal.items()]
    bespoke = {name: ix.path for ix in indexes for name, _ in ix.host_name_kernels}
    known = set(registered_kernel_names(indexes))
    if not bespoke:
        return Retired()
    before = planned_texts(cs, folder_files(cs, "mm_files"), checkout)
    scratch = cs.scratch()
    for legacy in callers_first(scratch, checkout, going):
        for path, text in remove_legacy(scratch, checkout, legacy, family).texts.items():
            scratch.set_text(path, text)
    after = planned_texts(scratch, folder_files(scratch, "mm_files"), checkout)
    ran = {lit for path, text in before.items() if after.get(path) != text for lit, _ in identifier_literals(text)}
    still = [(lit, Location(path, line)) for path, text in after.items() for lit, line in identifier_literals(text)]
    edits: list[TextEdit] = []
    removed: list[str] = []
    kept: list[tuple[str, str]] = []
    from mpsgen.sources.metal.retire import retire_kernel

    texts: dict[str, str] = {}
    for name, path in sorted(bespoke.items()):
        if not any(_runs(lit, name) for lit in ran):
            continue  # not the legacy code's kernel
        spelled = [str(where) for lit, where in still if _spells(lit, name, known)]
        if spelled:
            kept.append((name, spelled[0]))
            continue
        text, gone = retire_kernel(texts.get(path, metal[path]), path, name)
        texts[path] = text
        removed.extend(f"{Location(path, line)}: {what}" for line, what in gone)
    edits.extend(TextEdit(path, text, ("retired the bespoke kernels the legacy code ran",))
                 for path, text in texts.items() if text != metal[path])
    return Retired(tuple(edits), tuple(removed), tuple(kept))
