"""The kernel shape: how many tensors the kernel reads, which scalars it takes, and how they reach it.

One decision for every op (the stage that chooses; generate/ renders the choice, sources/ read the
facts it rests on):

    tensor inputs   the iterator's inputs (sources/native/iterator_operands), else the schema's tensors
    scalars         the stub's parameters after the iterator, named after what the shared kernel
                    passes (threshold_stub(device_type(), *this, threshold, value))
    delivery        none   -> REGISTER_{UNARY,BINARY,TERNARY}_OP,  exec_*_kernel(iter, name)
                    alpha  -> REGISTER_*_ALPHA_OP(name, T, A, T),  exec_*_kernel(iter, name, scalar)
                    params -> a params struct in kernels/<Stem>.h, REGISTER_*_ALPHA_OP with the struct's
                              typedef as the alpha type, exec_*_kernel_with_params(iter, name, params, "<T>")

A shape whose host call or registration macro the checkout lacks is no refusal when its row names a
backfill: the change adds the missing API, modeled on its sibling in the same checkout, as
upstream's own PRs did (backfill/host_api.py); the shape carries the backfill's name.  Only a
shape with no row, or a missing API with no backfill, is refused.  Adding a shape means one row in
SHAPES, its rendering in generate/render.py, and its tests.
"""

from __future__ import annotations

from typing import Any, Literal, cast

from mpsgen.errors import MpsgenError
from mpsgen.model import Arity
from mpsgen.records import NamedTuple

# How a kernel's scalars reach it: none, one alpha argument, or a params struct.
Delivery = Literal["none", "alpha", "params"]
from mpsgen.sources.host.api import HostApi
from mpsgen.sources.native.arguments import is_name
from mpsgen.sources.native.shared_impl import StubCall
from mpsgen.sources.native.stubs import StubDecl, is_default_name, is_scalar_type

_KIND = {1: "unary", 2: "binary", 3: "ternary"}


class Shape(NamedTuple):
    """One writable shape: the host function and the registration macro it needs."""

    exec_fn: str
    macro: str
    takes_alpha: bool = False  # the exec function must take the alpha argument
    backfill: str = ""  # backfill/host_api's name for adding the form where the checkout lacks it
    sibling: str = ""  # ... which needs this exec function to model the new one on
    # Where the checkout has no exec_binary_kernel (PyTorch 2.7: HostApi.binary_mps_impl), the form the
    # change adds instead, modeled on BinaryKernel.mm's binary_mps_impl and exec_unary_kernel ("": none
    # needed, binary_mps_impl itself runs the kernel).
    mps_impl: str = ""


# (tensor inputs, delivery) -> what the checkout must have.  Ternary ops with scalars take an alpha
# only where exec_ternary_kernel has one (a 2026 fork); no checkout has a ternary params form yet:
# both are added, modeled on exec_ternary_kernel(iter, name) and the binary forms.
# PyTorch 2.7 has no exec_binary_kernel: two-input kernels run through BinaryKernel.mm's file-local
# binary_mps_impl and BinaryKernel.metal's REGISTER_BINARY_INDEXING_OP, and exec_unary_kernel passes one
# int64_t only.  With scalars the change adds their alpha forms (backfill/host_api's
# "binary_alpha_mps_impl", "unary_alpha_mps_impl"); nothing there runs three inputs, so the change adds a
# ternary form of binary_mps_impl and its kernels ("ternary_mps_impl"), with scalars their alpha form.
SHAPES: dict[tuple[int, str], Shape] = {
    (1, "none"): Shape("exec_unary_kernel", "REGISTER_UNARY_OP"),
    (2, "none"): Shape("exec_binary_kernel", "REGISTER_BINARY_OP"),
    (3, "none"): Shape("exec_ternary_kernel", "REGISTER_TERNARY_OP", mps_impl="ternary_mps_impl"),
    (1, "alpha"): Shape("exec_unary_kernel", "REGISTER_UNARY_ALPHA_OP", takes_alpha=True,
                        mps_impl="unary_alpha_mps_impl"),
    (2, "alpha"): Shape("exec_binary_kernel", "REGISTER_BINARY_ALPHA_OP", takes_alpha=True,
                        mps_impl="binary_alpha_mps_impl"),
    (3, "alpha"): Shape("exec_ternary_kernel", "REGISTER_TERNARY_ALPHA_OP", takes_alpha=True, backfill="ternary_alpha",
                        sibling="exec_ternary_kernel", mps_impl="ternary_alpha_mps_impl"),
    (1, "params"): Shape("exec_unary_kernel_with_params", "REGISTER_UNARY_ALPHA_OP", mps_impl="unary_alpha_mps_impl"),
    (2, "params"): Shape("exec_binary_kernel_with_params", "REGISTER_BINARY_ALPHA_OP",
                         mps_impl="binary_alpha_mps_impl"),
    (3, "params"): Shape("exec_ternary_kernel_with_params", "REGISTER_TERNARY_ALPHA_OP", backfill="ternary_params",
                         sibling="exec_ternary_kernel", mps_impl="ternary_alpha_mps_impl"),
}

