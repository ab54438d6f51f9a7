"""lint/rules/registrations._missing reads what a row of dtypes implies once per row (cached by the row):
it answers what the per-line reading it replaced answered (kept here as the oracle), on groups of
registration lines built from dtype rows (misspelt words, vectors, compound arguments, integer runs)."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from mpsgen.lint.rules import registrations as rr
from mpsgen.sources.metal.registration_sites import RegistrationSite


def _old_missing(group):
    have = {s.dtypes for s in group}
    have |= {d for s in group if any(map(rr._misspelt, s.dtypes)) for d in rr._meant(s.dtypes)}
    out = {}
    for s in group:
        if any(map(rr._misspelt, s.dtypes)):
            continue
        for src, dst, word in rr._IMPLIED:
            if any(word.search(d) for d in s.dtypes):
                want = tuple(word.sub(rf"{dst}\1", d) for d in s.dtypes)
                if want not in have:
                    out.setdefault(want, (s, f"it is registered for {src} ({s.text}) but not for {dst}"))
        for k, d in enumerate(s.dtypes):
            if d not in rr._INTEGERS:
                continue
            rows = {i: s.dtypes[:k] + (i,) + s.dtypes[k + 1 :] for i in rr._INTEGERS}
            absent = [i for i, row in rows.items() if row not in have]
            if len(absent) == 1:
                present = ", ".join(i for i in rr._INTEGERS if i not in absent)
                out.setdefault(rows[absent[0]], (s, f"it is registered for {present} but not for {absent[0]}"))
    return out


def _site(line: int, dtypes: tuple[str, ...]) -> RegistrationSite:
    args = ("op", *dtypes)
    return RegistrationSite("REGISTER_UNARY_OP", args, line, line, tuple(range(1, len(args))), (), ("op",), (),
                            dtypes, ("REGISTER_UNARY_OP", "op"))


_DTYPE = st.sampled_from(["float", "half", "bfloat", "float2", "half2", "bfloat2", "long", "int", "short", "char",
                          "uchar", "bool", "flaot", "hafl", "NanToNumParams_half", "opmath_t<half>", "T"])
rows = st.lists(st.lists(_DTYPE, min_size=1, max_size=3).map(tuple), min_size=1, max_size=12)


@given(rows=rows)
def test_missing_rows_are_those_the_per_line_reading_found(rows):
    group = [_site(k + 1, row) for k, row in enumerate(rows)]
    assert rr._missing(group) == _old_missing(group)


def test_a_deleted_half_line_and_a_deleted_integer_line_are_found():
    ints = [("long",), ("int",), ("short",), ("char",)]
    group = [_site(1, ("float",)), _site(2, ("bfloat",)), *(_site(3 + k, r) for k, r in enumerate(ints))]
    found = rr._missing(group)
    assert set(found) == {("half",), ("uchar",)}
    assert re.search("registered for bfloat", found[("half",)][1])
