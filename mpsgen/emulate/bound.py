"""The numeric check through the op's own arguments (plan/binding.py's Binding).

A kernel whose inputs are not simply the op's tensors in order, or whose scalars travel in a params
struct, is checked by drawing the op's arguments once: the generated columns are the op's distinct
tensors (threshold: self, read twice by the kernel), the scalar cases cover each traced scalar with
edge values (0, an input's value, a negative one, min > max), and torch.ops.aten.<op> is called with
them by name.  Cases torch itself refuses (huber_loss with delta <= 0) are dropped with a note.
"""

from __future__ import annotations

import hashlib
import itertools
from typing import TYPE_CHECKING, Any

from mpsgen.model import KernelSpec

from .reference import NoReference, Reference, import_torch, tensor

if TYPE_CHECKING:
    from mpsgen.plan.binding import Binding

    from .compile import Registration

# Each traced scalar takes these (0 and 1 also appear among the inputs: "threshold equal to an input"),
# in values the input type can hold: torch and the host convert a scalar to an integer type each their
# own way (bool(0.25) is true, uint8(0.25) is 0), and PyTorch's tests pass integral scalars there.
SCALAR_VALUES = {"float": (0.0, 1.0, -1.5, 0.25, 20.0), "int": (0.0, 1.0, -2.0, 3.0, 20.0),
                 "uchar": (0.0, 1.0, 3.0, 20.0), "bool": (0.0, 1.0)}
ALPHA_VALUES = {"float": (0.0, 1e-3, 0.25, -1.0, 2.0), "int": (0.0, 1.0, -1.0, 2.0), "uchar": (0.0, 1.0, 2.0),
                "bool": (0.0, 1.0)}


def _kind(metal_type: str) -> str:
    if metal_type in ("uchar", "bool"):
        return metal_type
    return "int" if metal_type in ("long", "int", "short", "char") else "float"


def needed(spec: KernelSpec, binding: Binding | None) -> bool:
    """Whether *spec* must be checked through *binding* (else torch.<op>(*inputs, alpha) is the reference)."""
    if spec.has_params and (binding is None or not binding.traced):
        raise NoReference(f"{spec.name}'s scalars come from an expression of the op's arguments; the numeric "
                          "check cannot call torch with the values the kernel gets",
                          hint="check the kernel on a Mac with test_mps.py, or pass --no-try")
    if binding is not None and -1 in binding.tensors:
        raise NoReference(f"{spec.name}'s kernel reads tensors the op builds from its arguments (glu: two halves "
                          "of self), not the arguments themselves; the numeric check cannot call torch with them",
                          hint="check the kernel on a Mac with test_mps.py, or pass --no-try")
    if binding is None:
        return False
    identity = binding.tensors == tuple(range(len(binding.tensors)))
    reduces = any(a.name == "reduction" for a in binding.args)  # losses: the stub is the Reduction::None part
    if not binding.traced:
        if spec.scalars and (reduces or not identity):  # mse_loss_backward's norm: 2 / numel from reduction
            raise NoReference(f"{spec.name}'s scalars come from an expression of the op's arguments; the numeric "
                              "check cannot call torch with the values the kernel gets",
                              hint="check the kernel on a Mac with test_mps.py, or pass --no-try")
        return False
    return bool(spec.scalars) or not identity or reduces or bool(binding.fixed) or binding.output is not None


def spread(binding: Binding) -> list[int]:
    """Kernel input k -> the generated column it reads (one column per distinct op tensor)."""
    order = list(dict.fromkeys(binding.tensors))
    return [order.index(j) for j in binding.tensors]


class Absent(float):
    """An optional scalar left out (nan_to_num's posinf=None): torch is called with None, the kernel
    gets what the host fills in, the CPU kernel's default for the input type (a float)."""


# The largest finite value of each floating Metal type: nan_to_num's default posinf (-: neginf).
_FLOAT_MAX = {"float": 3.4028234663852886e38, "half": 65504.0, "bfloat": 3.3895313892515355e38}


def _absent(default: str, metal_type: str) -> Absent | None:
    if default == "zero":
        return Absent(0.0)
    if default in ("max", "lowest") and metal_type in _FLOAT_MAX:
        return Absent(_FLOAT_MAX[metal_type] * (1 if default == "max" else -1))
    return None


def scalar_cases(binding: Binding, spec: KernelSpec, metal_type: str) -> tuple[Any, ...]:
    """The kernel's scalar values to try for inputs of *metal_type*: plain values for an alpha form,
    tuples for a params struct; an optional scalar is also left out (Absent)."""
    traced = list(dict.fromkeys(s for s in binding.scalars if s.startswith("arg:")))
    values = (ALPHA_VALUES if len(traced) == 1 else SCALAR_VALUES)[_kind(metal_type)]
    defaults = dict(zip(binding.scalars, spec.param_defaults))
    per_scalar = [_values_of(binding, s, values) + tuple(a for a in [_absent(defaults.get(s, "none"), metal_type)]
                                                         if a is not None)
                  for s in traced]
    cases = []
    for combo in itertools.product(*per_scalar):
        chosen = dict(zip(traced, combo))
        case = tuple(chosen[s] if s in chosen else float(s.split(":", 1)[1]) for s in binding.scalars)
        cases.append(case if spec.has_params else case[0])
    return tuple(cases)


