"""Host emulation of Metal pointwise kernels for `mpsgen try` (compile, inputs, reference, compare)."""
