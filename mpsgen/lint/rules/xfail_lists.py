"""Rules on the MPS test lists: torch/testing/_internal/common_mps.py, or test/test_mps.py in PyTorch 2.7
and before (the same mps_ops_modifier tables; `Checkout.test_lists_rel` says which)."""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Iterator

from mpsgen.lint.file_facts import could_be_opinfo_key
from mpsgen.lint.finding import Finding
from mpsgen.lint.rules import WARNING, rule

if TYPE_CHECKING:
    from mpsgen.lint.inventory import Inventory


@rule("MPS010", "stale-xfail", WARNING,
      "an xfail/skip key of common_mps.py (2.7: test_mps.py) names no OpInfo (misspelt, or the OpInfo was renamed)")
def stale_xfail(inv: "Inventory") -> Iterator[Finding]:
    """A test-list entry that does nothing: its key matches no OpInfo, so the xfail or skip it
    declares never applies (and a real failure it was meant to cover shows up again).

    Judged by text: the key must be a quoted string of the OpInfo files, or a quoted name followed
    by a quoted variant_test_name.  Cheap, and it never flags an OpInfo whose name is passed to a
    helper (signal.windows.*); a key whose name and variant exist only in different OpInfos passes.

    Fix: use the OpInfo's name + variant_test_name (the hint suggests the closest), or delete the entry.
    """
    tables, strings = inv.test_tables, inv.opinfo_strings
    if tables is None or strings is None:
        return
    path, entries = tables
    for e in entries:
        if could_be_opinfo_key(e.key, strings):
            continue
        import difflib  # only when a key is stale

        # Only similar-looking names are compared: difflib over all ~1,400 strings costs ~10 ms per key.
        near = [s for s in strings if s[:1] == e.key[:1] and abs(len(s) - len(e.key)) <= 3]
        close = difflib.get_close_matches(e.key, near, n=1, cutoff=0.8)
        yield stale_xfail.finding(
            path, e.line,
            f"'{e.key}' in {e.table} names no OpInfo (misspelt, or the OpInfo was renamed)",
            col=_key_col(inv.checkout.read_text(path), e.line, e.key),
            hint=(f"did you mean '{close[0]}'? " if close else "") + "use the OpInfo's name + variant_test_name, "
            "or delete the entry",
            rests_on=inv.opinfo_files,
        )


def _key_col(text: str, line: int, key: str) -> int:
    """1-based column of the quote opening *key* on *line*."""
    lines = _lines(text)
    col = lines[line - 1].find(key) if line <= len(lines) else -1
    return col if col > 0 else 1


@functools.lru_cache(maxsize=2)
def _lines(text: str) -> list[str]:
    """The lines of the test lists' file, split once for all its stale keys (2.7's test_mps.py: 560 KB)."""
    return text.split("\n")
