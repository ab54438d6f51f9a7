"""mpsgen.scan on strings: one idea of a line, one masker, brackets, the one comma splitter."""

from __future__ import annotations

import bisect
import re

from hypothesis import given
from hypothesis import strategies as st

from mpsgen.scan.brackets import first_unbalanced, match_close, split_bounds, split_top_level
from mpsgen.scan.definitions import function_definitions
from mpsgen.scan.lines import LineTable, above_comments, split_lines
from mpsgen.scan.mask import blank_comments, code_only, directives, mask, mask_code, mask_python
from mpsgen.scan.statements import first_broken_statement, statements
from mpsgen.scan.validate import scan_problem
from mpsgen.sources.host.mm import host_kernel_calls


def test_lines_break_at_newline_only_and_keep_crlf():
    text = "a\fb\r\nc\x1cd\ne"
    assert split_lines(text) == ["a\fb\r\n", "c\x1cd\n", "e"]
    table = LineTable(text)
    assert [table.line(text.index(c)) for c in "abcde"] == [1, 1, 2, 2, 3]
    assert table.col(text.index("b")) == 3 and table.col(text.index("d")) == 3
    assert table.start_of(3) == text.index("e")


def test_form_feed_in_an_mm_gives_the_right_line_and_column():
    text = (
        "namespace at::native {\n"
        "\f\n"
        "static void a_kernel(TensorIteratorBase& iter) {\n"
        "  \f lib.exec_unary_kernel(iter, \"alpha\");\n"
        "}\n"
        "REGISTER_UNARY_TI_DISPATCH(beta);\n"
        "} // namespace at::native\n"
    )
    calls = {c.kernel: c for c in host_kernel_calls(text)}
    assert (calls["alpha"].line, calls["alpha"].col, calls["alpha"].function) == (4, 33, "a_kernel")
    assert (calls["beta"].line, calls["beta"].col) == (6, 28)


def test_mask_blanks_comments_literals_raw_strings_and_keeps_offsets():
    text = 'a = "x;y" + \'c\'; // c(\nR"M(kernel { )M" b /* {\n} */ 1\'000;'
    m = mask(text)
    assert len(m.masked) == len(text) and m.problem is None
    assert m.masked.count("\n") == text.count("\n")
    assert "x;y" not in m.masked and "kernel" not in m.masked and "{" not in m.masked
    assert "1'000" in m.masked  # a digit separator is not a char literal


def test_mask_reports_the_first_unterminated_comment_or_literal():
    assert mask("int a; /* open").problem.pos == 7
    assert "unterminated string" in mask('x = "abc\ny;').problem.message
    assert "unterminated raw string" in mask('R"X(never').problem.message


# The masker's pattern before its alternatives opened with literals (the reference: what each
# position of the text starts, tried at every offset).
_REFERENCE_TOKEN = re.compile(
    r"(?=[/\"'uULR])"
    r"(?://[^\n]*"
    r"|/\*(?:.*?(?P<bc>\*/)|.*)"
    r'|(?<![A-Za-z0-9_])(?:u8|u|U|L)?R"(?P<delim>[^()\\\s"]{0,16})\((?:.*?(?P<rc>\)(?P=delim)")|.*)'
    r'|"(?:[^"\\\n]|\\.)*(?P<sq>")?'
    r"|(?<![A-Za-z0-9_])'(?:[^'\\\n]|\\.)*(?P<cq>')?)",
    re.S,
)


def _reference_mask(text: str) -> tuple[str, int | None]:
    out, i, problem = [], 0, None
    for m in _REFERENCE_TOKEN.finditer(text):
        s, e = m.span()
        token = m.group(0)  # a token without a line break is blanked whole (a comment's \r too)
        out += [text[i:s], re.sub(r"[^\r\n]", " ", token) if "\n" in token else " " * len(token)]
        i = e
        unterminated = not m.group(0).startswith("//") and m.lastgroup not in ("bc", "rc", "sq", "cq")
        if problem is None and unterminated:
            problem = s
    return "".join(out) + text[i:], problem


_TRICKY = ['u8R"x(a)x"', 'LR"(b)"', 'xR"(c)"', 'xu8R"(d)"', '"s"u8R"(e)"', "1'000'1", "f('a', u'b')",
           'R"abc', 'uR"(open', "// c\nR\"(x\n)\"", "/* a */ \"b\\\"c\" R\"q(')q\"", "'\\''", 'U"w"L\'c\'']


