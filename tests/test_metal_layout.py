"""Layouts of kernels/*.metal since c10/metal appeared: each recognised and named; writers write
only the functor layouts and refuse the others with file, line and layout, before any change."""

from __future__ import annotations

import difflib
from pathlib import Path

import pytest

from mpsgen.errors import MpsgenError
from mpsgen.generate.catalog import spec_for
from mpsgen.generate.render import render_functor, render_registrations
from mpsgen.scan.statements import first_broken_statement
from mpsgen.sources.metal.edit import index_metal, metal_style, plan_metal_addition
from mpsgen.model import MetalLayout
from mpsgen.sources.metal.layout import layout_of, macros_defined

DATA = Path(__file__).parent / "data" / "metal"
C10_INDEXING = Path(__file__).parent.parent / "fixtures" / "sample" / "c10" / "metal" / "indexing.h"


def read(name: str) -> str:
    return (DATA / name).read_text()


def add(text: str, op: str, arity: str, path: str, available=None) -> str:
    from mpsgen.generate.neighbours import compact, register_macros

    spec = spec_for(op, arity)
    style = metal_style(text, path)  # the registrations as the planner writes them: the file's shorthands
    registrations = compact(render_registrations(spec, style), spec.name, register_macros(text))
    return plan_metal_addition(text, path, spec, render_functor(spec), registrations, available_macros=available)


@pytest.mark.parametrize(
    ("name", "layout", "line"),
    [
        ("UnaryKernel_template_host_name.metal", "TEMPLATE_HOST_NAME", 22),
        ("BinaryKernel_early2025.metal", "FUNCTOR_LOCAL_MACROS", 14),
        ("../binary27/BinaryKernel.metal", "BINARY_INDEXING", 60),
        ("UnaryKernel.metal", "FUNCTOR_REGISTER", 59),
        ("BinaryKernel.metal", "FUNCTOR_REGISTER", 48),
        ("UnaryKernel_2026.metal", "FUNCTOR_REGISTER_WITH_TEMPLATES", 56),
        ("BinaryKernel_2026.metal", "FUNCTOR_REGISTER_WITH_TEMPLATES", 43),
    ],
)
def test_every_layout_is_recognised_and_located(name: str, layout: MetalLayout, line: int) -> None:
    found = layout_of(index_metal(read(name), name))
    assert (found.layout, found.line) == (layout, line)


def test_template_host_name_layout_is_refused_with_line_and_layout() -> None:
    text = read("UnaryKernel_template_host_name.metal")
    with pytest.raises(MpsgenError) as err:
        add(text, "sigmoid", "unary", "kernels/UnaryKernel.metal")
    e = err.value
    assert e.path == "kernels/UnaryKernel.metal" and e.line == 22
    assert "TEMPLATE_HOST_NAME" in str(e) and "INSTANTIATE_UNARY_KERNELS2" in str(e)
    assert "by hand" in e.hint


def test_registration_macro_missing_from_the_checkout_is_refused() -> None:
    text = read("UnaryKernel.metal")
    with pytest.raises(MpsgenError, match="REGISTER_UNARY_OP is neither #defined"):
        add(text, "sigmoid", "unary", "kernels/UnaryKernel.metal", available=frozenset())
    available = macros_defined([C10_INDEXING.read_text()])
    assert "REGISTER_UNARY_OP" in available and "REGISTER_BINARY_ALPHA_OP" in available
    assert "REGISTER_UNARY_OP(sigmoid" in add(text, "sigmoid", "unary", "kernels/UnaryKernel.metal", available)


def test_2026_unary_file_gets_functor_and_registrations_outside_the_template_kernels() -> None:
    before = read("UnaryKernel_2026.metal")
    after = add(before, "sigmoid", "unary", "kernels/UnaryKernel.metal")
    ops = difflib.SequenceMatcher(a=before.splitlines(True), b=after.splitlines(True), autojunk=False).get_opcodes()
    inserted = [ln for tag, _, _, j1, j2 in ops if tag in ("insert", "replace") for ln in after.splitlines(True)[j1:j2]]
    assert any("struct sigmoid_functor" in ln for ln in inserted)
    assert any("REGISTER_UNARY_OP(sigmoid, DTYPE1, DTYPE0);" in ln for ln in inserted)
    assert first_broken_statement(before, after) is None
    # The hand-written template kernel and its macro are untouched.
    tail = before[before.index("// Two outputs"):]
    assert after.endswith(tail)


def test_2026_binary_file_keeps_its_structure() -> None:
    before = read("BinaryKernel_2026.metal")
    after = add(before, "atan2", "binary", "kernels/BinaryKernel.metal")
    assert "struct atan2_functor" in after and "\nREGISTER_FLOAT_BINARY_OP(atan2);\n" in after
    assert first_broken_statement(before, after) is None
    assert after.count("template [[host_name(") == before.count("template [[host_name(")


def test_insertion_into_a_parameter_list_breaks_the_statement_structure() -> None:
    """What mpsgen once wrote into PyTorch 2.7's UnaryKernel.metal: a REGISTER line inside a
    `template [[host_name]] kernel void tanh_kernel(` parameter list.  The structure check finds it."""
    before = read("UnaryKernel_template_host_name.metal")
    anchor = '  template [[host_name("tanh_" #DTYPE0 "_" #DTYPE1)]] kernel void tanh_kernel( \\\n'
    after = before.replace(anchor, anchor + "  REGISTER_UNARY_OP(sigmoid, DTYPE1, DTYPE0);   \\\n")
    assert after != before
    assert first_broken_statement(before, after) == 26
