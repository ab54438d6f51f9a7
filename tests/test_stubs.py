"""stubs.py: DECLARE_DISPATCH types (real wheel headers) and stub inference from native/*.cpp shapes."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest

from mpsgen.errors import MpsgenError
from mpsgen.sources.native.stubs import (
    find_shared_impl,
    host_params,
    index_stub_declarations,
    infer_stub,
    mask_code,
    match_close,
    parse_fn_pointer_type,
)

NAMED_HEADERS = ("UnaryOps.h", "BinaryOps.h", "Pow.h", "Lerp.h", "Activation.h", "PointwiseOps.h", "DispatchStub.h")


@pytest.fixture(scope="session")
def real_native_headers() -> dict[str, str]:
    spec = importlib.util.find_spec("torch")
    assert spec is not None and spec.origin is not None, "torch==2.13.0 must be installed"
    native = Path(spec.origin).parent / "include" / "ATen" / "native"
    return {f"aten/src/ATen/native/{p.name}": p.read_text(encoding="utf-8") for p in sorted(native.glob("*.h"))}


@pytest.fixture(scope="session")
def real_index(real_native_headers):
    return index_stub_declarations(real_native_headers)


# --------------------------------------------------------------------------------------------
# Real headers from the wheel
# --------------------------------------------------------------------------------------------


def test_every_declare_dispatch_in_named_headers_parses(real_native_headers, real_index):
    for name in NAMED_HEADERS:
        path = f"aten/src/ATen/native/{name}"
        text = real_native_headers[path]
        # Statement-level uses only: the #define in DispatchStub.h and comment examples are not declarations.
        expected = {
            m.group(1)
            for m in re.finditer(r"^DECLARE_DISPATCH\(\s*(?:[^()]|\([^()]*\))*?,\s*(\w+)\s*\)", mask_code(text), re.M)
        }
        multi_line = set(re.findall(r"^\s*(\w+_stub)\)\s*;?\s*$", text, re.M))
        expected |= multi_line
        got = {d.name for d in real_index.values() if d.path == path}
        assert got == expected, name
        for stub in got:
            decl = real_index[stub]
            assert decl.resolved, stub
            assert decl.header == f"ATen/native/{name}"
            assert text.splitlines()[decl.line - 1].lstrip().startswith("DECLARE_DISPATCH")
    assert not [d for d in real_index.values() if d.path.endswith("DispatchStub.h")]  # only the macro lives there


def test_every_declaration_in_the_wheel_resolves(real_index):
    assert len(real_index) > 300
    assert all(d.resolved for d in real_index.values())


@pytest.mark.parametrize(
    ("stub", "fn_type", "header", "alias"),
    [
        ("atan2_stub", "void(*)(TensorIteratorBase&)", "ATen/native/BinaryOps.h", "structured_binary_fn"),
        ("logical_xor_stub", "void(*)(TensorIterator&)", "ATen/native/BinaryOps.h", "binary_fn"),
        ("add_stub", "void(*)(TensorIteratorBase&, const Scalar&)", "ATen/native/BinaryOps.h", "structured_binary_fn_alpha"),
        ("heaviside_stub", "void(*)(TensorIteratorBase&)", "ATen/native/BinaryOps.h", "structured_binary_fn"),
        ("special_log_ndtr_stub", "void(*)(TensorIteratorBase&)", "ATen/native/UnaryOps.h", "unary_fn"),
        ("pow_tensor_tensor_stub", "void(*)(TensorIteratorBase&)", "ATen/native/Pow.h", "pow_tensor_tensor_fn"),
        ("pow_tensor_scalar_stub", "void(*)(TensorIteratorBase&, const c10::Scalar&)", "ATen/native/Pow.h", "pow_tensor_scalar_fn"),
        ("addcmul_stub", "void(*)(TensorIteratorBase&, const Scalar&)", "ATen/native/PointwiseOps.h", "structured_pointwise_fn"),
        ("lerp_kernel_scalar_weight", "void(*)(at::TensorIteratorBase&, const Scalar&)", "ATen/native/Lerp.h", "lerp_fn_scalar"),
        ("GeluKernel", "void(*)(TensorIteratorBase&, GeluType)", "ATen/native/Activation.h", "gelu_fn"),
        ("round_decimals_stub", "void(*)(TensorIteratorBase&, int64_t)", "ATen/native/UnaryOps.h", None),
        (
            "nan_to_num_stub",
            "void(*)(TensorIteratorBase&, std::optional<double>, std::optional<double>, std::optional<double>)",
            "ATen/native/UnaryOps.h",
            None,
        ),
    ],
)
def test_real_declarations(real_index, stub, fn_type, header, alias):
    decl = real_index[stub]
    assert (decl.fn_type, decl.header, decl.alias) == (fn_type, header, alias)


def test_host_params_from_real_declarations(real_index):
    assert host_params(real_index["atan2_stub"]) == "TensorIteratorBase& iter"
    assert host_params(real_index["logical_and_stub"]) == "TensorIterator& iter"
    assert host_params(real_index["add_stub"]) == "TensorIteratorBase& iter, const Scalar& alpha"
    assert host_params(real_index["lerp_kernel_scalar_weight"]) == "at::TensorIteratorBase& iter, const Scalar& weight"
    assert host_params(real_index["round_decimals_stub"]) == "TensorIteratorBase& iter, int64_t value"
    assert real_index["logical_or_stub"].iterator_type == "TensorIterator"
    assert real_index["softplus_stub"].extra_params == (("const c10::Scalar&", "alpha"), ("const c10::Scalar&", "alpha2"))
    assert real_index["atan2_stub"].extra_params == ()
    assert real_index["bernoulli_tensor_stub"].iterator_type is None


def test_same_name_in_nested_namespace_does_not_shadow_at_native(real_index):
    # CPUBlas.h declares cpublas::copy_stub; Copy.h declares at::native::copy_stub.
    assert real_index["copy_stub"].header == "ATen/native/Copy.h"
    assert real_index["copy_stub"].fn_type == "void(*)(TensorIterator&, bool)"


# --------------------------------------------------------------------------------------------
# Declaration shapes not in the wheel (older headers)
# --------------------------------------------------------------------------------------------

OLD_HEADER = """\
#pragma once
namespace at::native {
typedef void (*old_unary_fn)(TensorIteratorBase&);
using chained_fn = old_unary_fn;
using commented_fn = void (*)(TensorIterator& /*iter*/, const Scalar& /* alpha */);
DECLARE_DISPATCH(old_unary_fn, old_stub);
DECLARE_DISPATCH(chained_fn, chained_stub);
DECLARE_DISPATCH(commented_fn, commented_stub);
DECLARE_DISPATCH(
    void (*)(TensorIteratorBase&, double lambda),
    inline_stub);
DECLARE_DISPATCH(mystery_fn, mystery_stub);
// DECLARE_DISPATCH(unary_fn, commented_out_stub)
} // namespace at::native
"""


def test_older_declaration_shapes():
    index = index_stub_declarations({"aten/src/ATen/native/Old.h": OLD_HEADER})
    assert index["old_stub"].fn_type == "void(*)(TensorIteratorBase&)"
    assert index["old_stub"].line == 6
    assert index["chained_stub"].fn_type == "void(*)(TensorIteratorBase&)"
    assert index["chained_stub"].alias == "chained_fn"
    assert index["commented_stub"].fn_type == "void(*)(TensorIterator&, const Scalar&)"
    assert index["inline_stub"].fn_type == "void(*)(TensorIteratorBase&, double)"
    assert index["inline_stub"].param_names == ("", "lambda")
    assert index["inline_stub"].line == 9
    assert not index["mystery_stub"].resolved
    assert "commented_out_stub" not in index
    with pytest.raises(MpsgenError) as err:
        host_params(index["mystery_stub"])
    assert err.value.path == "aten/src/ATen/native/Old.h" and err.value.line == 12


def test_parse_fn_pointer_type_names_and_qualifiers():
    ret, types, names = parse_fn_pointer_type("void (*)(TensorIteratorBase& iter, const int64_t, const double d)")
    assert ret == "void"
    assert types == ("TensorIteratorBase&", "const int64_t", "const double")
    assert names == ("iter", "", "d")
    assert parse_fn_pointer_type("int") is None


# --------------------------------------------------------------------------------------------
# Scanner
# --------------------------------------------------------------------------------------------


def test_mask_code_blanks_comments_literals_and_raw_strings():
    text = 'a("{", \'}\'); // {\nx = 1\'000; /* { */ R"M(\n{ "}" )M" b{}\n'
    masked = mask_code(text)
    assert len(masked) == len(text) and masked.count("\n") == text.count("\n")
    assert masked.count("{") == 1 and masked.count("}") == 1
    assert "1'000" not in masked or "'" in masked  # digit separator kept as code
    assert match_close(masked, masked.index("{")) == masked.index("}")


# --------------------------------------------------------------------------------------------
# Shared implementations (2025 / 2026 shapes of native/*.cpp, written for these tests)
# --------------------------------------------------------------------------------------------

BINARY_OPS_CPP_2026 = """\
namespace at::native {

DEFINE_DISPATCH(add_stub);
DEFINE_DISPATCH(atan2_stub);

TORCH_IMPL_FUNC(sub_out) (
  const Tensor& self, const Tensor& other, const Scalar& alpha, const Tensor& result
) {
  add_stub(device_type(), *this, -alpha);
  TORCH_INTERNAL_ASSERT(result.scalar_type() == output().dtype());
}

TORCH_IMPL_FUNC(atan2_out) (const Tensor& self, const Tensor& other, const Tensor& result) {
  atan2_stub(device_type(), *this);
}

#define CREATE_BINARY_TORCH_IMPL_FUNC(func_out, func_stub)                                    \\
TORCH_IMPL_FUNC(func_out) (const Tensor& self, const Tensor& other, const Tensor& result) {  \\
  func_stub(device_type(), *this);                                                           \\
}

CREATE_BINARY_TORCH_IMPL_FUNC(bitwise_left_shift_out, lshift_stub)
CREATE_BINARY_TORCH_IMPL_FUNC(hypot_out, hypot_stub)

#define CREATE_COMPARISON_SCALAR_TENSOR_IMPL_FUNC(func)                     \\
  TORCH_IMPL_FUNC(func##_Tensor_out)                                        \\
  (const Tensor& self, const Tensor& other, const Tensor& result) {         \\
    func##_stub(device_type(), *this);                                      \\
  }                                                                         \\
                                                                            \\
  TORCH_IMPL_FUNC(func##_Scalar_out)                                        \\
  (const Tensor& self, const Scalar& other, const Tensor& result) {         \\
    func##_stub(device_type(), *this);                                      \\
  }

CREATE_COMPARISON_SCALAR_TENSOR_IMPL_FUNC(eq);
CREATE_COMPARISON_SCALAR_TENSOR_IMPL_FUNC(ne);

template <typename Stub>
Tensor& comparison_op_out(Tensor& result, const Tensor& self, const Tensor& other, Stub& stub) {
  auto iter = TensorIterator::comparison_op(result, self, other);
  stub(iter.device_type(), iter);
  return result;
}

Tensor& logical_and_out(const Tensor& self, const Tensor& other, Tensor& result) {
  return comparison_op_out(result, self, other, logical_and_stub);
}

Tensor& floor_divide_out(const Tensor& self, const Tensor& other, Tensor& result) {
  auto iter = TensorIterator::binary_op(result, self, other);
  div_floor_stub(iter.device_type(), iter);
  if (!result.defined()) {
    result = iter.output();
  }
  return result;
}

Tensor& no_stub_out(const Tensor& self, Tensor& result) {
  return at::mul_out(result, self, self);
}

} // namespace at::native
"""

# 2025 shape: the parameter list on the next line, helpers defined in a header (not in sources).
UNARY_OPS_CPP_2025 = """\
namespace at::native {

TORCH_IMPL_FUNC(sgn_out) (const Tensor& self, const Tensor& result) {
  if (self.is_complex()) {
    sgn_stub(device_type(), *this);
  } else {
    sign_stub(device_type(), *this);
  }
}

TORCH_IMPL_FUNC(special_log_ndtr_out)
(const Tensor& self, const Tensor& result) {
  special_log_ndtr_stub(device_type(), *this);
}

CREATE_UNARY_TORCH_IMPL_FUNC(acos_out, acos_stub)
CREATE_UNARY_TORCH_IMPL_INTEGER_NO_OP_FUNC(ceil_out, ceil_stub)

Tensor& angle_out(const Tensor& self, Tensor& result) {
  if (self.is_complex()) {
    return unary_op_impl_with_complex_to_float_out(result, self, angle_stub, /*promotes_integer_to_float=*/true);
  }
  return unary_op_impl_out(result, self, angle_stub);
}

Tensor& bogus_out(const Tensor& self, Tensor& result) {
  mystery_stub(device_type(), *this);
  return result;
}

} // namespace at::native
"""

SOURCES = {
    "aten/src/ATen/native/BinaryOps.cpp": BINARY_OPS_CPP_2026,
    "aten/src/ATen/native/UnaryOps.cpp": UNARY_OPS_CPP_2025,
}


@pytest.mark.parametrize(
    ("kernel", "form", "stubs", "line"),
    [
        ("atan2_out", "TORCH_IMPL_FUNC", ("atan2_stub",), 13),
        ("bitwise_left_shift_out", "macro:CREATE_BINARY_TORCH_IMPL_FUNC", ("lshift_stub",), 22),
        ("hypot_out", "macro:CREATE_BINARY_TORCH_IMPL_FUNC", ("hypot_stub",), 23),
        ("eq_Tensor_out", "macro:CREATE_COMPARISON_SCALAR_TENSOR_IMPL_FUNC", ("eq_stub",), 36),
        ("ne_Scalar_out", "macro:CREATE_COMPARISON_SCALAR_TENSOR_IMPL_FUNC", ("ne_stub",), 37),
        ("logical_and_out", "function", ("logical_and_stub",), 46),
        ("floor_divide_out", "function", ("div_floor_stub",), 50),
        ("special_log_ndtr_out", "TORCH_IMPL_FUNC", ("special_log_ndtr_stub",), 11),
        ("acos_out", "macro:CREATE_UNARY_TORCH_IMPL_FUNC", ("acos_stub",), 16),
        ("ceil_out", "macro:CREATE_UNARY_TORCH_IMPL_INTEGER_NO_OP_FUNC", ("ceil_stub",), 17),
        ("angle_out", "function", ("angle_stub",), 19),
    ],
)
def test_find_shared_impl_forms(kernel, form, stubs, line):
    impl = find_shared_impl(SOURCES, kernel)
    assert impl is not None
    assert (impl.shown_form, impl.stub_names, impl.line) == (form, stubs, line)


def test_find_shared_impl_records_extra_arguments_and_helpers():
    sub = find_shared_impl(SOURCES, "sub_out")
    assert sub is not None and sub.stubs[0].stub == "add_stub" and sub.stubs[0].extra_args == ("-alpha",)
    assert sub.stubs[0].line == 9
    land = find_shared_impl(SOURCES, "logical_and_out")
    assert land is not None and land.stubs[0].via == "comparison_op_out"
    assert find_shared_impl(SOURCES, "nonexistent_out") is None


def test_infer_stub_plain_cases(real_native_headers):
    assert infer_stub(real_native_headers, SOURCES, "atan2_out").name == "atan2_stub"
    decl = infer_stub(real_native_headers, SOURCES, "bitwise_left_shift_out")
    assert (decl.name, decl.fn_type) == ("lshift_stub", "void(*)(TensorIteratorBase&)")
    decl = infer_stub(real_native_headers, SOURCES, "logical_and_out")
    assert host_params(decl) == "TensorIterator& iter"
    assert infer_stub(real_native_headers, SOURCES, "eq_Scalar_out").name == "eq_stub"
    assert infer_stub(real_native_headers, SOURCES, "special_log_ndtr_out").header == "ATen/native/UnaryOps.h"


def test_infer_stub_refuses_several_stubs_and_names_them(real_native_headers):
    with pytest.raises(MpsgenError) as err:
        infer_stub(real_native_headers, SOURCES, "sgn_out")
    e = err.value
    assert e.path == "aten/src/ATen/native/UnaryOps.cpp" and e.line == 3
    assert "sgn_stub (line 5)" in e.message and "sign_stub (line 7)" in e.message
    assert "--stub" in (e.hint or "")
    assert infer_stub(real_native_headers, SOURCES, "sgn_out", stub_override="sign_stub").name == "sign_stub"


def test_infer_stub_leaves_extra_arguments_to_the_kernel_shape(real_native_headers):
    # sub_out passes add_stub `-alpha`: the stub is found; whether a kernel can take that is
    # plan/shape's and kernelplan's question (test_scalar_shapes.py).
    decl = infer_stub(real_native_headers, SOURCES, "sub_out")
    assert decl.name == "add_stub" and decl.extra_params == (("const Scalar&", "alpha"),)


def test_infer_stub_refuses_missing_impl_no_stub_and_undeclared(real_native_headers):
    with pytest.raises(MpsgenError) as err:
        infer_stub(real_native_headers, SOURCES, "nonexistent_out")
    assert "TORCH_IMPL_FUNC(nonexistent_out)" in err.value.message
    with pytest.raises(MpsgenError) as err:
        infer_stub(real_native_headers, SOURCES, "no_stub_out")
    assert "calls no DispatchStub" in err.value.message and err.value.line == 59
    with pytest.raises(MpsgenError) as err:
        infer_stub(real_native_headers, SOURCES, "bogus_out")
    assert "mystery_stub" in err.value.message and err.value.line == 27


def test_stub_override_must_be_declared(real_native_headers):
    with pytest.raises(MpsgenError) as err:
        infer_stub(real_native_headers, SOURCES, "atan2_out", stub_override="atan_2_stub")
    assert "atan_2_stub" in err.value.message and "atan2_stub" in (err.value.hint or "")
    decl = infer_stub(real_native_headers, SOURCES, "does_not_matter", stub_override="lerp_kernel_scalar_weight")
    assert decl.header == "ATen/native/Lerp.h"


def test_a_stub_declared_twice_is_the_one_its_defining_file_includes():
    # 2.7 declares clamp_stub in UnaryOps.h (iter, min, max: stale) and TensorCompare.h (iter), which
    # TensorCompare.cpp, defining and calling it, includes.
    from mpsgen.sources.native.stubs import infer_stub

    headers = {
        "aten/src/ATen/native/TensorCompare.h": "namespace at::native {\nusing clamp_tensor_fn = void (*)(TensorIteratorBase&);\n"
                                                "DECLARE_DISPATCH(clamp_tensor_fn, clamp_stub)\n}\n",
        "aten/src/ATen/native/UnaryOps.h": "namespace at::native {\nDECLARE_DISPATCH(void(*)(TensorIteratorBase&, "
                                           "const Scalar& a, const Scalar& b), clamp_stub)\n}\n"}
    cpp = ("#include <ATen/native/TensorCompare.h>\nnamespace at::native {\nDEFINE_DISPATCH(clamp_stub);\n"
           "TORCH_IMPL_FUNC(clamp_Tensor_out)(const Tensor& self, const Tensor& result) {\n"
           "  clamp_stub(device_type(), *this);\n}\n}\n")
    for override in (None, "clamp_stub"):
        decl = infer_stub(headers, {"aten/src/ATen/native/TensorCompare.cpp": cpp}, "clamp_Tensor_out", override)
        assert (decl.header, decl.fn_type) == ("ATen/native/TensorCompare.h", "void(*)(TensorIteratorBase&)")
