"""host.py: legacy impl removal, registrations, host kernels and includes in operations/*.mm (2025 and 2026 shapes).

The .mm files under tests/data/host/ are hand-written to the layouts described in the reference notes.
"""

from __future__ import annotations

import difflib
from pathlib import Path

import pytest

from mpsgen.errors import MpsgenError
from mpsgen.scan.mask import mask_code
from mpsgen.sources.host.mm import (
    add_host_kernel,
    add_unary_ti_dispatch,
    ensure_include,
    find_implementations,
    format_register_line,
    host_kernel_calls,
    register_dispatch_style,
    registered_stubs,
    remove_implementation,
    remove_op_include,
    uses_unary_ti_macro,
)

DATA = Path(__file__).parent / "data" / "host"


def load(name: str) -> str:
    return (DATA / name).read_bytes().decode("utf-8")


@pytest.fixture(scope="module")
def mm() -> dict[str, str]:
    return {p.name: load(p.name) for p in sorted(DATA.glob("*.mm"))}


def changed(before: str, after: str) -> tuple[list[str], list[str]]:
    """(removed lines, added lines) of a line diff: proves byte-exactness outside the edit."""
    removed, added = [], []
    for line in difflib.ndiff(before.splitlines(keepends=True), after.splitlines(keepends=True)):
        if line.startswith("- "):
            removed.append(line[2:])
        elif line.startswith("+ "):
            added.append(line[2:])
    return removed, added


def brace_balance(text: str) -> int:
    """{ minus } outside comments and literals: 0 for a well-formed file."""
    masked = mask_code(text)
    return masked.count("{") - masked.count("}")


def test_fixtures_are_balanced(mm):
    for name, text in mm.items():
        assert brace_balance(text) == 0, name


# --------------------------------------------------------------------------------------------
# Finding legacy implementations
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "path", "line", "end", "form", "macro", "backend"),
    [
        ("atan2_out_mps", "BinaryOps_2025.mm", 89, 97, "TORCH_IMPL_FUNC", None, "mpsgraph"),
        ("xlogy_out_mps", "BinaryOps_2025.mm", 117, 123, "TORCH_IMPL_FUNC", None, "mpsgraph"),
        ("fmod_mps_out", "BinaryOps_2025.mm", 85, 87, "TORCH_IMPL_FUNC", None, "mpsgraph"),  # via div_mode_template
        ("add_out_mps", "BinaryOps_2025.mm", 99, 102, "TORCH_IMPL_FUNC", None, "metal"),
        ("pow_Scalar_out_mps", "BinaryOps_2025.mm", 109, 115, "TORCH_IMPL_FUNC", None, "unknown"),
        ("minimum_out_mps", "BinaryOps_2025.mm", 80, 80, "macro", "CREATE_MPS_STRUCTURED_BINARY_OP_FUNC", "mpsgraph"),
        ("logical_and_out_mps", "BinaryOps_2025.mm", 83, 83, "macro", "CREATE_MPS_BINARY_COMPARISON_OP_FUNC", "mpsgraph"),
        ("asinh_out_mps", "UnaryOps_2026.mm", 56, 56, "macro", "CREATE_MPS_STRUCTURED_UNARY_TORCH_IMPL_FUNC", "mpsgraph"),
        ("trunc_stub", "UnaryOps_2026.mm", 55, 55, "macro", "REGISTER_MPS_UNARY_STUB", "mpsgraph"),
        ("trunc", "UnaryOps_2026.mm", 55, 55, "macro", "REGISTER_MPS_UNARY_STUB", "mpsgraph"),
        ("logical_not_out_mps", "UnaryOps_2026.mm", 59, 65, "function", None, "mpsgraph"),
        ("sgn_out_mps", "UnaryOps_2026.mm", 81, 89, "TORCH_IMPL_FUNC", None, "mpsgraph"),
        ("searchsorted_out_mps", "Bucketization_raw.mm", 17, 20, "function", None, "metal"),
    ],
)
def test_find_implementations(mm, name, path, line, end, form, macro, backend):
    (impl,) = find_implementations(mm, name)
    assert (impl.path, impl.line, impl.end_line, impl.form, impl.macro, impl.backend) == (
        path, line, end, form, macro, backend,
    )


