"""The host side in operations/*.mm: host kernels, REGISTER_DISPATCH lines, legacy MPSGraph impls, includes.

Readers take {display path: text} (or one text) and return located facts; editors are pure
text -> text, idempotent, and change only the lines they must.  Rendering of the snippets they
insert is done elsewhere (render.py); here we decide where they go and in which style.
Registrations, kernel calls and the editors that add them live in host_register.py.
"""

from __future__ import annotations

import os
import re
from typing import Collection, Iterable

import functools

from mpsgen.errors import MpsgenError
from mpsgen.model import Backend, ImplForm, Location
from mpsgen.records import NamedTuple
from mpsgen.scan.definitions import FunctionSpan
from mpsgen.scan.lines import line_start as _line_start
from mpsgen.scan.mask import mask_code
from mpsgen.scan.words import whole_word
from mpsgen.sources.index import MacroCall, SourceIndex, index_of, require_scannable
from mpsgen.sources.host.text import INCLUDE as _INCLUDE
from mpsgen.sources.host.text import is_blank as _blank
from mpsgen.sources.host.text import lines_of as _lines
from mpsgen.sources.host.register import (  # noqa: F401  (re-exported: callers use host.NAME)
    Registration, registrations, registered_stubs, registers_for_mps, KernelCall, host_kernel_calls,
    uses_unary_ti_macro, add_unary_ti_dispatch, register_dispatch_style, format_register_line, add_host_kernel,
    ensure_include, defines_static_void,
)


# --------------------------------------------------------------------------------------------
# Legacy implementations
# --------------------------------------------------------------------------------------------

LEGACY_MACROS = (
    "CREATE_MPS_STRUCTURED_UNARY_TORCH_IMPL_FUNC",
    "CREATE_MPS_UNARY_TORCH_IMPL_FUNC",
    "CREATE_MPS_STRUCTURED_UNARY_ROUNDING_TORCH_IMPL_FUNC",
    "CREATE_MPS_FALLBACK_UNARY_TORCH_IMPL_FUNC",
    "CREATE_MPS_STRUCTURED_BINARY_OP_FUNC",
    "CREATE_MPS_STRUCTURED_BOOLEAN_OP_FUNC",
    "CREATE_MPS_BINARY_COMPARISON_OP_FUNC",
    "REGISTER_MPS_UNARY_STUB",
)

# Macros whose invocation generates a yaml kernel (REGISTER_MPS_UNARY_STUB registers a stub instead).
_KERNEL_MACROS = tuple(m for m in LEGACY_MACROS if m != "REGISTER_MPS_UNARY_STUB")
_KERNEL_MACRO_PREFIX = os.path.commonprefix(_KERNEL_MACROS)  # "CREATE_MPS_": a text without it calls none

_METAL_MARKERS = re.compile(
    r"\blib\s*\.\s*exec_|\bbinary_op_kernel\s*\(|\bexec_(?:unary|binary|ternary)_kernel|\bgetPipelineStateForFunc\b|"
    r"\bmtl_setArgs\b|\bmtl_dispatch1DJob\b|\bMetalShaderLibrary\b"
)
_GRAPH_MARKERS = re.compile(
    r"\bmpsGraph\b|\bMPSGraph\w*|\bLookUpOrCreateCachedGraph\b|\bunary_op\s*\(|\bbinaryOp(?:Tensor|Scalar)\b|"
    r"\bCREATE_MPS_\w+|\brunMPSGraph\b|\bMPSGraphTensor\b"
)


class Impl(NamedTuple):
    """A legacy MPS implementation of a yaml kernel name in an operations/*.mm file."""

    path: str
    name: str
    line: int
    end_line: int
    form: ImplForm
    macro: str | None  # the macro's name for form "macro"
    backend: Backend
    col: int = 1  # 1-based column where the definition starts on its first line

    @property
    def location(self) -> Location:
        """Where it was found (model.Location renders `path:line`)."""
        return Location(self.path, self.line)


