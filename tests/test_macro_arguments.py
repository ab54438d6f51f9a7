"""MPS003's and MPS020's `macro_arguments`, read backwards from each '(', gives what the forward pattern it
replaced gave: every call's first identifier, non-overlapping in file order (`A(B(x))` passes B only)."""

from __future__ import annotations

import re

from hypothesis import given, strategies as st

from mpsgen.lint.file_facts import macro_arguments
from mpsgen.sources.index import index_of

FORWARD = re.compile(r"[A-Z](?<!\w[A-Z])[A-Z0-9_]+\(\s*([A-Za-z_]\w*)")  # the reader before (the oracle)

PIECES = ["REGISTER_DISPATCH(", "A(", "AB(", "aB(", "_AB(", "A1_(", "X9(", "Ab(", "AB (", "FOO_BAR(", "foo(",
          "kernel_mps", "B", "x", " ", "\n", ")", ",", "1", "_", "(", "// AB(c)\n", '"CD(e)"', "#define M(a) N(a)\n"]


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