class ScalarParam(NamedTuple):
    name: str  # the functor's (or params struct's) name for it
    cpp_type: str  # the stub's parameter type: "const Scalar&", "double", "std::optional<double>", ...
    source: str  # what the shared kernel passes: "threshold", "0", "-alpha", "Scalar(eps ? ...)"


class MixedInputs(NamedTuple):
    """A shared kernel whose iterator may hold inputs of different dtypes (check_all_same_dtype(false))."""

    kernel: str  # where_self_out
    inputs: tuple[str, ...]  # (condition_, self_, other_)
    path: str
    line: int


class KernelShape(NamedTuple):
    inputs: int
    scalars: tuple[ScalarParam, ...]
    delivery: Delivery
    operands: tuple[str, ...] = ()  # the iterator's inputs by name ("self", "grad"), when read
    backfill: str = ""  # the host API form the change adds (Shape.backfill), when the checkout lacks it

    @property
    def arity(self) -> Arity:
        """The kernel vocabulary's name: unary, binary_alpha, unary_params, ..."""
        suffix = "" if self.delivery == "none" else f"_{self.delivery}"
        return cast(Arity, _KIND[self.inputs] + suffix)

    @property
    def scalar_names(self) -> tuple[str, ...]:
        return tuple(p.name for p in self.scalars)


def _names(stub_params: tuple[tuple[str, str], ...], call: StubCall | None,
           declared: tuple[str, ...] | None) -> list[str]:
    """The catalog's names, else the identifiers the shared kernel passes, else the declared ones."""
    if declared is not None:
        return list(declared)
    passed = list(call.extra_args) if call is not None else []
    out: list[str] = []
    for k, (_, decl_name) in enumerate(stub_params):
        arg = passed[k] if k < len(passed) else ""
        # (sources/native/stubs names an unnamed Scalar parameter alpha, alpha2, ...: a name only for one)
        declared_name = "" if is_default_name(decl_name) else decl_name
        name = arg if is_name(arg) else declared_name
        name = name or ("alpha" if len(stub_params) == 1 else f"p{k}")
        while name in out:
            name += "_"
        out.append(name)
    return out