def test_macro_definitions_and_calls_are_not_implementations(mm):
    # `#define CREATE_MPS_...(func_out, ...)` and calls such as mps::binaryOpTensor(...) are not definitions.
    assert find_implementations(mm, "func_out") == []
    assert find_implementations(mm, "binary_op_kernel") == [
        i for i in find_implementations(mm, "binary_op_kernel") if i.backend == "metal"
    ]
    assert find_implementations(mm, "nonexistent_out_mps") == []


# --------------------------------------------------------------------------------------------
# Removing them
# --------------------------------------------------------------------------------------------


def _remove(text: str, path: str, name: str, **kw) -> str:
    (impl,) = find_implementations({path: text}, name)
    out = remove_implementation(text, impl, **kw)
    assert remove_implementation(out, impl, **kw) == out  # idempotent
    assert brace_balance(out) == 0
    return out


def test_remove_explicit_block_with_next_line_params_and_tricky_braces(mm):
    text = mm["BinaryOps_2025.mm"]
    out = _remove(text, "BinaryOps_2025.mm", "atan2_out_mps")
    removed, added = changed(text, out)
    assert added == []
    assert removed[0] == "TORCH_IMPL_FUNC(atan2_out_mps)\n"
    assert removed[-1] == "\n"  # the blank line that went with the block
    assert len(removed) == 10
    assert "}\n\nTORCH_IMPL_FUNC(add_out_mps)\n" in out
    assert "\n\n\n" not in out


def test_remove_last_block_leaves_no_double_blank_before_namespace_close(mm):
    out = _remove(mm["BinaryOps_2025.mm"], "BinaryOps_2025.mm", "xlogy_out_mps")
    assert out.endswith("  }\n}\n\n} // namespace at::native\n")
    assert "\n\n\n" not in out


def test_remove_one_line_macros(mm):
    text = mm["BinaryOps_2025.mm"]
    out = _remove(text, "BinaryOps_2025.mm", "minimum_out_mps")
    assert changed(text, out) == (
        ["CREATE_MPS_STRUCTURED_BINARY_OP_FUNC(minimum_out_mps, minimumWithNaNPropagationAndIntFallback, Tensor)\n"],
        [],
    )
    out2 = _remove(text, "BinaryOps_2025.mm", "logical_and_out_mps")  # line with `;`, blank on both sides
    removed, _ = changed(text, out2)
    assert removed == ["CREATE_MPS_BINARY_COMPARISON_OP_FUNC(logical_and_out_mps, logicalAND, Tensor);\n", "\n"]


def test_remove_register_mps_unary_stub_and_plain_function(mm):
    text = mm["UnaryOps_2026.mm"]
    out = _remove(text, "UnaryOps_2026.mm", "trunc_stub")
    assert changed(text, out) == (["REGISTER_MPS_UNARY_STUB(trunc, truncate);\n"], [])
    assert "trunc_stub" not in registered_stubs({"UnaryOps_2026.mm": out})
    out = _remove(text, "UnaryOps_2026.mm", "logical_not_out_mps")
    removed, added = changed(text, out)
    assert removed[0].startswith("Tensor& logical_not_out_mps(") and len(removed) == 8 and added == []
    assert "CREATE_MPS_STRUCTURED_UNARY_TORCH_IMPL_FUNC(acosh_out_mps, acosh)\n\nTORCH_IMPL_FUNC(signbit_out_mps)" in out


