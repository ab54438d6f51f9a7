"""metal.py: reading .metal files and inserting kernels in their own style."""

from __future__ import annotations

import difflib
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mpsgen.generate.catalog import load_catalog, spec_for
from mpsgen.errors import MpsgenError
from mpsgen.sources.metal.edit import (
    check_kernel_name,
    index_metal,
    metal_file_for,
    metal_style,
    plan_metal_addition,
    registered_kernel_names,
)
from mpsgen.generate.render import KernelSpec, render_functor, render_registrations

DATA = Path(__file__).parent / "data" / "metal"
UNARY = (DATA / "UnaryKernel.metal").read_text()
BINARY = (DATA / "BinaryKernel.metal").read_text()
EARLY = (DATA / "BinaryKernel_early2025.metal").read_text()


def add(text: str, spec: KernelSpec, path: str = "kernels/X.metal") -> str:
    from mpsgen.generate.neighbours import compact, register_macros

    style = metal_style(text, path)  # the registrations as the planner writes them: the file's shorthands
    registrations = compact(render_registrations(spec, style), spec.name, register_macros(text))
    return plan_metal_addition(text, path, spec, render_functor(spec), registrations)


def added_lines(before: str, after: str) -> list[str]:
    """Lines the edit added; asserts it only inserted (byte-exact elsewhere)."""
    ops = difflib.SequenceMatcher(a=before.splitlines(True), b=after.splitlines(True), autojunk=False).get_opcodes()
    assert all(tag in ("equal", "insert") for tag, *_ in ops), ops
    b = after.splitlines(True)
    return [line for tag, _, _, j1, j2 in ops if tag == "insert" for line in b[j1:j2]]


# -- reading ---------------------------------------------------------------------------------


def test_index_unary_file():
    ix = index_metal(UNARY, "kernels/UnaryKernel.metal")
    assert [(f.name, f.line, f.end_line) for f in ix.functors[:2]] == [("angle", 9, 22), ("exp", 24, 33)]
    assert ix.functor("erf").macro == "DEFINE_UNARY_FLOATING_FUNCTOR" and ix.functor("erf").line == 56
    assert ix.block_span("INSTANTIATE_UNARY_KERNELS2") == (66, 70)
    assert ix.block_span("INSTANTIATE_UNARY_KERNELS_VEC2") == (82, 84)
    body = ix.calls_in("INSTANTIATE_UNARY_KERNELS2")
    assert [c.args for c in body][0] == ("angle", "DTYPE1", "DTYPE0") and body[0].line == 67
    assert ix.uses_c10_namespace and ix.binary_op_args is None
    assert ("c10/metal/utils.h", 3) in ix.includes


def test_index_binary_file():
    ix = index_metal(BINARY, "kernels/BinaryKernel.metal")
    assert [f.name for f in ix.functors] == ["add_alpha", "maximum", "hypot", "copysign", "mul"]
    assert ix.local_register_macros == {"REGISTER_INTEGER_BINARY_OP", "REGISTER_INT2FLOAT_BINARY_OP",
                                        "REGISTER_FLOAT_BINARY_OP", "REGISTER_OPMATH_FLOAT_BINARY_OP"}
    assert ix.binary_op_args == 3
    assert ix.plain_block == (73, 79)
    assert ix.complex_block == (83, 85)
    assert not ix.uses_c10_namespace
    style = metal_style(BINARY, "b")
    assert style.semicolon and style.binary_op_args == 3 and not style.has_unary_kernels2


def test_index_early_2025_two_argument_form():
    ix = index_metal(EARLY, "kernels/BinaryKernel.metal")
    assert ix.binary_op_args == 2 and ix.binary_op_args_line == 14


def test_registered_names_expand_local_macros_and_instantiate_blocks():
    names = registered_kernel_names([index_metal(UNARY, "U.metal"), index_metal(BINARY, "B.metal")])
    assert ("U.metal", 70, "INSTANTIATE_UNARY_KERNELS2") in names["exp"]
    assert ("U.metal", 84, "INSTANTIATE_UNARY_KERNELS_VEC2") in names["exp"]
    assert names["hypot"] == [("B.metal", 73, "REGISTER_FLOAT_BINARY_OP")]
    assert ("B.metal", 75, "REGISTER_INT2FLOAT_BINARY_OP") in names["copysign"]
    assert names["round_decimals"][0] == ("U.metal", 89, "REGISTER_UNARY_ALPHA_OP")
    assert "NAME" not in names and "DTYPE1" not in names  # macro parameters are not names
    assert "fmax" in registered_kernel_names([index_metal(EARLY, "E.metal")])


