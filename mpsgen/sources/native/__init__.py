"""ATen/native .cpp/.h: DispatchStubs, shared kernels, their iterators and dtype checks."""
