"""Ops whose shared kernel's iterator has several outputs and no upstream kernel writing them all
(_prelu_kernel_backward: grad_self and grad_weight of self, weight and grad_output): one kernel per
output, each an ordinary one-output kernel with its catalog body (`<family>_<output>`), planned in turn
like a family's stubs (plan/stub_kernels.py).  Their host functions are not registered; the stub's host
kernel builds, for each output, an iterator of that output and the stub iterator's inputs, and runs the
output's host function on it (as TensorIterator itself splits work into sub-iterators).  Everything
goes into the .mm with the last output's plan, so a half-planned op leaves no unregistered host code."""

from __future__ import annotations

from dataclasses import dataclass

from mpsgen.generate.host_code import host_kernel_name
from mpsgen.sources.native.stubs import host_param_names


@dataclass(frozen=True)
class OutputKernel:
    """The kernel of one output of several: its index, every output's kernel name, and the host
    functions of the outputs planned before it (placed with the last)."""

    index: int
    kernels: tuple[str, ...]  # _prelu_kernel_backward_grad_self, _prelu_kernel_backward_grad_weight
    earlier_hosts: tuple[str, ...] = ()

    @property
    def name(self) -> str:
        return self.kernels[self.index]

    @property
    def last(self) -> bool:
        return self.index == len(self.kernels) - 1


def keeps_input_dtype(kernel: str) -> bool:
    """Whether *kernel*'s catalog body returns its input's dtype (not frexp_exponent's int32, nor a bool)."""
    from mpsgen.generate.catalog import load_catalog

    return (load_catalog().get(kernel) or {}).get("result", "same") in ("same", "float")


def stub_host_kernel(fn: str, params: str, family: str, kernels: tuple[str, ...], inputs: int) -> str:
    """`static void fn(TensorIterator& iter)` (*params*) running each output's host function on an
    iterator of that output and *inputs* inputs of iter, in add_output order (clang-format lays the
    chains out).  An empty iterator runs nothing, as the MPSGraph code it replaces returned early.
    An output of another dtype than its inputs (frexp's int32 exponent) is built as the shared kernel's
    own iterator is, with check_all_same_dtype(false) (TensorIteratorConfig refuses it otherwise)."""
    it, *scalars = host_param_names(params)  # "TensorIterator& iter" -> iter
    lines = [f"static void {fn}({params}) {{",
             f"  if ({it}.numel() == 0) {{", "    return;", "  }",
             "  // one kernel per output, each on an iterator of that output and the inputs"]
    for k, kernel in enumerate(kernels):
        var = kernel[len(family) + 1:]
        chain = [f".add_output({it}.output({k}))", *(f".add_const_input({it}.input({j}))" for j in range(inputs)),
                 *(() if keeps_input_dtype(kernel) else (".check_all_same_dtype(false)",)), ".build();"]
        lines.append(f"  auto {var} = TensorIteratorConfig()")
        lines.extend(" " * (len(f"  auto {var} = ") + 4) + part for part in chain)
        lines.append(f"  {host_kernel_name(kernel)}({', '.join((var, *scalars))});")
    lines.append("}")
    return "\n".join(lines)
