"""stub_callers places a stub's use in the definition whose body holds it from the braces holding the use
(no list of every definition of the file): the same definition as the innermost of `SourceIndex.functions`
holding it, at every position of texts with namespaces, classes, macros, directives, strays and braces in
comments and literals."""

from __future__ import annotations

import itertools

import pytest

from mpsgen.sources.index import SourceIndex
from mpsgen.sources.native.stub_callers import _enclosing_definition

PIECES = [
    "namespace at::native {",
    "}  // namespace",
    "static void helper(int x) {\n  foo_stub(kCPU, x);\n}",
    "TORCH_IMPL_FUNC(add_out)(const Tensor& self) {\n  if (x) { foo_stub(kCPU, self); }\n}",
    "struct S {\n  void run() const override {\n    foo_stub(kCPU);\n  }\n};",
    "void outer() {\n  struct L { void inner() { foo_stub(); } };\n  auto f = [&]() { foo_stub(); };\n}",
    'const char* s = "{ void g() {";  // }',
    "/* void h() { */ int y = foo_stub;",
    "#define MAKE(n) void n() { foo_stub(); }",
    "void split()\n#if defined(X)\n{\n#else\n{\n#endif\n  foo_stub();\n}",
    "CREATE_UNARY_TORCH_IMPL_FUNC(acos_out, foo_stub)",
    'extern "C" {\nvoid c_fn() noexcept { foo_stub(); }\n}',
    "void unclosed() {\n  foo_stub();",
    "}",
    "Tensor& k_out(const Tensor& a,\n    Tensor& out) {\n  for (;;) { while (1) { foo_stub(); } }\n  return out;\n}",
]

TEXTS = ["\n".join(c) + "\n" for n in (1, 2, 3) for c in itertools.permutations(PIECES, n) if n < 3 or len(set(c)) == 3]


def _innermost(ix: SourceIndex, pos: int) -> object:
    """What stub_callers answered before: the innermost definition of every one listed holding *pos*."""
    outer = [s for s in ix.functions if s.body_open < pos < s.body_close]
    return min(outer, key=lambda s: s.body_close - s.body_open) if outer else None


def _key(span: object) -> object:
    return None if span is None else (span.name, span.start)  # type: ignore[attr-defined]


@pytest.mark.parametrize("text", TEXTS[::7] + TEXTS[: len(PIECES)])
def test_the_braces_holding_a_use_place_it_as_every_definition_listed_does(text: str) -> None:
    fresh, listed = SourceIndex("x.cpp", text), SourceIndex("x.cpp", text)
    positions = [k for k, ch in enumerate(fresh.masked) if ch.isalnum() or ch == "_"]
    expected = [_key(_innermost(listed, k)) for k in positions]
    assert [_key(_enclosing_definition(fresh, k)) for k in positions] == expected
    assert "functions" not in fresh.__dict__  # the answers above came from the braces alone
    assert [_key(_enclosing_definition(listed, k)) for k in positions] == expected  # the listed ones, when built
