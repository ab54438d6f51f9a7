"""generate/neighbours: a new op is written as the checkout writes ops of its kind (the file's shorthand
registration macros, the bool kernels' host arguments, the header that keeps params structs)."""

from __future__ import annotations

from mpsgen.generate.neighbours import bool_kernel_args, compact, params_header, register_macros
from mpsgen.sources.host.api import read_host_api
from mpsgen.generate.render import render_registrations
from mpsgen.model import KernelSpec, MetalStyle

# A BinaryKernel.metal's shorthands, in the shapes upstream uses (nested, with castout twins), and one
# one-parameter macro that also defines a functor: not a registration shorthand.
METAL = """\
#define REGISTER_INTEGER_BINARY_OP_NO_BOOL(NAME) \\
  REGISTER_BINARY_OP(NAME, long, long);          \\
  REGISTER_BINARY_OP(NAME, int, int);            \\
  REGISTER_BINARY_OP(NAME, short, short);        \\
  REGISTER_BINARY_OP(NAME, uchar, uchar);        \\
  REGISTER_BINARY_OP(NAME, char, char)

#define REGISTER_INTEGER_BINARY_OP(NAME)    \\
  REGISTER_INTEGER_BINARY_OP_NO_BOOL(NAME); \\
  REGISTER_BINARY_OP(NAME, bool, bool)

#define REGISTER_INT2FLOAT_BINARY_OP(NAME) \\
  REGISTER_BINARY_OP(NAME, long, float);   \\
  REGISTER_BINARY_OP(NAME, int, float);    \\
  REGISTER_BINARY_OP(NAME, short, float);  \\
  REGISTER_BINARY_OP(NAME, uchar, float);  \\
  REGISTER_BINARY_OP(NAME, char, float);   \\
  REGISTER_BINARY_OP(NAME, bool, float)

#define REGISTER_FLOAT_BINARY_OP(NAME)    \\
  REGISTER_BINARY_OP(NAME, float, float); \\
  REGISTER_BINARY_OP(NAME, half, half);   \\
  REGISTER_BINARY_OP(NAME, bfloat, bfloat)

#define REGISTER_COMPARISON_OP(NAME) \\
""" + "".join(f"  REGISTER_BINARY_OP(NAME, {t}, bool); REGISTER_BINARY_CASTOUT_OP(NAME, {t}, bool); \\\n"
              for t in ("float", "half", "bfloat", "long", "int", "short", "uchar", "char")) + """\
  REGISTER_BINARY_OP(NAME, bool, bool); REGISTER_BINARY_CASTOUT_OP(NAME, bool, bool)

#define REGISTER_COMPLEX_EQ_OP(NAME)              \\
  REGISTER_BINARY_OP(NAME, float2, bool);         \\
  REGISTER_BINARY_CASTOUT_OP(NAME, float2, bool); \\
  REGISTER_BINARY_OP(NAME, half2, bool);          \\
  REGISTER_BINARY_CASTOUT_OP(NAME, half2, bool)

#define REGISTER_WITH_FUNCTOR(NAME) \\
  struct NAME##_functor {};         \\
  REGISTER_BINARY_OP(NAME, float, float)
"""
STYLE = MetalStyle("k.metal", frozenset(), 3, None, False, False, True, castout=True)


def _written(spec: KernelSpec) -> list[str]:
    return compact(render_registrations(spec, STYLE), spec.name, register_macros(METAL))


def test_shorthands_are_read_with_their_expansions_and_only_registration_bodies_count():
    macros = register_macros(METAL)
    assert len(macros["REGISTER_INTEGER_BINARY_OP"]) == 6  # through REGISTER_INTEGER_BINARY_OP_NO_BOOL
    assert len(macros["REGISTER_COMPARISON_OP"]) == 18
    assert "REGISTER_WITH_FUNCTOR" not in macros


