"""The whole test-list edit for one op (its common_mps.py keys and OpInfo DecorateInfos), and the
exact (slow) stale-key reader; re-exported by the package."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from mpsgen.records import NamedTuple
from mpsgen.sources.testlists.commonmps import ComplexAction, entries, plan_common_mps
from mpsgen.sources.testlists.decorators import DEFAULT_TESTS, plan_opinfo_decorators
from mpsgen.sources.testlists.opinfos import all_opinfos, backward_opinfos, opinfo_keys
from mpsgen.sources.testlists.records import Change, OpInfoRef, TableEntry


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


Kernel = tuple[tuple[tuple[str, "str | None"], ...], tuple[str, ...]]  # (arguments fixed, dtypes registered)


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
    kernels: Iterable[Kernel] | None = None,
) -> TestListPlan:
    """The whole test-list edit for ATen op *op*: the keys of its OpInfos (name, variants) in
    common_mps.py and their DecorateInfos.  An op with no OpInfo gets no edit (plan notes say why).

    Each key is edited for what its OpInfo tests (the dtypes it declares for MPS) and the kernels that
    serve it: *kernels* (one per stub of the family, with the arguments that select it) instead of
    *supported_dtypes*; a key whose OpInfo passes div's rounding_mode="trunc" is div_trunc's alone."""
    from mpsgen.sources.testlists.opinfo_dtypes import needs_lapack, ref_dtypes

    texts_by_path = {cmi_path: cmi_text, **definitions}
    refs = [r for r in opinfo_keys(cmi_text, definitions, op, cmi_path=cmi_path)
            if not needs_lapack(ref_dtypes(texts_by_path[r.path], r)[1])]  # normnuc: SVD, not the family's kernel
    if not refs:  # common_mps.py keys are OpInfo names: with no OpInfo there is no key to add or remove
        return TestListPlan(refs=(), texts={}, changes=())
    texts: dict[str, str] = {}
    changes: list[Change] = []
    by_key = _per_key(refs, {cmi_path: cmi_text, **definitions}, supported_dtypes, complex_action, kernels)
    new_text = common_mps_text
    for (supported, declared, action), keys in by_key.items():
        new_text, found = plan_common_mps(new_text, keys, supported_dtypes=supported, complex_action=action,
                                          path=common_mps_path, declared=declared)
        changes += found
    changes.sort(key=lambda c: c.line)  # one file's, in its order, whichever key group made them
    if new_text != common_mps_text:
        texts[common_mps_path] = new_text
    supported_for = {k: s for (s, _, _), keys in by_key.items() if s is not None for k in keys}
    for path, text in [(cmi_path, cmi_text), *definitions.items()]:
        mine = [r for r in refs if r.path == path]
        if not mine:
            continue
        new_text, found = plan_opinfo_decorators(text, mine, tests=tests, path=path, supported_for=supported_for,
                                                 supported_dtypes=supported_dtypes)
        if new_text != text:
            texts[path] = new_text
        changes += found
    return TestListPlan(refs=tuple(refs), texts=texts, changes=tuple(changes))


def _per_key(refs: Iterable[OpInfoRef], texts: Mapping[str, str], supported_dtypes: Iterable[str] | None,
             action: ComplexAction, kernels: Iterable[Kernel] | None) -> dict[tuple, list[str]]:
    """(the dtypes a key's kernels register, the dtypes its OpInfo tests, its complex action) -> its keys."""
    from mpsgen.sources.testlists.opinfo_dtypes import ref_dtypes, sets_argument

    kernels = list(kernels) if kernels is not None else [((), tuple(supported_dtypes))] if supported_dtypes is not None \
        else None
    out: dict[tuple, list[str]] = {}
    for ref in refs:
        declared, call = ref_dtypes(texts[ref.path], ref)
        supported = None
        if kernels is not None:
            mine = [d for f, d in kernels if call is not None and all(sets_argument(call, n) == v for n, v in f)]
            supported = tuple(sorted(set().union(*(mine or [d for _, d in kernels]))))  # none says: all of them
        own = action
        if supported is not None and action == "add" and "complex64" not in supported:
            own = "refuse-if-listed"  # div_trunc registers no complex, while div_true adds div's
        if declared is not None and "complex64" not in declared and own in ("add", "refuse-if-listed"):
            own = "keep"  # its OpInfo runs no complex: no complex list is this key's business
        keys = out.setdefault((supported, declared, own), [])
        if ref.key not in keys:
            keys.append(ref.key)
    return out