def test_refuses_to_delete_metal_or_unknown_code(mm):
    text = mm["BinaryOps_2025.mm"]
    (add,) = find_implementations({"BinaryOps.mm": text}, "add_out_mps")
    with pytest.raises(MpsgenError) as err:
        remove_implementation(text, add)
    assert err.value.path == "BinaryOps.mm" and err.value.line == 99 and "Metal" in err.value.message
    (pw,) = find_implementations({"BinaryOps.mm": text}, "pow_Scalar_out_mps")
    with pytest.raises(MpsgenError) as err:
        remove_implementation(text, pw)
    assert err.value.line == 109
    out = remove_implementation(text, pw, allow_unknown=True)
    assert "pow_Scalar_out_mps" not in out and brace_balance(out) == 0
    (ss,) = find_implementations({"B.mm": mm["Bucketization_raw.mm"]}, "searchsorted_out_mps")
    with pytest.raises(MpsgenError):
        remove_implementation(mm["Bucketization_raw.mm"], ss)


def test_removal_keeps_crlf(mm):
    text = mm["BinaryOps_2025.mm"].replace("\n", "\r\n")
    out = _remove(text, "BinaryOps.mm", "atan2_out_mps")
    assert out.count("\n") == out.count("\r\n")
    assert out == _remove(mm["BinaryOps_2025.mm"], "BinaryOps.mm", "atan2_out_mps").replace("\n", "\r\n")


def test_refuses_definition_sharing_a_line():
    text = "namespace at::native {\nint x; TORCH_IMPL_FUNC(foo_out_mps)(const Tensor& s) { mpsGraph; }\n} // namespace at::native\n"
    (impl,) = find_implementations({"X.mm": text}, "foo_out_mps")
    with pytest.raises(MpsgenError) as err:
        remove_implementation(text, impl)
    assert err.value.line == 2


# --------------------------------------------------------------------------------------------
# Include removal
# --------------------------------------------------------------------------------------------


def test_remove_op_include_guarded_after_removal(mm):
    text = mm["BinaryOps_2025.mm"]
    assert remove_op_include(text, "atan2") == text  # still used by atan2_out_mps
    out = _remove(text, "BinaryOps_2025.mm", "atan2_out_mps")
    out2 = remove_op_include(out, "atan2")
    assert changed(out, out2) == (["#include <ATen/ops/atan2_native.h>\n"], [])
    assert remove_op_include(out2, "atan2") == out2
    assert remove_op_include(out2, "atan2_native") == out2


def test_remove_op_include_keeps_header_still_needed(mm):
    text = _remove(mm["BinaryOps_2025.mm"], "BinaryOps_2025.mm", "pow_tensor_tensor_out_mps")
    assert remove_op_include(text, "pow") == text  # pow_Scalar_out_mps is still declared there


ACTIVATION = """#include <ATen/ops/_log_softmax_native.h>
#include <ATen/ops/softplus_backward_native.h>
#include <ATen/ops/softplus_native.h>
#include <ATen/ops/threshold_native.h>

namespace at::native {
TORCH_IMPL_FUNC(softplus_backward_out_mps)
(const Tensor& grad_output, const Tensor& self, const Scalar& beta, const Scalar& threshold, const Tensor& grad_input) {
  MPSScalar threshold_scalar = getMPSScalar(threshold, ScalarType::Float);
}

TORCH_IMPL_FUNC(log_softmax_mps_out)(const Tensor& self, const int64_t dim, const bool half_to_float, const Tensor& out) {}
} // namespace at::native
"""


def test_remove_op_include_a_longer_ops_name_or_a_variable_keeps_no_header():
    """softplus_backward_out_mps is softplus_backward_native.h's: with softplus_out_mps gone, softplus_native.h goes;
    `threshold` and `threshold_scalar` are variables, not kernels threshold_native.h declares."""
    out = remove_op_include(ACTIVATION, "softplus", longer_ops={"softplus_backward", "softplus_backward_native"})
    assert changed(ACTIVATION, out) == (["#include <ATen/ops/softplus_native.h>\n"], [])
    assert remove_op_include(ACTIVATION, "softplus") == ACTIVATION  # without the yaml's ops: conservative
    assert remove_op_include(ACTIVATION, "softplus_backward", longer_ops={"softplus"}) == ACTIVATION
    out = remove_op_include(ACTIVATION, "threshold", longer_ops={"threshold_backward"})
    assert changed(ACTIVATION, out) == (["#include <ATen/ops/threshold_native.h>\n"], [])
    called = ACTIVATION.replace("getMPSScalar(threshold,", "getMPSScalar(at::native::threshold(self, 1, 0),")
    assert remove_op_include(called, "threshold") == called  # a call: a kernel the header may declare