@given(st.lists(st.sampled_from(["/", "*", '"', "'", "\\", "\n", "\r", "R", "u", "8", "U", "L", "(", ")", "x",
                                 " ", "_", "1", "q", *_TRICKY]), max_size=24))
def test_mask_matches_the_reference_pattern(pieces):
    text = "".join(pieces)
    m = mask.__wrapped__(text)  # not the cached answer
    assert (m.masked, m.problem.pos if m.problem else None) == _reference_mask(text)


def test_directives_include_continuations_and_code_only_blanks_them():
    text = "#define A(x) \\\n  f(x); \\\n  g(x)\nint b;\n# if 0\n"
    masked = mask_code(text)
    spans = directives(masked).spans
    assert len(spans) == 2 and text[spans[0][0] : spans[0][1]].endswith("g(x)")
    assert text.index("g(x)") in directives(masked) and text.index("int b") not in directives(masked)
    assert code_only(masked).strip() == "int b;"


def test_brackets_and_the_one_comma_splitter():
    s = "f(a, g(b, c), std::pair<int, int>{1, 2}, p->q, [x, y])"
    assert match_close(s, 1) == len(s) - 1
    inner = s[2:-1]
    assert split_top_level(inner) == ["a", "g(b, c)", "std::pair<int, int>{1, 2}", "p->q", "[x, y]"]
    assert len(split_bounds("a < b, c > d", angles=False)) == 2
    assert first_unbalanced("{ ( ) }") is None and first_unbalanced("{ ( }") == 4
    assert "unbalanced" in scan_problem("void f() {\n").message


def test_function_definitions_found_once_per_body():
    masked = mask_code(
        "namespace at::native {\n"
        "static void helper(int x) { if (x) { call(x); } }\n"
        "TORCH_IMPL_FUNC(foo_out)(const Tensor& t) {\n  helper(1);\n}\n"
        "Tensor bar(const Tensor& t) const {\n  return t;\n}\n"
        "}\n"
    )
    spans = function_definitions(masked, ("TORCH_IMPL_FUNC",))
    assert [(s.name, s.macro) for s in spans] == [("helper", None), ("foo_out", "TORCH_IMPL_FUNC"), ("bar", None)]


def test_statements_and_structure_check():
    old = "int a;\nstruct S {\n  int b;\n};\n#define M(x) f(x); g(x)\n"
    assert [s.text for s in statements(old)] == ["int a;", "struct S{", "int b;", "}", ";", "#define M(x)",
                                                 "#define M(x): f(x);", "#define M(x): g(x)"]
    inserted = old.replace("int a;\n", "int a;\nint z;\n")
    assert first_broken_statement(old, inserted) is None
    inside = old.replace("  int b;", "  int b\n  int y;")
    assert first_broken_statement(old, inside) == 3
    # a legacy function deleted right where a registration line goes: whole statements, nothing broken
    mm = "REGISTER_DISPATCH(a_stub, &a_k)\n\nTensor& p_out(const Tensor& x) {\n  f(x);\n  return x;\n}\n"
    moved = "REGISTER_DISPATCH(a_stub, &a_k)\nREGISTER_DISPATCH(p_stub, &p_k)\n"
    assert first_broken_statement(mm, moved) is None
    assert first_broken_statement(mm, mm.replace("f(x);", "f(x, y);")) == 4
    # ... but a statement overwritten by another, outside any whole definition deleted, is
    assert first_broken_statement(mm, mm.replace("  f(x);", "  REGISTER_DISPATCH(p_stub, &p_k)")) == 4


def test_blank_comments_keeps_literals_and_blanks_comments_as_mask_finds_them() -> None:
    text = 'a("x//y"); // gone\n/* two\nlines */ b(\'/\');\n'
    out = blank_comments(text)
    assert len(out) == len(text) and out.count("\n") == text.count("\n")
    assert '"x//y"' in out and "gone" not in out and "two" not in out and "b('/');" in out


@given(text=st.text(alphabet="/*\"'\\\nR(x) ", max_size=40))
def test_blank_comments_blanks_only_what_mask_blanks_and_keeps_its_literals(text: str) -> None:
    kept = blank_comments(text)
    masked = mask_code(text)
    assert len(kept) == len(text) and mask_code(kept) == masked  # the same tokens: literals where they were
    assert all(k == t or (k == " " and m == " ") for k, t, m in zip(kept, text, masked))


