"""sources/metal/names.py: kernel names registered by .metal files in every layout, with file:line.

Fixtures are small hand-written files in the shapes of the real ones: the early-2025 template kernels
with `template [[host_name(...)]]` instantiations inside INSTANTIATE_*/REGISTER_* macros (a PyTorch
2.7 checkout's UnaryKernel.metal, SpecialOps.metal, BinaryKernel.metal), the 2025-26 functor layout
with c10/metal REGISTER_*_OP macros, and plain kernels.
"""

from __future__ import annotations

from mpsgen.sources.metal.names import MetalNames, names_in

# Early-2025 UnaryKernel.metal: template kernels instantiated through a local macro (OUT, IN order).
TEMPLATE_UNARY = """\
#include <c10/metal/utils.h>
using namespace metal;

template <typename T0, typename T1>
kernel void exp_kernel(
    device T0* output [[buffer(0)]],
    constant T1* input [[buffer(1)]],
    uint index [[thread_position_in_grid]]) {
  output[index] = T0(precise::exp(input[index]));
}

template <typename T0>
kernel void exp_complex_kernel(
    device vec2type_t<T0>* output [[buffer(0)]],
    constant vec2type_t<T0>* input [[buffer(1)]],
    uint index [[thread_position_in_grid]]) {
  output[index].x = T0(precise::exp(input[index].x));
}

#define INSTANTIATE_UNARY_KERNELS2(DTYPE0, DTYPE1)                           \\
  template [[host_name("exp_" #DTYPE0 "_" #DTYPE1)]] kernel void exp_kernel( \\
      device DTYPE0* output [[buffer(0)]],                                   \\
      constant DTYPE1* input [[buffer(1)]],                                  \\
      uint id [[thread_position_in_grid]]);

#if __METAL_VERSION__ >= 310
INSTANTIATE_UNARY_KERNELS2(bfloat, bfloat);
#endif
INSTANTIATE_UNARY_KERNELS2(half, half);
INSTANTIATE_UNARY_KERNELS2(float, long);

#define INSTANTIATE_VEC2(DTYPE)                                             \\
  template [[host_name("exp_complex_" #DTYPE "_" #DTYPE)]] kernel void     \\
  exp_complex_kernel<DTYPE>(                                                \\
      device vec2type_t<DTYPE> * output [[buffer(0)]],                      \\
      constant vec2type_t<DTYPE> * input [[buffer(1)]],                     \\
      uint did [[thread_position_in_grid]]);

INSTANTIATE_VEC2(float);

#define INSTANTIATE_SINC_COMPLEX(DTYPE)                                     \\
  template [[host_name("sinc_complex_" #DTYPE "_" #DTYPE)]] kernel void    \\
  sinc_complex(device DTYPE##2 * output, constant DTYPE##2 * input, uint id)

INSTANTIATE_SINC_COMPLEX(half);
"""

# Early-2025 SpecialOps.metal: `void kernel name` spelling, (IN, OUT) parameters, names as string pieces.
TEMPLATE_SPECIAL = """\
template <typename T0, typename T1>
void kernel
i0(device T0* output, constant T1* input, uint index [[thread_position_in_grid]]) {
  output[index] = c10::metal::i0(static_cast<T0>(input[index]));
}

#define REGISTER_SPECIAL(DTI, DTO)                                      \\
  template [[host_name("i0_" #DTO "_" #DTI)]] void kernel i0<DTO, DTI>( \\
      device DTO*, constant DTI*, uint);

REGISTER_SPECIAL(float, float);
REGISTER_SPECIAL(half, half);
"""

# Early-2025 BinaryKernel.metal: a local 2-argument REGISTER_*_OP(NAME, DTYPE) whose name is #NAME.
TEMPLATE_BINARY = """\
#define REGISTER_BINARY_INDEXING_OP(NAME, DTYPE)             \\
  template [[host_name(#NAME "_" #DTYPE)]] kernel void       \\
  binary_indexing<DTYPE, NAME##_functor>(                    \\
      constant void* input_ [[buffer(0)]],                   \\
      uint tid [[thread_position_in_grid]]);                 \\
  template [[host_name(#NAME "_dense_" #DTYPE)]] kernel void \\
  binary_dense<DTYPE, NAME##_functor>(                       \\
      constant DTYPE* input [[buffer(0)]],                   \\
      uint tid [[thread_position_in_grid]]);

REGISTER_BINARY_INDEXING_OP(copysign, float);  // a comment: REGISTER_BINARY_INDEXING_OP(fake, float)
REGISTER_BINARY_INDEXING_OP(copysign, half);
/* REGISTER_BINARY_INDEXING_OP(commented_out, float); */

kernel void complex_mul(constant float2* a, device float2* out, uint i [[thread_position_in_grid]]) {
  out[i] = a[i];
}
"""

