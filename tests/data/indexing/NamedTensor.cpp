// Mirrors the named-tensor index_fill_ overloads of PyTorch 2.7's aten/src/ATen/native/NamedTensor.cpp
// (a Dimname, no stub: they call the int overloads), written for mpsgen's tests.
#include <ATen/ops/index_fill_native.h>

namespace at::native {

Tensor& index_fill_(Tensor& self, Dimname dim, const Tensor& index, const Scalar& source) {
  return self.index_fill_(dimname_to_position(self, dim), index, source);
}

} // namespace at::native
