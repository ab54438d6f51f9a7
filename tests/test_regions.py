"""scan.regions: the raw-text checks that let a plain-function lookup mask a region of a file, or none of it."""

from __future__ import annotations

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from mpsgen.scan.regions import code_line_before, definition_candidates
from mpsgen.sources.index import SourceIndex, index_of


@pytest.mark.parametrize("text", [
    "Tensor& foo(const Tensor& self) {}\n",
    "static Tensor /* why */ foo(const Tensor& self) {}\n",
    "Tensor\nfoo (const Tensor& self) {}\n",
    "std::vector<int> foo(int x) {}\n",
    "Tensor foo\n(int x) {}\n",
    "Tensor foo /* c */ (int x) {}\n",
    "return foo(x);\n",  # kept: the masked check tells a call after `return` apart
    "  y = p->foo(1);\n",  # kept: `>` may end a return type
])
def test_kept_when_an_occurrence_can_be_a_definition(text: str) -> None:
    assert list(definition_candidates(text, "foo"))


@pytest.mark.parametrize("text", [
    "  y = x.foo(1);\n",
    "  y = at::native::foo(1);\n",
    "  call(foo, bar);\n",
    "  int foo_bar(int);\n  int afoo(int);\n",
    "  foo;\n",
])
def test_skipped_when_every_occurrence_is_a_use(text: str) -> None:
    assert not list(definition_candidates(text, "foo"))


def test_plain_function_agrees_with_the_masked_search() -> None:
    text = "Tensor a(const Tensor& s) { return s.foo(1); }\nTensor& // out\nfoo(Tensor& s) {\n  return s;\n}\n"
    found = index_of("x.cpp", text).plain_function("foo")
    assert found is not None and text[found.start:].startswith("foo(Tensor& s)")
    assert index_of("y.cpp", "void f() { x.foo(1); }\n").plain_function("foo") is None


# Pieces of C++ that move a scanner between states (comments, literals, raw ones too, continued
# lines, directives, brackets) around a definition head, with gaps long enough to cross the first
# region's end (2 KB).
_TRICKY = ["/*", "*/", "//", '"', "'", 'R"(', ')"', "\\\n", "#define M(a) ", "#if 0\n", "\n", " ", "{", "}",
           "(", ")", ";", "foo", "x.", "return ", "/", "*", "a"]
_GAPS = ["", " ", "\n", "\t", " /* c */ ", "/* c\n */", " // c\n", "\\\n", " " * 2100, "\n" * 700, '"', "*/"]
_HEADS = ["Tensor ", "Tensor& ", "std::vector<int> ", "static void ", "x.", "return ", "", "Tensor\n", "#define F ",
          "a->", "> ", "at::"]
_QUALIFIERS = ["", "const ", "noexcept ", "override ", "const noexcept "]

_tricky = st.lists(st.sampled_from(_TRICKY), max_size=8).map("".join)
_gap = st.sampled_from(_GAPS)
_definition = st.tuples(
    _tricky, st.sampled_from(_HEADS), _gap, st.just("foo"), _gap, st.just("("), _tricky, st.just(")"), _gap,
    st.sampled_from(_QUALIFIERS), _gap, st.sampled_from(["{", ";", ""]), _tricky, st.sampled_from(["}", ""]), _tricky,
).map("".join)


@given(st.lists(_definition, min_size=1, max_size=3).map("".join))
@example("Tensor\n /* c */ foo(int a) { }\n")  # the return type lies before the line a region starts on
def test_a_region_lookup_finds_what_the_whole_file_mask_finds(text: str) -> None:
    """plain_function masking only a region agrees with the lookup over the whole file's mask,
    whatever comment, literal, directive or continued line surrounds the name."""
    whole = SourceIndex("a.cpp", text)
    whole.masked  # noqa: B018 - the lookups then search the whole file's mask
    regions = SourceIndex("a.cpp", text)
    found = regions.plain_function("foo")
    assert found == whole.plain_function("foo")
    if found is not None:
        assert regions.masked_slice(found.body_open, found.body_close + 1) == whole.masked[found.body_open:found.body_close + 1]


@pytest.mark.parametrize("text", [
    "int a;\n/* solves:\n  foo (x) is the max\n*/\nTensor foo(int a) {\n  return a;\n}\n",
    "/* a */ int b; /*\n foo(\n*/\n\nTensor\nfoo(int a) { }\n",
])
def test_a_name_in_a_block_comment_is_looked_up_from_a_line_before_the_comment(text: str) -> None:
    """A candidate inside a `/* ... */` is masked from a vouched line before the comment, not the whole file."""
    whole = SourceIndex("a.cpp", text)
    whole.masked  # noqa: B018
    regions = SourceIndex("a.cpp", text)
    found = regions.plain_function("foo")
    assert found == whole.plain_function("foo") and found is not None
    assert "_masked" not in regions.__dict__


@given(st.lists(_definition, min_size=1, max_size=2).map("".join), st.sampled_from(["fo", "bar", "Tensor", "x"]))
def test_a_region_lookup_of_a_name_spelled_otherwise_or_not_at_all_agrees_too(text: str, name: str) -> None:
    whole = SourceIndex("a.cpp", text)
    whole.masked  # noqa: B018
    assert SourceIndex("a.cpp", text).plain_function(name) == whole.plain_function(name)


@given(st.lists(st.sampled_from(_TRICKY + _GAPS[:8] + ['R"', "uR", "x"]), max_size=12).map("".join))
def test_a_line_start_vouched_with_the_first_raw_string_given_is_the_one_found_without(raw: str) -> None:
    first = raw.find('R"')
    for k in range(len(raw) + 1):
        assert code_line_before(raw, k, first) == code_line_before(raw, k)


def _candidates_by_both_sides(raw: str, name: str) -> list[int]:
    """definition_candidates as the two sides of each occurrence read in turn (what reading the side after
    the word first must agree with)."""
    found, k = [], raw.find(name)
    while k >= 0:
        end = k + len(name)
        b, a = k - 1, end
        while b >= 0 and raw[b] in " \t":
            b -= 1
        while a < len(raw) and raw[a] in " \t":
            a += 1
        bounded = (k == 0 or not (raw[k - 1].isalnum() or raw[k - 1] == "_")) and \
            (end >= len(raw) or not (raw[end].isalnum() or raw[end] == "_"))
        before = b < 0 or raw[b].isspace() or raw[b].isalnum() or raw[b] in "_&*>/\"'"
        after = a >= len(raw) or raw[a].isspace() or raw[a] in "(/\"'RuUL"
        if bounded and before and after:
            found.append(k)
        k = raw.find(name, end)
    return found


@given(st.lists(st.sampled_from(["foo", "f", "o", " ", "\t", "\n", "\r", ":", ".", "(", "/", '"', "'", "R", "u", "L",
                                 "&", "*", ">", "x", "_", "1", ";", "é", "\x0b"]), max_size=14).map("".join),
       st.sampled_from(["foo", "f"]))
@example("/*f L1", "f")  # a word character after the blanks: kept (it may open a literal, u8R"...")
@example("std::vector<int> f(int x) {}", "std")
def test_candidates_read_the_side_after_the_word_first(raw: str, name: str) -> None:
    assert list(definition_candidates(raw, name)) == _candidates_by_both_sides(raw, name)
