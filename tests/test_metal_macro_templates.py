"""sources/metal/name_scan.py (names.py's scan) reads a local macro's body once per file (its template) and fills each call's
plain-word arguments in, where it used to expand the body and scan the expansion at every call: the
names and the registrations are those of the expansion scanned, on crafted .metal texts (the
expansion path, still taken for the calls a template cannot stand for, is the oracle: every call is
sent down it) and on the .metal files of the tests and fixtures."""

from __future__ import annotations

from pathlib import Path

import metal_reference as ref
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mpsgen.sources.metal import name_scan
from mpsgen.sources.metal import names as mn

ROOT = Path(__file__).resolve().parent.parent
METAL_FILES = sorted(p for d in ("tests", "fixtures") for p in (ROOT / d).rglob("*.metal"))


def _both(text: str, monkeypatch: pytest.MonkeyPatch) -> tuple[object, object]:
    """names_and_registrations(text) read with templates, and with every call expanded."""
    with_templates = mn.names_and_registrations(text, "k.metal")
    with monkeypatch.context() as m:
        m.setattr(name_scan._Define, "template", lambda self, file: None)
        expanded = mn.names_and_registrations(text, "k.metal")
    return with_templates, expanded


# Macros whose calls a template stands for and those it must not: a parameter stringised (host_name
# pieces), pasted (`##`: never templated), unused, named like a call word; a body calling another
# local macro, a parameter called (the argument may be a macro or host_name), a header REGISTER_* with a parameter in a compound argument, a literal holding a
# parameter's name, a call continued over lines, a comment, an #if block around calls.
_PIECES = st.sampled_from([
    "#define F(NAME) \\\n  REGISTER_BINARY_OP(NAME, float, float); \\\n  REGISTER_BINARY_OP(NAME, half, half)",
    "#define I(NAME) \\\n  F(NAME); \\\n  REGISTER_BINARY_OP(NAME, bool, NAME##_t)",
    "#define G(A, B) \\\n  template [[host_name(\"g_\" #A \"_\" # B)]] kernel void g<A, B>( \\\n"
    "      device A* x [[buffer(0)]]);",
    "#define H(NAME, T) REGISTER_UNARY_OP(NAME, opmath_t<T>, T); /* NAME */ REGISTER_X(\"NAME\", T)",
    "#define J(NAME) REGISTER_UNARY_OP(NAME, float, float) REGISTER_UNARY_OP(NAME##2, float2, float2)",
    "#define K(REGISTER_Y, F) REGISTER_Y(k, float); F(kk)",
    "#define L(NAME, DTYPE) \\\n  REGISTER_TERNARY_OP(NAME, \\\n    DTYPE, DTYPE); \\\n  G(NAME, DTYPE)",
    "#define M(NAME) host_name(NAME \"_m\") REGISTER_UNARY_OP(NAME(x), float, float)",
    "#define N(X) REGISTER_UNARY_OP(X, X, X); REGISTER_UNARY_OP(x_ ## X, float, float)",
    "#define REGISTER_LOCAL(NAME, DTYPE) \\\n  template [[host_name(#NAME \"_\" #DTYPE)]] kernel void l(DTYPE);",
    "#define P() REGISTER_UNARY_OP(p, float, float)",
    "#define Q(OP, NAME) OP(NAME, float, float); W(NAME)", "#define W(X) X(\"w_\" #X)",
    "Q(REGISTER_UNARY_OP, q);", "Q(F, q);", "Q(W, host_name);", "W(host_name);", "W(w);",
    "F(hypot);", "F(add)", "F(half);", "F(F);", "F(REGISTER_Z);", "F(host_name);", "F(a b);", "F((x));", "F();",
    "F(exp, extra);", "I(maximum);", "G(float, half);", "G(x);", "G(\"s\", t);", "H(abs, half);", "H(abs);",
    "J(j);", "K(a, b);", "K(REGISTER_UNARY_OP, F);", "L(lerp, float);", "L(lerp,\n  half);", "M(m);", "N(n);",
    "REGISTER_LOCAL(loc, float);", "REGISTER_LOCAL(G, F);", "P();", "P(x);",
    "REGISTER_UNARY_OP(top, float, float);", "// F(commented);", "/* G(a, b); */", "#if 1", "#else", "#endif",
    "const char* s = \"F(str)\";", "kernel void plain(int a) {}",
])
programs = st.lists(_PIECES, max_size=10).map("\n".join)


