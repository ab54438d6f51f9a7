"""The tensors a shared kernel's TensorIterator holds: what the kernel behind its stub receives.

A stub's kernel sees the iterator's inputs, not the op's schema: threshold(Tensor self, ...) builds
its iterator from (self, self), glu(Tensor self, int dim) from two halves of self.  The inputs are
read from the structured meta function (`TORCH_META_FUNC(threshold)`, `TORCH_META_FUNC2(pow,
Tensor_Tensor)`) or, for a plain function, from its own body: a `build_*_op(out, a, b)` /
`TensorIterator::*_op(out, a, b)` call, or a `TensorIteratorConfig()` chain's `add_*input(x)` calls.
"""

from __future__ import annotations

import re

from mpsgen.scan.brackets import match_close, split_top_level
from mpsgen.sources.index import SourceIndex, index_of
from mpsgen.sources.native.shared_impl import SharedImpl
from mpsgen.model import Location
from mpsgen.records import NamedTuple

_BUILD = re.compile(r"\b(?:build_|TensorIterator::)\w*?(?:unary|binary|ternary|comparison)\w*?_op\s*\(")
_ADD_INPUT = re.compile(r"\.\s*add_(?:owned_)?(?:const_)?input\s*\(")
_CONFIG = re.compile(r"\bTensorIteratorConfig\s*\(\s*\)")


class Operands(NamedTuple):
    """The iterator's input expressions (leading identifiers: "self", "grad_output"), where read, and
    the parameters of the function that built it (their order is the schema's)."""

    names: tuple[str, ...]
    path: str
    line: int
    params: tuple[str, ...] = ()

    @property
    def location(self) -> Location:
        """Where it was found (model.Location renders `path:line`)."""
        return Location(self.path, self.line)


def parameter_names(masked: str, body_open: int) -> tuple[str, ...]:
    """Names of the parameters in the last (...) before a function body at *body_open* (masked text)."""
    close = masked.rfind(")", 0, body_open)
    depth, k = 0, close
    while k >= 0:
        depth += {")": 1, "(": -1}.get(masked[k], 0)
        if depth == 0:
            break
        k -= 1
    if k < 0:
        return ()
    names = []
    for param in split_top_level(masked[k + 1 : close]):
        words = re.findall(r"[A-Za-z_]\w*", param.split("=", 1)[0])
        if words:
            names.append(words[-1])
    return tuple(names)


def impl_parameters(sources: dict[str, str], impl: SharedImpl) -> tuple[str, ...]:
    """The shared kernel's own parameter names (TORCH_IMPL_FUNC or plain function), () if not found."""
    ix = index_of(impl.path, sources[impl.path])
    f = ix.impl_func(impl.kernel) if impl.form == "TORCH_IMPL_FUNC" else (
        ix.plain_function(impl.kernel) if impl.form == "function" else None)
    return parameter_names(ix.masked, f.body_open) if f is not None else ()


def _leading_name(arg: str) -> str:
    m = re.match(r"\s*(?:\*\s*)?([A-Za-z_]\w*)", arg)
    return m.group(1) if m else arg.strip()


def operands_in(masked: str) -> tuple[str, ...] | None:
    """Inputs of the one iterator a (masked) body builds; None when it builds none or several."""
    found: list[tuple[str, ...]] = []
    for m in _BUILD.finditer(masked):
        close = match_close(masked, m.end() - 1)
        if close is None:
            return None
        args = split_top_level(masked[m.end() : close])
        found.append(tuple(_leading_name(a) for a in args[1:]))  # the first is the output
    for m in _CONFIG.finditer(masked):
        end = masked.find(";", m.end())
        chain = masked[m.end() : end if end >= 0 else len(masked)]
        names = []
        for a in _ADD_INPUT.finditer(chain):
            close = match_close(chain, a.end() - 1)
            if close is None:
                return None
            names.append(_leading_name(chain[a.end() : close]))
        if names:
            found.append(tuple(names))
    return found[0] if len(set(found)) == 1 and found[0] else None


def _meta_names(entry_name: str, base: str | None = None) -> list[str]:
    """TORCH_META_FUNC / TORCH_META_FUNC2 spellings for a yaml entry (threshold_backward.grad_input,
    pow.Tensor_Tensor_out), with *base* for its op's name when given (a macro's parameter)."""
    name, _, overload = entry_name.partition(".")
    base = base or name
    ov = re.sub(r"_?(?:out|grad_input)$", "", overload)
    pattern = [rf"\bTORCH_META_FUNC2\s*\(\s*{re.escape(base)}\s*,\s*{re.escape(ov)}\s*\)"] if ov else []
    return pattern + [rf"\bTORCH_META_FUNC\s*\(\s*{re.escape(base)}\s*\)"]


