"""The frontier's readers skip masking a native/*.cpp when the raw body cannot hold what they look for
(masking only blanks characters, so a pattern spelling a word matches the masked body only where the raw
body spells it), and namespaces_at stops once every position is placed: both give the answers of reading
the masked text whole, on bodies whose words sit in code, comments and literals."""

from __future__ import annotations

import itertools

import pytest

from mpsgen.scan.definitions import namespaces_at
from mpsgen.scan.mask import mask_code
from mpsgen.sources.native import indexing, reduction
from mpsgen.sources.native.shared_impl import SharedImpl, StubCall

# Each piece is one line of a body; in code, in a comment or in a literal.
PIECES = [
    "  auto iter = meta::make_reduction(result, self, dim, keepdim, self.scalar_type());",
    "  // meta::make_reduction(result, self, dim, keepdim, dtype);",
    '  const char* s = "TensorIterator::reduce_op(a, b)";',
    "  auto iter = TensorIterator::reduce_op(result, self);",
    "  sum_stub(iter.device_type(), iter);",
    "  /* gather_stub(result.device().type(), result, self, dim, index); */",
    "  gather_stub(result.device().type(), result, self, dim, index);",
    "  allany_impl<1>(self, result, dim, keepdim, and_stub);",
    '  TORCH_CHECK(true, "and_stub device");',
    "  at::native::resize_output(result, self.sizes());",
]

HELPER = """static void allany_impl(const Tensor& self, Tensor& result, int64_t dim, bool keepdim, auto& stub) {
  auto iter = meta::make_reduction(self, result, dim, keepdim, kBool);
  stub(iter.device_type(), iter);
}
"""


def _file(body: list[str]) -> tuple[str, SharedImpl]:
    head = "Tensor& kernel_out(const Tensor& self, Tensor& result) {"
    text = HELPER + "\n".join([head, *body, "  return result;", "}"]) + "\n"
    first = HELPER.count("\n") + 1
    stubs = tuple(StubCall(s, first + 1 + k) for k, line in enumerate(body) for s in ("sum_stub",)
                  if line.lstrip().startswith(s))
    impl = SharedImpl("kernel_out", "function", stubs, "native/X.cpp", first, first + len(body) + 2)
    return text, impl


def _masked_body(text: str, impl: SharedImpl) -> str:
    lines = text.splitlines(keepends=True)
    start = sum(len(x) for x in lines[: impl.line - 1])
    end = sum(len(x) for x in lines[: impl.end_line])
    return mask_code(text)[start:end]


BODIES = [list(c) for n in (1, 2, 3) for c in itertools.combinations(PIECES, n)]


@pytest.mark.parametrize("body", BODIES, ids=lambda b: "|".join(str(PIECES.index(x)) for x in b))
def test_readers_answer_as_the_masked_body_does(body: list[str]) -> None:
    text, impl = _file(body)
    masked = _masked_body(text, impl)
    assert reduction.builds_reduction(text, impl) == (reduction._REDUCTION.search(masked) is not None)
    called = indexing.called_stubs(text, impl)
    assert called == tuple(dict.fromkeys((*impl.stub_names, *(m.group(1) for m in indexing._STUB_CALL.finditer(masked)))))
    if "_stub" not in text[text.index("kernel_out("):]:  # the prefilter answers: the old reading found no stub word
        assert reduction.passed_reduction_stub(text, impl) is None and not reduction._STUB_WORD.search(masked)


def test_a_stub_passed_to_a_reducing_helper_is_still_found() -> None:
    text, impl = _file([PIECES[7], PIECES[8]])  # and_stub passed in code, spelled again in a literal
    assert reduction.passed_reduction_stub(text, impl) == "and_stub"
    text, impl = _file(["  // allany_impl<1>(self, result, dim, keepdim, and_stub);"])
    assert reduction.passed_reduction_stub(text, impl) is None


def test_namespaces_stop_at_the_last_position_with_the_same_answers() -> None:
    text = mask_code("namespace at { namespace native {\nvoid f() { g(); }\nDECLARE(x);\n}\n"
                     "struct S { int y; };\n}  // namespace at\nnamespace c10 { void h() {} }\nint z;\n")
    points = [text.index(w) for w in ("void f", "g()", "DECLARE", "struct", "int y", "void h", "int z")]
    expected = ["at::native", "at::native", "at::native", "at", "at", "c10", ""]
    assert [namespaces_at(text, points)[p] for p in points] == expected
    assert [namespaces_at(text, [p])[p] for p in points] == expected  # each alone stops earlier still
