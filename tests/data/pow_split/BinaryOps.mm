
TORCH_IMPL_FUNC(pow_tensor_tensor_out_mps)(const Tensor& base, const Tensor& exp, const Tensor& output) {
  mps::binaryOpTensor(
      base, exp, output, "power", ^BinaryOpFn(cachedGraph, primaryCastTensor, secondaryCastTensor) {
        MPSGraph* mpsGraph = cachedGraph->graph();
        return [mpsGraph powerWithPrimaryTensor:primaryCastTensor secondaryTensor:secondaryCastTensor name:nil];
      });
}

TORCH_IMPL_FUNC(pow_Scalar_out_mps)(const Scalar& base, const Tensor& exp, const Tensor& out) {
  if (base.equal(1.0)) {
    out.fill_(1);
  } else {
    at::pow_out(const_cast<Tensor&>(out), mps::wrapped_scalar_tensor_mps(base, exp.device()), exp); // redispatch!
  }
}
