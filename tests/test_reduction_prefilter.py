"""sources/native/reduction: a file that does not spell make_reduction or reduce_op is answered without
looking its kernel's lines up, the same answer as the masked body's (builds_reduction) and as reading the
helpers (passed_reduction_stub) on files spelling the words in code, comments, literals or other functions."""

from __future__ import annotations

import pytest

from mpsgen.scan.lines import LineTable
from mpsgen.scan.mask import mask
from mpsgen.sources.native.reduction import _REDUCTION, builds_reduction, passed_reduction_stub
from mpsgen.sources.native.shared_impl import find_shared_impl

ELSEWHERE = ("", "// make_reduction(\n", 'auto s = "TensorIterator::reduce_op(";\n',
             "static void helper(TensorIterator& it) {\n  auto iter = meta::make_reduction(it);\n  and_stub(iter.device_type(), iter);\n}\n")
BODIES = ("auto iter = meta::make_reduction(self, result, dim, keepdim, self.scalar_type());\n  sum_stub(iter.device_type(), iter);",
          "sum_stub(iter.device_type(), iter);",
          "// make_reduction(x)\n  sum_stub(iter.device_type(), iter);",
          "helper(self, result, and_stub);")


@pytest.mark.parametrize("before", ELSEWHERE)
@pytest.mark.parametrize("body", BODIES)
def test_the_file_check_answers_as_the_body(before: str, body: str) -> None:
    text = f"{before}TORCH_IMPL_FUNC(k_out)(const Tensor& self, const Tensor& result) {{\n  {body}\n}}\n"
    impl = find_shared_impl({f"aten/src/ATen/native/R{abs(hash(text))}.cpp": text}, "k_out")
    assert impl is not None
    table = LineTable(text)
    lines = mask(text).masked[table.start_of(impl.line): table.start_of(impl.end_line + 1)]
    assert builds_reduction(text, impl) == (_REDUCTION.search(lines) is not None)
    expected = "and_stub" if "helper(self" in body and "static void helper" in before else None
    assert passed_reduction_stub(text, impl) == expected
