"""How a shared kernel's TensorIterator is built: the `build_*_op` / `TensorIterator::*_op` call of its
structured meta function, of its own body, or of the helper it passes its stub to (logical_xor_out ->
comparison_op_out).  A host kernel that re-builds the iterator (2.7's binary_mps_impl cannot read a CPU
scalar or a second dtype) builds it the same way: TensorIterator::binary_op enforces safe casting to
its output, so a bool output of float inputs (`x >= 0.5`) needs comparison_op, which does not."""

from __future__ import annotations

import re

from mpsgen.model import Location
from mpsgen.records import NamedTuple
from mpsgen.sources.index import index_of
from mpsgen.sources.native.iterator_operands import is_structured, meta_function
from mpsgen.sources.native.shared_impl import SharedImpl, StubCall

# build_borrowing_except_last_argument_comparison_op, TensorIterator::binary_float_op, build_binary_op, ...
_BUILDER = re.compile(r"\b(?:build_|TensorIterator::)((?:borrowing_|except_last_argument_|"
                      r"output_borrowing_argument_owning_)*)(\w+?)_op\s*\(")
_CONFIG = re.compile(r"\bTensorIteratorConfig\s*\(\s*\)")
# TensorIterator.h: `static TensorIterator comparison_op(` (the declaration may break after the name's "(")
_FACTORY = re.compile(r"\bstatic\s+TensorIterator\s+(\w+)\s*\(")


class IteratorBuilder(NamedTuple):
    """The kind of iterator ("comparison", "binary_float", "binary", "unary_float", ...), the call
    that builds it as spelled there, the function it was read in, and where."""

    kind: str
    call: str
    within: str  # "ge's meta function", "atan2_out", "comparison_op_out" (the helper the stub is passed to)
    path: str
    line: int

    @property
    def location(self) -> Location:
        return Location(self.path, self.line)


def builder_kinds(masked_body: str) -> list[tuple[str, str, int]]:
    """(kind, call, offset) of every iterator a (masked) body builds; a TensorIteratorConfig chain is
    kind "config" (its flags are its own)."""
    found = [(m.group(2), m.group(0).rstrip("( \t\n"), m.start()) for m in _BUILDER.finditer(masked_body)]
    found += [("config", "TensorIteratorConfig()", m.start()) for m in _CONFIG.finditer(masked_body)]
    return sorted(found, key=lambda k: k[2])


def _one(within: str, path: str, first_line: int, body: str) -> IteratorBuilder | None:
    """The builder of a body building iterators of one kind only (ge's meta functions: comparison twice)."""
    found = builder_kinds(body)
    if not found or len({kind for kind, _, _ in found}) != 1:
        return None
    kind, call, at = found[0]
    return IteratorBuilder(kind, call, within, path, first_line + body.count("\n", 0, at))


def iterator_builder(sources: dict[str, str], impl: SharedImpl, entry_name: str,
                     call: StubCall | None) -> IteratorBuilder | None:
    """How *impl* (the shared kernel of yaml entry *entry_name*, calling its stub by *call*) builds the
    iterator its stub receives, or None when mpsgen cannot read it (none, or several of different kinds)."""
    if is_structured(impl):
        op, _, overload = entry_name.partition(".")
        # mul.out's meta function is TORCH_META_FUNC2(mul, Tensor), xlogy.OutTensor's TORCH_META_FUNC2(xlogy, Tensor)
        names = [entry_name, f"{op}.Tensor" if overload in ("", "out") else f"{op}.{overload.removeprefix('Out')}"]
        for meta in (meta_function(sources, impl, name) for name in names):
            found = _one(f"{op}'s meta function", meta.path, meta.line, meta.body) if meta is not None else None
            if found is not None:
                return found
    ix = index_of(impl.path, sources[impl.path])
    own = ix.impl_func(impl.kernel) if impl.form == "TORCH_IMPL_FUNC" else (
        ix.plain_function(impl.kernel) if impl.form == "function" else None)
    if own is not None:
        found = _one(impl.kernel, impl.path, ix.line(own.body_open), ix.masked_slice(own.body_open, own.body_close + 1))
        if found is not None:
            return found
    if call is None or call.via is None:
        return None
    # the helper the stub is passed to: of its overloads, the one that builds an iterator
    for path in [impl.path] + [p for p in sources if p != impl.path]:
        if call.via not in sources[path]:
            continue
        hix = index_of(path, sources[path])
        for f in hix.functions_by_name.get(call.via, ()):
            found = _one(call.via, path, hix.line(f.body_open), hix.masked_slice(f.body_open, f.body_close + 1))
            if found is not None:
                return found
    return None


def static_factories(header_text: str) -> frozenset[str]:
    """The `static TensorIterator name(...)` factories TensorIterator.h declares (binary_op, comparison_op,
    binary_float_op, ...)."""
    return frozenset(_FACTORY.findall(header_text))
