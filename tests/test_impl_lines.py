"""sources/native/impl_lines: a kernel's lines told from its definition's offsets are those of the file's line
table, and its masked lines from a mask of the definition's region alone are the whole file's mask there,
whatever comments, literals, raw strings, macros and continued lines come before, inside or after the
definition (or spell it again)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from mpsgen.scan.lines import LineTable
from mpsgen.scan.mask import mask
from mpsgen.sources.index import index_of
from mpsgen.sources.native.impl_lines import impl_span, masked_lines
from mpsgen.sources.native.shared_impl import find_shared_impl

AROUND = (
    "/* a comment\n   TORCH_IMPL_FUNC(k_out)(const Tensor& x) {\n*/\n",
    "/* opens\n",
    "*/\n",
    "// Tensor& k_out(const Tensor& self) {\n",
    'const char* s = "TORCH_IMPL_FUNC(k_out)(x) { // ";\n',
    'auto r = R"doc(\nTensor& k_out(const Tensor& self) {\n)doc";\n',
    "#define K(x) \\\n  Tensor& k_out(x) { \\\n  }\n",
    "static int other(int a) { return a; }\n",
    "char c = '{';\n",
    "namespace at::native {\n",
    "}\n",
    "\n" * 3,
    "x" * 3000 + ";\n",  # past the first region: the lookup grows it
)
INSIDE = (
    "at::sum_out(result, self);",
    "// } a brace in a comment",
    '"}";',
    "'}';",
    "/* } */",
    "add_stub(iter.device_type(), iter);",
    "if (x) { y(); }",
    "auto s = R\"(})\";",
)
CLOSES = ("\n}  // k_out\n", "\n}", "\n} /* } */ int y;\n", "}\n")  # the last: on the body's last line
HEADS = ("TORCH_IMPL_FUNC(k_out)(const Tensor& self, const Tensor& result) {",
         "Tensor& k_out(const Tensor& self, Tensor& result) {")


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(AROUND), max_size=4), st.sampled_from(HEADS),
       st.lists(st.sampled_from(INSIDE), max_size=4), st.sampled_from(CLOSES), st.lists(st.sampled_from(AROUND), max_size=3))
def test_the_region_mask_is_the_file_mask(before: list[str], head: str, inside: list[str], close: str,
                                          after: list[str]) -> None:
    text = "".join(before) + head + "\n  " + "\n  ".join(inside) + close + ("".join(after) if close.endswith("\n") else "")
    path = f"aten/src/ATen/native/K{abs(hash(text))}.cpp"  # a fresh index each time (index_of is cached)
    impl = find_shared_impl({path: text}, "k_out")
    if impl is None:
        return
    table = LineTable(text)
    start, end = table.start_of(impl.line), table.start_of(impl.end_line + 1)
    assert impl_span(text, impl)[1:] == (start, end)
    ix, at, lines = masked_lines(text, impl)
    assert ix is index_of(path, text) and at == start
    assert lines == mask(text).masked[start:end]
