"""generate/builtin_templates.py renders the shipped templates exactly as jinja2 does, and only them."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import pytest

from mpsgen.errors import MpsgenError
from mpsgen.generate import catalog
from mpsgen.generate.builtin_templates import MIRRORS, render_builtin
from mpsgen.generate.render import (
    KernelSpec,
    default_templates_dir,
    exec_call_args,
    render_functor,
    render_host_kernel,
    render_register_dispatch,
)

DTYPE_CHOICES = (None, "float", "float,int2float", "float,integer", "float,complex", "float,int2float,complex")


@pytest.fixture(scope="module")
def jinja_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the shipped templates passed as --templates: the same texts, rendered by jinja2."""
    folder = tmp_path_factory.mktemp("templates")
    for name in MIRRORS:
        shutil.copyfile(default_templates_dir() / name, folder / name)
    return folder


def test_each_mirror_names_the_shipped_template_it_was_written_for() -> None:
    # A template edited without its mirror still renders right (through jinja2), only slower:
    # update builtin_templates.py together with the template.
    for name, (sha, _) in MIRRORS.items():
        assert hashlib.sha256((default_templates_dir() / name).read_bytes()).hexdigest() == sha, name


def _specs() -> list[KernelSpec]:
    specs = []
    for op, entry in catalog.load_catalog().items():
        for dtypes in DTYPE_CHOICES:
            try:
                specs.append(catalog.spec_for(op, entry["arity"], dtypes=dtypes))
            except MpsgenError:
                continue  # e.g. complex for an op with no complex body
    # A statement block with a blank line and a trailing newline (jinja2's indent leaves blank lines empty).
    specs.append(KernelSpec("blocky", "unary", "float y = float(x);\n\n  return static_cast<T>(y);\n", dtypes=("float",)))
    specs.append(KernelSpec("plain", "binary_alpha", "a + alpha * b", dtypes=("float", "integer")))
    return specs


def test_every_catalog_functor_renders_as_jinja2_renders_it(jinja_dir: Path) -> None:
    specs = _specs()
    assert len(specs) > 40 and any("\n" in s.complex_expr for s in specs if s.complex_expr)
    for spec in specs:
        assert render_functor(spec) == render_functor(spec, templates_dir=jinja_dir), (spec.name, spec.dtypes)


@pytest.mark.parametrize("arity", ["unary", "unary_alpha", "binary", "binary_alpha", "ternary"])
@pytest.mark.parametrize("name", ["atan2", "a_kernel_name_long_enough_to_make_clang_format_wrap_the_signature_" * 2])
def test_host_code_renders_as_jinja2_renders_it(jinja_dir: Path, arity: str, name: str) -> None:
    params = ["TensorIteratorBase& iter", "const Scalar& alpha"] if arity.endswith("_alpha") else ["TensorIteratorBase& iter"]
    call = exec_call_args(arity, name, "alpha")
    assert render_host_kernel(f"{name}_mps_kernel", params, call) == render_host_kernel(
        f"{name}_mps_kernel", params, call, templates_dir=jinja_dir)
    for semicolon in (True, False):
        for ampersand in (True, False):
            assert render_register_dispatch(f"{name}_stub", f"{name}_mps_kernel", semicolon, ampersand) == (
                render_register_dispatch(f"{name}_stub", f"{name}_mps_kernel", semicolon, ampersand,
                                         templates_dir=jinja_dir))


def test_an_edited_template_is_not_mirrored(jinja_dir: Path, tmp_path: Path) -> None:
    values = {"call": "REGISTER_DISPATCH(a_stub, &a_kernel);"}
    assert render_builtin("register_dispatch.mm.j2", jinja_dir, values) == "REGISTER_DISPATCH(a_stub, &a_kernel);"
    (tmp_path / "register_dispatch.mm.j2").write_text("// edited\n{{ call }}\n")
    assert render_builtin("register_dispatch.mm.j2", tmp_path, values) is None
    assert render_builtin("functor.metal.j2", tmp_path, values) is None  # no such file there
    assert render_builtin("unknown.j2", jinja_dir, values) is None
