"""The TensorIterator a PyTorch 2.7 host kernel re-builds when BinaryKernel.mm's binary_mps_impl cannot take
the stub's own (a CPU scalar, a second input dtype, an output of another dtype: generate/host_code
binary_mps_impl_body).  It is built the way the op's shared kernel builds its own (sources/native/
iterator_builder): TensorIterator::binary_op enforces safe casting to its output, so a bool result of float
inputs (`x >= 0.5`) needs comparison_op, which does not; a float op's is binary_float_op.  The numeric check
runs the functor, never this path: the note says so."""

from __future__ import annotations

from mpsgen.errors import MpsgenError
from mpsgen.model import Location
from mpsgen.records import NamedTuple
from mpsgen.sources.native.iterator_builder import IteratorBuilder

TENSOR_ITERATOR_REL = "aten/src/ATen/TensorIterator.h"
# the builder kind read from the shared kernel -> the TensorIterator factory of two inputs building the same
_FACTORY = {"comparison": "comparison_op", "binary_float": "binary_float_op", "binary": "binary_op"}


class HostIterator(NamedTuple):
    factory: str  # TensorIterator::<factory>(out, a, b)
    source: str  # "ge's meta function builds it with build_borrowing_comparison_op at path:line", or why not read


def host_iterator(builder: IteratorBuilder | None, result: str, declared: frozenset[str] | None,
                  shared_at: Location | None) -> HostIterator:
    """The factory for a kernel whose functor returns *result* ("same", "float", "bool"), *builder* being
    how its shared kernel (at *shared_at*) builds the iterator, *declared* the factories the checkout's
    TensorIterator.h declares (None: header not in the tree)."""
    factory = _FACTORY.get(builder.kind) if builder is not None else None
    if builder is not None and factory is not None:
        source = f"{builder.within} builds it with {builder.call} at {builder.location}"
    elif result == "bool":  # binary_op refuses a bool output of any other common dtype
        how = (f"with {builder.call} ({builder.location})" if builder is not None
               else "in a way mpsgen cannot read")
        at = shared_at or Location(TENSOR_ITERATOR_REL, 1)
        raise MpsgenError("the kernel returns bool: its host kernel rebuilds the iterator for a CPU scalar or a "
                          f"second dtype as the shared kernel does, which builds it {how}", path=at.file,
                          line=at.line, hint="write the host kernel by hand")
    else:  # the inputs cast to one dtype, the output of the kernel's result type: binary_op's casting check holds
        factory = "binary_op"
        source = (f"{builder.within} builds it with {builder.call} at {builder.location}, which has no two-input "
                  "factory; the inputs cast to one dtype" if builder is not None
                  else "the shared kernel's builder was not read; the inputs cast to one dtype")
    if declared is not None and factory not in declared:
        raise MpsgenError(f"this checkout's TensorIterator declares no static {factory}, which the host kernel "
                          f"needs ({source})", path=TENSOR_ITERATOR_REL, line=1,
                          hint="write the host kernel by hand")
    return HostIterator(factory, source)


def untested_path_note(kernel: str, host_fn: str, mm_rel: str, built: str) -> str:
    """What no check exercised: the numeric check compiles and runs the functor on the host; the host
    kernel's own path for CPU scalars, mixed dtypes and an output of another dtype, building the
    iterator *built* describes, is compiled and run only by a Mac build and its tests."""
    return (f"{mm_rel}: {host_fn}'s path for a CPU scalar, a second input dtype or an output of another dtype "
            f"({built}) is not exercised by the numeric check, which runs {kernel}_functor only; a Mac build "
            "and test_mps.py compile and run it")


def iterator_text(iterator: HostIterator) -> str:
    """The rebuilt iterator as the note names it."""
    return f"TensorIterator::{iterator.factory}: {iterator.source}"
