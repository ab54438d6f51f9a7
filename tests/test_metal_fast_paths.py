"""The str.find fast paths of sources/metal/names.py and sources/metal/index.py answer exactly what the
code they replaced answered (tests/metal_reference.py, a frozen copy, is the oracle): the readers
whole, on the .metal files of the tests and on hypothesis texts written like .metal files, and
each fast path on texts built from the pieces it reads."""

from __future__ import annotations

import pickle
import re
from pathlib import Path

import metal_reference as ref
import pytest
import metal_facts_reference as facts_ref
from hypothesis import given
from hypothesis import strategies as st

from mpsgen.errors import MpsgenError
from mpsgen.scan.anchored import finditer_at, occurrences
from mpsgen.scan.brackets import match_close, split_top_level
from mpsgen.scan.masked_lines import MaskedLines
from mpsgen.scan.lines import split_lines
from mpsgen.sources.metal import index as mi
from mpsgen.sources.metal import name_scan as ns
from mpsgen.sources.metal import names as mn
from mpsgen.sources.metal import registration_sites as rs
from mpsgen.sources.metal import symbols as sy
from mpsgen.sources.metal.macros import paste

ROOT = Path(__file__).resolve().parent.parent
METAL_FILES = sorted(p for d in ("tests", "fixtures") for p in (ROOT / d).rglob("*.metal"))

_PIECES = ["REGISTER_", "UNARY_OP", "INSTANTIATE_", "X", "_", "A", "a", "T0", "NAME", "DTYPE", "define", "#", "##",
           "# ", "host_name", "kernel", "void", "template", "struct", "s_functor", "include", "<x.h>", '"', '"s"',
           '"a_"', "'", "'\"'", "\\", "\\\n", "/", "//", "/*", "*/", "(", ")", "((", "{", "}", ";", ",", "<", ">",
           " ", "  ", "\t", "\n", "\r\n", "\r", "\x0c", "\u00a0", "1", "é", "K", "\u212a", "\u017f", "\u0130",
           "// Complex binary functions", "COMPLEX BINARY FUNCTIONS", "omplex"]
texts = st.lists(st.sampled_from(_PIECES), max_size=24).map("".join)
# Lines as .metal files write them: an indent, what opens the line, the rest, a line ending.
_LINE = st.tuples(
    st.sampled_from(["", " ", "  ", "\t", "\u00a0", "\x0c"]),
    st.sampled_from(["#define X(A) ", "# define Y ", "#include <a.h>", "#if 1", "_X(", "X (", "REGISTER_Y(", "T0(",
                     "struct s_functor {", "structure(", "s(", "x = 1;", "}", "};", "{", "// Complex binary functions",
                     "// COMPLEX binary FUNCTIONS", "//  Complex binary functions", "/* c */", "kernel void k(", ""]),
    st.sampled_from(["", "a, b)", "(a), b);", "x) \\", "{ y; }", "{", "}", ") ;", "\\", '"s(" )']),
    st.sampled_from(["\n", "\r\n", "\n\n"]),
).map("".join)
line_texts = st.lists(_LINE, max_size=10).map("".join)


def _spans(matches) -> list:
    return [(m.span(), m.groups()) for m in matches]


def _outcome(read, text: str, path: str):
    """What *read* returns, pickled (the fact store keeps it so), or the error it raises."""
    try:
        return pickle.dumps(read(text, path))
    except MpsgenError as e:
        return type(e), str(e)


def _index(text: str, path: str) -> mi.MetalIndex:
    mi._index_metal.cache_clear()
    return mi.index_metal(text, path)


# -- the readers whole ---------------------------------------------------------------------------


