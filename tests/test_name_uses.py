"""The one-walk readers of kernel-named identifiers (MPS020's facts) answer what the per-name searches
answered: SourceIndex.identifier_starts finds every whole word the identifier pattern finds, and
uses_named classifies each as uses_of does."""

from __future__ import annotations

import re
from collections import Counter

from hypothesis import given
from hypothesis import strategies as st

from mpsgen.lint.rules.dangling_calls import call_facts
from mpsgen.sources.host.callers import _ends_in_scope, _QUALIFIER, uses_named, uses_of
from mpsgen.scan.words import identifiers_containing, spelled_in, words_holding
from mpsgen.sources.index import SourceIndex

_PIECES = ["foo_mps", "mps", "foo_out_mps", "x_mps_", "2mps", "mpsé", "é_mps", "_mps", " ", "\n", "\t", "(", ")",
           ";", ",", "&", "&&", ".", "->", "::", "at::native::", "native ::", "mps::", "#define M(x) ", "#if X\n",
           "\\\n", "// ", "/*", "*/", '"', "'", "Tensor& ", "static void ", "{", "}", "return ", "const", "1", "a",
           "<", ">"]
texts = st.lists(st.sampled_from(_PIECES), max_size=40).map("".join)


def _reference_starts(code: str, part: str) -> dict[str, list[int]]:
    starts: dict[str, list[int]] = {}
    for m in re.finditer(r"\w+", code):
        if part in m.group(0) and re.match(r"[A-Za-z_]", m.group(0)):
            starts.setdefault(m.group(0), []).append(m.start())
    return starts


@given(text=texts)
def test_words_holding_a_part_are_the_word_runs_holding_it(text):
    expected: dict[str, list[int]] = {}
    for m in re.finditer(r"\w+", text):
        if "mps" in m.group(0):
            expected.setdefault(m.group(0), []).append(m.start())
    assert words_holding(text, "mps") == expected
    assert list(words_holding(text, "mps")) == list(expected)  # in the order the words first occur


@given(text=texts)
def test_identifier_starts_are_the_whole_words_of_the_identifier_pattern(text):
    ix = SourceIndex("a.mm", text)
    assert ix.identifier_starts("mps") == _reference_starts(ix.masked, "mps")
    assert list(ix.identifier_starts("mps")) == list(_reference_starts(ix.masked, "mps"))
    counts = Counter(re.findall(r"[A-Za-z_]\w*", ix.masked))
    assert ix.identifiers_with("mps") == {name: n for name, n in counts.items() if "mps" in name}
    assert list(ix.identifiers_with("mps")) == [name for name in counts if "mps" in name]
    assert ix.identifiers_with("mps") == identifiers_containing(ix.masked, "mps")


@given(text=texts)
def test_uses_named_are_the_uses_uses_of_finds(text):
    ix = SourceIndex("a.mm", text)
    starts = ix.identifier_starts("mps")
    found = sorted((u.name, u.pos, u.qualifier, u.form, u.in_directive) for u in uses_named("a.mm", text, starts))
    expected = sorted((u.name, u.end - len(u.name), u.qualifier, u.form, u.in_directive)
                      for name in starts for u in uses_of("a.mm", text, name, prototypes=True))
    assert found == expected


@given(text=st.lists(st.sampled_from(["a", "::", " ", "\n", ":", "b1", "é"]), max_size=12).map("".join))
def test_only_a_window_ending_in_a_scope_can_hold_a_qualifier(text):
    for k in range(len(text) + 1):
        lo = max(0, k - 80)
        if _QUALIFIER.search(text, lo, k) is not None:
            assert _ends_in_scope(text, lo, k)


def test_call_facts_of_a_source() -> None:
    text = ("Tensor& foo_out_mps(const Tensor& a, Tensor& out);\n"
            "static Tensor& helper_mps(const Tensor& a) {\n"
            "  at::native::foo_out_mps(a, a);  // bar_mps(a)\n"
            "  auto f = &bar_mps;\n"
            "  obj.baz_mps(a);\n"
            "  int qux_mps = 1;\n"
            "#define M(x) x_mps(x)\n"
            "  return mps::other_mps(a);\n"
            "}\n")
    facts = call_facts("a.mm", text)
    # foo_out_mps is called but declared by its prototype; helper_mps is defined here: neither can dangle
    assert [(c.name, c.line, c.col, c.function) for c in facts.calls] == [("bar_mps", 4, 13, "helper_mps")]
    assert facts.defined == {"helper_mps"}
    assert facts.declared == {"foo_out_mps", "qux_mps", "x_mps", "other_mps"}  # a prototype, a variable, a #define, mps::
    recursive = call_facts("b.mm", "Tensor f_mps(const Tensor& a) {\n  return f_mps(a);\n}\n")
    assert recursive.calls == () and recursive.defined == {"f_mps"} and recursive.declared == frozenset()


@given(text=st.lists(st.sampled_from(["REGISTER_", "REGISTER_DISPATCH", "REGISTER_MPS", "_DISPATCH", "REG", "x", " ",
                                      "CREATE_MPS_", "CREATE_MPS_X"]), max_size=10).map("".join),
       names=st.lists(st.sampled_from(["REGISTER_DISPATCH", "REGISTER_MPS_DISPATCH", "REGISTER_MPS", "CREATE_MPS_X",
                                       "CREATE_MPS_Y", "x"]), max_size=4))
def test_names_spelled_in_a_text_are_those_it_contains(text, names):
    assert spelled_in(text, names) == [n for n in names if n in text]
