"""shared_impl.builds_elementwise_iterator reads a definition's own lines: the same answer as the
patterns' matches over the whole file, kept when both their first and last lines are the definition's."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from mpsgen.sources.native.shared_impl import _ELEMENTWISE, _NOT_ELEMENTWISE, builds_elementwise_iterator


def _by_whole_file(text: str, start: int, end: int) -> bool:
    """The definition: every match in the file, by line, inside the lines of text[start:end]."""
    def line(pos: int) -> int:
        return text.count("\n", 0, pos) + 1

    inside = range(line(start), line(end) + 1)

    def any_inside(pattern: re.Pattern[str]) -> bool:
        return any(line(m.start()) in inside and line(max(m.start(), m.end() - 1)) in inside
                   for m in pattern.finditer(text))

    return any_inside(_ELEMENTWISE) and not any_inside(_NOT_ELEMENTWISE)


_PIECES = ["TensorIterator::binary_op(", "TensorIteratorConfig()", "TensorIterator", "::", "unary", "op", "x",
           "make_reduction", "resize_outputs(", "false", ")", " ", "\n", "as_strided", "restride", "_", "a"]


@given(st.lists(st.sampled_from(_PIECES), min_size=1, max_size=30).map("".join), st.data())
def test_a_definitions_lines_answer_as_the_whole_file_does(text: str, data) -> None:
    start = data.draw(st.integers(0, len(text) - 1))
    end = data.draw(st.integers(start, len(text) - 1))
    assert builds_elementwise_iterator(text, start, end) == _by_whole_file(text, start, end)


def test_a_match_crossing_the_last_line_is_not_the_definitions() -> None:
    text = "a\nTensorIteratorConfig() resize_outputs(\n false)"
    assert builds_elementwise_iterator(text, 2, 26) is True
    assert builds_elementwise_iterator(text, 2, len(text) - 1) is False
