"""The readers and editors behind plan/callers.py: uses of a function name, the operator header, the
at:: function of a yaml entry, a stubless kernel's delegation, and the statement check's exception for a
callee renamed to an at:: function."""

from __future__ import annotations

import pytest

from mpsgen.errors import MpsgenError
from mpsgen.scan.statements import first_broken_statement
from mpsgen.sources.host.callers import rewrite_call, uses_of
from mpsgen.sources.host.op_headers import ensure_op_header
from mpsgen.sources.native.delegates import delegation
from mpsgen.sources.native.shared_impl import find_shared_impl
from mpsgen.sources.native_yaml import cpp_api
from mpsgen.sources.native_yaml.index import index_text

MM = """namespace at::native {
Tensor& foo_out_mps(const Tensor& self, Tensor& out);  // a prototype: no use

Tensor& foo_out_mps(const Tensor& self, Tensor& out) {
  return foo_out_mps_impl(self, out);  // foo_out_mps( in a comment
}

static void helper(const Tensor& a, Tensor& b) {
  TORCH_CHECK(true, "foo_out_mps(a, b)");
  at::native::foo_out_mps(a, b);
  foo_out_mps(n < 2, b);
  auto fn = &foo_out_mps;
  obj.foo_out_mps(a);
}
} // namespace at::native
"""


def test_uses_skip_comments_literals_prototypes_members_and_the_definition() -> None:
    uses = uses_of("X.mm", MM, "foo_out_mps")
    assert [(u.line, u.form, u.qualifier, u.function) for u in uses] == [
        (10, "call", "at::native::", "helper"), (11, "call", "", "helper"), (12, "address", "", "helper")]
    assert uses[0].args == ("a", "b")
    assert uses[1].args is None  # `<` read as an angle by one split and not the other: not read
    assert uses_of("X.mm", MM, "bar_mps") == []


def test_rewrite_replaces_the_qualified_name_only() -> None:
    use = uses_of("X.mm", MM, "foo_out_mps")[0]
    text = rewrite_call(MM, use, "at::foo_outf")
    assert "  at::foo_outf(a, b);\n" in text
    assert text.replace("at::foo_outf(a, b)", "at::native::foo_out_mps(a, b)") == MM
    assert rewrite_call(text, use, "at::foo_outf") == text  # the use is gone: unchanged


PER_OP = """#define TORCH_ASSERT_ONLY_METHOD_OPERATORS
#include <ATen/native/mps/OperationUtils.h>

#ifndef AT_PER_OPERATOR_HEADERS
#include <ATen/Functions.h>
#include <ATen/NativeFunctions.h>
#else
#include <ATen/ops/add_native.h>
#include <ATen/ops/sub_native.h>
#endif

namespace at::native {}
"""

PLAIN = """#define TORCH_ASSERT_ONLY_METHOD_OPERATORS
#include <ATen/native/mps/OperationUtils.h>
#include <ATen/ops/bitwise_and_native.h>
#include <ATen/ops/logical_not_native.h>
#include <fmt/format.h>
"""


def test_the_operator_header_goes_into_the_per_operator_branch() -> None:
    text = ensure_op_header(PER_OP, "ATen/ops/logical_not.h", path="X.mm")
    assert text == PER_OP.replace("#include <ATen/ops/sub_native.h>\n",
                                  "#include <ATen/ops/logical_not.h>\n#include <ATen/ops/sub_native.h>\n")
    assert ensure_op_header(text, "ATen/ops/logical_not.h") == text  # idempotent


def test_the_operator_header_joins_a_plain_run_of_operator_headers() -> None:
    text = ensure_op_header(PLAIN, "ATen/ops/logical_not.h", path="X.mm")
    assert text == PLAIN.replace("#include <ATen/ops/logical_not_native.h>\n",
                                 "#include <ATen/ops/logical_not.h>\n#include <ATen/ops/logical_not_native.h>\n")


def test_a_file_without_operator_headers_is_refused() -> None:
    with pytest.raises(MpsgenError, match="no #include <ATen/ops/...> lines"):
        ensure_op_header("#include <ATen/native/mps/OperationUtils.h>\n", "ATen/ops/abs.h", path="X.mm")
    no_functions = PER_OP.replace("#include <ATen/Functions.h>\n", "")
    with pytest.raises(MpsgenError, match="does not include <ATen/Functions.h>"):
        ensure_op_header(no_functions, "ATen/ops/abs.h", path="X.mm")


YAML = """- func: floor_divide_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)
  variants: method
  dispatch:
    CPU, CUDA: floor_divide_
    MPS: floor_divide_mps_

- func: floor_divide.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)
  dispatch:
    CPU, CUDA: floor_divide_out
    MPS: floor_divide_out_mps

- func: floor_divide(Tensor self, Tensor other) -> Tensor
  variants: function, method
  dispatch:
    CPU, CUDA: floor_divide
    MPS: floor_divide_mps
"""


def test_the_at_function_of_each_kind_of_entry() -> None:
    entries = {e.name: e for e in index_text(YAML, "native_functions.yaml").family("floor_divide").entries}
    inplace, out, functional = entries["floor_divide_.Tensor"], entries["floor_divide.out"], entries["floor_divide"]
    assert cpp_api.at_function(out, YAML) == "at::floor_divide_outf" and cpp_api.argument_count(out) == 3
    assert cpp_api.at_function(functional, YAML) == "at::floor_divide"
    assert cpp_api.at_function(inplace, YAML) is None  # `variants: method`: no free function
    assert cpp_api.is_out_variant(out) and not cpp_api.is_out_variant(inplace)
    assert cpp_api.op_header(inplace) == cpp_api.op_header(out) == "ATen/ops/floor_divide.h"


CPP = """namespace at::native {
Tensor& floor_divide_out(const Tensor& self, const Tensor& other, Tensor& result) {
  auto iter = TensorIterator::binary_op(result, self, other);
  div_floor_stub(iter.device_type(), iter);
  return result;
}

Tensor& floor_divide_(Tensor& self, const Tensor& other) {
  // floor_divide_out_mps(self) is not what it calls
  return native::floor_divide_out(self, other, self);
}

Tensor& logical_xor_(Tensor& self, const Tensor& other) {
  return at::logical_xor_out(self, self, other);
}

Tensor& other_(Tensor& self) {
  return c10::floor_divide_out(self, self, self);
}
}
"""


@pytest.mark.parametrize(("kernel", "expected"), [
    ("floor_divide_", ("native::floor_divide_out", 10, False)),
    ("logical_xor_", ("at::logical_xor_out", 14, True)),
    ("other_", None),  # another namespace's function of that name
])
def test_delegation_in_one_call(kernel: str, expected) -> None:
    sources = {"BinaryOps.cpp": CPP}
    impl = find_shared_impl(sources, kernel)
    assert impl is not None and not impl.stub_names
    found = delegation(sources, impl, {"floor_divide_out"}, {"logical_xor_out", "logical_xor_outf"})
    assert (found and (found.callee, found.line, found.dispatched)) == expected


def test_a_callee_renamed_to_an_at_function_keeps_the_statement() -> None:
    old = "void g() {\n  foo_out_mps(self, out);\n  x = 1;\n}\n"
    assert first_broken_statement(old, old.replace("foo_out_mps(", "at::foo_outf(")) is None
    assert first_broken_statement(old, old.replace("foo_out_mps(", "native::foo_outf(")) == 2  # not at::
    assert first_broken_statement(old, old.replace("foo_out_mps(self", "at::foo_outf(self, 2")) == 2