# A scalar the op's schema types as bool (elu_backward's is_result) or int (polygamma's n, round's
# decimals) takes values of that type, whatever the input's type.
TYPED_VALUES = {"bool": (0.0, 1.0), "int": (0.0, 1.0, 2.0, 3.0, -1.0)}


def _values_of(binding: Binding, source: str, values: tuple[float, ...]) -> tuple[float, ...]:
    at, args = int(source[4:]), getattr(binding, "args", ())
    return TYPED_VALUES.get(args[at].type, values) if at < len(args) else values


def _as_schema_type(arg_type: str, value: Any) -> Any:
    """A drawn value as torch takes it for an argument of *arg_type* (a bool, an int)."""
    if isinstance(value, Absent) or value is None:
        return None
    if arg_type == "bool":
        return bool(value)
    if arg_type == "int":
        return int(value)
    return value


def flat(case: Any) -> tuple[Any, ...]:
    return case if isinstance(case, tuple) else (case,)


def scalar_tensor(case: Any, reg: Registration, spec: KernelSpec) -> Any:
    """The bytes the kernel's alpha buffer gets: the scalar in its registered type, or the struct's fields."""
    if isinstance(case, tuple):
        from mpsgen.generate.render import scalar_type_for

        return tensor(case, scalar_type_for(spec, reg.in_type))
    return tensor((case,), str(reg.alpha_type))


def digest(binding: Binding) -> str:
    return "." + hashlib.sha256(repr(tuple(binding)).encode()).hexdigest()[:12]


def reference(binding: Binding) -> Reference:
    """torch.ops.aten.<op> called with the op's arguments by name, given the kernel's inputs and scalars."""
    torch = import_torch()
    packet = getattr(torch.ops.aten, binding.op, None) if hasattr(torch.ops.aten, binding.op) else None
    if packet is None:
        raise NoReference(f"no torch.ops.aten.{binding.op} to compare with",
                          hint="mpsgen try compares with torch's CPU op of the same name")
    args = binding.args
    ntensors = len(binding.tensors)

    def call(*values: Any) -> Any:
        kwargs: dict[str, Any] = {}
        for k, j in enumerate(binding.tensors):
            kwargs.setdefault(args[j].name, values[k])
        scalars = flat(values[ntensors]) if len(values) > ntensors else ()
        for k, source in enumerate(binding.scalars):
            if source.startswith("arg:") and k < len(scalars):
                arg = args[int(source[4:])]
                kwargs[arg.name] = _as_schema_type(arg.type, scalars[k])
        kwargs.update(binding.fixed)  # what selects the kernel's stub (div's rounding_mode="trunc")
        for a in args:
            if a.name == "reduction":
                kwargs[a.name] = 0  # Reduction::None: the elementwise part the stub computes
            elif a.name not in kwargs and a.default is None and a.type == "bool":
                # a flag the stub never gets (leaky_relu_backward's self_is_result, only TORCH_CHECKed by
                # the shared kernel): unset, torch computes what the kernel does
                kwargs[a.name] = False
            elif a.name not in kwargs and a.default is None:
                raise NoReference(f"torch.ops.aten.{binding.op} needs {a.name}, which the kernel does not see",
                                  hint="the numeric check calls the op with the kernel's inputs and scalars only")
        result = packet(**kwargs)
        return result if binding.output is None else result[binding.output]  # one kernel per output

    name = f"torch.ops.aten.{binding.op}" + ("" if binding.output is None else f"(...)[{binding.output}]")
    return Reference(name, call)


def accepted(fn: Reference, args: list[Any], cases: tuple[Any, ...]) -> tuple[tuple[Any, ...], str]:
    """The scalar cases torch accepts on these inputs, and a note naming those it refused."""
    torch = import_torch()
    kept, refused = [], []
    one = [t[:1] for t in args]
    # Where torch has no CPU kernel for the dtype, the check compares widened (check._expected): ask so.
    # Complex ones widen to complex64 as the check's reference does (float32 would drop the imaginary part).
    wide = [t.to(torch.complex64 if t.is_complex() else torch.uint8 if t.dtype == torch.bool else torch.float32)
            for t in one]
    for case in cases:
        for attempt in (one, wide):
            try:
                fn.fn(*attempt, case)
            except RuntimeError as err:
                if "not implemented for" in str(err) and attempt is one:
                    continue
                refused.append(case)
            else:
                kept.append(case)
            break
    if not kept:
        raise NoReference(f"{fn.name} refused every scalar value tried ({', '.join(map(str, cases[:3]))}, ...)",
                          hint="mpsgen try draws scalars from edge values")
    note = f"{len(refused)} scalar case(s) refused by torch, not compared (e.g. {refused[0]})" if refused else ""
    return tuple(kept), note
