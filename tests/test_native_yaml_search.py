"""A family searched for in the text (what `migrate` asks of a fresh index) equals the family found
after splitting the whole text, on texts shaped to trip the search."""

from __future__ import annotations

import pytest

from mpsgen.errors import MpsgenError
from mpsgen.sources.native_yaml.index import index_text, select_overloads

ODD = "\n".join([
    "frac abs add_ sigmoid",  # names at the text's start and after spaces, outside any entry
    "- func: frac(Tensor self) -> Tensor",
    "  dispatch:",
    "    CPU, CUDA: frac",
    "    MPS: frac_mps",
    "x- func: frac_.fake(Tensor self) -> Tensor",  # not at a line's start
    "- funcs: frac.fake(Tensor self) -> Tensor",
    "  - func: frac.nested(Tensor self) -> Tensor",
    "- func: :frac.colon(Tensor self) -> Tensor",
    "-\tfunc:frac_(Tensor(a!) self) -> Tensor(a!)",
    "- func: 'frac.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)'",
    "  dispatch:",
    "    CPU, CUDA: frac_out",
    "- func: fractional(Tensor self) -> Tensor",
    "- func: abs(Tensor self) -> Tensor",
    "# - func: frac.commented(Tensor self) -> Tensor",
    '- func: "frac.Scalar(Scalar self) -> Tensor"',
])


def _names(family) -> list[str]:
    return [e.name for e in family.entries]


@pytest.mark.parametrize("text", [ODD, ODD.replace("\n", "\r\n"), ODD.split("\n", 1)[1]])
@pytest.mark.parametrize("key", ["frac", "abs", "fractional", "add", "sigmoid"])
def test_search_equals_split(text: str, key: str) -> None:
    searched, split = index_text(text), index_text(text)
    split.heads
    try:
        expected = split.family(key)
    except MpsgenError as err:
        with pytest.raises(MpsgenError) as again:
            searched.family(key)
        assert (again.value.message, again.value.hint) == (err.message, err.hint)
        return
    found = searched.family(key)
    assert found == expected
    assert "_scan" not in searched.__dict__  # the search answered alone


def test_search_reads_names_as_the_split_does() -> None:
    idx = index_text(ODD)
    assert _names(idx.family("frac")) == ["frac", "frac_", "frac.out", "frac.Scalar"]
    frac = idx.family("frac").entries
    assert [e.line for e in frac] == [2, 10, 11, 17]
    assert frac[0].end_line == 9 and frac[0].odd_lines == (6, 7, 8, 9)  # the lines that are no head stay in its span
    assert [d.kernel for d in frac[2].dispatch] == ["frac_out"]
    assert _names(select_overloads(index_text(ODD), "frac.out")) == ["frac.out"]


@pytest.mark.parametrize("typed", ["(abc", "fr ac", "frac)", "+", "a.b.c", "zzz"])
def test_names_no_family_can_have_are_refused_alike(typed: str) -> None:
    with pytest.raises(MpsgenError) as searched:
        index_text(ODD).family(typed)
    split = index_text(ODD)
    split.heads
    with pytest.raises(MpsgenError) as scanned:
        split.family(typed)
    assert searched.value.message == scanned.value.message == f"no op family named {typed!r} in native_functions.yaml"
    assert searched.value.hint == scanned.value.hint
