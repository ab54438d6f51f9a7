"""sources/native/handover.handovers reads the kernel's own `at::` calls before its helpers': the same
answer as reading every place first (the reference below, the reader as it was), with and without a
*wanted* filter, on kernels whose calls sit in the body, in helpers, in comments and literals."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from mpsgen.sources.index import index_of
from mpsgen.sources.native.handover import _AT_CALL, _CALL, Handover, handovers
from mpsgen.sources.native.shared_impl import find_shared_impl
from mpsgen.sources.native_yaml.cpp_api import at_spellings
from mpsgen.sources.native_yaml.facts import family_key
from mpsgen.sources.native_yaml.index import NativeIndex, index_text

YAML = """- func: linalg_vector_norm.out(Tensor self, Scalar ord=2, *, Tensor(a!) out) -> Tensor(a!)
  dispatch:
    CPU, CUDA: linalg_vector_norm_out

- func: norm.out(Tensor self, Scalar p, *, Tensor(a!) out) -> Tensor(a!)
  dispatch:
    CPU, CUDA: norm_out

- func: sum.IntList_out(Tensor self, int[1]? dim, bool keepdim=False, *, Tensor(a!) out) -> Tensor(a!)
  dispatch:
    CPU, CUDA: sum_out

- func: empty.memory_format(SymInt[] size) -> Tensor
  dispatch:
    CPU: empty_cpu
"""
PATH = "aten/src/ATen/native/Norm.cpp"
STATEMENTS = (
    "at::linalg_vector_norm_out(result, self, p);",
    "at::sum_out(result, self);",
    "auto t = at::empty({0});",
    "at::norm_out(result, self, p);",
    "at::unknown_op(self);",
    "// at::sum_out(result, self);",
    'auto s = "at::linalg_vector_norm_out(";',
    "helper_a(self, result);",
    "helper_b(self);",
    "result.size(0);",
    "return result;",
)
HELPER_BODIES = ("", "at::sum_out(r, s);", "at::empty({1});", "/* at::sum_out( */", "at::linalg_vector_norm_outf(r, s, 2);")


def reference(text: str, impl, index: NativeIndex, family: str) -> tuple[Handover, ...]:
    """handovers as it read before: every place's calls gathered, then judged."""
    ix = index_of(impl.path, text)
    body = ix.masked[ix.lines.start_of(impl.line): ix.lines.start_of(impl.end_line + 1)]
    places = [("", body)]
    helpers: dict = {}
    for call in _CALL.finditer(body):
        name = call.group(1)
        if name not in helpers:
            helpers[name] = ix.plain_function(name)
        helper = helpers[name]
        if helper is not None and helper.name != impl.kernel:
            places.append((helper.name, ix.masked[helper.body_open: helper.body_close]))
    calls = [(via, m.group(1)) for via, code in places for m in _AT_CALL.finditer(code)]
    if len(calls) != 1:
        return ()
    via, name = calls[0]
    base = name.removesuffix("f").removesuffix("_out") if name.endswith(("_out", "_outf")) else name
    key = family_key(base)
    if key == family or not index.has_family(key):
        return ()
    entry = next((e for e in index.family(key).entries if name in at_spellings(e)), None)
    return (Handover(impl.kernel, f"at::{name}", entry, via),) if entry is not None else ()


WANTED = (None, lambda h: True, lambda h: False, lambda h: h.callee == "at::linalg_vector_norm_out")


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(STATEMENTS), max_size=4), st.sampled_from(HELPER_BODIES),
       st.sampled_from(HELPER_BODIES), st.sampled_from(range(len(WANTED))))
def test_the_body_first_answers_as_every_place_first(body: list[str], a: str, b: str, pick: int) -> None:
    text = (f"namespace at::native {{\nstatic void helper_a(const Tensor& s, Tensor& r) {{\n  {a}\n}}\n"
            f"static void helper_b(const Tensor& s) {{\n  {b}\n}}\n"
            "Tensor& norm_out(const Tensor& self, const Scalar& p, Tensor& result) {\n  "
            + "\n  ".join(body) + "\n  return result;\n}\n}\n")
    impl = find_shared_impl({PATH: text}, "norm_out")
    assert impl is not None
    index = index_text(YAML)
    wanted = WANTED[pick]
    expected = tuple(h for h in reference(text, impl, index, "norm") if wanted is None or wanted(h))
    assert handovers(text, impl, index, "norm", wanted) == expected


def test_a_handover_in_the_body_and_one_in_a_helper_are_found() -> None:
    index = index_text(YAML)
    for body, helper, callee, via in (
            ("at::linalg_vector_norm_out(result, self, p);", "", "at::linalg_vector_norm_out", ""),
            ("helper_a(self, result);", "at::linalg_vector_norm_outf(r, s, 2);", "at::linalg_vector_norm_outf", "helper_a")):
        text = (f"namespace at::native {{\nstatic void helper_a(const Tensor& s, Tensor& r) {{\n  {helper}\n}}\n"
                f"Tensor& norm_out(const Tensor& self, const Scalar& p, Tensor& result) {{\n  {body}\n  return result;\n}}\n}}\n")
        impl = find_shared_impl({PATH: text}, "norm_out")
        assert impl is not None
        found = handovers(text, impl, index, "norm")
        assert [(h.callee, h.via, h.entry.name) for h in found] == [(callee, via, "linalg_vector_norm.out")]
        assert handovers(text, impl, index, "norm", lambda h: False) == ()
