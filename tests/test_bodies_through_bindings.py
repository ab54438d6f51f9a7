"""Catalog bodies checked as their plans would check them: through the op's binding, against torch CPU."""

from __future__ import annotations

import pytest

from mpsgen.emulate.numerics import check_kernel
from mpsgen.backfill import c10_shims
from mpsgen.generate import catalog, render
from mpsgen.plan.binding import Binding, schema_args
from try_support import include_root


def _agrees_for_every_float(kernel: str, binding: Binding, scalar: str, arity: str = "binary_alpha") -> None:
    spec = catalog.spec_for(kernel, arity, scalars=(scalar,))
    result = check_kernel(spec, render.render_functor(spec), op=binding.op, include_root=include_root("sample"),
                          binding=binding)
    assert result.reference == f"torch.ops.aten.{binding.op}"
    assert {r.dtype for r in result.rows} == {"float32", "float16", "bfloat16"}
    assert result.ok, [r for r in result.rows if not r.ok]


def test_leaky_relu_backward_agrees_with_torch_with_the_flag_the_kernel_never_sees() -> None:
    """self_is_result only reaches a TORCH_CHECK in leaky_relu_backward_out, never the stub: the numeric
    check calls torch with it unset (False) instead of giving up, and every float dtype agrees."""
    func = ("leaky_relu_backward(Tensor grad_output, Tensor self, Scalar negative_slope, bool self_is_result) "
            "-> Tensor")
    # the iterator is (self, grad_output): the kernel's a is self, b the gradient
    _agrees_for_every_float("leaky_relu_backward", Binding("leaky_relu_backward", schema_args(func), (1, 0),
                                                           ("arg:2",)), "negval")


@pytest.mark.parametrize(("func", "order", "arity"), [
    ("hardshrink(Tensor self, Scalar lambd=0.5) -> Tensor", (0,), "unary_alpha"),
    # the meta function's iterator is (grad, self): the kernel's a is the gradient, b is self
    ("hardshrink_backward(Tensor grad_out, Tensor self, Scalar lambd) -> Tensor", (0, 1), "binary_alpha"),
], ids=["hardshrink", "hardshrink_backward"])
def test_hardshrink_bodies_agree_with_torch_for_every_lambd(func: str, order: tuple[int, ...], arity: str) -> None:
    """lambd reaches the kernel rounded to the input type (lambd.to<scalar_t>() on the CPU); x == +-lambd
    is inside the zeroed band for both, and a NaN self gives NaN forward and 0 backward."""
    op = func.split("(")[0]
    _agrees_for_every_float(op, Binding(op, schema_args(func), order, (f"arg:{len(order)}",)), "lambd", arity)


def test_lerp_with_a_scalar_weight_agrees_with_torch_through_its_binding() -> None:
    """lerp_kernel_scalar_weight's kernel: the weight drawn from edge values on both sides of 0.5."""
    func = "lerp.Scalar(Tensor self, Tensor end, Scalar weight) -> Tensor"
    _agrees_for_every_float("lerp", Binding("lerp", schema_args(func), (0, 1), ("arg:2",)), "weight")


@pytest.mark.parametrize("headers", ["sample", "wheel"])
def test_polygamma_agrees_with_torch_for_every_order_and_registered_dtype(headers: str) -> None:
    """polygamma's int64_t n drawn as 0 (digamma), 1 (trigamma), 3 and 20 (calc_polygamma; torch refuses
    n < 0): every registered dtype agrees.  The sample's c10/metal has no zeta: the functor's stand-in."""
    from mpsgen.backfill import c10_shims

    spec = catalog.spec_for("polygamma", "unary_alpha", scalars=("n",))
    if headers == "sample":
        spec = spec._replace(shims=("zeta",), expr=c10_shims.redirect(spec.expr, {"zeta"}))
    func = "polygamma(int n, Tensor self) -> Tensor"
    result = check_kernel(spec, render.render_functor(spec), op="polygamma", include_root=include_root(headers),
                          binding=Binding("polygamma", schema_args(func), (1,), ("arg:0",)))
    assert {r.dtype for r in result.rows} == {"float32", "float16", "bfloat16", "int64", "int32", "int16", "int8",
                                              "uint8", "bool"}
    assert all(r.values > 1000 for r in result.rows)
    assert result.ok, [r for r in result.rows if not r.ok]


@pytest.mark.parametrize("stand_in", [False, True], ids=["c10-expm1f", "2.7-stand-in"])
def test_elu_agrees_with_torch_where_exp_minus_one_would_cancel(stand_in: bool) -> None:
    """torch's CPU elu computes expm1 exactly: with alpha * scale = 400 an exp(x) - 1 body is 2e-5 off near
    x = 0. The body agrees through c10/metal's expm1f and through the stand-in a 2.7 checkout gets."""
    func = "elu(Tensor self, Scalar alpha=1, Scalar scale=1, Scalar input_scale=1) -> Tensor"
    spec = catalog.spec_for("elu", "unary_params", scalars=("alpha", "scale", "input_scale"))
    if stand_in:
        spec = spec._replace(expr=c10_shims.redirect(spec.expr, {"expm1f"}), shims=("expm1f",))
    binding = Binding("elu", schema_args(func), (0,), ("arg:1", "arg:2", "arg:3"))
    result = check_kernel(spec, render.render_functor(spec), op="elu", include_root=include_root("sample"),
                          binding=binding)
    assert {r.dtype for r in result.rows} == {"float32", "float16", "bfloat16"}
    assert all(r.values > 1000 for r in result.rows)
    assert result.ok, [r for r in result.rows if not r.ok]


def test_pow_tensor_scalar_agrees_with_torch_at_the_cpu_kernels_special_exponents(monkeypatch, tmp_path) -> None:
    """pow_tensor_scalar_kernel switches at 0.5, -0.5, -1 (sqrt, rsqrt, reciprocal: -0 gives -0 and -inf where
    pow gives +0 and +inf), 2, 3 and -2 (products in T: bfloat16 rounds each), for float32 and bfloat16 but
    not half; integers take powi.  Every exponent is drawn, besides the usual ones."""
    from mpsgen.emulate import bound

    special = {"float": (0.5, -0.5, -1.0, 2.0, 3.0, -2.0, 0.1), "int": (2.0, 3.0, 7.0), "uchar": (3.0, 5.0)}
    monkeypatch.setattr(bound, "ALPHA_VALUES", {k: v + special.get(k, ()) for k, v in bound.ALPHA_VALUES.items()})
    monkeypatch.setenv("MPSGEN_CACHE_DIR", str(tmp_path))  # results are cached per kernel, not per input set
    func = "pow.Tensor_Scalar(Tensor self, Scalar exponent) -> Tensor"
    spec = catalog.spec_for("pow_tensor_scalar", "unary_alpha", dtypes=("float", "integer"), scalars=("exp",))
    binding = Binding("pow", schema_args(func), (0,), ("arg:1",))
    result = check_kernel(spec, render.render_functor(spec), op="pow", include_root=include_root("sample"),
                          binding=binding)
    assert result.reference == "torch.ops.aten.pow"
    assert {r.dtype for r in result.rows} == {"float32", "float16", "bfloat16", "int64", "int32", "int16", "int8",
                                              "uint8", "bool"}
    assert any("refused by torch" in r.note for r in result.rows if r.dtype == "int64")  # a negative exponent
    assert result.ok, [r for r in result.rows if not r.ok]
