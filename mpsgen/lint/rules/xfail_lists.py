"""Rules on the MPS test lists: torch/testing/_internal/common_mps.py, or test/test_mps.py in PyTorch 2.7
and before (the same mps_ops_modifier tables; `Checkout.test_lists_rel` says which)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterable, Iterator

from mpsgen.lint.file_facts import could_be_opinfo_key
from mpsgen.lint.finding import Finding, bases
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
    stale = [e for e in entries if not could_be_opinfo_key(e.key, strings)]
    if not stale:
        return
    # once for all stale keys, of the strings opening as one does: each hint looks at the groups near its key
    starts = {e.key[:1] for e in stale}
    groups = _by_start_and_length([s for s in strings if s[:1] in starts])
    # The lines up to the last stale key's only (2.7's test_mps.py is 560 KB, its lists in its first 1,000 lines).
    lines = inv.checkout.read_text(path).split("\n", max(e.line for e in stale))
    rests_on = bases(inv.opinfo_files)
    closest: dict[str, str | None] = {}  # per key (a key stale in two tables is looked up once)
    for e in stale:
        if e.key not in closest:
            closest[e.key] = _closest_string(e.key, groups)
        close = closest[e.key]
        yield stale_xfail.finding(
            path, e.line,
            f"'{e.key}' in {e.table} names no OpInfo (misspelt, or the OpInfo was renamed)",
            col=_key_col(lines, e.line, e.key),
            hint=(f"did you mean '{close}'? " if close else "") + "use the OpInfo's name + variant_test_name, "
            "or delete the entry",
            rests_on=rests_on,
        )


def _key_col(lines: list[str], line: int, key: str) -> int:
    """1-based column of the quote opening *key* on *line* (*lines*: the file's, at least up to *line*)."""
    col = lines[line - 1].find(key) if line <= len(lines) else -1
    return col if col > 0 else 1


def _by_start_and_length(strings: Iterable[str]) -> dict[tuple[str, int], list[str]]:
    groups: dict[tuple[str, int], list[str]] = {}
    for s in strings:
        groups.setdefault((s[:1], len(s)), []).append(s)
    return groups


_CUTOFF = 0.8


def _closest_string(key: str, groups: dict[tuple[str, int], list[str]]) -> str | None:
    """`difflib.get_close_matches(key, near, n=1, cutoff=0.8)` over *near*, the strings that start as
    *key* does and are at most 3 characters longer or shorter (difflib over all ~1,400 costs ~10 ms a
    key).  The same choice with fewer ratios (each ~0.1 ms of Python): difflib's upper bounds of a
    ratio, from the lengths (real_quick_ratio) and from the characters in common (quick_ratio, here
    with str.count), skip a string whose bound is below the cutoff or the best ratio so far, and the
    lengths with the highest bound come first."""
    import difflib  # only when a key is stale

    chars = tuple(set(key))
    counts = [key.count(c) for c in chars]
    count_of, in_key = dict(zip(chars, counts)), frozenset(chars)
    matcher = difflib.SequenceMatcher()
    matcher.set_seq2(key)
    best: tuple[float, str] | None = None
    n = len(key)
    for size in sorted(range(max(n - 3, 0), n + 4), key=lambda size: _ratio(min(size, n), size + n), reverse=True):
        if _ratio(min(size, n), size + n) < (best[0] if best else _CUTOFF):
            break  # neither these nor the later lengths (lower bounds still) can give the chosen string
        for s in groups.get((key[:1], size), ()):
            floor = max(_CUTOFF, best[0]) if best else _CUTOFF  # equal to the best, a string may win on itself
            # A bound above quick_ratio's first, found in C: each character of the key that *s* has at all,
            # as often as the key has it (most strings near a key fail it).
            if _ratio(sum(map(count_of.__getitem__, in_key.intersection(s))), size + n) < floor:
                continue
            if _ratio(sum(map(min, map(s.count, chars), counts)), size + n) < floor:
                continue
            matcher.set_seq1(s)
            score = matcher.ratio()
            if score >= _CUTOFF and (best is None or (score, s) > best):
                best = (score, s)
    return best[1] if best else None


def _ratio(matches: int, length: int) -> float:
    """difflib's ratio of *matches* characters in two strings *length* long together (its own expression)."""
    return 2.0 * matches / length if length else 1.0
