"""lint/background.py: the native/*.cpp search in a forked child gives the parent's own answers, and a
child that fails, or no fork at all, leaves the parent to compute them (the same answers again)."""

from __future__ import annotations

import os
from pathlib import Path

from mpsgen.lint import shared_kernels
from mpsgen.lint.background import Background
from mpsgen.lint.inventory import Inventory
from mpsgen.tree.checkout import Checkout
from mpsgen.tree.factcache import FactCache

from test_checks import build_real_tree


def _answered(job: Background, keys: list[str]) -> dict:
    job.send(keys)
    return job.result()


def test_the_child_answers_what_the_function_returns() -> None:
    job = Background(lambda keys: {k: (k.upper(), len(k)) for k in keys})
    assert _answered(job, ["abs_out", "atan2_out"]) == {"abs_out": ("ABS_OUT", 7), "atan2_out": ("ATAN2_OUT", 9)}
    assert job.result() == {}  # collected once


def test_the_child_prepares_before_it_takes_the_keys() -> None:
    prepared: list[str] = []
    job = Background(lambda keys: {k: list(prepared) for k in keys}, lambda: prepared.append("indexed"))
    assert _answered(job, ["x"]) == {"x": ["indexed"]}
    assert prepared == []  # the child prepared, not the parent


def test_without_keys_the_child_computes_for_none() -> None:
    assert Background(lambda keys: {"x": keys}).result() == {"x": []}


def test_a_failing_child_or_no_fork_gives_no_answers(monkeypatch) -> None:
    def boom(keys):
        raise RuntimeError("the child fails")

    assert _answered(Background(boom), ["x"]) == {}
    assert _answered(Background(lambda keys: {"x": 1}, boom), ["x"]) == {}  # fails preparing
    assert _answered(Background(lambda keys: os._exit(3)), ["x"]) == {}  # dies before answering

    def no_fork():
        raise OSError("Resource temporarily unavailable")

    monkeypatch.setattr(os, "fork", no_fork)
    assert _answered(Background(lambda keys: {"x": 1}), ["x"]) == {}


def _stub_uses(root: Path, monkeypatch, *, prefetch: bool) -> dict[str, tuple]:
    inv = Inventory(Checkout(root), FactCache.for_root(root, enabled=False))
    kernels = sorted({k for e in inv.mps_entries
                      for k in (e.shared_kernel().kernel, e.mps_kernel if e.mps_route == "shared" else None) if k})
    if prefetch:
        inv.start_native_search()
        inv.prefetch_stub_uses()
        inv.read_while_searching(("definitions", "registrations"))

        def searched_here(self, kernel):
            raise AssertionError(f"the parent searched for {kernel}: the child's answer was not used")

        def indexed_here(text):
            raise AssertionError("the parent indexed the words of native/*.cpp: the child's index was not used")

        monkeypatch.setattr(shared_kernels.SharedKernels, "_search", searched_here)  # the forked child has the real one
        monkeypatch.setattr(shared_kernels, "word_text", indexed_here)
    return _answers(inv, kernels)


def _answers(inv: Inventory, kernels) -> dict[str, tuple]:
    """Each kernel's stub use, and whether native/*.cpp names two identifiers (one spelled, one not)."""
    uses = {k: tuple(inv.stub_use(k)) for k in kernels}
    uses["(native identifiers)"] = tuple(name in inv.native_identifiers for name in ("atan2_out", "nowhere_mps"))
    return uses


def test_prefetched_stub_uses_are_the_ones_computed_in_process(sample_tree: Path, real_yaml_path: Path,
                                                                  real_testing_dir: Path, monkeypatch) -> None:
    root = build_real_tree(sample_tree, real_yaml_path, real_testing_dir)
    monkeypatch.setattr(shared_kernels, "_WORTH_A_CHILD", 1)  # the sample is small: fork for any search
    forked = _stub_uses(root, monkeypatch, prefetch=True)
    monkeypatch.undo()
    assert len(forked) > 20 and any(use[1] is not None for use in forked.values())
    assert forked == _stub_uses(root, monkeypatch, prefetch=False)


def test_on_one_core_the_parent_searches_itself(sample_tree: Path, real_yaml_path: Path, real_testing_dir: Path,
                                                monkeypatch) -> None:
    """A child on the only CPU adds its fork and pipes to the same work: none is started, same answers."""
    from mpsgen.lint import background

    root = build_real_tree(sample_tree, real_yaml_path, real_testing_dir)
    monkeypatch.setattr(shared_kernels, "_WORTH_A_CHILD", 1)
    monkeypatch.setattr(background, "second_core", lambda: False)
    inv = Inventory(Checkout(root), FactCache.for_root(root, enabled=False))
    inv.start_native_search()
    inv.prefetch_stub_uses()
    assert inv.shared_kernels._background is None
    monkeypatch.undo()
    expected = _stub_uses(root, monkeypatch, prefetch=False)
    assert _answers(inv, [k for k in expected if not k.startswith("(")]) == expected
