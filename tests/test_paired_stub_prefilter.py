"""frontier._paired_stub: paired_stub(called_stubs(...)) told from the raw file and body when no pair can match,
the same answer on bodies that spell the pair in code, comments, literals, longer words, another function or
not at all."""

from __future__ import annotations

import pytest

from mpsgen.generate.reduction_ops import paired_stub
from mpsgen.lint.frontier import _paired_stub
from mpsgen.sources.native.indexing import called_stubs
from mpsgen.sources.native.shared_impl import find_shared_impl

PATH = "aten/src/ATen/native/ReduceOps.cpp"
BODIES = (
    "aminmax_stub(self.device().type(), self, dim, keepdim, min, max);",
    "if (dim) { aminmax_stub(self.device().type(), self, *dim, keepdim, min, max); }\n"
    "else { aminmax_allreduce_stub(self.device().type(), self.contiguous(), min, max); }",
    "aminmax_stub(self.device().type(), x);\n// aminmax_allreduce_stub(self.device().type(), x);",
    'aminmax_stub(self.device().type(), x); auto s = "aminmax_allreduce_stub(self.device().type(), x)";',
    "aminmax_stub(self.device().type(), x); my_aminmax_allreduce_stub_2(self.device().type(), x);",
    "aminmax_stub(iter.device_type(), iter); aminmax_allreduce_stub(iter.device_type(), iter);",
    "sum_stub(self.device().type(), x); aminmax_allreduce_stub(self.device().type(), x);",
    "auto r = at::amin(self); return r;",
    "/* aminmax_stub aminmax_allreduce_stub */ sum_stub(iter.device_type(), iter);",
)


@pytest.mark.parametrize("before", ("", "void other(const Tensor& x) { aminmax_allreduce_stub(x.device().type(), x); }\n"))
@pytest.mark.parametrize("body", BODIES)
def test_the_prefilter_answers_as_the_reader(before: str, body: str) -> None:
    text = f"namespace at::native {{\n{before}TORCH_IMPL_FUNC(aminmax_out)(const Tensor& self) {{\n  {body}\n}}\n}}\n"
    impl = find_shared_impl({PATH: text}, "aminmax_out")
    assert impl is not None
    assert _paired_stub(text, impl) == paired_stub(called_stubs(text, impl))


def test_the_pair_is_found() -> None:
    text = f"TORCH_IMPL_FUNC(aminmax_out)(const Tensor& self) {{\n  {BODIES[1]}\n}}\n"
    impl = find_shared_impl({PATH: text}, "aminmax_out")
    assert impl is not None and _paired_stub(text, impl) == "aminmax_stub"
