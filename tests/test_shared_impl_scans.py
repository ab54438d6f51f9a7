"""The shared-kernel search's scans of a body (sources/native/shared_impl.py) find what the regex and
per-call bracket matching they replace found: one pass over the parentheses pairs each '(' as
match_close does, and the stub calls read from those pairs are the ones the call pattern gave."""

from __future__ import annotations

import re

from hypothesis import example, given
from hypothesis import strategies as st

from mpsgen.scan.brackets import match_close, paren_pairs, split_top_level
from mpsgen.sources.native import shared_impl
from mpsgen.sources.native.shared_impl import StubCall, find_shared_impl

_PIECES = ["(", ")", "((", "))", " ", "\n", "\t", ",", "f", "g_", "1", "1a", "é", "éa", "x.", "at::native::",
           "add_stub", "_stub", "device_type()", "kCPU", "kMPS", "DeviceType::MPS", "-alpha", "a < b", "<T>",
           "if (isIntegralType(self.scalar_type(), false)) {", "} else {", "}", "return x;", "{", ";"]
bodies = st.lists(st.sampled_from(_PIECES), max_size=30).map("".join)


def _reference_stub_calls(body_masked: str, first_line: int, known) -> list[StubCall]:
    """_stub_calls as the call pattern and match_close wrote it."""
    calls: list[StubCall] = []
    if not known and not any(w in body_masked for w in shared_impl._STUB_MARKS):
        return calls
    for m in re.finditer(r"([A-Za-z_](?<!\w[A-Za-z_])\w*)\s*\(", body_masked):
        name = m.group(1)
        close = match_close(body_masked, m.end() - 1)
        if close is None:
            continue
        if not known and not any(w in body_masked[m.end(): close] for w in shared_impl._STUB_MARKS):
            continue
        args = split_top_level(body_masked[m.end(): close])
        line = first_line + body_masked.count("\n", 0, m.start())
        if args and shared_impl._DEVICE_ARG.match(args[0]) and len(args) >= 2:
            extras = tuple(" ".join(a.split()) for a in args[2:])
            calls.append(StubCall(name, line, None, extras, shared_impl._diverted(body_masked, m.start())))
            continue
        for arg in args:
            if re.fullmatch(r"(?:at::native::)?([A-Za-z_]\w*)", arg):
                bare = arg.rsplit("::", 1)[-1]
                if bare.endswith("_stub") or bare in known:
                    calls.append(StubCall(bare, line, name))
    return calls


@given(text=bodies)
def test_paren_pairs_are_what_match_close_finds_for_each_paren(text):
    expected = {k: match_close(text, k) for k, ch in enumerate(text) if ch == "("}
    assert paren_pairs(text) == {k: c for k, c in expected.items() if c is not None}


@given(body=bodies, known=st.sampled_from([(), ("g_",), ("f", "add_stub")]))
@example(body="add_stub(device_type(), a, -alpha)", known=())
@example(body="f(g_ (kCPU, x), add_stub)\n1a(add_stub) éa(add_stub)", known=())
def test_stub_calls_are_the_ones_the_call_pattern_found(body, known):
    assert shared_impl._stub_calls(body, "", 3, known) == _reference_stub_calls(body, 3, known)


def test_a_device_call_and_a_passed_stub() -> None:
    body = "{\n  add_stub(device_type(), iter, -alpha);\n  helper(iter, sub_stub);\n  x.f(kMPS);\n}"
    assert shared_impl._stub_calls(body, "", 10, ()) == [
        StubCall("add_stub", 11, None, ("-alpha",), ""), StubCall("sub_stub", 12, "helper")]


_FILE_PIECES = ["Tensor& foo(const Tensor& a) {\n  return a;\n}\n", "foo_out(x);\n", "xfoo(y);\n", "foo2(y);\n",
                "// foo(z) {\n", "/* foo */\n", '"foo"', "x.foo(1);\n", "void bar() { foo(1); }\n", "é", "\n",
                "Tensor foo_bar(int a) {}\n", "#define M(x) foo(x)\n", "R\"(foo)\"\n"]
_files = st.lists(st.lists(st.sampled_from(_FILE_PIECES), max_size=5).map("".join), min_size=1, max_size=3)


@given(texts=_files, name=st.sampled_from(["foo", "foo_bar", "bar"]))
def test_files_ruled_out_by_their_letter_runs_hold_no_plain_definition(texts, name):
    """A file where the name is none of the word index's runs is skipped: the answer is the one of a
    search of every file."""
    from mpsgen.lint.shared_kernels import word_text

    sources = {f"f{k}.cpp": t for k, t in enumerate(texts)}
    runs = {p: set(word_text(t.encode()).split(b"\n")) for p, t in sources.items()}
    pruned = find_shared_impl(sources, name, may_define=lambda p: name.encode() in runs[p])
    assert pruned == find_shared_impl(sources, name)


def _reference_expand(params, body, args):
    """_expand as a substitution at every identifier wrote it."""
    subst = dict(zip(params, args))
    out = re.sub(r"[A-Za-z_]\w*", lambda m: subst.get(m.group(0), m.group(0)), body)
    out = re.sub(r"\s*##\s*", "", out)
    return re.sub(r"(?<![\w#])#\s*(\w+)", lambda m: m.group(1), out)


_MACRO_PIECES = ["NAME", "STUB", "x", "2NAME", "éNAME", "NAME2", "##", " ## ", "#", "# ", "#NAME", "\n", " ", "(", ")",
                 "_stub", "TORCH_IMPL_FUNC(", "{", "}", ",", "\t##\n"]


@given(body=st.lists(st.sampled_from(_MACRO_PIECES), max_size=20).map("".join),
       params=st.lists(st.sampled_from(["NAME", "STUB", "x", "NAME"]), max_size=3),
       args=st.lists(st.sampled_from(["eq", "", " a ", "##", "#b", "k_stub", "NAME"]), max_size=4))
@example(body="a ## ## b ### c#NAME", params=["NAME"], args=[""])
def test_a_macro_expands_as_the_substitution_at_every_identifier_did(body, params, args):
    assert shared_impl._expand(params, body, args) == _reference_expand(params, body, args)


def test_a_control_word_names_no_definition_whichever_way_it_is_looked_up():
    """`MAYBE_UNUSED if (...) {` reads like `T name(...) {`: the targeted lookup took it for a definition
    of `if`, which the index of every function never did (handovers look up each call of a body)."""
    from mpsgen.sources.index import SourceIndex

    text = "void f(int x) {\n  MAYBE_UNUSED if (x) {\n    g(x);\n  }\n}\n"
    targeted = SourceIndex("a.cpp", text)
    assert targeted.plain_function("if") is None and targeted.plain_function("f") is not None
    indexed = SourceIndex("a.cpp", text)
    assert "if" not in indexed.functions_by_name and indexed.plain_function("if") is None
