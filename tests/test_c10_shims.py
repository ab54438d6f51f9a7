"""backfill/c10_shims.py: which c10::metal functions a body calls, and the body redirected to the
functor's own stand-ins; the stand-ins' numbers are checked by the 2.7 migrations (test_template_host_name)."""

from __future__ import annotations

from mpsgen.backfill import c10_shims
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


# 2.7's c10/metal/special_math.h log1p (its shape; comments blanked as era.py reads it) and 2.13's utils.h one.
LOG1P_27 = """template <typename T>
inline float log1p(T x) {
  if (::metal::fabs(x) > 1E-4) {
    return ::metal::log(1. + x);
  }
  return (-0.5 * x + 1.0) * x;
}"""
LOG1P_213 = """inline float log1p(float x) {
  const auto xp1 = 1.0f + x;
  if (xp1 == 1.0f) {
    return x;
  }
  auto rc = ::metal::precise::log(xp1);
  if (x > -.5 && x < .5) {
    rc *= x / (xp1 - 1.0f);
  }
  return rc;
}"""


def test_a_helper_defined_less_exactly_than_the_cpu_gets_its_stand_in() -> None:
    assert c10_shims.lacks("log1p", LOG1P_27)
    assert not c10_shims.lacks("log1p", LOG1P_213)
    assert c10_shims.lacks("hypot", LOG1P_213) and not c10_shims.lacks("hypot", "inline float hypot(float a, float b)")
    spec = KernelSpec("lp", "unary", "log1p_(float(x))", shims=("log1p",))
    assert "  // this checkout's c10/metal has no log1p as exact as the CPU's\n  inline float log1p_(float x) {" \
        in render_functor(spec)


# expm1f's argument reduction in the two shapes (written for this test): high part of log(2) only, as 2.13's
# expm1f.h has it, and the Cody-Waite pair.
EXPM1F_HIGH_ONLY = """inline float expm1f_scaled_unchecked(float a, float b) {
  j = ::metal::fma(1.442695f, a, 12582912.f);
  j = j - 12582912.0f;
  f = ::metal::fma(j, -6.93145752e-1f, a);

  s = f * f;
}
inline float expm1f(float a) {
"""
EXPM1F_BOTH_PARTS = EXPM1F_HIGH_ONLY.replace("a);\n", "a);\n  f = ::metal::fma(j, -1.42860677e-6f, f);\n")


def test_an_expm1f_reducing_by_the_high_part_of_log2_only_gets_the_stand_in() -> None:
    assert EXPM1F_BOTH_PARTS != EXPM1F_HIGH_ONLY
    assert c10_shims.lacks("expm1f", EXPM1F_HIGH_ONLY)
    assert not c10_shims.lacks("expm1f", EXPM1F_BOTH_PARTS)
    assert c10_shims.described(("expm1f",)) == "expm1f as exact as the CPU's"


def test_the_log1p_stand_in_agrees_with_torch() -> None:
    from try_support import SAMPLE_HEADERS, table
    from mpsgen.emulate.numerics import check_kernel

    spec = KernelSpec("log1p", "unary", "log1p_(float(x))", dtypes=("float",), shims=("log1p",))
    result = check_kernel(spec, render_functor(spec), op="log1p", include_root=SAMPLE_HEADERS)
    assert {r.dtype for r in result.rows} == {"float32", "float16", "bfloat16"}
    assert result.ok, table(result)


def test_the_complex_logaddexp_stand_in_divides_as_the_cpu() -> None:
    """c10::complex's division takes the scale 1/den first: logaddexp(0.295+0.435j, -90.3+0.151j) is NaN on
    the CPU (exp(min - max) has a subnormal imaginary part), and so it is through the stand-in."""
    from try_support import SAMPLE_HEADERS, table
    from mpsgen.emulate.numerics import check_kernel
    from mpsgen.generate import catalog

    spec = catalog.spec_for("logaddexp", "binary")
    bodies = {k: c10_shims.redirect(getattr(spec, k), {"logaddexp"}) for k in ("expr", "complex_expr")
              if getattr(spec, k)}
    assert "logaddexp_(" in bodies["complex_expr"]
    spec = spec._replace(shims=("logaddexp",), **bodies)
    result = check_kernel(spec, render_functor(spec), op="logaddexp", include_root=SAMPLE_HEADERS)
    assert {"complex64", "complex32"} <= {r.dtype for r in result.rows}
    assert result.ok, table(result)


def test_a_stand_in_carries_the_one_it_calls_once_and_says_why() -> None:
    """erfc_ calls erfcx_ (the catalog's special_erfcx body): a functor needing only erfc_ carries erfcx_
    first, marked as erfc_'s; needing both, each comes once, each saying what the checkout lacks."""
    from mpsgen.generate import catalog

    alone = c10_shims.member_functions(("erfc",))
    assert [m.split("\n")[:2] for m in alone] == [["// erfc_ calls it", "inline float erfcx_(float x) {"],
                                                  ["// this checkout's c10/metal has no erfc",
                                                   "inline float erfc_(float x) {"]]
    assert "erfcx_(a)" in alone[1]
    body = str(catalog.load_catalog()["special_erfcx"]["expr"])
    assert "\n".join("  " + ln if ln else ln for ln in body.rstrip("\n").split("\n")) in alone[0]
    both = c10_shims.member_functions(("erfcx", "log1p", "erfc"))
    assert [m.split("\n")[1].split("(")[0] for m in both] == ["inline float erfcx_", "inline float log1p_",
                                                              "inline float erfc_"]
    assert both[0].startswith("// this checkout's c10/metal has no erfcx\n")


def test_every_stand_in_has_its_metal_text_in_templates_and_nothing_else_is_there() -> None:
    """The stand-ins' Metal lives in templates/c10_shims/<name>.metal (shipped in the wheel), one file per
    stand-in the module names that is not derived; each is one or more member functions, ending in `}`."""
    from mpsgen.generate.templating import default_templates_dir

    folder = default_templates_dir() / c10_shims.SHIMS_DIR
    assert {p.stem for p in folder.glob("*.metal")} == c10_shims.SHIMS - set(c10_shims.DERIVED)
    for name in sorted(c10_shims.SHIMS):
        text = c10_shims.shim_text(name)
        assert f" {name}_(" in text.split("\n", 2)[0] + text.split("\n", 2)[1] and text.endswith("}")
        assert not text.endswith("\n")  # the functor places the newline


def test_a_member_function_is_the_files_text_after_why(tmp_path) -> None:
    from mpsgen.generate.templating import default_templates_dir

    file_text = (default_templates_dir() / c10_shims.SHIMS_DIR / "hypot.metal").read_text(encoding="utf-8")
    assert c10_shims.member_functions(("hypot",)) == ["// this checkout's c10/metal has no hypot\n" + file_text[:-1]]
    assert file_text.endswith("}\n")
