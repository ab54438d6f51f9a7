"""How the op's own arguments reach the kernel: the numeric check calls torch's op with them.

The kernel sees the iterator's inputs and the stub's scalars, not the op's schema: threshold's kernel
reads (self, self) and (threshold, value); threshold_backward's reads (self, grad) and (threshold, 0).
A Binding maps each kernel input and scalar back to a schema argument (by the position of the C++
parameter it came from, which follows the schema), so `mpsgen try` can draw the op's arguments once
and feed the same values to torch's CPU op and to the kernel.
"""

from __future__ import annotations

from mpsgen.records import NamedTuple
from mpsgen.sources.native.arguments import argument_read, is_number
from mpsgen.sources.native_yaml.schema import SchemaArg as SchemaArg  # re-exported: plan.binding.SchemaArg
from mpsgen.sources.native_yaml.schema import schema_args as schema_args  # re-exported


class Binding(NamedTuple):
    """op: the aten op to call; args: its schema (out arguments dropped); tensors[k]: the schema
    index kernel input k is; scalars[k]: "arg:<index>", "const:<value>" or "" (not traceable)."""

    op: str
    args: tuple[SchemaArg, ...]
    tensors: tuple[int, ...]  # -1: an input that is no argument of the op (glu's two halves of self)
    scalars: tuple[str, ...]
    # Arguments held at a value: what selects this kernel's stub (div's rounding_mode="trunc"; None: absent).
    fixed: tuple[tuple[str, str | None], ...] = ()
    # The op returns a tuple and the kernel computes this element of it (one kernel per output).
    output: int | None = None

    @property
    def traced(self) -> bool:
        return all(self.scalars) and -1 not in self.tensors


def bind(op: str, func: str, operands: tuple[str, ...], operand_params: tuple[str, ...],
         sources: tuple[str, ...], impl_params: tuple[str, ...]) -> Binding:
    """The binding of a kernel whose inputs are *operands* (named among *operand_params*, the parameters
    of the function that built the iterator) and whose scalars are the shared kernel's arguments
    *sources* (named among *impl_params*)."""
    args = schema_args(func)
    tensors = []
    for name in operands:
        # where_self_out's condition_, self_, other_: PyTorch's name for an argument's converted copy
        # (moved to the device, promoted), the same values
        name = name[:-1] if name not in operand_params and name.endswith("_") and name[:-1] in operand_params else name
        at = operand_params.index(name) if name in operand_params else -1
        tensors.append(at if at < len(args) else -1)
    scalars = []
    for src in sources:
        src = argument_read(src)
        if src in impl_params and impl_params.index(src) < len(args):
            scalars.append(f"arg:{impl_params.index(src)}")
        elif is_number(src):
            scalars.append(f"const:{src}")
        else:
            scalars.append("")
    return Binding(op.split(".", 1)[0], args, tuple(tensors), tuple(scalars))


def fixing(binding: Binding | None, op: str, func: str, inputs: int,
           fixed: tuple[tuple[str, str | None], ...]) -> Binding:
    """*binding* with *fixed* arguments (one made for the op's first *inputs* tensors when there is none)."""
    if binding is None:
        args = schema_args(func)
        tensors = tuple(k for k, a in enumerate(args) if a.type.startswith("Tensor"))[:inputs]
        binding = Binding(op.split(".", 1)[0], args, tensors, ())
    return binding._replace(fixed=fixed)