@settings(max_examples=300)
@given(text=programs)
def test_templates_read_what_the_expansions_read(text):
    with pytest.MonkeyPatch.context() as monkeypatch:
        with_templates, expanded = _both(text, monkeypatch)
    assert with_templates == expanded


# Calls a template must not stand for, each beside one it does: an argument that is a macro or
# host_name (the body calls its parameter), a parameter named like a call word, a pasted parameter,
# arguments that are no plain words (a literal, brackets, several words, none), continued lines.
CRAFTED = {
    "argument called as a header macro": "#define Q(OP, NAME) OP(NAME, float, float)\nQ(REGISTER_UNARY_OP, q);\nQ(f, g);",
    "argument called as a local macro": "#define F(N) REGISTER_UNARY_OP(N, float, float)\n"
                                        "#define Q(OP, NAME) OP(NAME)\nQ(F, q);\nQ(G, g);",
    "argument is host_name": '#define W(X) X("w_" #X)\nW(host_name);\nW(w);',
    "parameter named like a call word": "#define K(REGISTER_Y, F) REGISTER_Y(k, float); F(kk)\nK(a, b);\n"
                                        "K(REGISTER_UNARY_OP, x);",
    "pasted parameter": "#define J(N) REGISTER_UNARY_OP(N##2, float2, float2)\nJ(j);",
    "stringised host_name pieces": '#define G(A, B) \\\n  template [[host_name("g_" #A "_" # B)]] kernel void g();\n'
                                   "G(float, half);\nG(x);\nG(\"s\", t);",
    "arguments no plain words": "#define F(N, T) REGISTER_UNARY_OP(N, T, T)\nF((x), float);\nF(a b, c);\n"
                                "F(, half);\nF(\"s\", t);\nF(x,\n  y);",
    "nested local macros": "#define F(N) REGISTER_BINARY_OP(N, float, float)\n#define I(N) F(N); F(N##_x); "
                           "REGISTER_X(N, opmath_t<N>)\nI(add);",
    "literal and comment holding a parameter": '#define H(NAME, T) REGISTER_UNARY_OP(NAME, T, T); /* NAME */ '
                                               'REGISTER_X("NAME", T)\nH(abs, half);\nH(abs);',
}


@pytest.mark.parametrize("text", CRAFTED.values(), ids=CRAFTED.keys())
def test_crafted_calls_read_as_their_expansions(text, monkeypatch):
    with_templates, expanded = _both(text, monkeypatch)
    assert with_templates == expanded
    assert mn.names_in(text, "k.metal") == ref.names_in(text, "k.metal")  # the frozen reader of 78a3775


def test_an_argument_naming_a_macro_is_expanded_not_templated():
    names, registrations = mn.names_and_registrations(CRAFTED["argument called as a header macro"], "k.metal")
    assert [(n.name, n.line) for n in names] == [("q", 2)]
    assert registrations == [("REGISTER_UNARY_OP", "q", "float", "float")]


@pytest.mark.parametrize("path", METAL_FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_the_metal_files_read_as_their_expansions(path, monkeypatch):
    with_templates, expanded = _both(path.read_text(encoding="utf-8"), monkeypatch)
    assert with_templates == expanded


def test_a_call_of_plain_words_is_read_from_the_template_and_located_as_the_expansion():
    text = ("#define F(NAME) \\\n  REGISTER_BINARY_OP(NAME, float, float); \\\n"
            "  template [[host_name(#NAME \"_h\")]] kernel void h();\n"
            "F(hypot);\nF(atan2);\n")
    names, registrations = mn.names_and_registrations(text, "k.metal")
    # The name is spelled at the call site (#NAME, NAME in the body): each call's line.
    assert [(n.name, n.line, n.macro) for n in names] == [
        ("hypot", 4, "F"), ("hypot_h", 4, "F"), ("atan2", 5, "F"), ("atan2_h", 5, "F")]
    assert registrations == [("REGISTER_BINARY_OP", "hypot", "float", "float"),
                             ("REGISTER_BINARY_OP", "atan2", "float", "float")]