def _in_macro(masked: str, k: int, entry_name: str) -> re.Match[str] | None:
    """The meta function a one-parameter macro defines for *entry_name*'s op, when the file expands it
    for that op (BinaryOps.cpp's CREATE_COMPARISON_SCALAR_TENSOR_META_FUNC(ge) defines ge's two)."""
    base = entry_name.partition(".")[0]
    for d in re.finditer(r"#\s*define\s+(\w+)\(\s*(\w+)\s*\)", masked):
        macro, param = d.group(1), d.group(2)
        if not re.search(rf"^\s*{re.escape(macro)}\(\s*{re.escape(base)}\s*\)", masked, re.M):
            continue
        m = re.compile(_meta_names(entry_name, param)[k]).search(masked, d.end())
        if m and "\n" not in masked[d.end() : m.start()].replace("\\\n", ""):
            return m  # inside the #define (every line up to it continued with a backslash)
    return None


class MetaFunction(NamedTuple):
    """A structured kernel's meta function: where it is, its body (masked) and its parameters' names."""

    path: str
    line: int
    body: str
    params: tuple[str, ...]


def is_structured(impl: SharedImpl) -> bool:
    """A TORCH_IMPL_FUNC, written out or made by a macro (CREATE_COMPARISON_SCALAR_TENSOR_IMPL_FUNC(ge)):
    *this is the iterator its meta function built."""
    return impl.form in ("TORCH_IMPL_FUNC", "macro")


def meta_function(sources: dict[str, str], impl: SharedImpl, entry_name: str) -> MetaFunction | None:
    """The meta function of yaml entry *entry_name* (usually in *impl*'s own file): TORCH_META_FUNC(2),
    or the one a one-parameter macro defines for its op; None when not found or not balanced."""
    ordered = [impl.path] + [p for p in sources if p != impl.path]
    for path in ordered:
        text = sources[path]
        if "TORCH_META_FUNC" not in text:
            continue
        mix = index_of(path, text)
        for k, pattern in enumerate(_meta_names(entry_name)):
            m = re.search(pattern, mix.masked) or _in_macro(mix.masked, k, entry_name)
            if not m:
                continue
            brace = mix.masked.find("{", m.end())
            close = match_close(mix.masked, brace) if brace >= 0 else None
            if close is None:
                return None
            return MetaFunction(path, mix.line(m.start()), mix.masked[brace : close + 1],
                                parameter_names(mix.masked, brace))
    return None


def iterator_operands(sources: dict[str, str], impl: SharedImpl, entry_name: str) -> Operands | None:
    """The iterator inputs of *impl* (the shared kernel of yaml entry *entry_name*), or None when
    mpsgen cannot read them (the caller then counts the schema's tensors)."""
    ix = index_of(impl.path, sources[impl.path])
    if impl.form == "TORCH_IMPL_FUNC":
        # Structured: *this is the iterator the meta function built (usually in the same file).
        meta = meta_function(sources, impl, entry_name)
        names = operands_in(meta.body) if meta is not None else None
        return Operands(names, meta.path, meta.line, meta.params) if meta and names else _own_iterator(ix, impl)
    if impl.form != "function":
        return None
    f = ix.plain_function(impl.kernel)
    if f is None:
        return None
    names = operands_in(ix.masked_slice(f.body_open, f.body_close + 1))
    return Operands(names, impl.path, impl.line, parameter_names(ix.masked, f.body_open)) if names else None


def _own_iterator(ix: SourceIndex, impl: SharedImpl) -> Operands | None:
    """A structured kernel whose meta function builds no iterator, building its own in its body
    (renorm_out: TensorIteratorConfig().add_output(factor).add_input(norm), norms it computed)."""
    f = ix.impl_func(impl.kernel) if impl.form == "TORCH_IMPL_FUNC" else None
    if f is None:
        return None
    names = operands_in(ix.masked_slice(f.body_open, f.body_close + 1))
    return Operands(names, impl.path, impl.line, parameter_names(ix.masked, f.body_open)) if names else None


_ADD_OUTPUT = re.compile(r"\.\s*add_output\s*\(\s*(\w*)")


def add_output_calls(text: str, line: int, end_line: int) -> list[tuple[int, str]]:
    """The `.add_output(` calls on lines *line*..*end_line* of *text* (a shared kernel's
    TensorIteratorConfig), outside comments and strings: (1-based line, the name it passes or "" for an
    expression), in order."""
    from mpsgen.scan.lines import LineTable
    from mpsgen.scan.mask import mask_code

    table = LineTable(text)
    ends = [*table.starts, len(text)]
    start = ends[line - 1]
    return [(table.line(start + k), name) for k, name in add_outputs_in(mask_code(text)[start: ends[min(end_line, len(ends) - 1)]])]


def add_outputs_in(masked: str) -> list[tuple[int, str]]:
    """(offset, the name it passes or "" for an expression) of each `.add_output(` call of a masked text."""
    return [(m.start(), m.group(1)) for m in _ADD_OUTPUT.finditer(masked)]
