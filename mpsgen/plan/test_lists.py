"""Planning's test-list phase: the MPS xfail/skip keys, SUPPORTED_COMPLEX_OPS and DecorateInfos the new
kernel changes, and the OpInfo tests that cover it, as one frozen `TestListsPhase`; and the xfails of the
dtypes --drop-dtypes gives up (`DroppedXfails`)."""

from __future__ import annotations

from dataclasses import dataclass, field

from mpsgen.model import Command
from mpsgen.plan.dtypes import Row
from mpsgen.plan.texts import TextEdit, capabilities, folder_files, planned_texts
from mpsgen.tree.changeset import Changeset
from mpsgen.tree.checkout import CMI_REL, Checkout

# Which torch dtypes each registration group makes work (for narrowing xfail lists).
TORCH_DTYPES = {
    "float": ("float32", "float16", "bfloat16"),
    "int2float": ("int64", "int32", "int16", "int8", "uint8", "bool"),
    "integer": ("int64", "int32", "int16", "int8", "uint8", "bool"),
    "complex": ("complex64",),
}


@dataclass(frozen=True)
class TestListsPhase:
    __test__ = False  # not a pytest test class

    texts: dict[str, str] = field(default_factory=dict)  # new texts of the list files that change
    changes: tuple[str, ...] = ()  # one line per edit, located
    test_names: tuple[str, ...] = ()  # OpInfo names to run tests for
    test_keys: dict[str, str] = field(default_factory=dict)  # test-name op part -> common_mps.py key
    grad_test_names: tuple[str, ...] = ()  # a backward op's forward OpInfos (their gradient tests cover it)
    notes: tuple[str, ...] = ()


def supported_dtypes(dtypes: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(d for fam in dtypes for d in TORCH_DTYPES.get(fam, ()))


def registered(rows: tuple[Row, ...]) -> tuple[str, ...]:
    """The torch dtypes a kernel's dtype table says it registers (or that never reach it: ceil's integers)."""
    return tuple(r.dtype for r in rows if r.registered)


def plan_test_lists(family: str, command: Command, checkout: Checkout, cs: Changeset, *, dtypes: tuple[str, ...],
                    dropped: tuple[str, ...], drop_complex: bool,
                    kernels: tuple[tuple[tuple[tuple[str, str | None], ...], tuple[str, ...]], ...] | None = None,
                    ) -> TestListsPhase:
    """*kernels*: per stub kernel of the family, the arguments that select it and the dtypes its table
    registers (each OpInfo key is edited for the kernels serving it); else the groups in *dtypes*."""
    from mpsgen.sources import testlists

    lists_rel = capabilities(cs).test_lists_rel  # common_mps.py, or 2.7's test_mps.py
    missing = [name for name, there in (("common_mps.py (or test/test_mps.py)", lists_rel is not None),
                                        ("common_methods_invocations.py", cs.exists(CMI_REL))) if not there]
    if missing or lists_rel is None:
        return TestListsPhase(notes=(f"{' and '.join(missing)} not found: test lists left alone",))
    action: testlists.ComplexAction
    if "complex" in dtypes:
        action = "add"
    elif drop_complex or "complex64" in dropped:
        action = "drop"
    else:
        action = "refuse-if-listed"
    definitions = planned_texts(cs, folder_files(cs, "opinfo_definition_files"), checkout)
    result = testlists.plan_test_lists(
        family,
        common_mps_text=cs.current(lists_rel),
        cmi_text=cs.current(CMI_REL),
        definitions=definitions,
        supported_dtypes=[d for d in supported_dtypes(dtypes) if d not in dropped],
        complex_action=action,
        # An op with no MPS kernel fails every MPS test ("not currently implemented for the MPS device"),
        # so new-op's kernel makes each MPS xfail of its OpInfo pass, not only TestConsistency's.
        tests=None if command == "new-op" else testlists.DEFAULT_TESTS,
        common_mps_path=lists_rel,
        cmi_path=CMI_REL,
        kernels=kernels,
    )
    notes: tuple[str, ...] = ()
    grad: tuple[str, ...] = ()
    if not result.refs:
        notes = (_no_opinfo_note(family, cs.current(CMI_REL), definitions),)
        grad = tuple(testlists.gradient_opinfos(family, cs.current(CMI_REL), definitions, cmi_path=CMI_REL))
    keys: dict[str, str] = {}
    names: list[str] = []
    for ref in result.refs:
        formatted = ref.name.replace(".", "_") + (f"_{ref.variant.replace('.', '_')}" if ref.variant else "")
        keys[formatted] = ref.key
        if ref.name not in names:
            names.append(ref.name)
    return TestListsPhase(texts=dict(result.texts), changes=tuple(str(c) for c in result.changes),
                          test_names=tuple(names), test_keys=keys, grad_test_names=grad, notes=notes)


def _no_opinfo_note(op: str, cmi_text: str, definitions: dict[str, str]) -> str:
    """Which OpInfo tests an op that has none (sigmoid's covers sigmoid_backward through its gradient)."""
    from mpsgen.sources import testlists

    named = [r.name for r in testlists.backward_opinfos(cmi_text, definitions, op, cmi_path=CMI_REL)]
    if named:
        return (f"no OpInfo named {op}: {', '.join(dict.fromkeys(named))}'s OpInfo covers it through its gradient "
                "(test_output_grad_match; its aten_backward_name); test lists left alone")
    forward = op.removesuffix("_backward")
    if forward != op and testlists.opinfo_keys(cmi_text, definitions, forward, cmi_path=CMI_REL):
        return (f"no OpInfo named {op}: {forward}'s OpInfo covers it through its gradient (test_output_grad_match); "
                "test lists left alone")
    return f"no OpInfo named {op}: test lists left alone (common_mps.py keys are OpInfo names)"


@dataclass(frozen=True)
class DroppedXfails:
    """--drop-dtypes: the dropped dtypes MPS served now fail on MPS, so they get an xfail entry."""

    edits: tuple[TextEdit, ...] = ()
    changes: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()


def dropped_xfails(table: tuple[Row, ...], key: str, cs: Changeset, checkout: Checkout,
                   unregistered: str = "") -> DroppedXfails:
    """The xfail entry (under test-list key *key*) for the dtypes *table* no longer registers.
    *unregistered*: the stub of a half-done family, which nothing serves on MPS before the change either."""
    from mpsgen.sources.testlists.commonmps import add_unimplemented, listed_dtypes

    lost = [r.dtype for r in table if r.served and not r.registered and r.dtype != "complex64"]
    lists_rel = capabilities(cs).test_lists_rel  # common_mps.py, or 2.7's test_mps.py
    if not lost or lists_rel is None:
        return DroppedXfails()
    text = cs.current(lists_rel)
    if listed_dtypes(text, [key], path=lists_rel).failing:
        now = f"do not run on MPS today ({unregistered} is unregistered) and the new kernel leaves them out" \
            if unregistered else "no longer run on MPS"
        return DroppedXfails(notes=(f"{', '.join(lost)} {now}: add them to \"{key}\"'s xfail entry by hand",))
    new, changes = add_unimplemented(text, key, lost, path=lists_rel)
    return DroppedXfails((TextEdit(lists_rel, new, ("xfails for dropped dtypes",)),), tuple(str(c) for c in changes))