# 2025-26 functor layout: c10/metal registration macros, through local helpers.
FUNCTORS = """\
struct hypot_functor {
  template <typename T>
  inline T operator()(const T a, const T b) { return precise::sqrt(a * a + b * b); }
};

#define REGISTER_FLOAT_BINARY_OP(NAME)    \\
  REGISTER_BINARY_OP(NAME, float, float); \\
  REGISTER_BINARY_OP(NAME, half, half)

#define INSTANTIATE_UNARY_KERNELS2(DTYPE0, DTYPE1) \\
  REGISTER_UNARY_OP(exp, DTYPE1, DTYPE0);          \\
  REGISTER_UNARY_OP(expm1, DTYPE1, DTYPE0)

REGISTER_FLOAT_BINARY_OP(hypot);
INSTANTIATE_UNARY_KERNELS2(float, float);
INSTANTIATE_UNARY_KERNELS2(half, half);
"""


def index_names(texts: dict[str, str]) -> MetalNames:
    """The names registered by each .metal text ({path: text})."""
    return MetalNames(n for path, text in texts.items() for n in names_in(text, path))


def line_of(text: str, needle: str) -> int:
    return next(k for k, ln in enumerate(text.splitlines(), 1) if needle in ln)


def test_template_host_names_through_a_local_macro():
    names = index_names({"k/UnaryKernel.metal": TEMPLATE_UNARY})
    exp = names.where("exp")
    # One full name per instantiation, each located on the #define line that spells "exp_".
    assert sorted(n.name for n in exp) == ["exp_bfloat_bfloat", "exp_float_long", "exp_half_half"]
    assert {(n.path, n.line, n.macro, n.suffixed) for n in exp} == {
        ("k/UnaryKernel.metal", line_of(TEMPLATE_UNARY, '"exp_" #DTYPE0'), "INSTANTIATE_UNARY_KERNELS2", False)}
    # exp_complex_* belongs to exp_complex, not to exp (complex is not a dtype word).
    assert [n.name for n in names.where("exp_complex")] == ["exp_complex_float_float"]
    assert not any(n.name.startswith("exp_complex") for n in exp)
    # DTYPE##2 pasting and the plain template definitions (not in the library) are not names.
    assert [n.name for n in names.where("sinc_complex")] == ["sinc_complex_half_half"]
    assert names.where("exp_kernel") == () and names.where("exp_complex_kernel") == ()


def test_void_kernel_spelling_and_reversed_parameters():
    names = index_names({"k/SpecialOps.metal": TEMPLATE_SPECIAL})
    assert sorted(n.name for n in names.where("i0")) == ["i0_float_float", "i0_half_half"]
    assert {n.line for n in names.where("i0")} == {line_of(TEMPLATE_SPECIAL, '"i0_" #DTO')}
    assert names.where("i1") == ()


def test_stringised_name_is_located_at_the_call_site_and_comments_are_ignored():
    names = index_names({"k/BinaryKernel.metal": TEMPLATE_BINARY})
    copysign = names.where("copysign")
    assert sorted(n.name for n in copysign) == ["copysign_dense_float", "copysign_dense_half",
                                                 "copysign_float", "copysign_half"]
    assert sorted({n.line for n in copysign}) == [line_of(TEMPLATE_BINARY, "(copysign, float)"),
                                                 line_of(TEMPLATE_BINARY, "(copysign, half)")]
    assert names.where("fake") == () and names.where("commented_out") == ()
    (mul,) = names.where("complex_mul")  # a plain, non-template kernel
    assert (mul.macro, mul.line, mul.suffixed) == ("kernel", line_of(TEMPLATE_BINARY, "kernel void complex_mul"), False)


def test_functor_layout_registration_macros():
    found = names_in(FUNCTORS, "k/BinaryKernel.metal")
    by_name = {}
    for n in found:
        by_name.setdefault(n.name, []).append((n.line, n.macro, n.suffixed))
    # A name passed to a local helper is located at the call; one spelled in a #define body, there.
    assert by_name["hypot"] == [(line_of(FUNCTORS, "REGISTER_FLOAT_BINARY_OP(hypot)"), "REGISTER_FLOAT_BINARY_OP", True)]
    assert by_name["exp"] == [(line_of(FUNCTORS, "REGISTER_UNARY_OP(exp,"), "INSTANTIATE_UNARY_KERNELS2", True)]
    assert set(by_name) == {"hypot", "exp", "expm1"}
    names = index_names({"k/BinaryKernel.metal": FUNCTORS})
    assert names.where("hypot") and not names.where("hypot_float")  # the host adds the suffix itself


def test_names_are_global_across_files():
    names = index_names({"k/UnaryKernel.metal": TEMPLATE_UNARY, "k/BinaryKernel.metal": FUNCTORS})
    assert {n.path for n in names.where("exp")} == {"k/UnaryKernel.metal", "k/BinaryKernel.metal"}
