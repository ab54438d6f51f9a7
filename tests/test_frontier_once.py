"""The frontier judges each family once per run and each MPS entry once: `candidate(name)` (a check
hint's question: the family's overloads judged only up to the first candidate) and `family(name)`
(memoised) answer as a FrontierIndex that shares nothing between families does."""

from __future__ import annotations

from pathlib import Path

from mpsgen.lint.frontier import FrontierIndex, Overload
from mpsgen.lint.inventory import Inventory
from mpsgen.sources.native_yaml.facts import family_key
from mpsgen.tree.checkout import Checkout

from test_checks import build_real_tree


class _Unshared(FrontierIndex):
    """Every question answered from scratch: no family or entry remembered."""

    def family(self, name: str):  # type: ignore[no-untyped-def]
        self._families.clear()
        self._judged.clear()
        return super().family(name)


def test_shared_answers_are_the_fresh_ones(sample_tree: Path, real_yaml_path: Path, real_testing_dir: Path):
    root = build_real_tree(sample_tree, real_yaml_path, real_testing_dir)
    inv = Inventory(Checkout(root))
    names = sorted({family_key(e.base) for e in inv.mps_entries})
    shared = FrontierIndex(inv)
    hinted = {n: shared.candidate(n) for n in names}  # the hints' order: partial judgements first
    judged = {n: shared.family(n) for n in names}
    fresh = _Unshared(Inventory(Checkout(root)))
    expected = {n: fresh.family(n) for n in reversed(names)}

    assert judged == expected
    assert hinted == {n: f.candidate for n, f in expected.items()}
    assert all(shared.family(n) is judged[n] for n in names)  # remembered, not judged again
    assert shared.candidate(names[0]) == expected[names[0]].candidate
    assert {f.candidate for f in expected.values()} == {True, False}  # the answers are not all alike


class _Legacy:
    """An MPS entry of an MPS-only kernel (what _judge reads of it: its name and route)."""

    mps_route = "legacy"

    def __init__(self, name: str) -> None:
        self.name = name


class _Family:
    def __init__(self, entries: dict[str, tuple[_Legacy, ...]]) -> None:
        self.entries = entries

    def mps_family(self, name: str) -> tuple[_Legacy, ...]:
        return self.entries.get(name, ())


class _Scripted(FrontierIndex):
    """overload() says candidate for the entries named in *yes*, and counts what it is asked."""

    def __init__(self, inv: _Family, yes: set[str]) -> None:
        super().__init__(inv)  # type: ignore[arg-type]
        self.yes = yes
        self.asked: list[str] = []

    def overload(self, e):  # type: ignore[no-untyped-def]
        self.asked.append(e.name)
        return Overload(e.name, "k_mps", "k", None, (), None, e.name in self.yes, "scripted")


def test_candidate_stops_at_the_first_candidate_and_family_reuses_it():
    inv = _Family({"f": (_Legacy("f.a"), _Legacy("f.b"), _Legacy("f.c")), "g": (_Legacy("g.a"), _Legacy("g.b"))})
    front = _Scripted(inv, {"f.b"})
    assert front.candidate("f") and not front.candidate("g")
    assert front.asked == ["f.a", "f.b", "g.a", "g.b"]  # f.c not judged: f.b settled the hint
    f = front.family("f")
    assert f.candidate and [o.entry for o in f.overloads] == ["f.a", "f.b", "f.c"]
    assert front.asked == ["f.a", "f.b", "g.a", "g.b", "f.c"]  # f.a and f.b judged once
    assert front.family("f") is f and front.candidate("f") and front.asked[-1] == "f.c"
    assert not front.family("g").candidate and front.family("h").note  # no MPS entry: a note, no overload
