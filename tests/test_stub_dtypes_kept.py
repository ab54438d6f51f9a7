"""Dtypes a shared kernel keeps from its stub: ceil_out copies integer inputs itself
(`if (isIntegralType(self.scalar_type(), /*includeBool=*/false)) result.copy_(self); else ceil_stub(...)`),
so a Metal kernel for ceil_stub never sees them, and upstream's float-only `ceil` kernel serves the op.

The tree: the scalar-ops tree (sample + the 2.13 wheel's yaml, test lists and MetalShaderLibrary.h) with
ceil's CPU macro, its DECLARE_DISPATCH, its MPSGraph stub registration and upstream's float-only `ceil`
kernel, each in the shape of the real 2.7/2026 files.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from scalar_ops_tree import NATIVE, migrate as _migrate, read as _read

from mpsgen.sources.native.shared_impl import find_shared_impl
from test_cli_unary_stub import MACRO

NO_OP_MACRO = """
// torch.(ceil|floor|round|trunc) are no-ops for integers
#define CREATE_UNARY_TORCH_IMPL_INTEGER_NO_OP_FUNC(func_out, func_stub)                                \\
TORCH_IMPL_FUNC(func_out) (const Tensor& self, const Tensor& result) {  \\
  if (c10::isIntegralType(self.scalar_type(), /*includeBool=*/{bool})) {                                      \\
    result.copy_(self);                                                 \\
  }} else {{                                                              \\
    func_stub(device_type(), *this);                                    \\
  }}                                                                     \\
}}
CREATE_UNARY_TORCH_IMPL_INTEGER_NO_OP_FUNC(ceil_out, ceil_stub)
"""

# The MPSGraph registration of ceil_stub, as UnaryOps.mm writes it (the macro and its use).
MPSGRAPH_STUB = MACRO.replace("REGISTER_MPS_UNARY_STUB(floor, floor);\n", "")

UPSTREAM_CEIL = """
struct ceil_functor {
  template <typename T>
  inline T operator()(const T x) {
    return T(::metal::ceil(float(x)));
  }
};

#define REGISTER_ROUNDING_OPS(DTYPE) REGISTER_UNARY_OP(ceil, DTYPE, DTYPE)