# A word each alternative of the markers above spells: a body without any cannot match (str.find
# runs at C speed; the regexes are tried at every offset of the body, ~30 ns a character).
_METAL_WORDS = ("exec_", "binary_op_kernel", "getPipelineStateForFunc", "mtl_setArgs", "mtl_dispatch1DJob",
                "MetalShaderLibrary")
_GRAPH_WORDS = ("mpsGraph", "MPSGraph", "LookUpOrCreateCachedGraph", "unary_op", "binaryOp", "CREATE_MPS_")
# The word each alternative opens with (after its \b): no match starts before the first of them.
_METAL_OPENERS = ("lib", "binary_op_kernel", "exec_", "getPipelineStateForFunc", "mtl_setArgs",
                  "mtl_dispatch1DJob", "MetalShaderLibrary")
_GRAPH_OPENERS = ("mpsGraph", "MPSGraph", "LookUpOrCreateCachedGraph", "unary_op", "binaryOp", "CREATE_MPS_",
                  "runMPSGraph")


def _first_of(body: str, words: tuple[str, ...]) -> int:
    """Offset of the first occurrence of any of *words* in *body*, -1 when none occurs; each find
    stops where an earlier word was found."""
    first = -1
    for w in words:
        k = body.find(w, 0, len(body) if first < 0 else first + len(w) - 1)
        if k >= 0:
            first = k
    return first


def _matches(markers: re.Pattern[str], words: tuple[str, ...], openers: tuple[str, ...], body: str) -> bool:
    """`markers.search(body) is not None`, the regex run only when *body* spells one of *words* and
    only from the first of *openers* on."""
    if not any(w in body for w in words):
        return False
    start = _first_of(body, openers)
    return start >= 0 and markers.search(body, start) is not None


def _classify(body_masked: str) -> Backend:
    if _matches(_METAL_MARKERS, _METAL_WORDS, _METAL_OPENERS, body_masked):
        return "metal"  # never delete Metal code, even when mixed with an MPSGraph fallback
    if _matches(_GRAPH_MARKERS, _GRAPH_WORDS, _GRAPH_OPENERS, body_masked):
        return "mpsgraph"
    return "unknown"


def _decl_start(masked: str, pos: int) -> int:
    """Offset of the line where the declaration containing *pos* begins (return type may be on the line above)."""
    start = _line_start(masked, pos)
    if not masked[start:pos].strip() and start > 0:
        prev = _line_start(masked, start - 1)
        prev_text = masked[prev : start - 1].strip()
        if prev_text and _RETURN_TYPE.fullmatch(prev_text) and not prev_text.endswith(";"):
            return prev
    return start


_RETURN_TYPE = re.compile(r"[\w:<>,&* ]+")
# `\b(\w+)\s*\(` (a call) read backwards: it opens with a literal '(', which the regex engine
# skips to in C instead of trying the pattern at every offset.
_CALL_BACKWARDS = re.compile(r"\(\s*(\w+)")


def _callees(body: str, reversed_names: dict[str, str]) -> set[str]:
    r"""The functions *body* calls among those of *reversed_names* ({name reversed: name}): every
    `name (` of the body, as `\b(\w+)\s*\(` finds them, read in the reversed body."""
    return {reversed_names[w] for w in _CALL_BACKWARDS.findall(body[::-1]) if w in reversed_names}


def _backends(masked: str, spans: list[FunctionSpan], graph_kernels: frozenset[str] = frozenset()) -> list[Backend]:
    """The backend of each function: its body's (_classify), or for "unknown" that of the functions
    of this file it calls (_local_helpers), *graph_kernels* (those its CREATE_MPS_* lines make) among
    them.  Only those functions' names matter, so only they are looked for among the calls."""
    bodies = [masked[s.body_open : s.body_close + 1] for s in spans]
    kinds = [_classify(body) for body in bodies]
    if "unknown" not in kinds:
        return kinds
    # TORCH_IMPL_FUNC(renorm_out_mps) calling its file's overload renorm_out_mps(...), which runs Metal
    known: dict[str, Backend] = {s.name: kind for s, kind in zip(spans, kinds) if kind == "mpsgraph"}
    known.update({s.name: kind for s, kind in zip(spans, kinds) if kind == "metal"})  # Metal wins
    kinds = [known[s.name] if kind == "unknown" and s.name in known and _callees(body, {s.name[::-1]: s.name})
             else kind for s, body, kind in zip(spans, bodies, kinds)]
    reversed_names = {s.name[::-1]: s.name for s in spans}
    reversed_names.update({name[::-1]: name for name in graph_kernels})
    callees = [_callees(body, reversed_names) - {s.name} if kind == "unknown" else set()
               for s, body, kind in zip(spans, bodies, kinds)]
    metal, graph = _local_helpers(spans, kinds, callees)
    graph |= _closure(set(graph_kernels), {s.name: c for s, c, k in zip(spans, callees, kinds)
                                           if k == "unknown" and s.name not in metal})
    for k, called in enumerate(callees):
        if kinds[k] == "unknown" and called & metal:
            kinds[k] = "metal"
        elif kinds[k] == "unknown" and called & graph:
            kinds[k] = "mpsgraph"
    return kinds


