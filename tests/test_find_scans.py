"""The scanners that find their characters with str.find (at memchr speed) rather than a regex
tried at every offset answer exactly what the regex forms answered."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from mpsgen.scan import definitions, mask
from mpsgen.scan.anchored import directive_line_starts
from mpsgen.sources.host import mm as host

_PIECES = ["{", "}", "(", ")", ";", "#", " #", "\t#", "\n", "\r\n", "\\\n", " ", "\t", "x", "_", "1", "é", "\x0b",
           "/", "//", "/*", "*/", '"', "'", "R", 'R"', "\\", "a'b", "foo", "bar", "foo (", "bar(", "::", "const",
           "mpsGraph", "MPSGraphTensor", "runMPSGraph", "lib . exec_", "lib.", "exec_unary_kernel", "binaryOpTensor",
           "unary_op (", "CREATE_MPS_X", "getPipelineStateForFunc", "mtl_setArgs", "MetalShaderLibrary",
           'u8R"', 'LR"x(', ')x"', '"\\"', "'\\''", '"a"', "/ /", "<a/b.h>", "\\\r\n", "\r", "\\\r\r\n", "\n#", "\n  #"]
texts = st.lists(st.sampled_from(_PIECES), max_size=40).map("".join)


def _reference_brace_pairs(code: str) -> dict[int, int]:
    pairs: dict[int, int] = {}
    stack: list[int] = []
    for m in re.finditer(r"[{}]", code):
        if m.group(0) == "{":
            stack.append(m.start())
        elif stack:
            pairs[stack.pop()] = m.start()
    return pairs


def _reference_match_open(code: str, close: int) -> int | None:
    if code[close] in "{};":
        return None
    stop = max(code.rfind("{", 0, close), code.rfind("}", 0, close), code.rfind(";", 0, close))
    depth = 0
    for m in reversed(list(re.finditer(r"[()]", code[: close + 1]))):
        if m.start() <= stop:
            break
        depth += 1 if m.group(0) == ")" else -1
        if m.group(0) == "(" and depth == 0:
            return m.start()
    return None


def _reference_word_before(code: str, end: int) -> tuple[int, int] | None:
    k = end - 1
    while k >= 0 and code[k] in " \t\r\n\f\v":
        k -= 1
    j = k
    while j >= 0 and (code[j].isalnum() or code[j] == "_"):
        j -= 1
    return None if j == k or code[j + 1].isdigit() else (j + 1, k + 1)


@given(text=texts)
def test_tokens_are_the_token_patterns_matches(text):
    found = list(mask._tokens(text))
    reference = []
    for m in mask._TOKEN.finditer(text):
        s = m.start()
        if s and m.group("delim") is not None:  # a raw string's span starts at its encoding prefix
            s -= 2 if text[s - 2 : s] == "u8" and (s == 2 or text[s - 3] not in mask._WORD_CHARS) else (
                1 if text[s - 1] in "uUL" and (s == 1 or text[s - 2] not in mask._WORD_CHARS) else 0)
        why = None if m.lastgroup in mask._TERMINATED else mask._unterminated(m)
        reference.append((s, m.end(), why))
    assert found == reference


@given(text=texts)
def test_directive_starts_are_the_line_start_pattern_matches(text):
    assert list(mask._directive_starts(text)) == [m.start() for m in re.finditer(r"^[ \t]*#", text, re.M)]


@given(text=texts)
def test_directive_line_starts_are_the_line_start_pattern_matches(text):
    assert directive_line_starts(text) == [m.start() for m in re.finditer(r"^[ \t]*#", text, re.M)]


def _reference_directive_spans(text: str) -> list[tuple[int, int]]:
    r"""Each `^[ \t]*#` line with the lines its backslash (before any \r) continues onto, line break excluded."""
    spans: list[tuple[int, int]] = []
    for m in re.finditer(r"^[ \t]*#", text, re.M):
        if spans and m.start() < spans[-1][1]:
            continue
        end = m.start()
        while (brk := text.find("\n", end)) >= 0 and text[:brk].rstrip("\r").endswith("\\"):
            end = brk + 1
        spans.append((m.start(), len(text) if brk < 0 else brk))
    return spans


@given(text=texts)
def test_directive_spans_follow_backslash_continuations(text):
    assert mask.Directives(text).spans == _reference_directive_spans(text)


@given(text=texts)
def test_blanking_keeps_exactly_the_line_breaks(text):
    assert mask.blank_keeping_breaks(text) == re.sub(r"[^\r\n]", " ", text)


@given(text=texts)
def test_brace_pairs_and_backward_scans_match_their_walks(text):
    assert definitions.brace_pairs(text) == _reference_brace_pairs(text)
    for k, ch in enumerate(text):
        if ch == ")":
            assert definitions._match_open(text, k) == _reference_match_open(text, k)
        assert definitions._word_before(text, k) == _reference_word_before(text, k)


def test_a_word_longer_than_the_backward_window_is_read_whole():
    code = "int " + "a" * 200 + "é" * 3 + "b" * 100 + "("
    assert definitions._word_before(code, len(code) - 1) == (4, len(code) - 1)


@given(body=texts)
def test_classify_and_callees_answer_what_the_regexes_did(body):
    expected = ("metal" if host._METAL_MARKERS.search(body) else
                "mpsgraph" if host._GRAPH_MARKERS.search(body) else "unknown")
    assert host._classify(body) == expected
    names = {"foo", "bar", "x", "é", "exec_unary_kernel", "unary_op"}
    called = set(re.findall(r"\b(\w+)\s*\(", body)) & names
    assert host._callees(body, {n[::-1]: n for n in names}) == called
