"""StubLookup (Inventory.stub_declarations, parsing only the headers that spell a name) answers as
index_stub_declarations over every header does: precedence across headers and namespaces, aliases
local or from another header, names and aliases spelled in comments, literals and #defines; on the
wheel's headers, for every stub."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from mpsgen.sources.native.stub_lookup import StubLookup
from mpsgen.sources.native.stubs import index_stub_declarations

# Pieces of headers: each may declare, alias, shadow or only mention a stub or an alias.
PIECES = (
    "using unary_fn = void(*)(TensorIteratorBase&);\n",
    "using unary_fn = void(*)(TensorIterator&, const Scalar&);\n",
    "typedef void (*binary_fn)(TensorIteratorBase&, const Scalar& alpha);\n",
    "using chained_fn = unary_fn;\n",
    "using loop_fn = loop_fn;\n",
    "using scalar_fn = void (*)(TensorIteratorBase&, const c10::Scalar& /* value */);\n",
    "DECLARE_DISPATCH(unary_fn, abs_stub)\n",
    "DECLARE_DISPATCH(binary_fn, add_stub);\n",
    "DECLARE_DISPATCH(chained_fn, abs_stub)\n",
    "DECLARE_DISPATCH(void(*)(TensorIterator&, int64_t), fill_stub)\n",
    "DECLARE_DISPATCH(scalar_fn, fill_stub)\n",
    "DECLARE_DISPATCH(undeclared_fn, mul_stub)\n",
    "DECLARE_DISPATCH(loop_fn, loop_stub)\n",
    "DECLARE_DISPATCH(void(*)(int), cpublas::copy_stub)\n",
    "// DECLARE_DISPATCH(unary_fn, add_stub)\n",
    "/* using unary_fn = void(*)(int); */\n",
    'const char* s = "DECLARE_DISPATCH(unary_fn, mul_stub)";\n',
    "#define DECLARE_DISPATCH(fn, name) extern fn name\n",
    "#define DECL(n) DECLARE_DISPATCH(unary_fn, n)\n",
    "namespace at::native {\n",
    "namespace cpublas {\n",
    "}\n",
    "abs_stub add_stub fill_stub mul_stub unary_fn binary_fn\n",
    "DECLARE_DISPATCH(\n    unary_fn,\n    mul_stub)\n",
)
NAMES = ("abs_stub", "add_stub", "fill_stub", "mul_stub", "loop_stub", "copy_stub", "cpublas::copy_stub", "n",
         "unary_fn", "absent_stub", "")

headers = st.lists(st.lists(st.sampled_from(PIECES), max_size=8).map("".join), min_size=1, max_size=4)


@settings(max_examples=300, deadline=None)
@given(headers)
def test_lookup_answers_as_the_whole_index(texts: list[str]) -> None:
    files = {f"aten/src/ATen/native/H{k}.h": t for k, t in enumerate(texts)}
    whole = index_stub_declarations(files)
    lookup = StubLookup(list(files), files.__getitem__)
    for name in (*NAMES, *whole):
        assert lookup.get(name) == whole.get(name), name


def test_an_alias_from_an_earlier_header_wins_and_nested_namespaces_yield() -> None:
    files = {
        "aten/src/ATen/native/A.h": "namespace at::native {\nusing unary_fn = void(*)(TensorIteratorBase&);\n"
                                    "DECLARE_DISPATCH(unary_fn, abs_stub)\n}\n",
        "aten/src/ATen/native/B.h": "using unary_fn = void(*)(TensorIterator&, int64_t);\n",
        "aten/src/ATen/native/C.h": "namespace at::native { namespace cpublas {\n"
                                    "DECLARE_DISPATCH(unary_fn, abs_stub)\n} }\n"
                                    "DECLARE_DISPATCH(other_fn, neg_stub)\n",
        "aten/src/ATen/native/D.h": "using other_fn = unary_fn;\n",
    }
    lookup = StubLookup(list(files), files.__getitem__)
    whole = index_stub_declarations(files)
    assert lookup.get("abs_stub") == whole["abs_stub"]
    assert lookup.get("neg_stub") == whole["neg_stub"]
    assert whole["abs_stub"].path.endswith("A.h") and whole["abs_stub"].params == ("TensorIteratorBase&",)
    assert not whole["neg_stub"].resolved  # D.h aliases no function-pointer type: its aliases are not read


def test_every_stub_of_the_wheel_headers_and_the_answers_kept() -> None:
    spec = importlib.util.find_spec("torch")
    assert spec is not None and spec.origin is not None
    native = Path(spec.origin).parent / "include" / "ATen" / "native"
    files = {f"aten/src/ATen/native/{p.name}": p.read_text(encoding="utf-8") for p in sorted(native.glob("*.h"))}
    whole = index_stub_declarations(files)
    answers: dict = {}
    told: list[int] = []
    lookup = StubLookup(list(files), files.__getitem__, answers, lambda: told.append(len(answers)))
    for name in (*whole, "absent_stub"):
        assert lookup.get(name) == whole.get(name), name
    assert answers == {**whole, "absent_stub": None} and told == list(range(1, len(whole) + 2))
    kept = StubLookup(list(files), lambda _: "", answers)  # the fact store's answers: nothing read again
    assert kept.get("add_stub") == whole["add_stub"] and kept.get("absent_stub", whole["add_stub"]) == whole["add_stub"]
