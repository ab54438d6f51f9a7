
Tensor& complex_out_mps(const Tensor& real, const Tensor& imag, Tensor& output) {
  auto as_real = at::view_as_real(output).select(output.dim(), 0);
  auto iter = TensorIteratorConfig().add_output(as_real).add_input(real).add_input(imag).build();
  mps::binary_mps_impl(iter, "complex_kernel", false);
  return output;
}
