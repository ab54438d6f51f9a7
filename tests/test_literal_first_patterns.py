"""The patterns rewritten to open with a literal (so the regex engine skips to it in C instead of
trying them at every offset) find exactly what their `\\b...` forms found."""

from __future__ import annotations

import re
from collections import Counter

import pytest
from hypothesis import assume, example, given
from hypothesis import strategies as st

from mpsgen.lint import host_calls
from mpsgen.lint.file_facts import functor_uses
from mpsgen.scan import definitions as scan_definitions
from mpsgen.scan.anchored import directive_line_starts, finditer_at, lines_holding
from mpsgen.scan.brackets import match_close
from mpsgen.sources.host import api as host_api
from mpsgen.sources.host import register as host_register
from mpsgen.sources.metal import name_scan as metal_names
from mpsgen.sources.metal import symbols as metal_symbols
from mpsgen.sources.native import shared_impl
from mpsgen.sources.native import stubs
from mpsgen.sources import index as source_index
from mpsgen.sources.index import SourceIndex, identifier_counts, identifiers_containing

# (the pattern as it was, the pattern now)
PAIRS = {
    "exec call": (r"\bexec_(?:unary|binary|ternary)_kernel(?:_with_params|_raw)?\s*\(", host_register._EXEC),
    "exec call (api)": (r"\b(exec_(?:unary|binary|ternary)_kernel(?:_with_params)?)\s*\(", host_api._EXEC),
    "using": (r"\busing\s+(\w+)\s*=\s*([^;]+);", stubs._USING),
    "typedef": (r"\btypedef\s+void\s*\(\s*\*\s*(\w+)\s*\)\s*(\([^;]*\))\s*;", stubs._TYPEDEF_FN),
    "DECLARE_DISPATCH": (r"\bDECLARE_DISPATCH\s*\(", stubs._DECLARE),
    "host_name": (r"\bhost_name\s*\(", metal_names._HOST_NAME),
    "kernel void": (r"\b(?:kernel\s+void|void\s+kernel)\s+([A-Za-z_]\w*)\s*[(<]", metal_names._PLAIN_KERNEL),
    "elementwise": (r"\bTensorIterator::\w*(?:unary|binary|comparison|nullary)\w*op\b|\bTensorIteratorConfig\(\)",
                    shared_impl._ELEMENTWISE),
    "not elementwise": (r"\bmake_reduction\w*|\bresize_outputs\(\s*false\s*\)|\bas_strided\b|\brestride\w*",
                        shared_impl._NOT_ELEMENTWISE),
    "typedef (metal)": (r"\btypedef\b[^;{}]*?\b([A-Za-z_]\w*)\s*;", dict(metal_symbols.keyword_patterns())["typedef"]),
    "using namespace c10::metal": (r"\busing\s+namespace\s+(?:::)?c10\s*::\s*metal\s*;", metal_symbols._USING_C10),
    "namespace or brace": (r"\bnamespace\s+([\w:]+)\s*\{|[{}]", scan_definitions._NAMESPACE_OR_BRACE),
    "namespace": (r"\bnamespace\s+([\w:]+)\s*\{", source_index._NAMESPACE),
    "host callee": (r"(?<!\w)(" + "|".join(sorted(host_calls._NAME_ARGUMENT, key=len, reverse=True)) + r")\s*\(",
                    host_calls._CALLEE),
}

_PIECES = ["exec_", "unary", "_kernel", "_with_params", "using", "typedef", "void", "kernel", "DECLARE_DISPATCH",
           "host_name", "TensorIterator", "::", "binary_op", "Config()", "make_reduction", "resize_outputs(false)",
           "as_strided", "restride", "_functor", "REGISTER_DISPATCH", "CREATE_X_IMPL_FUNC", "x", "é", "_", "1", " ",
           "\n", "(", ")", "*", "=", ";", "<", "#define A(x) ", "c10", "metal", ":", "struct", "class", "enum",
           "union", "namespace", "{", "c10::metal::", "::c10::metal::", "class ", "struct ", "enum class ",
           "using ", "typedef ", "#define A(x) x", "# define B(y)", "\\\n", "\t", "#", "namespace ", "{",
           "}", "getPipelineStateForFunc", "binary_mps_impl"]
texts = st.lists(st.sampled_from(_PIECES), max_size=16).map("".join)


def _found(pattern: re.Pattern[str], text: str) -> list:
    return [(m.span(), m.groups()) for m in pattern.finditer(text)]


@pytest.mark.parametrize("name", sorted(PAIRS))
@given(text=texts)
def test_literal_first_pattern_finds_what_the_word_boundary_one_did(name, text):
    before, now = PAIRS[name]
    assert _found(now, text) == _found(re.compile(before), text)


@given(text=texts)
@example(text="::c10::metal::f x::c10::metal::g :c10::metal::h (c10::metal::i")
def test_qualified_c10_names_are_those_the_optional_colons_pattern_found(text):
    # the match now starts at c10, after a leading `::`: the same names, on the same lines
    before = re.compile(r"(?<![\w:])(?:::)?c10\s*::\s*metal\s*::\s*([A-Za-z_]\w*)")
    now = metal_symbols._QUALIFIED
    assert [(m.group(1), text.count("\n", 0, m.start())) for m in now.finditer(text)] == \
        [(m.group(1), text.count("\n", 0, m.start())) for m in before.finditer(text)]