def choose_shape(*, stub: StubDecl, call: StubCall | None, operands: tuple[str, ...] | None, schema_tensors: int,
                 api: HostApi, declared_names: tuple[str, ...] | None = None,
                 mixed: MixedInputs | None = None) -> KernelShape:
    """The shape of the kernel behind *stub* (a sources.native.stubs.StubDecl), or MpsgenError naming what
    is missing.  *declared_names*: the catalog's names for the scalars, in the stub's order.  *mixed*:
    the iterator's inputs may differ in dtype; written only where the checkout's kernels of that many
    inputs read each input in its own dtype and hand the functor T (HostApi.cast_inputs)."""
    inputs = len(operands) if operands else schema_tensors
    extra = stub.extra_params
    where: dict[str, Any] = dict(path=stub.path, line=stub.line)
    if inputs not in _KIND:
        raise MpsgenError(f"{stub.name}'s kernel reads {inputs} tensors; mpsgen writes kernels of 1 to 3 inputs",
                          hint="write the host kernel by hand", **where)
    bad = [t for t, _ in extra if not is_scalar_type(t)]
    if bad:
        raise MpsgenError(
            f"{stub.name} takes {', '.join(bad)}; mpsgen passes Scalar, double, int64_t, bool and optional<double> "
            "arguments to a kernel", hint="write the host kernel by hand", **where)
    if declared_names is not None and len(declared_names) != len(extra):
        declared_names = None  # the catalog's body was written for another stub
    scalars = tuple(ScalarParam(n, t, call.extra_args[k] if call and k < len(call.extra_args) else "")
                    for k, ((t, _), n) in enumerate(zip(extra, _names(extra, call, declared_names))))
    delivery: Delivery = "none" if not scalars else ("alpha" if len(scalars) == 1 else "params")
    shape = KernelShape(inputs, scalars, delivery, tuple(operands or ()))
    shape = shape._replace(backfill=_require_api(shape, stub, api))  # 2.7's where: no three-input kernel, first
    if mixed is not None and shape.backfill == SHAPES[(3, "none")].mps_impl and inputs not in api.cast_inputs:
        # 2.7's where: only the condition has its own dtype; the change adds the kernels reading it as such
        return shape._replace(backfill=TERNARY_COND_27)
    if mixed is not None and inputs not in api.cast_inputs:
        raise MpsgenError(
            f"{mixed.kernel} builds its TensorIterator with check_all_same_dtype(false): its inputs "
            f"({', '.join(mixed.inputs)}) may differ in dtype, and this checkout's c10/metal has no "
            f"{_KIND[inputs]}_strided_cast kernel reading each input in its own dtype",
            path=mixed.path, line=mixed.line,
            hint="write the kernel by hand (a functor taking each input in its own type), or update c10/metal")
    return shape


def _require_api(shape: KernelShape, stub: StubDecl, api: HostApi) -> str:
    """"" when the checkout carries the shape, the backfill's name when the change adds the missing
    API, or MpsgenError naming what is missing."""
    kind = _KIND[shape.inputs]
    what = f"a {kind} kernel with {len(shape.scalars)} scalar{'s' if len(shape.scalars) != 1 else ''}"
    needed = SHAPES.get((shape.inputs, shape.delivery))
    where: dict[str, Any] = dict(path=api.header, line=1)
    if needed is None:
        raise MpsgenError(
            f"{stub.name} needs {what} ({', '.join(shape.scalar_names)}); no PyTorch host API passes several "
            f"scalars to a {kind} kernel (there is no exec_{kind}_kernel_with_params)",
            hint="write the host kernel by hand", **where)
    if not api.functions:
        return ""  # no MetalShaderLibrary.h in the tree (a trimmed checkout): the registrations decide
    if api.binary_mps_impl and (shape.inputs > 1 or shape.scalars):  # 2.7 (no exec_binary_kernel)
        return needed.mps_impl
    missing_exec = not api.has(needed.exec_fn) or (needed.takes_alpha and not api.takes_alpha(needed.exec_fn))
    missing_macro = bool(api.macros) and not {needed.macro, f"REGISTER_OPMATH_{needed.macro[9:]}"} & api.macros
    if (missing_exec or missing_macro) and needed.backfill and api.has(needed.sibling):
        return needed.backfill  # the sibling (exec_ternary_kernel(iter, name)) is there to model on
    if missing_exec:
        form = f"{needed.exec_fn}(iter, name, alpha)" if needed.takes_alpha else f"{needed.exec_fn}"
        if needed.backfill:  # the change would add it, but there is nothing to model it on
            form += f", nor {needed.sibling}(iter, name) to model one on"
        raise MpsgenError(f"{stub.name} needs {what}, but this checkout's MetalShaderLibrary.h has no {form}",
                          hint="update the checkout's Metal host API, or write the host kernel by hand", **where)
    if missing_macro:
        raise MpsgenError(f"{stub.name} needs {what}, but c10/metal defines no {needed.macro}",
                          path="c10/metal/indexing.h", line=1,
                          hint="update the checkout's c10/metal headers, or write the kernel by hand")
    return ""


TERNARY_COND_27 = "ternary_cond_mps_impl"  # ternary_mps_impl's form with a condition of its own dtype first
