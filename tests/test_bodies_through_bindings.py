"""Catalog bodies checked as their plans would check them: through the op's binding, against torch CPU."""

from __future__ import annotations

import pytest

from mpsgen.emulate.check import check_kernel
from mpsgen.generate import catalog, render
from mpsgen.plan.binding import Binding, schema_args
from try_support import include_root


def _agrees_for_every_float(kernel: str, binding: Binding, scalar: str) -> None:
    spec = catalog.spec_for(kernel, "binary_alpha", scalars=(scalar,))
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


def test_lerp_with_a_scalar_weight_agrees_with_torch_through_its_binding() -> None:
    """lerp_kernel_scalar_weight's kernel: the weight drawn from edge values on both sides of 0.5."""
    func = "lerp.Scalar(Tensor self, Tensor end, Scalar weight) -> Tensor"
    _agrees_for_every_float("lerp", Binding("lerp", schema_args(func), (0, 1), ("arg:2",)), "weight")


@pytest.mark.parametrize("headers", ["sample", "wheel"])
def test_polygamma_agrees_with_torch_for_every_order_and_registered_dtype(headers: str) -> None:
    """polygamma's int64_t n drawn as 0 (digamma), 1 (trigamma), 3 and 20 (calc_polygamma; torch refuses
    n < 0): every registered dtype agrees.  The sample's c10/metal has no zeta: the functor's stand-in."""
    from mpsgen.generate import c10_shims

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