# Pieces of a .metal file with local macros, a line or a few: #defines (continued with `\`), their
# calls (nested, across lines, short of arguments), header registrations, host_name instantiations,
# plain and template kernels, the same words in comments and literals, and lines a reading steps over.
_PROGRAM_PIECE = st.sampled_from([
    "#define M(NAME, DTYPE) \\\n  REGISTER_UNARY_OP(NAME, DTYPE, DTYPE); \\\n"
    '  template [[host_name("m_" #NAME "_" #DTYPE)]] kernel void m<DTYPE>(int);',
    "#define D(NAME, DTYPE) \\\n  template [[host_name(#NAME \"_dense_\" #DTYPE)]] kernel void \\\n"
    "  d<DTYPE, NAME##_functor>(int)",
    "#define M(NAME, DTYPE) \\", "  REGISTER_UNARY_OP(NAME, DTYPE, DTYPE); \\", "  NAME##_functor \\", "",
    "M(exp, float);", "M(tanh, half)", "M(a\n b, half);", "M(only);", "M(x, (y), z);", "D(copysign, long);",
    "#define N(A) M(A, A)", "N(sqrt);", "#define K(D) REGISTER_BINARY_OP(add_##D, D, D)", "K(float)",
    "#define CONT 1 \\\n#define B(x) REGISTER_UNARY_OP(x, float, float)\nB(bb)",
    "  # define P(NAME) REGISTER_UNARY_OP(NAME, float, float)\nP(pp)", "#define R(x) R(x)\nR(r)",
    "REGISTER_BINARY_OP(add, float, float);", "REGISTER_FLOAT_OP(hypot)", "INSTANTIATE_X(float);",
    "REGISTER_UNARY_OP(\n  multi, float, float);", "kernel void plain(int a) {}", "template <typename T>",
    "kernel void tk(T a) {}", "void kernel vk(int);", "/* REGISTER_UNARY_OP(no, float, float)", "*/",
    "// REGISTER_UNARY_OP(no2, float, float)", 'const char* s = "REGISTER_UNARY_OP(str, f, f)";',
    "struct exp_functor {\n  int x;\n};", "struct exp_functor {", "  int x;", "};",
    "DEFINE_UNARY_FLOATING_FUNCTOR(erf);", "#include <c10/metal/utils.h>", "using namespace c10::metal;",
    "// Complex binary functions", "REGISTER_BINARY_OP(mul, float2, float2);", "#if 1", "#endif",
])
programs = st.lists(_PROGRAM_PIECE, max_size=12).map("\n".join)


