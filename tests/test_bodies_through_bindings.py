"""Catalog bodies checked as their plans would check them: through the op's binding, against torch CPU."""

from __future__ import annotations

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
