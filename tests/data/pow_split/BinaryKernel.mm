
static void pow_tensor_scalar_mps_kernel(TensorIteratorBase& iter, const Scalar& exp) {
  lib.exec_binary_kernel(iter, "pow_scalar", exp);
}

REGISTER_DISPATCH(pow_tensor_scalar_stub, &pow_tensor_scalar_mps_kernel);