def test_remove_op_include_keeps_a_kernel_the_yaml_names_after_another_stem():
    """_log_softmax's MPS kernel is log_softmax_mps_out: no `_log_softmax_*` name, declared all the same."""
    assert changed(ACTIVATION, remove_op_include(ACTIVATION, "_log_softmax")) == (
        ["#include <ATen/ops/_log_softmax_native.h>\n"], [])
    assert remove_op_include(ACTIVATION, "_log_softmax", declared={"log_softmax_mps_out", "log_softmax_cpu_out"}) == ACTIVATION


def test_remove_op_include_unguarded_2026(mm):
    text = _remove(mm["UnaryOps_2026.mm"], "UnaryOps_2026.mm", "logical_not_out_mps")
    out = remove_op_include(text, "logical_not")
    assert changed(text, out) == (["#include <ATen/ops/logical_not_native.h>\n"], [])
    # sign_native.h stays: sign_outf and the sign_mps_dispatch include still mention sign
    assert remove_op_include(out, "sign") == out


def test_remove_only_include_between_blank_lines_keeps_one_blank():
    text = "#include <a.h>\n\n#include <ATen/ops/foo_native.h>\n\nnamespace at::native {\n} // namespace at::native\n"
    assert remove_op_include(text, "foo") == "#include <a.h>\n\nnamespace at::native {\n} // namespace at::native\n"


# --------------------------------------------------------------------------------------------
# Registrations and kernel calls
# --------------------------------------------------------------------------------------------


def test_registered_stubs_all_macros(mm):
    regs = registered_stubs(mm)
    assert [(r.path, r.line, r.fn, r.macro) for r in regs["exp_stub"]] == [
        ("UnaryKernel_2025.mm", 41, "exp_kernel_mps", "REGISTER_UNARY_TI_DISPATCH")
    ]
    assert regs["trunc_stub"][0].fn == "mps_trunc_kernel" and regs["trunc_stub"][0].macro == "REGISTER_MPS_UNARY_STUB"
    lerp = regs["lerp_kernel_scalar_weight"][0]
    assert (lerp.fn, lerp.ampersand, lerp.semicolon) == ("lerp_scalar_mps_kernel", True, False)
    assert regs["logaddexp_stub"][0].semicolon is True
    assert regs["special_erfcx_stub"][0].ampersand is False
    # macro bodies (`REGISTER_DISPATCH(NAME##_stub, ...)` in #define) are not registrations
    assert not [s for s in regs if "#" in s or s.startswith("NAME") or s.startswith("func")]


def test_double_registration_is_visible_across_files(mm):
    unary = add_unary_ti_dispatch(mm["UnaryKernel_2025.mm"], "trunc")
    regs = registered_stubs({"UnaryKernel.mm": unary, "UnaryOps.mm": mm["UnaryOps_2026.mm"]})
    assert sorted(r.path for r in regs["trunc_stub"]) == ["UnaryKernel.mm", "UnaryOps.mm"]


def test_host_kernel_calls(mm):
    calls = host_kernel_calls(mm["BinaryKernel_2025.mm"])
    names = [c.kernel for c in calls]
    assert names[:3] == ["fmax", "fmin", "copysign"]
    assert "logical_and_bool" in names and "logical_and" in names
    lerp = next(c for c in calls if c.kernel == "lerp_alpha")
    assert (lerp.line, lerp.col, lerp.function) == (82, 32, "lerp_scalar_mps_kernel")
    unary = host_kernel_calls(mm["UnaryKernel_2025.mm"])
    assert [c.kernel for c in unary if c.function == "pow_tensor_scalar_kernel"] == ["sqr", "rsqrt", "pow_scalar"]
    sig = next(c for c in unary if c.kernel == "sigmoid")
    assert (sig.line, sig.col, sig.function) == (48, 28, "sigmoid_kernel_mps")
    assert not [c for c in unary if c.kernel in ("NAME", "#NAME")]


