"""Planning's second phase: whose kernel serves the stub and its shape (tensor inputs, scalars and how
they reach the kernel), the host API forms the change must add for it, and how the op's arguments
bind to the kernel's, as one frozen `KernelChoice`: the input of the dtype and kernel-code phases."""

from __future__ import annotations

from dataclasses import dataclass

from mpsgen.errors import MpsgenError
from mpsgen.model import Arity, Command, Location
from mpsgen.plan.binding import Binding
from mpsgen.plan.shape import KernelShape, MixedInputs
from mpsgen.plan.texts import TextEdit, capabilities, folder_files, mentioning, planned_texts
from mpsgen.sources.native_yaml import names as nf
from mpsgen.sources.native import stubs
from mpsgen.sources.native.iterator_builder import IteratorBuilder, iterator_builder
from mpsgen.sources.native_yaml.facts import Entry
from mpsgen.sources.native_yaml.schema import schema_tensors, takes_optional_tensor
from mpsgen.tree.changeset import Changeset
from mpsgen.tree.checkout import Checkout


@dataclass(frozen=True)
class KernelChoice:
    """The kernel a moved op gets, and what the later phases need to know of the routing."""

    command: Command
    family: str
    stub: stubs.StubDecl
    legacy_kernels: tuple[str, ...]  # the MPS-only kernels the moved entries called (their dtype checks)
    kernel: str  # the kernel's name: the family's, or the stub owner's (threshold_backward: threshold)
    shape: KernelShape
    binding: Binding | None = None  # the op's arguments -> the kernel's (for the numeric check)
    operands_at: str = ""  # where the iterator's inputs were read (path:line), when they were
    # ceil_out copies integer inputs itself: (kind, "ceil_out at path:line"); those dtypes never reach the stub.
    diverted: tuple[str, str] | None = None
    backfilled: tuple[str, ...] = ()  # host API forms this change adds (backfill/host_api)
    edits: tuple[TextEdit, ...] = ()  # the texts of those forms
    # The kernel of one of a family's other stubs (div_trunc for div; plan/multistub.py): the family's
    # OpInfo and catalog entry describe its first stub's kernel, not this one.
    other_stub: bool = False
    # the op the numeric check compares with, when not the family's (a stub of another family that reads
    # fewer inputs than the family's iterator: clamp.Tensor's minimum_stub, checked against minimum)
    check_op: str = ""
    # how the shared kernel builds its iterator (a 2.7 host kernel re-building it builds it the same way)
    builder: IteratorBuilder | None = None
    shared_at: Location | None = None  # the shared kernel calling the stub

    @property
    def arity(self) -> Arity:
        return self.shape.arity


