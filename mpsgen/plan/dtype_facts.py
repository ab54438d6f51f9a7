"""What the tree says about an op's dtypes before its kernel changes: the dtypes its OpInfos declare for
MPS, the xfail tables that list it, whether its integers promote to float or its result is bool, and
what the MPSGraph implementation refuses (plan/dtypes.py decides the registrations from these)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from mpsgen.model import Command, Location
from mpsgen.plan.kernel_choice import KernelChoice
from mpsgen.plan.texts import capabilities
from mpsgen.scan import words
from mpsgen.sources.native.dtype_checks import cpu_promotes, cpu_returns_bool, impl_body, mpsgraph_refusals
from mpsgen.sources.testlists.commonmps import ListedDtypes
from mpsgen.sources.testlists.opinfo_dtypes import OpDtypes
from mpsgen.tree.changeset import Changeset
from mpsgen.tree.checkout import Checkout


@dataclass(frozen=True)
class Facts:
    """What the tree says about the op's dtypes before the change."""

    command: Command
    op_dtypes: OpDtypes | None  # None: no OpInfo (or one mpsgen cannot evaluate)
    listed: ListedDtypes
    promotes: bool | None  # ints give float: OpInfo flag or CPU meta function; None: unknown
    promotes_source: str = ""
    mpsgraph_refuses: Mapping[str, str] = field(default_factory=dict)  # dtype -> the check that refuses it
    mpsgraph_at: str = ""  # "path:line" of the MPSGraph implementation
    served_by: str = "MPSGraph"  # what runs the op on MPS before: MPSGraph, or a legacy kernel's bespoke Metal
    has_lists: bool = True  # common_mps.py exists (else nothing is known about xfails)
    returns_bool: str = ""  # "path:line" of a CPU meta function building a bool output (isneginf)
    # A half-done family (`status`: "stub unregistered"): its yaml already routes MPS to the shared kernel, whose
    # stub no MPS source registers, so nothing serves it on MPS (it raises at run time): the stub's name.
    stub_unregistered: str = ""

    @property
    def served_before(self) -> str:
        """What the dtype table's "before" column says of a dtype MPS runs before the change."""
        if self.stub_unregistered:
            return f"no MPS kernel ({self.stub_unregistered} unregistered)"
        return f"served by {self.served_by}"

    @property
    def declared(self) -> frozenset[str] | None:
        return self.op_dtypes.declared if self.op_dtypes is not None and self.op_dtypes.found else None

    @property
    def returns_bool_anyway(self) -> bool:
        """The op's result is bool whatever its input (its OpInfo or its CPU meta function says so)."""
        return bool(self.returns_bool) or (self.op_dtypes is not None and self.op_dtypes.always_returns_bool)

    @property
    def opinfo_at(self) -> str:
        if self.op_dtypes is None or not self.op_dtypes.refs:
            return ""
        ref = self.op_dtypes.refs[0]
        return f"{ref.location}"


def read_facts(choice: KernelChoice, cs: Changeset, checkout: Checkout) -> Facts:
    """Everything above, read from the planned tree's texts (nothing written)."""
    from mpsgen.sources.testlists.commonmps import listed_dtypes
    from mpsgen.plan.texts import folder_files, original_texts
    from mpsgen.sources.testlists.opinfo_dtypes import mps_dtypes
    from mpsgen.tree.checkout import CMI_REL

    family = choice.family
    lists_rel = capabilities(cs).test_lists_rel  # common_mps.py, or 2.7's test_mps.py
    op_dtypes = None
    listed = ListedDtypes({}, False)
    if cs.exists(CMI_REL):
        definitions = original_texts(cs, folder_files(cs, "opinfo_definition_files"))
        fixed = choice.binding.fixed if choice.binding is not None else ()  # div_trunc: div.trunc_rounding's
        op_dtypes = mps_dtypes(cs.original(CMI_REL), definitions, family, cmi_path=CMI_REL, fixed=fixed)
    if lists_rel is not None:
        keys = [r.key for r in op_dtypes.refs] if op_dtypes and op_dtypes.refs else [family]
        listed = listed_dtypes(cs.original(lists_rel), keys, path=lists_rel)
    promotes: bool | None = None
    source = returns_bool = ""
    if op_dtypes is not None and op_dtypes.promotes_int_to_float:
        promotes, source = True, f"promotes_int_to_float at {op_dtypes.refs[0].path}:{op_dtypes.refs[0].line}"
    else:  # the CPU meta function says (a float op gives no bool)
        native = original_texts(cs, folder_files(cs, "native_sources"))
        naming = {p: t for p, t in native.items() if words.names(t, family)}
        at = cpu_promotes(naming, family)
        if at:
            promotes, source = True, f"CPU meta function at {at} builds a float op"
        else:
            returns_bool = cpu_returns_bool(naming, family)
            if op_dtypes is not None and op_dtypes.refs:
                promotes = False
    refuses: dict[str, str] = {}
    at, served_by = "", "MPSGraph"
    if choice.legacy_kernels:
        from mpsgen.sources.host import mm as host

        mm = original_texts(cs, folder_files(cs, "mm_files"))
        for name in choice.legacy_kernels:
            for path, text in mm.items():
                found = impl_body(text, name) if name in text else None
                if found is not None:
                    line, body = found
                    refuses.update(mpsgraph_refusals(body))
                    at = at or f"{Location(path, line)}"
                    if all(i.backend == "metal" for i in host.find_implementations({path: text}, name)):
                        served_by = "bespoke Metal"  # 2.7's BitwiseOps.mm: its own shaders, not the stub
    unregistered = "" if choice.legacy_kernels or choice.command != "migrate" else _unregistered(cs, choice.stub.name)
    return Facts(choice.command, op_dtypes, listed, promotes, source, refuses, at, served_by,
                 has_lists=lists_rel is not None, returns_bool=returns_bool, stub_unregistered=unregistered)


def _unregistered(cs: Changeset, stub: str) -> str:
    """*stub* when no MPS source registers it before the change (as `check`'s MPS005 counts), else ""."""
    from mpsgen.plan.texts import folder_files, original_texts
    from mpsgen.sources.host.register import registers_for_mps, registrations

    texts = original_texts(cs, [*folder_files(cs, "mm_files"), *folder_files(cs, "other_mps_sources")])
    word = stub.removesuffix("_stub")  # REGISTER_DISPATCH(x_stub, ...) or REGISTER_*_STUB(x)
    registered = any(r.stub == stub and registers_for_mps(r) for path, text in texts.items() if word in text
                     for r in registrations(text, path))
    return "" if registered else stub
