"""sources.index.may_define: the raw-text check that lets a plain-function lookup skip masking a file."""

from __future__ import annotations

import pytest

from mpsgen.sources.index import index_of, may_define


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
    assert may_define(text, "foo")


@pytest.mark.parametrize("text", [
    "  y = x.foo(1);\n",
    "  y = at::native::foo(1);\n",
    "  call(foo, bar);\n",
    "  int foo_bar(int);\n  int afoo(int);\n",
    "  foo;\n",
])
def test_skipped_when_every_occurrence_is_a_use(text: str) -> None:
    assert not may_define(text, "foo")


def test_plain_function_agrees_with_the_masked_search() -> None:
    text = "Tensor a(const Tensor& s) { return s.foo(1); }\nTensor& // out\nfoo(Tensor& s) {\n  return s;\n}\n"
    found = index_of("x.cpp", text).plain_function("foo")
    assert found is not None and text[found.start:].startswith("foo(Tensor& s)")
    assert index_of("y.cpp", "void f() { x.foo(1); }\n").plain_function("foo") is None