def choose_kernel(command: Command, family: str, stub: stubs.StubDecl, checkout: Checkout, cs: Changeset,
                  index: nf.NativeIndex | None, entry: Entry, shared: tuple[str, ...],
                  legacy_kernels: tuple[str, ...], name: str = "") -> KernelChoice:
    """The shape of the kernel behind *stub* (plan/shape.py), read from the shared kernel that calls
    it (where_self_out, not its wrapper where), and whose kernel it is: a stub another op owns
    (threshold_backward passes threshold_stub (threshold, 0)) gets that op's kernel name.  *name*: the
    kernel's name when the family has one per stub (plan/multistub.py)."""
    from mpsgen.generate import catalog
    from mpsgen.plan.shape import choose_shape
    from mpsgen.sources.native.iterator_operands import iterator_operands

    native = planned_texts(cs, folder_files(cs, "native_sources"), checkout)
    # a macro-made kernel (ge_Scalar_out of CREATE_COMPARISON_SCALAR_TENSOR_IMPL_FUNC(ge)) is found by its op
    read = [(src, stubs.find_shared_impl(src, k)) for k in shared
            for src in [mentioning(native, k) or mentioning(native, family)]]
    calls = [(src, impl, c) for src, impl in read if impl for c in impl.stubs if c.stub == stub.name]
    sources, impl, call = calls[0] if calls else (*read[0], None)
    owner = stub.name.removesuffix("_stub")
    kernel = name or family
    if call is not None and call.extra_args and owner != family and not name:
        assert impl is not None  # the call was found in it
        from mpsgen.sources.native.shared_impl import borrowed_stub

        # sub passes add_stub -alpha: the kernel behind the stub is add's, not sub's (renorm's own
        # renorm_scale_factor_stub, named after no family, is renorm's kernel)
        if index is not None and borrowed_stub(call, family, index.has_family):
            raise MpsgenError(
                f"{impl.kernel} passes {stub.name} ({', '.join(call.extra_args)}): the stub is {owner}'s, and its "
                f"kernel computes {owner}'s function of what it is passed", path=impl.path, line=call.line,
                hint=f"register {stub.name} on MPS first (`mpsgen migrate {owner}` if `mpsgen status` lists {owner} "
                     f"as a candidate, else by hand); then `mpsgen migrate {family}` only moves the dispatch")
        if index is not None and index.has_family(owner):
            kernel = owner
    if not name and kernel == family and owner != family and _kernel_registered(checkout, cs, owner):
        kernel = owner  # huber_loss's huber_stub: upstream's `huber` kernel is there to call
    elif not name and kernel == family and owner != family and owner in catalog.load_catalog():
        kernel = owner  # pow.Tensor_Scalar_out alone: pow_tensor_scalar_stub's body, as `migrate pow` names it
    diverted = None
    if call is not None and call.diverts:
        assert impl is not None
        diverted = (call.diverts, f"{impl.kernel} at {Location(impl.path, call.line)}")
    operands = iterator_operands(sources, impl, entry.name) if impl else None
    builder = iterator_builder(sources, impl, entry.name, call) if impl else None
    mixed = None
    if operands is not None and len(operands.names) > 1:
        assert impl is not None  # operands are read from it
        mixed = _mixed_input_dtypes(sources[impl.path], impl, operands.names)
    body = catalog.load_catalog().get(kernel) or catalog.load_catalog().get(family) or {}
    declared = tuple(body["params"]) if body.get("params") else None
    tensors = schema_tensors(entry.func)
    check_op = ""
    reads = {"unary": 1, "binary": 2, "ternary": 3}.get(str(body.get("arity", "")).split("_")[0])
    if name and reads and takes_optional_tensor(entry.func) and reads < (len(operands.names) if operands
                                                                            else tensors):
        # the meta function builds one iterator per branch (clamp.Tensor: self, min and max; or self and one
        # of them, for maximum_stub/minimum_stub): the catalogued kernel of this stub says how many it reads
        operands, tensors = None, reads
        check_op = owner if index is not None and owner != family and index.has_family(owner) else ""
    shape = choose_shape(stub=stub, call=call, operands=operands.names if operands else None,
                         schema_tensors=tensors, api=capabilities(cs).host_api, declared_names=declared,
                         mixed=mixed)
    backfilled: tuple[str, ...] = ()
    edits: tuple[TextEdit, ...] = ()
    if shape.backfill:  # the checkout lacks the host API the shape needs: this change adds it
        from mpsgen.backfill.host_api import backfill

        fill = backfill(shape.backfill, lambda rel: cs.current(rel) if cs.exists(rel) else None)
        backfilled = fill.added
        edits = tuple(TextEdit(rel, text, ("host API added",)) for rel, text in fill.texts.items())
    binding = None
    if operands is not None and impl is not None:
        from mpsgen.plan.binding import bind
        from mpsgen.sources.native.iterator_operands import impl_parameters

        binding = bind(entry.name, entry.func, operands.names, operands.params,
                       tuple(p.source for p in shape.scalars), impl_parameters(sources, impl))
    return KernelChoice(command, family, stub, legacy_kernels, kernel, shape, binding,
                        f"{operands.location}" if operands else "", diverted, backfilled, edits, check_op=check_op,
                        builder=builder, shared_at=impl.location if impl else None)


def _mixed_input_dtypes(text: str, impl: stubs.SharedImpl, inputs: tuple[str, ...]) -> MixedInputs | None:
    """Where the iterator is built with check_all_same_dtype(false) over several inputs (where: a bool
    condition and two T values), for plan/shape.py to decide; None when its inputs share one dtype."""
    from mpsgen.sources.native.same_dtype import inputs_checked_same, unchecked_dtype_line

    line = unchecked_dtype_line(text, impl.line, impl.end_line)
    # complex_out checks real and imag share one dtype: only its complex output differs
    if line is None or inputs_checked_same(impl.path, text, impl.line, impl.end_line, inputs):
        return None
    return MixedInputs(impl.kernel, inputs, impl.path, line)


def _kernel_registered(checkout: Checkout, cs: Changeset, name: str) -> bool:
    from mpsgen.sources.metal.index import index_metal, registered_kernel_names

    texts = mentioning(planned_texts(cs, folder_files(cs, "metal_files"), checkout), name)
    return name in registered_kernel_names(index_metal(t, p) for p, t in texts.items())
