"""Test lists: the op's entries in common_mps.py and its MPS DecorateInfos in OpInfos.

Readers and editors are pure functions on texts (no file I/O):

* `opinfo_keys(cmi_text, definitions, op)`: the op's OpInfos and their common_mps.py keys.
* `plan_common_mps(text, keys, supported_dtypes=, complex_action=)`: xfail/skip tables, SUPPORTED_COMPLEX_OPS.
* `plan_opinfo_decorators(text, refs, tests=)`: MPS expectedFailure/skip DecorateInfos.
* `plan_test_lists(...)`: all of the above for one op.
* `stale_keys(common_mps_text, cmi_text, definitions)`: table keys naming no OpInfo (`mpsgen check`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import NamedTuple

from mpsgen.sources.testlists.commonmps import COMPLEX_SET, ComplexAction, entries, plan_common_mps
from mpsgen.sources.testlists.decorators import DEFAULT_TESTS, plan_opinfo_decorators
from mpsgen.sources.testlists.opinfos import all_opinfos, backward_opinfos, name_candidates, opinfo_keys
from mpsgen.sources.testlists.records import Change, OpInfoRef, TableEntry

__all__ = [
    "COMPLEX_SET",
    "DEFAULT_TESTS",
    "Change",
    "ComplexAction",
    "OpInfoRef",
    "TableEntry",
    "TestListPlan",
    "entries",
    "name_candidates",
    "opinfo_keys",
    "plan_common_mps",
    "plan_opinfo_decorators",
    "plan_test_lists",
    "stale_keys",
    "gradient_opinfos",
]


def gradient_opinfos(op: str, cmi_text: str, definitions: Mapping[str, str], *,
                     cmi_path: str = "common_methods_invocations.py") -> list[str]:
    """The OpInfo names whose gradient tests (test_output_grad_match) run backward op *op*: those naming it
    their aten_backward_name (nn.functional.prelu: _prelu_kernel_backward), else its forward's
    (hardtanh_backward: nn.functional.hardtanh's); [] for an op that is no `<forward>_backward`."""
    named = backward_opinfos(cmi_text, definitions, op, cmi_path=cmi_path)
    forward = op.removesuffix("_backward")
    if not named and forward != op:
        named = opinfo_keys(cmi_text, definitions, forward, cmi_path=cmi_path)
    return list(dict.fromkeys(r.name for r in named))


def stale_keys(
    common_mps_text: str,
    cmi_text: str,
    definitions: Mapping[str, str],
    *,
    common_mps_path: str = "common_mps.py",
    cmi_path: str = "common_methods_invocations.py",
) -> list[TableEntry]:
    """Keys of common_mps.py tables that are no OpInfo's name + variant_test_name.

    OpInfos whose name is computed at run time cannot be seen, so a reported key may still be
    valid when such OpInfos exist; the report names the line so a human can judge.
    """
    known = {ref.key for ref in all_opinfos(cmi_text, cmi_path)}
    for path, text in definitions.items():
        known.update(ref.key for ref in all_opinfos(text, path))
    return [e for e in entries(common_mps_text, path=common_mps_path) if e.key not in known]


class TestListPlan(NamedTuple):
    """New texts (only for files that change) and the located changes, for the command summary."""

    refs: tuple[OpInfoRef, ...]
    texts: Mapping[str, str]
    changes: tuple[Change, ...]


TestListPlan.__test__ = False  # type: ignore[attr-defined]  # not a pytest test class


def plan_test_lists(
    op: str,
    *,
    common_mps_text: str,
    cmi_text: str,
    definitions: Mapping[str, str],
    supported_dtypes: Iterable[str] | None = None,
    complex_action: ComplexAction = "refuse-if-listed",
    tests: Iterable[str] | None = DEFAULT_TESTS,
    common_mps_path: str = "common_mps.py",
    cmi_path: str = "common_methods_invocations.py",
) -> TestListPlan:
    """The whole test-list edit for ATen op *op*: the keys of its OpInfos (name, variants) in
    common_mps.py and their DecorateInfos.  An op with no OpInfo gets no edit (plan notes say why)."""
    supported = None if supported_dtypes is None else tuple(supported_dtypes)
    refs = opinfo_keys(cmi_text, definitions, op, cmi_path=cmi_path)
    if not refs:  # common_mps.py keys are OpInfo names: with no OpInfo there is no key to add or remove
        return TestListPlan(refs=(), texts={}, changes=())
    keys = [r.key for r in refs]
    texts: dict[str, str] = {}
    changes: list[Change] = []
    new_text, found = plan_common_mps(common_mps_text, keys, supported_dtypes=supported,
                                      complex_action=complex_action, path=common_mps_path)
    if new_text != common_mps_text:
        texts[common_mps_path] = new_text
    changes += found
    for path, text in [(cmi_path, cmi_text), *definitions.items()]:
        mine = [r for r in refs if r.path == path]
        if not mine:
            continue
        new_text, found = plan_opinfo_decorators(text, mine, tests=tests, supported_dtypes=supported, path=path)
        if new_text != text:
            texts[path] = new_text
        changes += found
    return TestListPlan(refs=tuple(refs), texts=texts, changes=tuple(changes))