REGISTER_ROUNDING_OPS(float);
REGISTER_ROUNDING_OPS(half);
REGISTER_ROUNDING_OPS(bfloat);
"""


def _cpu(include_bool: str) -> str:
    return NO_OP_MACRO.replace("{bool}", include_bool).replace("{{", "{").replace("}}", "}")


def test_the_stub_call_records_the_integral_branch_that_keeps_integers_from_it():
    for include_bool, kind in (("false", "integral"), ("true", "integral+bool")):
        impl = find_shared_impl({"aten/src/ATen/native/UnaryOps.cpp": _cpu(include_bool)}, "ceil_out")
        assert impl is not None and [(c.stub, c.diverts) for c in impl.stubs] == [("ceil_stub", kind)]
    # A stub called in the integral branch itself, or with no such test, sees every dtype.
    then_branch = _cpu("false").replace("result.copy_(self);", "func_stub(device_type(), *this);", 1)
    impl = find_shared_impl({"aten/src/ATen/native/UnaryOps.cpp": then_branch}, "ceil_out")
    assert [c.diverts for c in impl.stubs] == ["", "integral"]


def _add_ceil(root: Path) -> Path:
    cpu = root / NATIVE / "UnaryOps.cpp"
    cpu.write_text(cpu.read_text().replace("\nCREATE_UNARY_TORCH_IMPL_FUNC(asinh_out, asinh_stub)",
                                           _cpu("false") + "\nCREATE_UNARY_TORCH_IMPL_FUNC(asinh_out, asinh_stub)", 1))
    cpu.write_text(cpu.read_text().replace("DEFINE_DISPATCH(abs_stub);", "DEFINE_DISPATCH(abs_stub);\nDEFINE_DISPATCH(ceil_stub);", 1))
    header = root / NATIVE / "UnaryOps.h"
    header.write_text(header.read_text().replace("DECLARE_DISPATCH(unary_fn, abs_stub)",
                                                 "DECLARE_DISPATCH(unary_fn, abs_stub)\nDECLARE_DISPATCH(unary_fn, ceil_stub)", 1))
    mm = root / NATIVE / "mps/operations/UnaryOps.mm"
    text = mm.read_text()
    end = text.rindex("} // namespace at::native")
    mm.write_text(text[:end] + MPSGRAPH_STUB.lstrip("\n") + "\n" + text[end:])
    metal = root / NATIVE / "mps/kernels/UnaryKernel.metal"
    metal.write_text(metal.read_text() + UPSTREAM_CEIL)
    subprocess.run(["git", "add", "-A"], cwd=root, check=True)
    subprocess.run(["git", "commit", "-qm", "ceil on MPSGraph; upstream's float-only ceil kernel"], cwd=root, check=True)
    return metal


def test_upstreams_float_kernel_serves_an_op_whose_shared_kernel_copies_integers(scalar_tree: Path):
    """Reused without bool, which the CPU kernel refuses too; refused without a dtype the CPU serves."""
    metal = _add_ceil(scalar_tree)
    before = metal.read_text()
    # Upstream's kernel without a dtype the CPU serves (half): refused, naming it.
    metal.write_text(before.replace("REGISTER_ROUNDING_OPS(half);\n", ""))
    refused = _migrate(scalar_tree, "ceil", "--allow-dirty")
    assert refused.returncode == 2
    assert "UnaryKernel.metal:" in refused.stderr
    assert "kernel name 'ceil' is already registered by REGISTER_ROUNDING_OPS without half" in refused.stderr
    assert "--drop-dtypes float16" in refused.stderr
    metal.write_text(before)
    # The 2.13 OpInfo declares bool for MPS, and bool does reach ceil_stub (ceil_out copies only the other
    # integers), but torch's CPU ceil has no bool case either: upstream's kernel is reused, bool dropped.
    result = _migrate(scalar_tree, "ceil")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "dtype     bool       served by MPSGraph            ->  not registered" in out
    assert ("the CPU kernel has no bool case (torch raises) and aten/src/ATen/native/mps/kernels/UnaryKernel.metal's "
            "ceil kernel registers none: bool dropped, as --drop-dtypes bool would") in out
    assert "dtype     float16    served by MPSGraph" in out and "->  registered upstream" in out
    for dtype in ("int64", "int32", "int16", "int8", "uint8"):
        line = next(ln for ln in out.splitlines() if f"dtype     {dtype} " in ln)
        assert line.endswith("->  handled by ceil_out at aten/src/ATen/native/UnaryOps.cpp:"
                             f"{_ceil_line(scalar_tree)}, never reaches the stub"), line
    assert metal.read_text() == before  # no Metal written: upstream's kernel is called
    host = _read(scalar_tree, f"{NATIVE}/mps/operations/UnaryKernel.mm")
    assert host.endswith("REGISTER_UNARY_TI_DISPATCH(expm1);\nREGISTER_UNARY_TI_DISPATCH(ceil);\n} // namespace at::native\n")
    assert "REGISTER_MPS_UNARY_STUB(ceil, ceil);" not in _read(scalar_tree, f"{NATIVE}/mps/operations/UnaryOps.mm")
    assert '"ceil": [torch.bool]' in _read(scalar_tree, "torch/testing/_internal/common_mps.py")


def _ceil_line(root: Path) -> int:
    lines = (root / NATIVE / "UnaryOps.cpp").read_text().splitlines()
    return lines.index("CREATE_UNARY_TORCH_IMPL_INTEGER_NO_OP_FUNC(ceil_out, ceil_stub)") + 1


def test_an_iterator_whose_inputs_keep_their_own_dtypes_is_found_at_its_config_line():
    """where: a bool condition beside two T values (plan/shape.py then decides: written where c10/metal
    casts each input, refused where it does not: tests/test_mixed_dtypes.py)."""
    from mpsgen.plan.kernel_choice import _mixed_input_dtypes

    path = "aten/src/ATen/native/TensorCompare.cpp"
    text = (Path(__file__).resolve().parent / "data" / "mixed_dtypes" / "TensorCompare.cpp").read_text()
    impl = find_shared_impl({path: text}, "where_self_out")
    assert impl is not None and impl.stub_names == ("where_kernel",)
    mixed = _mixed_input_dtypes(text, impl, ("condition_", "self_", "other_"))
    assert mixed is not None and (mixed.path, mixed.line, mixed.kernel) == (path, 18, "where_self_out")
    assert mixed.inputs == ("condition_", "self_", "other_")
    # One input dtype (logical_not: only the output's dtype differs): nothing mixed.
    same = text.replace(".check_all_same_dtype(false)\n", "")
    assert _mixed_input_dtypes(same, find_shared_impl({path: same}, "where_self_out"), ("a", "b")) is None
