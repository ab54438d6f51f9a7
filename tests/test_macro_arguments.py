"""MPS003's and MPS020's `macro_arguments`, read backwards from each '(', gives what the forward pattern it
replaced gave: every call's first identifier, non-overlapping in file order (`A(B(x))` passes B only)."""

from __future__ import annotations

import re

from hypothesis import given, strategies as st

from mpsgen.lint.file_facts import macro_arguments, mps_identifier_counts
from mpsgen.sources.index import index_of

FORWARD = re.compile(r"[A-Z](?<!\w[A-Z])[A-Z0-9_]+\(\s*([A-Za-z_]\w*)")  # the reader before (the oracle)

PIECES = ["REGISTER_DISPATCH(", "A(", "AB(", "aB(", "_AB(", "A1_(", "X9(", "Ab(", "AB (", "FOO_BAR(", "foo(",
          "kernel_mps", "B", "x", " ", "\n", ")", ",", "1", "_", "(", "// AB(c)\n", '"CD(e)"', "#define M(a) N(a)\n",
          "mps", "é", "2mps_", "/* mps_x */", "'mps'"]


def _both(text: str) -> tuple[frozenset[str], frozenset[str]]:
    return macro_arguments("x.mm", text), frozenset(FORWARD.findall(index_of("x.mm", text).masked))


def test_nested_calls_and_blanks() -> None:
    new, old = _both("AA(BB(x)); A(y); CC( dd); EE (ff); g(HH(ii)); JJ(KK(LL(mm))); NN(1); OO(_p)")
    # x is inside AA's match; A is one letter; EE has a blank before '('; LL( starts past KK, kept
    assert new == old == {"BB", "dd", "ii", "KK", "mm", "_p"}


@given(st.lists(st.sampled_from(PIECES), max_size=30))
def test_backwards_reading_agrees_with_the_forward_pattern(pieces: list[str]) -> None:
    new, old = _both("".join(pieces))
    assert new == old


def _unread_by_the_prefilter(text: str) -> set[str]:
    """Inventory.macro_arguments looks for a name spelling `mps` only in the files where the per-file mps
    identifier counts hold it: the arguments spelling `mps` those counts lack (none, on any text)."""
    return {a for a in macro_arguments("x.mm", text) if "mps" in a} - mps_identifier_counts("x.mm", text).keys()


def test_an_argument_spelling_mps_is_a_counted_identifier() -> None:
    text = "AB(kernel_mps); CD(é_mps); EF(mpsé); GH( _mps2 ) // IJ(in_comment_mps)\nKL(\"lit_mps\")"
    assert {a for a in macro_arguments("x.mm", text) if "mps" in a} == {"kernel_mps", "mpsé", "_mps2"}  # é opens no identifier
    assert _unread_by_the_prefilter(text) == set()


@given(st.lists(st.sampled_from(PIECES), max_size=30))
def test_every_argument_spelling_mps_is_a_counted_identifier(pieces: list[str]) -> None:
    assert _unread_by_the_prefilter("".join(pieces)) == set()