def _local_helpers(
    spans: list[FunctionSpan], kinds: list[Backend], callees: list[set[str]]
) -> tuple[set[str], set[str]]:
    """Functions defined in this file that run Metal, and those that run MPSGraph and no Metal, directly
    or through other such functions: 2.7's fmax_mps_kernel through its file's binary_mps_impl, and
    smooth_l1_loss_template through smooth_l1_loss_impl.  Metal wins, as in _classify.  A name
    defined twice counts by its last definition."""
    last = {s.name: k for k, s in enumerate(spans)}
    kind = {name: kinds[k] for name, k in last.items()}
    called = {name: callees[k] for name, k in last.items() if kinds[k] == "unknown"}
    metal = _closure({n for n, k in kind.items() if k == "metal"}, called)
    graph = _closure({n for n, k in kind.items() if k == "mpsgraph"}, {n: c for n, c in called.items() if n not in metal})
    return metal, graph


def _closure(kind: set[str], called: dict[str, set[str]]) -> set[str]:
    """*kind* and every function of *called* that calls one of them, until nothing changes."""
    kind = set(kind)
    pending = set(called) - kind
    while found := {name for name in pending if called[name] & kind}:
        kind |= found
        pending -= found
    return kind


class Definition(NamedTuple):
    """A function (or macro-generated kernel) defined in a source file, with its backend."""

    impl: Impl
    static: bool
    namespace: str  # "at::native", "at::native::mps", ...

    @property
    def name(self) -> str:
        return self.impl.name


_IDENT = re.compile(r"[A-Za-z_]\w*")
_STATIC = whole_word("static")  # `\bstatic\b`, opening with its literal


def _macro_made(ix: SourceIndex) -> list[MacroCall]:
    """The CREATE_MPS_* calls that make a kernel, in file order.  One search of the text for the macros'
    common prefix rather than one a macro (most files call none)."""
    calls = ix.calls_of(*_KERNEL_MACROS) if _KERNEL_MACRO_PREFIX in ix.text else ()
    return [call for call in calls if call.args and _IDENT.fullmatch(call.args[0])]


def defined_names(path: str, text: str) -> frozenset[str]:
    """The names definitions() lists, without classifying or placing each (a caller asking only which
    names a file defines: MPS020 of every MPS source and header)."""
    ix = index_of(path, text)
    return frozenset([f.name for f in ix.functions] + [call.args[0] for call in _macro_made(ix)])


@functools.lru_cache(maxsize=512)
def definitions(path: str, text: str) -> tuple[Definition, ...]:
    """Every function, TORCH_IMPL_FUNC block and CREATE_MPS_* generated kernel of one text, in
    file order, classified once (MPSGraph, Metal or unknown).  REGISTER_MPS_UNARY_STUB registers
    a stub and is not listed here (see find_implementations)."""
    ix = index_of(path, text)
    masked = ix.masked
    spans = ix.functions
    found: list[tuple[int, Impl, bool]] = []
    made = _macro_made(ix)
    graph_kernels = frozenset(call.args[0] for call in made)
    for span, kind in zip(spans, _backends(masked, spans, graph_kernels)):
        is_impl = span.macro is not None
        start = span.start if is_impl else _decl_start(masked, span.start)
        static = not is_impl and _STATIC.search(masked, start, span.start) is not None
        impl = Impl(path, span.name, ix.line(start), ix.line(span.body_close),
                    "TORCH_IMPL_FUNC" if is_impl else "function", None, kind, ix.col(start))
        found.append((span.start, impl, static))
    for call in made:
        impl = Impl(path, call.args[0], call.line, call.end_line, "macro", call.name, "mpsgraph", ix.col(call.start))
        found.append((call.start, impl, False))
    found.sort(key=lambda f: f[0])
    spaces = ix.namespaces(pos for pos, _, _ in found)
    return tuple(Definition(impl, static, spaces[pos]) for pos, impl, static in found)


