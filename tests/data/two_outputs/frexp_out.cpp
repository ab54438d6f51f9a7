
std::tuple<Tensor&, Tensor&> frexp_out(const Tensor& self, Tensor& mantissa, Tensor& exponent) {
  TORCH_CHECK(at::isFloatingType(self.scalar_type()), "torch.frexp() only supports floating-point dtypes");
  auto iter = TensorIteratorConfig()
    .add_output(mantissa)
    .add_output(exponent)
    .add_const_input(self)
    .check_all_same_dtype(false)
    .build();
  frexp_stub(iter.device_type(), iter);
  return std::tuple<Tensor&, Tensor&>(mantissa, exponent);
}
