"""The sources/ and scan/ readers that took over plan/'s own regexes over C++ and Metal text (issue 40):
each on a small fixture of the shape it reads, comments and strings not counted where it masks them."""

from __future__ import annotations

import pytest

from mpsgen.scan import words
from mpsgen.scan.includes import includes_header
from mpsgen.sources.host.callers import identifier_literals
from mpsgen.sources.host.register import defines_static_void
from mpsgen.sources.metal.two_output_kernels import strided_takes_shape_strides_ndim
from mpsgen.sources.native import arguments
from mpsgen.sources.native.iterator_operands import add_output_calls
from mpsgen.sources.native.same_dtype import unchecked_dtype_line
from mpsgen.sources.native.stub_guard import Condition, condition_of
from mpsgen.sources.native.stub_twins import defines_stub, uses_name, without_declaration
from mpsgen.sources.native.stubs import host_param_names, is_default_name, is_scalar_type
from mpsgen.sources.native_yaml.schema import schema_tensors, takes_optional_tensor


def test_words_tell_a_prefix_from_a_whole_identifier() -> None:
    assert words.mentions("REGISTER_DISPATCH(add_stub, ...)", "add") and not words.names("add_stub(iter)", "add")
    assert words.names("add(iter)", "add") and not words.mentions("madd_stub", "add")


def test_includes_header_reads_directives_only() -> None:
    text = '#include <ATen/native/TensorIterator.h>\nauto s = "#include <ATen/Foo.h>";\n'
    assert includes_header(text, "ATen/TensorIterator.h", "ATen/native/TensorIterator.h")
    assert not includes_header(text, "ATen/Foo.h")


CPP = """TORCH_IMPL_FUNC(frexp_out) (const Tensor& self, const Tensor& mantissa, const Tensor& exponent) {
  // config.add_output(commented);
  auto iter = TensorIteratorConfig()
                  .add_output(mantissa)
                  .add_output(exponent)
                  .add_output(at::empty({0}))
                  .check_all_same_dtype(false)
                  .build();
}
"""


def test_add_output_calls_give_line_and_name_and_skip_comments() -> None:
    assert add_output_calls(CPP, 1, 9) == [(4, "mantissa"), (5, "exponent"), (6, "at")]
    assert add_output_calls(CPP, 1, 3) == []  # the commented call is no call


def test_unchecked_dtype_line_is_the_builder_line_outside_comments() -> None:
    assert unchecked_dtype_line(CPP, 1, 9) == 7
    commented = CPP.replace("                  .check_all_same_dtype(false)\n", "  // .check_all_same_dtype(false)\n")
    assert unchecked_dtype_line(commented, 1, 9) is None


def test_stub_twins_read_code_not_comments() -> None:
    text = "// DEFINE_DISPATCH(clamp_stub);\nDEFINE_DISPATCH(clamp_min_stub);\nauto s = \"clamp_stub\";\n"
    assert not defines_stub(text, "clamp_stub") and defines_stub(text, "clamp_min_stub")
    assert not uses_name(text, "clamp_stub") and uses_name(text + "clamp_stub(iter);\n", "clamp_stub")
    header = "a;\nDECLARE_DISPATCH(\n    void(*)(TensorIterator&), clamp_stub);\nb;\n"
    assert without_declaration(header, 2) == "a;\nb;\n"
    assert without_declaration("DECLARE_DISPATCH(fn, x); int y;\n", 1) is None  # something follows it


@pytest.mark.parametrize("cond, reading", [
    ("self.is_complex()", Condition("complex")),
    ("at::isComplexType(self.scalar_type())", Condition("complex")),
    ('*rounding_mode == "trunc"', Condition("equals", "rounding_mode", "trunc")),
    ('rounding_mode.value() == "floor"', Condition("equals", "rounding_mode", "floor")),
    ("!rounding_mode.has_value()", Condition("absent", "rounding_mode")),
    ("a > b", Condition("")),
])
def test_a_guards_condition_is_read_in_its_known_forms(cond: str, reading: Condition) -> None:
    assert condition_of(cond) == reading


def test_what_a_shared_kernel_passes() -> None:
    assert arguments.is_name("threshold") and not arguments.is_name("-alpha")
    assert arguments.is_number("-1") and arguments.is_number("0.5") and not arguments.is_number("eps")
    assert arguments.argument_read("min.get()") == "min" and arguments.argument_read("*rounding_mode") == "rounding_mode"
    assert arguments.argument_read("Scalar(eps)") == "Scalar(eps)"


def test_stub_parameter_types_and_names() -> None:
    assert is_scalar_type("const Scalar&") and is_scalar_type("std::optional<double>") and is_scalar_type("double")
    assert not is_scalar_type("const Tensor&") and not is_scalar_type("IntArrayRef")
    assert host_param_names("TensorIteratorBase& iter, const Scalar& alpha, double* out") == ("iter", "alpha", "out")
    assert is_default_name("alpha2") and not is_default_name("alphas")


def test_schema_tensors_and_optional_tensors() -> None:
    func = "clamp.Tensor_out(Tensor self, Tensor? min=None, Tensor? max=None, *, Tensor(a!) out) -> Tensor(a!)"
    assert schema_tensors("atan2(Tensor self, Tensor other) -> Tensor") == 2
    assert schema_tensors("cat(Tensor[] tensors, int dim=0) -> Tensor") == 0
    assert takes_optional_tensor(func) and not takes_optional_tensor("atan2(Tensor self, Tensor other) -> Tensor")


def test_host_readers() -> None:
    mm = '// static void exec_two_outputs_kernel(\nstatic void lgamma_kernel(TensorIteratorBase& iter) {\n  run("lgamma");\n}\n'
    assert not defines_static_void(mm, "exec_two_outputs_kernel") and defines_static_void(mm, "lgamma_kernel")
    assert identifier_literals(mm + '// "digamma"\nauto n = "renorm_";\n') == [("lgamma", 3), ("renorm_", 6)]


def test_strided_two_output_kernel_parameters() -> None:
    metal = ("kernel void frexp_strided(device T* m, device int* e, constant T* x, constant long* sizes,\n"
             "    constant long* s0, constant long* s1, constant long* s2, constant uint& ndim, uint i) {}\n")
    assert strided_takes_shape_strides_ndim(metal, "frexp")
    assert not strided_takes_shape_strides_ndim(metal.replace("constant uint& ndim, ", ""), "frexp")
    assert not strided_takes_shape_strides_ndim("// " + metal.replace("\n    ", " "), "frexp")