@pytest.mark.parametrize("path", METAL_FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_the_metal_files_read_as_before(path):
    text = path.read_text(encoding="utf-8")
    for variant in (text, text.replace("\n", "\r\n")):
        assert _outcome(mn.names_in, variant, path.name) == _outcome(ref.names_in, variant, path.name)
        assert _outcome(_index, variant, path.name) == _outcome(ref.index_metal, variant, path.name)


@given(text=st.one_of(programs, texts))
def test_names_are_those_the_old_reader_found(text):
    assert _outcome(mn.names_in, text, "k.metal") == _outcome(ref.names_in, text, "k.metal")


@given(text=st.one_of(programs, texts))
def test_the_index_is_the_old_readers(text):
    assert _outcome(_index, text, "k.metal") == _outcome(ref.index_metal, text, "k.metal")


# -- scan/anchored.py --------------------------------------------------------------------------


@given(text=texts,
       words=st.lists(st.sampled_from(["#", "##", "/", "REGISTER_", "_", "kernel", "a"]), min_size=1, max_size=3))
def test_occurrences_are_every_offset_a_word_starts_at(text, words):
    expected = sorted({k for k in range(len(text)) for w in words if text.startswith(w, k)})
    assert occurrences(text, words) == expected


@pytest.mark.parametrize("pattern, words", [
    (ns._PLAIN_KERNEL, ns._PLAIN_KERNEL_WORDS),
    (ns._HOST_NAME, ("host_name",)),
])
@given(text=texts)
def test_a_pattern_tried_at_its_words_finds_what_finditer_finds(pattern, words, text):
    assert _spans(finditer_at(pattern, text, occurrences(text, words))) == _spans(pattern.finditer(text))


@given(text=texts, macros=st.lists(st.sampled_from(["X", "INSTANTIATE_X", "A_", "REGISTER_X", "T0"]), max_size=3))
def test_macro_calls_tried_at_their_words_are_the_calls_the_scan_acts_on(text, macros):
    def acted_on(m: re.Match[str]) -> bool:
        return m.group(1).startswith("REGISTER_") or m.group(1) in macros

    words = ("REGISTER_", *macros)
    found = finditer_at(ns._MACRO_CALL, text, occurrences(text, words))
    assert _spans(filter(acted_on, found)) == _spans(filter(acted_on, ns._MACRO_CALL.finditer(text)))


# -- sources/metal/names.py and sources/metal/macros.py ------------------------------------------


@given(text=st.lists(st.sampled_from(["##", "#", " ", "\t", "a", "\n"]), max_size=12).map("".join))
def test_paste_drops_what_the_paste_pattern_dropped(text):
    assert paste(text) == re.sub(r"[ \t]*##[ \t]*", "", text)


_PARAMS = st.lists(st.sampled_from(["NAME", "DTYPE", "A", "T", "T0", "..."]), max_size=3).map(tuple)
_ARGS = st.lists(st.sampled_from(["exp", "float", "x y", "a\nb", '"s"', "", "NAME"]), max_size=4)
_BODY_LINE = st.lists(st.sampled_from(["NAME", "DTYPE", "A", "T", "T0", "#", "# ", "##", " ", "\t", '"', '"x"', "\\",
                                       "_", "a", "(", ",", "host_name"]), max_size=10).map("".join)


@given(lines=st.lists(_BODY_LINE, min_size=1, max_size=4), params=_PARAMS, args=_ARGS)
def test_a_macro_body_expands_as_it_did_line_by_line(lines, params, args):
    body = tuple((k + 1, line) for k, line in enumerate(lines))
    d = ns._Define("M", params, body)
    assert d.expand(args) == [ln.text for ln in ref._expand(ref._Define("M", params, body), args, ())]
    assert d.frames()[len(lines) - 1].line == len(lines)


@given(text=st.lists(st.sampled_from(["(", ")", "((", "a", " ", "\n"]), max_size=12).map("".join))
def test_a_parenthesis_closes_where_match_close_says(text):
    for k in [k for k, ch in enumerate(text) if ch == "("]:
        assert ns._close(text, k) == match_close(text, k)


@given(args=st.lists(st.sampled_from(['"exp_"', '"a\\"b"', " ", "\u00a0", "#X", "x", '"', "\n", '""', "\r"]),
                     max_size=8).map("".join))
def test_host_name_pieces_are_concatenated_as_before(args):
    assert ns._concatenate(args) == (*ref._concatenate(args), ref._first_piece(args))


@given(text=texts)
def test_template_is_searched_as_in_the_slice(text):
    for k in range(len(text) + 1):
        assert ns._is_template(text, k) == ref._is_template(text, k)


# -- sources/metal/index.py --------------------------------------------------------------------


@given(text=st.one_of(texts, line_texts))
def test_lines_are_the_split_masked_lines_and_the_raw_ones(text):
    lines = MaskedLines(text)
    raw = split_lines(text)
    assert lines.code == ref._code_lines(text)
    assert [lines.raw(k) for k in range(len(raw))] == raw
    assert all(lines.raw(k, j) == "".join(raw[k : j + 1]) for k in range(len(raw)) for j in range(k, len(raw)))


@given(text=st.one_of(texts, line_texts))
def test_the_lines_read_include_every_line_the_reading_acts_on(text):
    lines = MaskedLines(text)
    acted_on = {k for k, line in enumerate(lines.code)
                if any(p.match(line) for p in (mi._INCLUDE_RE, mi._STRUCT_RE, mi._CALL_RE, mi._DEFINE_RE))}
    assert acted_on <= set(lines.opening(mi._CODE_OPENING))
    assert {k for k, line in enumerate(lines.code) if mi._DEFINE_RE.match(line)} <= set(lines.holding("define"))
    assert lines.holding("host_name") == [k for k, line in enumerate(lines.code) if "host_name" in line]


@given(text=st.one_of(texts, line_texts))
def test_complex_comment_lines_are_those_starting_with_it_lowered(text):
    expected = {k for k, line in enumerate(split_lines(text))
                if line.strip().lower().startswith(mi.COMPLEX_BLOCK_COMMENT.lower())}
    assert mi._complex_comment_lines(MaskedLines(text)) == expected


@given(text=st.one_of(texts, line_texts), in_define=st.lists(st.booleans(), max_size=8))
def test_calls_and_structs_end_where_they_ended(text, in_define):
    code = MaskedLines(text).code
    define_of_line = {k: "D" for k, inside in enumerate(in_define) if inside}
    for i in range(len(code)):
        assert mi._balanced(code, i, code[i], define_of_line) == ref._balanced(code, i, code[i], define_of_line)
        assert _outcome(lambda c, p: mi._struct_end(c, i, p), code, "k.metal") == \
            _outcome(lambda c, p: ref._struct_end(c, i, p), code, "k.metal")


# -- sources/metal/registration_sites.py ---------------------------------------------------------

# Pieces of a .metal file as registration_sites reads it: the programs' pieces, #if/#elif/#else/#endif
# spelled every way a directive is (indented, `# if`, after code, in a comment, in a #define's
# continuation), local macros that call each other, register through a header's REGISTER_*, write
# host_name instances (written out or through a parameter), and the same macro defined twice.
_SITE_PIECE = st.one_of(_PROGRAM_PIECE, st.sampled_from([
    "#if 1", "#ifdef X", "  #  ifndef Y", "#elif 0", "#else", "\t#endif", "#endif // x", "x; #if 1", "// #if 1",
    "/* #else */", "#define W 1 \\\n#else", "#elifdef Z", "#iff", "#endifx", "#if(1)",
    "#define T(DTYPE) REGISTER_UNARY_OP(t, DTYPE, DTYPE)", "T(float);", "T(half2);", "T(T);",
    "#define U(NAME, T0) \\\n  T(T0) \\\n  REGISTER_BINARY_OP(NAME, T0, T0)", "U(u, float);", "U(v, DTYPE##2);",
    "#define H(DTYPE) \\\n  template [[host_name(\"h_\" #DTYPE)]] kernel void h<DTYPE>(int);", "H(float);",
    "#define H(DTYPE) REGISTER_UNARY_OP(h2, DTYPE, DTYPE)", "template [[host_name(\"plain_float\")]] kernel void p(int);",
    "template [[host_name(\"a\" x)]] kernel void q(int);", "#define V(A, B) U(A, B) H(B)", "V(vv, int);",
    "#define I(NAME, DTYPE) REGISTER_OPMATH_BINARY_OP_(NAME, DTYPE, DTYPE, float)", "I(i, half);",
    "#define DEEP(A) DEEP(A) REGISTER_UNARY_OP(A, float, float)", "DEEP(d);",
]))
site_programs = st.lists(_SITE_PIECE, max_size=14).map("\n".join)


@given(args=st.lists(st.sampled_from(['"exp_"', '"a\\"b"', '"x\\\\"', " ", "\u00a0", "\r", "#X", "x", '"', "(", ")",
                                      '""']), max_size=8).map("".join))
def test_a_host_name_line_reads_as_before(args):
    for line in (f"template [[host_name({args})]] kernel", f"host_name ({args}", f"x host_name{args}"):
        assert rs._host_name(line) == facts_ref._host_name(line)


@given(text=st.one_of(site_programs, programs, texts))
def test_registration_sites_are_the_old_readers(text):
    mi._index_metal.cache_clear()
    assert _outcome(rs.registration_sites, text, "k.metal") == _outcome(facts_ref.registration_sites, text, "k.metal")


@pytest.mark.parametrize("path", METAL_FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_the_metal_files_registration_sites_are_as_before(path):
    text = path.read_text(encoding="utf-8")
    for variant in (text, text.replace("\n", "\r\n")):
        assert _outcome(rs.registration_sites, variant, path.name) == \
            _outcome(facts_ref.registration_sites, variant, path.name)


# -- sources/metal/symbols.py --------------------------------------------------------------------

_CALL_PIECES = st.sampled_from(["A", "AB", "ABC", "_X", "9", "1A", "a", "é", "#", "##", "(", "((", " ", "\t", "\n",
                                "\u00a0", "\u2028", "\x1c", "_", "REGISTER_OP", "x_Y", "::", "#define M(", ")"])


@given(text=st.lists(st.one_of(_CALL_PIECES, st.sampled_from(["9a", "a9", "__", "1_", "x.y", "é", "aé", "1é", "\x00"])),
                     max_size=20).map("".join))
def test_identifiers_are_the_word_patterns_matches(text):
    for variant in (text, text.encode("ascii", "ignore").decode()):
        assert sy.identifiers(variant) == frozenset(re.findall(r"[A-Za-z_]\w*", variant))


@given(text=st.lists(_CALL_PIECES, max_size=20).map("".join))
def test_macro_calls_are_the_forward_patterns_matches(text):
    forward = re.compile(r"([A-Z_](?<![\w#][A-Z_])[A-Z0-9_]{2,})\s*\(")
    assert sy.macro_calls(text) == [(m.group(1), m.start()) for m in forward.finditer(text)]


_SYMBOL_PIECE = st.one_of(_PROGRAM_PIECE, _CALL_PIECES, st.sampled_from([
    "struct S {};", "class C;", "union U {};", "enum class E : int {};", "enum F {};", "using T = float;",
    "typedef int I;", "typedef struct { int a; } J;", "xstruct K {};", "c10::metal::max(a)", "::c10::metal::min(b)",
    "x::c10::metal::no", ":c10::metal::no2", "c10 :: metal :: spaced", "using namespace c10::metal;",
    "using namespace ::c10::metal;", "  # define OBJ 1", "#define FN(x) x", "FN(1)", "OBJ", "UNDEFINED_MACRO(x)",
    "// c10::metal::commented", '"c10::metal::quoted"', "MIN(a, b)", "\n\n"]))
symbol_texts = st.lists(_SYMBOL_PIECE, max_size=14).map("\n".join)
METAL_HEADERS = sorted(p for d in ("tests", "fixtures") for p in (ROOT / d).rglob("*.h") if "metal" in str(p))


def _symbols_as_before(text: str) -> None:
    """Each of the old reader's fields, now read by the reader asked for it: a .metal's uses, a
    header's macros and words, any file's declared types."""
    old = facts_ref.metal_symbols(text)
    assert sy.metal_symbols(text) == (old.macro_uses, old.qualified, old.c10_namespace_line)
    assert sy.defined_macros(text) == old.macros
    assert sy.spelled_words(text) == old.words
    assert sy.declared_types(text) == old.types


@given(text=st.one_of(symbol_texts, texts))
def test_metal_symbols_are_the_old_readers(text):
    _symbols_as_before(text)


@pytest.mark.parametrize("path", METAL_FILES + METAL_HEADERS, ids=lambda p: str(p.relative_to(ROOT)))
def test_the_metal_files_symbols_are_as_before(path):
    text = path.read_text(encoding="utf-8")
    for variant in (text, text.replace("\n", "\r\n")):
        _symbols_as_before(variant)


@given(raw=st.lists(st.sampled_from(["exp", "exp_", "_exp", "xexp", " ", '"', '"exp', "é", "(", "a.b", "\n"]),
                    max_size=8).map("".join),
       word=st.sampled_from(["exp", "a.b", "", "é", "exp_"]), quoted=st.sampled_from([None, "exp", "exp_", ""]))
def test_a_frame_spells_a_name_as_the_pattern_says(raw, word, quoted):
    pattern = ('"' + re.escape(quoted) + "|" if quoted is not None else "") + r"\b" + re.escape(word) + r"\b"
    assert ns._spells(raw, word, quoted) == (re.search(pattern, raw) is not None)


@given(text=st.lists(st.sampled_from(["a", "b c", ",", " ", "  ", "\t", "\n", "\u00a0", "\u2003", "(", ")", "<", ">",
                                      "->", "-", "[", "]", "{", "}", "##", "2"]), max_size=14).map("".join))
def test_arguments_are_split_as_each_part_was_collapsed(text):
    # index.split_args collapses the text's blanks before splitting: what collapsing each part gave
    old = tuple(" ".join(a.split()) for a in split_top_level(text)) if text.strip() else ()
    assert mi.split_args(text) == old