def test_metal_file_for_matches_stem():
    assert metal_file_for("BinaryKernel") == "aten/src/ATen/native/mps/kernels/BinaryKernel.metal"
    assert metal_file_for("aten/src/ATen/native/mps/operations/UnaryKernel.mm").endswith("kernels/UnaryKernel.metal")


# -- names across files ------------------------------------------------------------------------


def test_check_kernel_name_new_reuse_and_clash():
    indexes = [index_metal(UNARY, "U.metal"), index_metal(BINARY, "B.metal")]
    assert check_kernel_name(indexes, "atan2", render_functor(spec_for("atan2", "binary"))) == "new"
    # Two-step migration: the very same functor is registered already.
    existing = index_metal(BINARY, "B.metal").functor("maximum").text
    assert check_kernel_name(indexes, "maximum", existing.replace("  ", "    ")) == "reuse"
    with pytest.raises(MpsgenError) as err:
        check_kernel_name(indexes, "hypot", render_functor(spec_for("hypot", "binary")))
    assert err.value.render().startswith("B.metal:22: kernel name 'hypot' is already registered")
    # Registered in another file (names are global), functor made by a macro: refuse at the registration.
    with pytest.raises(MpsgenError) as err:
        check_kernel_name(indexes, "erfinv", "struct erfinv_functor {};")
    assert "B.metal" not in err.value.render() and "erfinv" in err.value.render()


# -- editing: binary ---------------------------------------------------------------------------


def test_atan2_into_binary_kernel():
    out = add(BINARY, spec_for("atan2", "binary"))
    new = added_lines(BINARY, out)
    assert new[0] == "struct atan2_functor {\n" and new[-2:] == [
        "REGISTER_FLOAT_BINARY_OP(atan2);\n", "REGISTER_INT2FLOAT_BINARY_OP(atan2);\n"]
    lines = out.splitlines()
    # functor before the local #define block, registrations at the end of the plain run
    assert lines.index("struct atan2_functor {") < lines.index("#define REGISTER_INTEGER_BINARY_OP(NAME)  \\")
    i = lines.index("REGISTER_INT2FLOAT_BINARY_OP(atan2);")
    assert lines[i - 2] == "REGISTER_INTEGER_BINARY_OP(mul);" and lines[i + 1].startswith("REGISTER_BINARY_ALPHA_OP")
    assert add(out, spec_for("atan2", "binary")) == out  # idempotent


def test_complex_lines_go_to_the_complex_block():
    out = add(BINARY, spec_for("logaddexp", "binary"))
    assert out.endswith("REGISTER_BINARY_OP(mul, half2, half2);\nREGISTER_BINARY_OP(logaddexp, float2, float2);\n"
                        "REGISTER_BINARY_OP(logaddexp, half2, half2);\n")


def test_alpha_lines_follow_the_alpha_run():
    spec = spec_for("lerp_alpha", "binary_alpha", expr="float(a) + float(alpha) * (float(b) - float(a))")
    out = add(BINARY, spec)
    lines = out.splitlines()
    i = lines.index("REGISTER_BINARY_ALPHA_OP(lerp_alpha, float, float, float);")
    assert lines[i - 1] == "REGISTER_BINARY_ALPHA_OP(add_alpha, float, float, float);"


def test_ternary_lines():
    out = add(BINARY, spec_for("lerp3", "ternary", expr="a + c * (b - a)"))
    assert "REGISTER_TERNARY_OP(lerp3, float, float);\n" in added_lines(BINARY, out)


def test_two_argument_file_is_refused_with_location():
    with pytest.raises(MpsgenError) as err:
        add(EARLY, spec_for("atan2", "binary"), path="kernels/BinaryKernel.metal")
    assert err.value.render().startswith("kernels/BinaryKernel.metal:14: ")