def test_host_kernel_calls_ignore_raw_strings_and_comments():
    text = (
        'static MetalShaderLibrary lib(R"M(\nlib.exec_unary_kernel(iter, "inside_raw");\n)M");\n'
        '// lib.exec_unary_kernel(iter, "in_comment");\n'
        'static void k(TensorIteratorBase& iter) { lib.exec_unary_kernel(iter, "real"); }\n'
    )
    assert [(c.kernel, c.line, c.function) for c in host_kernel_calls(text)] == [("real", 5, "k")]


def test_uses_unary_ti_macro(mm):
    assert uses_unary_ti_macro(mm["UnaryKernel_2025.mm"])
    assert not uses_unary_ti_macro(mm["BinaryKernel_2025.mm"])
    assert not uses_unary_ti_macro("// REGISTER_UNARY_TI_DISPATCH(x);\n")


# --------------------------------------------------------------------------------------------
# Adding registrations and host kernels
# --------------------------------------------------------------------------------------------


def test_add_unary_ti_dispatch_appends_in_file_style(mm):
    text = mm["UnaryKernel_2025.mm"]
    out = add_unary_ti_dispatch(text, "log1p")
    assert changed(text, out) == ([], ["REGISTER_UNARY_TI_DISPATCH(log1p);\n"])
    assert "REGISTER_UNARY_TI_DISPATCH(sigmoid);\nREGISTER_UNARY_TI_DISPATCH(log1p);\n" in out
    assert add_unary_ti_dispatch(out, "log1p") == out
    after = add_unary_ti_dispatch(text, "expm1", after="exp")
    assert "REGISTER_UNARY_TI_DISPATCH(exp);\nREGISTER_UNARY_TI_DISPATCH(expm1);\nREGISTER_UNARY_TI_DISPATCH(erf);" in after
    no_semi = text.replace("_DISPATCH(sin);", "_DISPATCH(sin)").replace("_DISPATCH(exp);", "_DISPATCH(exp)")
    no_semi = no_semi.replace("_DISPATCH(erf);", "_DISPATCH(erf)").replace("_DISPATCH(tanh);", "_DISPATCH(tanh)")
    no_semi = no_semi.replace("_DISPATCH(sinh);", "_DISPATCH(sinh)")
    assert "REGISTER_UNARY_TI_DISPATCH(log1p)\n" in add_unary_ti_dispatch(no_semi, "log1p")


def test_add_unary_ti_dispatch_refusals(mm):
    with pytest.raises(MpsgenError) as err:
        add_unary_ti_dispatch(mm["UnaryKernel_2025.mm"], "round_decimals", path="UnaryKernel.mm")
    assert err.value.line == 50 and "REGISTER_DISPATCH" in err.value.message
    with pytest.raises(MpsgenError):
        add_unary_ti_dispatch(mm["BinaryKernel_2025.mm"], "atan2")


ATAN2_FN = 'static void atan2_mps_kernel(TensorIteratorBase& iter) {\n  lib.exec_binary_kernel(iter, "atan2");\n}\n'


def test_add_host_kernel_2025_binary(mm):
    text = mm["BinaryKernel_2025.mm"]
    out = add_host_kernel(text, ATAN2_FN, "REGISTER_DISPATCH(atan2_stub, &atan2_mps_kernel);")
    removed, added = changed(text, out)
    assert removed == []
    # function after the last host kernel (hypot), blank-separated like its neighbours; line in the block, no `;`
    assert sorted(added) == sorted(
        ["\n", *ATAN2_FN.splitlines(keepends=True), "REGISTER_DISPATCH(atan2_stub, &atan2_mps_kernel)\n"]
    )
    assert '  lib.exec_binary_kernel(iter, "hypot");\n}\n\nstatic void atan2_mps_kernel' in out
    assert out.endswith("REGISTER_DISPATCH(atan2_stub, &atan2_mps_kernel)\n} // namespace at::native\n")
    assert add_host_kernel(out, ATAN2_FN, "REGISTER_DISPATCH(atan2_stub, &atan2_mps_kernel)") == out
    assert brace_balance(out) == 0


