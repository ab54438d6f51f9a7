"""generate/c10_shims.py: which c10::metal functions a body calls, and the body redirected to the
functor's own stand-ins; the stand-ins' numbers are checked by the 2.7 migrations (test_template_host_name)."""

from __future__ import annotations

from mpsgen.generate import c10_shims
from mpsgen.generate.render import render_functor
from mpsgen.model import KernelSpec


def test_called_lists_each_c10_function_once_in_order() -> None:
    body = "c10::metal::hypot(a, b) + ::c10::metal::log1p(c10::metal::hypot(b, a)) + my::c10::metal::x(1)"
    assert c10_shims.called(body) == ["hypot", "log1p"]


def test_redirect_rewrites_only_the_named_functions() -> None:
    body = "c10::metal::hypot(a, b) * ::c10::metal::log1p(c10::metal::hypot (b, a))"
    assert c10_shims.redirect(body, {"hypot"}) == "hypot_(a, b) * ::c10::metal::log1p(hypot_(b, a))"


def test_the_stand_ins_open_the_functor_after_a_comment() -> None:
    spec = KernelSpec("hyp", "binary", "hypot_(float(a), float(b))", shims=("hypot",))
    text = render_functor(spec)
    lines = text.splitlines()
    assert lines[0] == "struct hyp_functor {"
    assert lines[1] == "  // this checkout's c10/metal has no hypot"
    assert lines[2] == "  inline float hypot_(float a, float b) {"
    assert text.index("hypot_(float a") < text.index("operator()")
    assert text.rstrip().endswith("};")