def test_a_run_a_shorthand_makes_exactly_is_written_with_it():
    atan2 = KernelSpec("atan2", "binary", "x", dtypes=("float", "int2float"))
    assert _written(atan2) == ["REGISTER_FLOAT_BINARY_OP(atan2);", "REGISTER_INT2FLOAT_BINARY_OP(atan2);"]
    fmod = KernelSpec("fmod", "binary", "x", dtypes=("float", "integer"))
    assert _written(fmod) == ["REGISTER_FLOAT_BINARY_OP(fmod);", "REGISTER_INTEGER_BINARY_OP(fmod);"]


def test_comparisons_use_the_files_comparison_macros():
    xor = KernelSpec("logical_xor", "binary", "bool(a) != bool(b)", complex_expr="c",
                     dtypes=("float", "integer", "complex"), result="bool")
    assert _written(xor) == ["REGISTER_COMPARISON_OP(logical_xor);", "REGISTER_COMPLEX_EQ_OP(logical_xor);"]


def test_a_shorthand_that_would_register_more_than_the_plan_is_not_used():
    no_bool = KernelSpec("gcd", "binary", "x", dtypes=("integer",), skip=("bool",))
    assert _written(no_bool) == ["REGISTER_INTEGER_BINARY_OP_NO_BOOL(gcd);"]
    half_only = KernelSpec("f", "binary", "x", dtypes=("float",), skip=("bfloat",))
    assert _written(half_only) == ["REGISTER_BINARY_OP(f, float, float);", "REGISTER_BINARY_OP(f, half, half);"]


API = """
  void exec_binary_kernel(
      TensorIteratorBase& iter,
      const std::string& name,
      const std::optional<c10::Scalar> alpha = std::nullopt,
      const std::optional<c10::ScalarType> scalar_arg_type = std::nullopt,
      const std::optional<c10::ScalarType> natural_output_dtype = std::nullopt,
      const std::optional<uint32_t> ilp_threshold = std::nullopt);
"""


def test_a_bool_kernel_passes_what_the_files_own_comparisons_pass():
    host = ('static void ge_kernel(TensorIteratorBase& iter) {\n'
            '  lib.exec_binary_kernel(iter, "ge", std::nullopt, std::nullopt, kBool, kCmpILPThreshold);\n}\n'
            'static void add_kernel(TensorIteratorBase& iter) {\n  lib.exec_binary_kernel(iter, "add");\n}\n')
    assert bool_kernel_args(host, read_host_api(API, frozenset()), "binary") == ("std::nullopt", "std::nullopt", "kBool", "kCmpILPThreshold")


def test_without_such_a_neighbour_the_header_says_where_kbool_goes():
    host = 'static void add_kernel(TensorIteratorBase& iter) {\n  lib.exec_binary_kernel(iter, "add");\n}\n'
    assert bool_kernel_args(host, read_host_api(API, frozenset()), "binary") == ("std::nullopt", "std::nullopt", "kBool")
    older = API.replace("natural_output_dtype", "something_else")
    assert bool_kernel_args(host, read_host_api(older, frozenset()), "binary") == ()
    assert bool_kernel_args(host, read_host_api(None, frozenset()), "binary") == ()
    assert bool_kernel_args(host, read_host_api(API, frozenset()), "unary") == ()


def test_params_go_where_the_checkout_keeps_params_of_that_kind():
    kernels = "aten/src/ATen/native/mps/kernels"
    metal = f"{kernels}/BinaryKernel.metal"
    with_elu = {f"{kernels}/Activation.h": "template <typename T>\nstruct ELUParams {\n  T alpha;\n};\n"}
    assert params_header(metal, "ATen/native/Activation.h", with_elu) == "ATen/native/mps/kernels/Activation.h"
    empty = {f"{kernels}/Activation.h": "#pragma once\n"}
    assert params_header(metal, "ATen/native/Activation.h", empty) == "ATen/native/mps/kernels/BinaryKernel.h"
    assert params_header(metal, "ATen/native/BinaryOps.h", with_elu) == "ATen/native/mps/kernels/BinaryKernel.h"