def test_add_host_kernel_unary_style_and_crlf(mm):
    text = mm["UnaryKernel_2025.mm"].replace("\n", "\r\n")
    fn = "static void special_log_ndtr_kernel(TensorIteratorBase& iter) {\n  lib.exec_unary_kernel(iter, \"log_ndtr\");\n}"
    out = add_host_kernel(text, fn, "REGISTER_DISPATCH(special_log_ndtr_stub, &special_log_ndtr_kernel)")
    assert out.count("\n") == out.count("\r\n")
    assert "REGISTER_DISPATCH(special_log_ndtr_stub, special_log_ndtr_kernel);\r\n} // namespace at::native" in out
    assert '"pow_scalar", exp_scalar);\r\n}\r\n\r\nstatic void special_log_ndtr_kernel' in out
    assert brace_balance(out) == 0


def test_add_host_kernel_never_inside_namespace_mps():
    text = (
        "namespace at::native {\n"
        "namespace mps {\n"
        "static void helper(TensorIteratorBase& iter) {\n"
        "  lib.exec_binary_kernel(iter, \"x\");\n"
        "}\n"
        "} // namespace mps\n"
        "\n"
        "REGISTER_DISPATCH(x_stub, &mps::helper)\n"
        "} // namespace at::native\n"
    )
    out = add_host_kernel(text, ATAN2_FN, "REGISTER_DISPATCH(atan2_stub, &atan2_mps_kernel)")
    assert "} // namespace mps\n\nstatic void atan2_mps_kernel(TensorIteratorBase& iter) {\n" in out
    assert out.index("atan2_mps_kernel(TensorIteratorBase") > out.index("} // namespace mps")
    assert "lib.exec_binary_kernel(iter, \"atan2\");\n}\n\nREGISTER_DISPATCH(x_stub" in out


def test_add_host_kernel_conflict_and_missing_namespace(mm):
    text = mm["BinaryKernel_2026.mm"]
    with pytest.raises(MpsgenError) as err:
        add_host_kernel(text, ATAN2_FN.replace("atan2_mps", "atan2_new_mps"), "REGISTER_DISPATCH(atan2_stub, &atan2_new_mps_kernel)", path="B.mm")
    assert err.value.path == "B.mm" and err.value.line == 58
    assert add_host_kernel(text, ATAN2_FN, "REGISTER_DISPATCH(atan2_stub, &atan2_mps_kernel)") == text
    with pytest.raises(MpsgenError) as err:
        add_host_kernel("static void f() {}\n", ATAN2_FN, "REGISTER_DISPATCH(atan2_stub, &atan2_mps_kernel)", path="Y.mm")
    assert "namespace at::native" in err.value.message


def test_add_host_kernel_2026_compact_block(mm):
    text = mm["BinaryKernel_2026.mm"]
    fn = "static void xlogy_mps_kernel(TensorIteratorBase& iter) {\n  lib.exec_binary_kernel(iter, \"xlogy\");\n}\n"
    out = add_host_kernel(text, fn, "REGISTER_DISPATCH(xlogy_stub, &xlogy_mps_kernel)")
    removed, added = changed(text, out)
    assert removed == [] and added[-1] == "REGISTER_DISPATCH(xlogy_stub, &xlogy_mps_kernel)\n"
    assert out.index("xlogy_mps_kernel(TensorIteratorBase") > out.index("gcd_mps_kernel(TensorIteratorBase")