def test_existing_functor_with_other_body_is_refused():
    with pytest.raises(MpsgenError) as err:
        add(BINARY, spec_for("hypot", "binary"), path="B.metal")
    assert err.value.render().startswith("B.metal:22: hypot_functor already exists")


def test_crlf_and_missing_final_newline_are_kept():
    crlf = BINARY.replace("\n", "\r\n").rstrip("\r\n")
    out = add(crlf, spec_for("atan2", "binary"))
    assert "\n" not in out.replace("\r\n", "") and not out.endswith("\n")
    assert out.replace("\r\n", "\n") == add(BINARY.rstrip("\n"), spec_for("atan2", "binary"))


def test_file_without_anchors_is_refused():
    with pytest.raises(MpsgenError, match="cannot tell where functors go"):
        add("#include <metal_stdlib>\n", spec_for("atan2", "binary"), path="k.metal")


# -- editing: unary ----------------------------------------------------------------------------


def test_expm1_into_unary_kernel():
    out = add(UNARY, spec_for("expm1", "unary"))
    new = added_lines(UNARY, out)
    assert "#include <c10/metal/expm1f.h>\n" in new
    lines = out.splitlines()
    # the header sorts into the c10 group; the functor follows the last functor
    assert lines[:3] == ["#include <c10/metal/expm1f.h>", "#include <c10/metal/indexing.h>",
                         "#include <c10/metal/special_math.h>"]
    assert lines[lines.index("struct expm1_functor {") - 2] == "};"
    assert "  REGISTER_UNARY_OP(expm1, DTYPE1, DTYPE0);        \\\n" in new
    assert "  REGISTER_UNARY_OP(expm1, DTYPE##2, DTYPE##2); \\\n" in new
    assert "  REGISTER_UNARY_OP(exp, DTYPE1, DTYPE0)" in lines  # last line keeps no backslash
    assert add(out, spec_for("expm1", "unary")) == out


def test_longer_name_realigns_the_macro():
    spec = KernelSpec("special_log_ndtr_long", "unary", "float(x)", dtypes=("float", "int2float"), result="float")
    out = add(UNARY, spec)
    ix = index_metal(out, "U")
    a, b = ix.block_span("INSTANTIATE_UNARY_KERNELS2")
    block = out.splitlines()[a - 1 : b]
    assert len(block) == 6 and len({line.index("\\") for line in block[:-1]}) == 1
    assert block[-1] == "  REGISTER_UNARY_OP(exp, DTYPE1, DTYPE0)"
    assert block[-2].startswith("  REGISTER_UNARY_OP(special_log_ndtr_long, DTYPE1, DTYPE0); \\")
    # only that macro changed besides the functor
    outside = [l for l in difflib.ndiff(UNARY.splitlines(), out.splitlines()) if l[0] in "+-"]
    assert all("DTYPE" in l or "special_log_ndtr_long" in l or "float(x)" in l or l.strip() in "+-" or
               "operator()" in l or "template" in l or l[2:].strip() in ("}", "};") for l in outside)


def test_float_only_unary_gets_explicit_block():
    out = add(UNARY, spec_for("frac", "unary"))
    lines = out.splitlines()
    i = lines.index("REGISTER_UNARY_OP(frac, float, float);")
    assert lines[i - 2] == "REGISTER_UNARY_OP(bitwise_not, bool, bool);" and lines[i - 1] == ""
    assert i < lines.index("#define INSTANTIATE_UNARY_KERNELS2(DTYPE0, DTYPE1) \\")


def test_unary_alpha_block_after_alpha_registrations():
    out = add(UNARY, spec_for("logit", "unary_alpha"))
    assert out.endswith("REGISTER_UNARY_ALPHA_OP(logit, bool, float, float);\n")


@settings(max_examples=40)
@given(st.from_regex(r"[a-z][a-z0-9_]{0,40}", fullmatch=True))
def test_macro_alignment_property(name):
    spec = KernelSpec(name + "_op", "unary", "float(x)", dtypes=("float", "int2float"), result="float")
    out = add(UNARY, spec)
    ix = index_metal(out, "U")
    a, b = ix.block_span("INSTANTIATE_UNARY_KERNELS2")
    block = out.splitlines()[a - 1 : b]
    assert len({len(line) for line in block[:-1]}) == 1 and all(l.endswith(" \\") for l in block[:-1])
    assert not block[-1].endswith("\\")
    assert add(out, spec) == out