def test_python_mask_blanks_comments_and_strings_so_brackets_match_outside_them() -> None:
    text = 'f(a, ")", # (\n  """(\n""", b)\nx'
    masked = mask_python(text)
    assert len(masked) == len(text) and masked.count("\n") == text.count("\n")
    assert match_close(masked, 1) == text.rindex(")")
    assert match_close(masked, text.index('")"') + 1) is None  # a bracket inside a string is none


def test_above_comments_climbs_the_comment_lines_right_above() -> None:
    lines = ["int a;", "// one", "  // two", "kernel void k();"]
    assert above_comments(lines, 4) == 2 and above_comments(lines, 1) == 1
    assert above_comments(["// only"], 1) == 1


def _split_by_walk(args: str, angles: bool) -> list[tuple[int, int]]:
    """split_bounds as one walk over every bracket and comma (what a bracket-free text's str.split
    short cut must agree with)."""
    bounds, depth, start = [], 0, 0
    for k, ch in enumerate(args):
        if ch in ("([{<" if angles else "([{"):
            depth += 1
        elif ch in (")]}>" if angles else ")]}") and not (ch == ">" and k > 0 and args[k - 1] == "-"):
            depth -= 1
        elif ch == "," and depth == 0:
            bounds.append((start, k))
            start = k + 1
    return [*bounds, (start, len(args))]


@given(st.text(alphabet="ab ,()<>-[]{}\n\t", max_size=16), st.booleans())
def test_split_bounds_with_and_without_brackets(args: str, angles: bool):
    expected = _split_by_walk(args, angles)
    assert split_bounds(args, angles=angles) == expected
    assert split_top_level(args, angles=angles) == [args[a:b].strip() for a, b in expected]
    assert split_top_level("abs, half ,half") == ["abs", "half", "half"] and split_bounds(",") == [(0, 0), (1, 1)]


_LINE_PIECES = st.lists(st.sampled_from(["a", "bc", "\n", "\r\n", "\f", "é", "\u2028", "  "]), max_size=30).map("".join)


def _outcome(ask, x):
    try:
        return ask(x)
    except IndexError:  # a line before the first one past the table's start
        return IndexError


def _eager_starts(text: str) -> list[int]:
    return [0] + [k + 1 for k, ch in enumerate(text) if ch == "\n"]


@given(text=_LINE_PIECES, asks=st.lists(st.tuples(st.sampled_from(["line", "col", "start_of"]), st.integers(-3, 40)),
                                         max_size=30))
def test_a_line_table_answers_as_the_table_of_every_line_start(text, asks):
    """Counted answers, walked line starts and the table built midway all agree with the table."""
    starts = _eager_starts(text)
    expected = {"line": lambda p: bisect.bisect_right(starts, p),
                "col": lambda p: p - starts[bisect.bisect_right(starts, p) - 1] + 1,
                "start_of": lambda n: starts[n - 1] if n - 1 < len(starts) else len(text)}
    for small_budget in (False, True):
        table = LineTable(text)
        if small_budget:
            table._budget = 300  # the table is built after a question or two
        for ask, x in asks:
            assert _outcome(getattr(table, ask), x) == _outcome(expected[ask], x), (ask, x)
        assert table.count == len(starts) and table.starts == starts


def _open_by_walk(code: str, close: int) -> int | None:
    """The '(' matching the ')' at *close*, walking back a character at a time; None at a `{`, `}` or `;`."""
    depth = 0
    for k in range(close, -1, -1):
        ch = code[k]
        if ch in "{};":
            return None
        depth += {")": 1, "(": -1}.get(ch, 0)
        if depth == 0:
            return k if ch == "(" else None
    return None


@given(st.text(alphabet="a (){};\n", max_size=24), st.integers(0, 23))
def test_match_open_finds_the_parenthesis_a_walk_back_finds(code: str, close: int):
    from mpsgen.scan.definitions import _match_open

    if close < len(code) and code[close] == ")":
        assert _match_open(code, close) == _open_by_walk(code, close)
    assert _match_open("f(a, (b)) {", 8) == 1 and _match_open("x; (a) b)", 8) is None