def test_register_dispatch_style(mm):
    assert register_dispatch_style(mm["BinaryKernel_2025.mm"]) == (False, True)
    assert register_dispatch_style(mm["UnaryKernel_2025.mm"]) == (True, False)
    tie = "REGISTER_DISPATCH(a_stub, &a);\nREGISTER_DISPATCH(b_stub, b)\n"
    assert register_dispatch_style(tie) == (False, False)  # ties follow the last line
    assert format_register_line("REGISTER_DISPATCH(a_stub, a);", False, True) == "REGISTER_DISPATCH(a_stub, &a)"
    with pytest.raises(MpsgenError):
        format_register_line("REGISTER_DISPATCH(a_stub)", True, True)


# --------------------------------------------------------------------------------------------
# Includes
# --------------------------------------------------------------------------------------------


def test_ensure_include_sorted_position(mm):
    text = mm["BinaryKernel_2025.mm"]
    out = ensure_include(text, "ATen/native/Pow.h")
    assert changed(text, out) == ([], ["#include <ATen/native/Pow.h>\n"])
    assert "#include <ATen/native/Lerp.h>\n#include <ATen/native/Pow.h>\n#include <ATen/native/TensorFactories.h>\n" in out
    assert ensure_include(out, "ATen/native/Pow.h") == out
    assert ensure_include(mm["BinaryKernel_2026.mm"], "ATen/native/Pow.h") == mm["BinaryKernel_2026.mm"]
    act = ensure_include(mm["UnaryKernel_2025.mm"], "ATen/native/Activation.h")
    assert "#include <ATen/mps/MPSProfiler.h>\n#include <ATen/native/Activation.h>\n#include <ATen/native/Pow.h>\n" in act


def test_ensure_include_skips_guarded_blocks_and_refuses_without_run():
    text = "#ifndef X\n#include <ATen/native/A.h>\n#endif\n#include <fmt/format.h>\n"
    with pytest.raises(MpsgenError):
        ensure_include(text, "ATen/native/Pow.h", path="Z.mm")
    text2 = "#include <ATen/native/A.h>\n#include <ATen/native/Z.h>\n#ifdef Y\n#include <ATen/native/B.h>\n#endif\n"
    assert ensure_include(text2, "ATen/native/Pow.h").startswith(
        "#include <ATen/native/A.h>\n#include <ATen/native/Pow.h>\n#include <ATen/native/Z.h>\n#ifdef Y\n"
    )


def test_a_function_running_metal_through_a_local_helper_is_metal() -> None:
    # PyTorch 2.7's BinaryKernel.mm: each kernel calls the file's own binary_mps_impl, which runs Metal;
    # a helper that only reaches MPSGraph still makes its callers MPSGraph, and Metal wins over it.
    from mpsgen.sources.host.mm import definitions

    text = """namespace at::native {
static void binary_mps_impl(TensorIteratorBase& iter, const std::string func_name) {
  auto pso = lib.getPipelineStateForFunc(func_name);
  mtl_dispatch1DJob(encoder, pso, iter.numel());
}
static void graph_impl(const Tensor& self, const Tensor& output) {
  mps::unary_op(self, output, "x", ^MPSGraphTensor*(MPSGraph* mpsGraph, MPSGraphTensor* t) { return t; });
}
static void fmax_mps_kernel(TensorIteratorBase& iter) {
  mps::binary_mps_impl(iter, "fmax");
}
static void twice_removed(TensorIteratorBase& iter) {
  fmax_mps_kernel(iter);
}
static void graph_kernel(const Tensor& self, const Tensor& output) {
  graph_impl(self, output);
}
static void both(TensorIteratorBase& iter, const Tensor& self) {
  graph_impl(self, self);
  fmax_mps_kernel(iter);
}
static void neither(TensorIteratorBase& iter) {
  other_file_helper(iter);
}
} // namespace at::native
"""
    kinds = {d.impl.name: d.impl.backend for d in definitions("BinaryKernel.mm", text)}
    assert kinds == {"binary_mps_impl": "metal", "graph_impl": "mpsgraph", "fmax_mps_kernel": "metal",
                     "twice_removed": "metal", "graph_kernel": "mpsgraph", "both": "metal", "neither": "unknown"}