# -- every catalog op: parses, idempotent, byte-exact ------------------------------------------


def error_nodes(text: str) -> list[tuple[int, str]]:
    """(1-based line, text) of tree-sitter ERROR/MISSING nodes under the C++ grammar."""
    import tree_sitter
    import tree_sitter_cpp

    parser = tree_sitter.Parser(tree_sitter.Language(tree_sitter_cpp.language()))
    data = text.encode("utf-8")
    found, stack = [], [parser.parse(data).root_node]
    while stack:
        node = stack.pop()
        if node.is_error or node.is_missing:
            found.append((node.start_point[0] + 1, data[node.start_byte : node.end_byte].decode()))
        stack.extend(node.children)
    return found


def inserted_line_numbers(before: str, after: str) -> set[int]:
    ops = difflib.SequenceMatcher(a=before.splitlines(), b=after.splitlines(), autojunk=False).get_opcodes()
    return {j + 1 for tag, _, _, j1, j2 in ops if tag != "equal" for j in range(j1, j2)}


@pytest.mark.parametrize("op", sorted(load_catalog()))
def test_catalog_op_into_matching_file(op):
    spec = spec_for(op, load_catalog()[op]["arity"])
    text = UNARY if spec.is_unary_family else BINARY
    if op == "hypot":  # the fixture has the old naive hypot (refusal tested above): use a fresh name
        spec = spec_for(op, "binary", name="hypot_stable")
        op = "hypot_stable"
    elif f"struct {op}_functor" in text or f"FUNCTOR({op})" in text:  # upstream's own (angle, erf, ...): a fresh name
        spec = spec_for(op, spec.arity, name=f"{op}_catalog")
        op = f"{op}_catalog"
    out = add(text, spec)
    # Only insertions, apart from a macro's backslashes re-aligned for a name longer than the others.
    ops = difflib.SequenceMatcher(a=text.splitlines(), b=out.splitlines(), autojunk=False).get_opcodes()
    for tag, i1, i2, j1, j2 in ops:
        if tag in ("replace", "delete"):
            old_lines, new_lines_ = text.splitlines()[i1:i2], out.splitlines()[j1:j1 + i2 - i1]
            assert [" ".join(s.split()) for s in old_lines] == [" ".join(s.split()) for s in new_lines_], (op, tag)
            assert all(s.rstrip().endswith("\\") for s in old_lines), (op, old_lines)
    assert f"struct {op}_functor {{" in out
    assert add(out, spec) == out
    assert check_kernel_name([index_metal(out, "x")], op, render_functor(spec)) == "reuse"
    # tree-sitter: no new error anywhere, except on an inserted top-level REGISTER_* line whose
    # arguments are C++ type keywords (`REGISTER_UNARY_OP(frac, float, float);`), which the C++
    # grammar cannot parse at file scope wherever it is put.
    new_lines = inserted_line_numbers(text, out)
    extra = [(ln, t) for ln, t in error_nodes(out) if not (ln in new_lines and t.startswith("REGISTER_"))]
    assert len(extra) <= len(error_nodes(text)), extra


@pytest.mark.parametrize(
    ("op", "arity"), [("atan2", "binary"), ("logaddexp", "binary"), ("fmod", "binary"), ("xlogy", "binary"),
                      ("hypot2", "binary"), ("expm1", "unary"), ("log1p", "unary"), ("asinh", "unary")],
)
def test_macro_style_additions_add_no_parse_errors_at_all(op, arity):
    spec = spec_for(op, arity, expr="float(a) * float(b)") if op == "hypot2" else spec_for(op, arity)
    text = UNARY if spec.is_unary_family else BINARY
    out = add(text, spec)
    assert len(error_nodes(out)) <= len(error_nodes(text))


def test_known_ops_nonempty():
    assert len(sorted(load_catalog())) >= 21