def registration_backend(reg: Registration, fn_definitions: Iterable[Definition]) -> str:
    """What the MPS kernel *reg* registers runs: "mpsgraph" for REGISTER_MPS_UNARY_STUB or a function
    whose body runs MPSGraph (`isneginf_kernel_mps` calling an MPSGraph helper), "metal" for
    REGISTER_UNARY_TI_DISPATCH or a Metal body, else "unknown".  *fn_definitions*: the definitions of
    reg.fn the caller knows of; one in the registering file is preferred."""
    if reg.macro == "REGISTER_MPS_UNARY_STUB":
        return "mpsgraph"
    if reg.macro == "REGISTER_UNARY_TI_DISPATCH":
        return "metal"
    known = list(fn_definitions)
    defs = [d for d in known if d.impl.path == reg.path] or known
    return defs[0].impl.backend if defs else "unknown"


def registration_backend_in(reg: Registration, text: str) -> str:
    """registration_backend with the function looked up in *text*, the registering file's."""
    if not reg.fn or reg.macro in ("REGISTER_MPS_UNARY_STUB", "REGISTER_UNARY_TI_DISPATCH"):
        return registration_backend(reg, ())
    return registration_backend(reg, (d for d in definitions(reg.path, text) if d.name == reg.fn))


def find_implementations(mm_texts: dict[str, str], name: str) -> list[Impl]:
    """Every definition of the yaml kernel *name* in *mm_texts*: explicit TORCH_IMPL_FUNC blocks,
    plain functions and one-line legacy macros (whose first argument is *name*; for
    REGISTER_MPS_UNARY_STUB, *name* may also be the stub, e.g. `trunc_stub`)."""
    found: list[Impl] = []
    for path, text in mm_texts.items():
        if name.removesuffix("_stub") not in text:
            continue  # cheap: a file that never spells the name defines nothing by it
        found += [d.impl for d in definitions(path, text) if d.name == name]
        for call in index_of(path, text).calls_of("REGISTER_MPS_UNARY_STUB"):
            first = call.args[0] if call.args else ""
            if first == name or f"{first}_stub" == name:
                found.append(Impl(path, name, call.line, call.end_line, "macro", call.name, "mpsgraph",
                                  index_of(path, text).col(call.start)))
    found.sort(key=lambda i: (i.path, i.line))
    return found


def _tidy_after_removal(lines: list[str], at: int) -> list[str]:
    """Drop the blank line made redundant where lines were removed (before index *at*)."""
    prev = lines[at - 1] if at > 0 else None
    nxt = lines[at] if at < len(lines) else None
    if prev is not None and _blank(prev) and (nxt is None or _blank(nxt)):
        return lines[:at] + lines[at + 1 :] if nxt is not None else lines[: at - 1]
    if prev is not None and _blank(prev) and nxt is not None and nxt.lstrip().startswith("}"):
        return lines[: at - 1] + lines[at:]
    if nxt is not None and _blank(nxt) and (prev is None or prev.rstrip().endswith("{")):
        return lines[:at] + lines[at + 1 :]
    return lines


