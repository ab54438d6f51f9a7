"""Catalog bodies checked as their plans would check them: through the op's binding, against torch CPU."""

from __future__ import annotations

from mpsgen.emulate.check import check_kernel
from mpsgen.generate import catalog, render
from mpsgen.plan.binding import Binding, schema_args
from try_support import include_root


def test_leaky_relu_backward_agrees_with_torch_with_the_flag_the_kernel_never_sees() -> None:
    """self_is_result only reaches a TORCH_CHECK in leaky_relu_backward_out, never the stub: the numeric
    check calls torch with it unset (False) instead of giving up, and every float dtype agrees."""
    func = ("leaky_relu_backward(Tensor grad_output, Tensor self, Scalar negative_slope, bool self_is_result) "
            "-> Tensor")
    # the iterator is (self, grad_output): the kernel's a is self, b the gradient
    binding = Binding("leaky_relu_backward", schema_args(func), (1, 0), ("arg:2",))
    spec = catalog.spec_for("leaky_relu_backward", "binary_alpha", scalars=("negval",))
    result = check_kernel(spec, render.render_functor(spec), op=binding.op, include_root=include_root("sample"),
                          binding=binding)
    assert result.reference == "torch.ops.aten.leaky_relu_backward"
    assert {r.dtype for r in result.rows} == {"float32", "float16", "bfloat16"}
    assert result.ok, [r for r in result.rows if not r.ok]


def test_lerp_with_a_scalar_weight_agrees_with_torch_through_its_binding() -> None:
    """lerp_kernel_scalar_weight's kernel: the weight drawn from edge values on both sides of 0.5."""
    binding = Binding("lerp", schema_args("lerp.Scalar(Tensor self, Tensor end, Scalar weight) -> Tensor"), (0, 1),
                      ("arg:2",))
    spec = catalog.spec_for("lerp", "binary_alpha", scalars=("weight",))
    result = check_kernel(spec, render.render_functor(spec), op=binding.op, include_root=include_root("sample"),
                          binding=binding)
    assert result.reference == "torch.ops.aten.lerp"
    assert {r.dtype for r in result.rows} == {"float32", "float16", "bfloat16"}
    assert result.ok, [r for r in result.rows if not r.ok]
