"""Which definitions of a native/*.cpp use a DispatchStub: the reverse of shared_impl's question.

Each use of the stub's name is placed: inside a function or TORCH_IMPL_FUNC body (that definition
uses it), as an argument of a top-level macro call that makes a kernel (`CREATE_UNARY_TORCH_IMPL_FUNC
(acos_out, acos_stub)`: the kernel is the call's first argument, which the caller confirms through
shared_impl), or in DEFINE_DISPATCH / DECLARE_DISPATCH / REGISTER_*DISPATCH (no use).  A use
anywhere else (a #define body, a global initialiser) cannot be placed: the answer is then None,
and a caller asking "is this stub reached" must take it as reached.
"""

from __future__ import annotations

import re

from mpsgen.records import NamedTuple
from mpsgen.scan.brackets import match_close, split_top_level
from mpsgen.scan.definitions import FunctionSpan, function_head
from mpsgen.scan.mask import code_only
from mpsgen.scan.words import whole_word
from mpsgen.sources.index import IMPL_FUNC, SourceIndex, index_of

_IDENT = re.compile(r"[A-Za-z_]\w*")
_NOT_A_USE = re.compile(r"(?:DEFINE|DECLARE)_DISPATCH|REGISTER_\w*DISPATCH|REGISTER_\w*STUB")


class StubUser(NamedTuple):
    """A definition that uses the stub."""

    kernel: str  # the function's (or TORCH_IMPL_FUNC's) name, or a kernel-making macro's first argument
    path: str
    line: int
    by_macro: str = ""  # the macro whose call names the stub (its kernel is to be confirmed), "" for a body


def stub_users(rel: str, text: str, stub: str) -> tuple[StubUser, ...] | None:
    """Each definition of the text that uses *stub* (once per kernel); None when a use cannot be placed."""
    if stub not in text:
        return ()
    ix = index_of(rel, text)
    masked = ix.masked
    found: dict[str, StubUser] = {}
    for m in whole_word(stub).finditer(masked):
        pos = m.start()
        if pos in ix.directives:
            return None  # in a #define: its uses are wherever the macro is called
        owner = _enclosing_definition(ix, pos)
        if owner is not None:
            found.setdefault(owner.name, StubUser(owner.name, rel, ix.line(owner.start)))
            continue
        call = _enclosing_call(masked, pos)
        if call is None:
            return None
        macro, args = call
        if _NOT_A_USE.fullmatch(macro):
            continue
        kernel = args[0].strip() if args else ""
        if not _IDENT.fullmatch(kernel) or kernel == stub:
            return None
        found.setdefault(kernel, StubUser(kernel, rel, ix.line(pos), macro))
    return tuple(found.values())


def _enclosing_definition(ix: SourceIndex, pos: int) -> FunctionSpan | None:
    """The function definition of `ix.functions` whose body holds *pos*, or None.

    Without every definition of the file listed (function_definitions: a head test at each brace
    not inside a body): function bodies are disjoint, and the braces holding *pos* nest, so the one
    holding it is the outermost of those braces that opens a body (the ones outside it are entered)."""
    if "functions" in ix.__dict__:
        return next((s for s in ix.functions if s.body_open < pos < s.body_close), None)
    holding = sorted(o for o, c in ix.brace_pairs.items() if o < pos < c)
    if not holding:
        return None
    code = code_only(ix.masked)
    for brace in holding:
        head = function_head(code, brace, (IMPL_FUNC,))
        if head is not None:
            name, start, macro = head
            return FunctionSpan(name, start, brace, ix.brace_pairs[brace], macro=macro)
    return None


def _enclosing_call(masked: str, pos: int) -> tuple[str, list[str]] | None:
    """(macro, arguments) of the UPPER_CASE call whose parentheses hold *pos* at the top level of
    the file, or None (a statement boundary first, or no such call)."""
    depth, k = 0, pos
    while k > 0:
        k -= 1
        ch = masked[k]
        if ch == ")":
            depth += 1
        elif ch == "(":
            if depth == 0:
                break
            depth -= 1
        elif ch in ";{}" and depth == 0:
            return None
    else:
        return None
    m = re.search(r"([A-Z_][A-Z0-9_]*)\s*$", masked[max(0, k - 80) : k])
    close = match_close(masked, k)
    if m is None or close is None:
        return None
    return m.group(1), split_top_level(masked[k + 1 : close])