def remove_implementation(text: str, impl: Impl, *, allow_unknown: bool = False, allow_metal: bool = False) -> str:
    """*text* without *impl* (re-located by name, so applying it twice changes nothing).

    Refuses to delete Metal code unless *allow_metal* (the caller replaces it: a legacy kernel whose
    entries moved), and code whose backend is unknown unless *allow_unknown*.
    """
    require_scannable(impl.path, text)
    current = [
        i for i in find_implementations({impl.path: text}, impl.name) if i.form == impl.form and i.macro == impl.macro
    ]
    if not current:
        return text
    target = min(current, key=lambda i: abs(i.line - impl.line))
    if target.backend == "metal" and not allow_metal:
        raise MpsgenError(
            f"{target.name} already runs Metal (lib.exec_* / binary_op_kernel); refusing to delete it",
            path=target.path,
            line=target.line,
            hint="rewire the yaml to the shared kernel and remove this function by hand if it is now unused",
        )
    # (a wrapper whose same-named helper was removed just before reads as unknown now: *impl* was
    # classified on the text with the helper)
    known = impl.backend == "mpsgraph" or impl.backend == "metal" and allow_metal
    if target.backend == "unknown" and not known and not allow_unknown:
        raise MpsgenError(
            f"cannot tell whether {target.name} runs MPSGraph or Metal",
            path=target.path,
            line=target.line,
            hint="check its body; remove it by hand if it is MPSGraph code",
        )
    lines = _lines(text)
    first, last = target.line - 1, target.end_line - 1
    masked_lines = _lines(mask_code(text))
    if masked_lines[first][: target.col - 1].strip():
        raise MpsgenError(
            f"{target.name} shares its first line with other code",
            path=target.path,
            line=target.line,
            hint="put the definition on its own lines and run again",
        )
    tail = masked_lines[last]
    close_end = _end_of_statement(text, target)
    if tail[close_end:].strip():
        raise MpsgenError(
            f"{target.name} shares its last line with other code",
            path=target.path,
            line=target.end_line,
            hint="put the definition on its own lines and run again",
        )
    kept = lines[:first] + lines[last + 1 :]
    return "".join(_tidy_after_removal(kept, first))


def _end_of_statement(text: str, impl: Impl) -> int:
    """Column just after the impl's closing `}` / `)` (and a following `;`) on its last line."""
    masked_lines = _lines(mask_code(text))
    tail = masked_lines[impl.end_line - 1]
    closer = "}" if impl.form != "macro" else ")"
    col = tail.rfind(closer) + 1
    rest = tail[col:]
    if rest.lstrip().startswith(";"):
        col += len(rest) - len(rest.lstrip()) + 1
    return col


def remove_op_include(text: str, op: str, *, declared: Collection[str] = (), longer_ops: Collection[str] = ()) -> str:
    """Drop `#include <ATen/ops/<op>_native.h>` when no code left in the file names what it declares.

    It declares the kernels the yaml dispatches *op*'s entries to (*declared*, and `structured_<kernel>`);
    beyond those, conservatively, any function (called, defined, TORCH_IMPL_FUNC'd) named `<op>` or `<op>_*`
    but a longer op's of *longer_ops* (softplus_backward_out_mps is softplus_backward_native.h's). A
    variable named after the op (softplus's `threshold`, `threshold_scalar`) is no kernel.
    """
    header = f"ATen/ops/{op.removesuffix('_native')}_native.h"
    stem = op.removesuffix("_native")
    lines = _lines(text)
    hits = [k for k, ln in enumerate(lines) if (m := _INCLUDE.match(ln)) and m.group(1) == header]
    if not hits:
        return text
    code = "".join(ln for k, ln in enumerate(_lines(mask_code(text))) if not _INCLUDE.match(lines[k]))
    names = set(re.findall(r"[A-Za-z_]\w*", code))
    if any(k in names or f"structured_{k}" in names for k in declared):
        return text
    others = [o for o in longer_ops if o.startswith(f"{stem}_")]
    name = rf"(?:structured_)?({re.escape(stem)}(?:_\w+)?)"
    for m in re.finditer(rf"\b{name}\s*\(|\bTORCH_IMPL_FUNC\s*\(\s*{name}\b", code):
        function = m.group(1) or m.group(2)
        if not any(function == o or function.startswith(f"{o}_") for o in others):
            return text
    for k in reversed(hits):
        lines = _tidy_after_removal(lines[:k] + lines[k + 1 :], k)
    return "".join(lines)