_KEYWORD_PAIR = re.compile(r"\b(?:struct|class|union|enum|using)\s+(?:struct|class|union|enum|using)\b")


@given(text=texts)
@example(text="class A; struct B {}; union C; enum D; using E = int;")
def test_declared_types_are_those_the_alternation_found(text):
    # One pattern per keyword finds the same names, except after two keywords in a row (`struct class
    # X`, not C++; `enum class X` is tested below), where the alternation took the second as the name.
    assume(not _KEYWORD_PAIR.search(text))
    before = re.compile(r"\b(?:struct|class|union|enum(?:\s+class)?)\s+([A-Za-z_]\w*)|\busing\s+([A-Za-z_]\w*)\s*=")
    declarations = [p for kw, p in metal_symbols.keyword_patterns() if kw != "typedef"]
    assert {n for p in declarations for n in p.findall(text)} == {a or b for a, b in before.findall(text)}


def test_enum_class_declares_its_name():
    assert metal_symbols.declared_types("enum class Mode : int { a };\nusing T = float;\n") == {"Mode", "T"}


@pytest.mark.parametrize("pattern", [metal_symbols._DEFINE, host_calls._DEFINE])
@given(text=texts)
@example(text="x # define D(a) \\\n#define E(b) b\n \t#define F(c)")
def test_define_patterns_tried_at_directive_lines_find_what_finditer_did(pattern, text):
    assert _found_in(finditer_at(pattern, text, directive_line_starts(text))) == _found(pattern, text)


@given(text=texts)
@example(text="x # define D(a) \\\n#define E(b) b\n \t#define F(c)")
@example(text="#define A(x) exec_unary_kernel(iter, #x) \\\n  define\n#define B(y) y define")
def test_host_define_pattern_tried_on_the_lines_spelling_define_finds_what_finditer_did(text):
    pattern = host_calls._DEFINE
    assert _found_in(finditer_at(pattern, text, lines_holding(text, "define"))) == _found(pattern, text)


def _found_in(matches) -> list:
    return [(m.span(), m.groups()) for m in matches]


@given(text=texts)
def test_functor_uses_counts_the_words_the_pattern_found(text):
    expected: dict[str, int] = {}
    for name in re.findall(r"\b(\w+)_functor\b", text):
        expected[name] = expected.get(name, 0) + 1
    assert functor_uses("k.metal", text) == expected


@given(text=texts)
def test_macro_calls_are_those_a_word_boundary_pattern_finds(text):
    names = r"REGISTER_DISPATCH|CREATE_\w*IMPL\w*FUNC\w*|exec_"
    ix = SourceIndex("a.cpp", text)
    expected = []
    for m in re.finditer(r"\b(" + names + r")\s*\(", ix.masked):
        close = match_close(ix.masked, m.end() - 1)
        if m.start() not in ix.directives and close is not None:
            expected.append((m.group(1), m.start(), close))
    assert [(c.name, c.start, c.close) for c in ix.calls_matching(names)] == expected


@given(text=st.lists(st.sampled_from(["a", "Z", "_", "1", "09", " ", "é", "\n", "x1", "-", "::", "é1"]), max_size=16).map("".join))
def test_identifier_counts_are_those_of_the_identifier_pattern(text):
    assert identifier_counts(text) == dict(Counter(re.findall(r"[A-Za-z_]\w*", text)))


@given(text=st.lists(st.sampled_from(["a", "mps", "mp", "s", "_", "1", "09", " ", "é", "\n", "x1", "-", "::"]), max_size=16).map("".join))
def test_identifiers_containing_a_part_are_those_the_identifier_pattern_counts(text):
    counts = Counter(re.findall(r"[A-Za-z_]\w*", text))
    assert identifiers_containing(text, "mps") == {name: n for name, n in counts.items() if "mps" in name}


@given(text=st.lists(st.sampled_from(["#include <ATen/native/mps/", "#", " include ", "\n", "x", "_metallib.h", ">", '"',
                                       "#include \"ATen/native/mps/", "Unary", "#  include\t<", "ATen/native/mps/"]),
                     max_size=14).map("".join))
@example(text='# x_metallib.h\n#include <ATen/native/mps/Unary_metallib.h>\n#  include\t"ATen/native/mps/B_metallib.h"')
def test_metallib_stems_are_the_include_patterns_matches(text):
    """Tried only between the '#' before the first `_metallib.h` and the end of the last."""
    from mpsgen.lint.file_facts import _METALLIB, _metallib_stems

    assert _metallib_stems(text) == _METALLIB.findall(text)


@given(text=texts)
@example(text="namespace a::namespace {namespace b {}}")
def test_namespaces_are_those_a_match_at_every_namespace_word_found(text):
    # the spans were found by matching at every `namespace` (not only past the previous match)
    ix = SourceIndex("x.mm", text)
    spans = []
    for k in range(len(text)):
        m = re.compile(r"\bnamespace\s+([\w:]+)\s*\{").match(ix.masked, k)
        if m and m.end() - 1 in ix.brace_pairs:
            spans.append((m.end() - 1, ix.brace_pairs[m.end() - 1], m.group(1)))
    points = range(len(text) + 1)
    assert ix.namespaces(points) == {p: "::".join(n for a, b, n in spans if a < p < b) for p in points}
