"""Helpers the rule modules share: columns in a dispatch line, bare kernel names, families."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Iterable
from weakref import WeakKeyDictionary

from mpsgen.sources.native_yaml.facts import DispatchLine, Entry, family_key

if TYPE_CHECKING:
    from mpsgen.lint.frontier import FrontierIndex
    from mpsgen.lint.inventory import Inventory

_FRONTIERS: "WeakKeyDictionary[Inventory, FrontierIndex]" = WeakKeyDictionary()


def bare(kernel: str) -> str:
    """`at::native::x` -> `x`."""
    return kernel.rsplit("::", 1)[-1]


def word_col(d: DispatchLine, word: str) -> int:
    """1-based column of *word* (a key or the kernel) in a dispatch line."""
    m = re.search(r"\b" + re.escape(word) + r"\b", d.text)
    return m.start() + 1 if m else 1


def mps_col(d: DispatchLine) -> int:
    return word_col(d, "MPS")


def kernel_col(d: DispatchLine) -> int:
    return d.text.rfind(d.kernel) + 1 if d.kernel in d.text else 1


def families(entries: Iterable[Entry]) -> dict[str, list[Entry]]:
    groups: dict[str, list[Entry]] = {}
    for e in entries:
        groups.setdefault(family_key(e.base), []).append(e)
    return groups


def migrate_hint(inv: "Inventory", family: str, what_migrate_does: str, by_hand: str) -> str:
    """"run `mpsgen migrate FAMILY` ..." when the frontier calls the family a candidate (so migrate
    would take it on), else what to do by hand."""
    if _frontier(inv).candidate(family):
        return f"run `mpsgen migrate {family}` {what_migrate_does}"
    return by_hand


def _frontier(inv: "Inventory") -> "FrontierIndex":
    """One FrontierIndex per Inventory (its answers are remembered across the rules' hints)."""
    found = _FRONTIERS.get(inv)
    if found is None:
        from mpsgen.lint.frontier import FrontierIndex

        found = _FRONTIERS[inv] = FrontierIndex(inv)
    return found
