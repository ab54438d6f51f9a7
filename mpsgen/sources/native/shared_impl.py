"""Which DispatchStub a shared CPU/CUDA kernel calls: its TORCH_IMPL_FUNC, helper-macro or plain-function
definition in native/*.cpp, found through each source's cached index, and the stub calls in its body."""

from __future__ import annotations

import functools
import re
from bisect import bisect_left
from itertools import accumulate
from typing import Callable, Collection

from mpsgen.model import ImplForm, Location
from mpsgen.records import NamedTuple
from mpsgen.scan.brackets import match_close, paren_pairs, split_top_level
from mpsgen.scan.definitions import FunctionSpan, word_start
from mpsgen.scan.words import IDENTIFIER_FIRST
from mpsgen.sources.index import MacroCall, SourceIndex, index_of


class StubCall(NamedTuple):
    """A stub used by a shared implementation: called directly or passed to a helper."""

    stub: str
    line: int
    via: str | None = None  # helper it was passed to (comparison_op_out, unary_op_impl_out, ...)
    extra_args: tuple[str, ...] = ()  # arguments after (device, iterator), e.g. ("-alpha",)
    diverts: str = ""  # "integral" / "integral+bool": the kind an `if (isIntegralType(...)) {...} else` keeps from it


class SharedImpl(NamedTuple):
    kernel: str
    form: ImplForm
    stubs: tuple[StubCall, ...]
    path: str
    line: int
    end_line: int
    elementwise: bool = False  # its lines build an elementwise TensorIterator (see builds_elementwise_iterator)
    macro: str = ""  # the helper macro that defines it, for form "macro" (CREATE_UNARY_TORCH_IMPL_FUNC)

    @property
    def shown_form(self) -> str:
        """How messages and `status --op` name its form: TORCH_IMPL_FUNC, function or macro:NAME."""
        return f"macro:{self.macro}" if self.form == "macro" else self.form

    @property
    def stub_names(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(c.stub for c in self.stubs))

    @property
    def location(self) -> Location:
        """Where it was found (model.Location renders `path:line`)."""
        return Location(self.path, self.line)


def borrowed_stub(call: StubCall, family: str, is_family: Callable[[str], bool]) -> str:
    """The op whose kernel *family*'s shared kernel borrows through *call*, or "".

    sub_out passes add_stub (-alpha): the stub is add's, its kernel computes add's function of a
    value sub computes, so sub follows once MPS registers add_stub.  A stub named after the family and
    after no family of the yaml (renorm_out's renorm_scale_factor_stub) is the family's own helper, and
    a stub of another family passed plain names or literals (threshold_backward: threshold_stub
    (threshold, 0)) gets that family's kernel under the caller's plan: neither is borrowed.
    *is_family(name)* answers whether the yaml has a family *name*; `status`'s frontier and `migrate`'s
    planner both ask here."""
    owner = call.stub.removesuffix("_stub")
    if not call.extra_args or owner == family or (owner.startswith(f"{family}_") and not is_family(owner)):
        return ""
    computed = [a for a in call.extra_args if not re.fullmatch(r"[A-Za-z_]\w*|-?[\d.]+[fL]?", a)]
    return owner if computed else ""


_DEVICE_ARG = re.compile(r"^\s*(?:[\w.\->()*]*device_type\(\)|k(?:CPU|CUDA|MPS|Meta)|c10::DeviceType::\w+)\s*$")


# ceil_out: `if (c10::isIntegralType(self.scalar_type(), /*includeBool=*/false)) { result.copy_(self); } else {`
_INTEGRAL_BRANCH = re.compile(r"\bif\s*\(\s*(?:c10::|at::)?isIntegralType\s*\(\s*[\w.]+\s*(?:\.|->)\s*scalar_type\s*\(\s*\)"
                              r"\s*,\s*(?:/\*[^*]*\*/\s*)?(true|false)\s*\)\s*\)\s*\{")
_ELSE = re.compile(r"\s*else\s*\{")
_ENDS_IN_RETURN = re.compile(r"\breturn\b[^;{}]*;\s*$")


def _diverted(body_masked: str, at: int) -> str:
    """What kind of dtype never reaches a stub called at *at*: the call sits in the else branch of an
    integral-type test, or after one whose branch returns (nan_to_num_out copies and returns); the
    shared kernel handles those inputs itself."""
    if body_masked.find("isIntegralType", 0, at) < 0:
        return ""  # what every match spells: the pattern opens with `\bif`, tried at every offset
    for m in _INTEGRAL_BRANCH.finditer(body_masked, 0, at):
        kind = "integral+bool" if m.group(1) == "true" else "integral"
        then_close = match_close(body_masked, m.end() - 1)
        if then_close is None:
            continue
        other = _ELSE.match(body_masked, then_close + 1)
        if other is None:
            returns = _ENDS_IN_RETURN.search(body_masked[m.end():then_close])
            if returns and then_close < at and _same_block(body_masked, m.start(), at):
                return kind
            continue
        else_close = match_close(body_masked, other.end() - 1)
        if else_close is not None and other.end() <= at < else_close:
            return kind
    return ""


def _same_block(text: str, a: int, b: int) -> bool:
    """No brace opens or closes unmatched between *a* and *b* (both at one nesting level)."""
    depth = 0
    for ch in text[a:b]:
        depth += (ch == "{") - (ch == "}")
        if depth < 0:
            return False
    return depth == 0


# What a call's arguments spell when one is a stub (`x_stub`) or its first is a device (_DEVICE_ARG): a
# call spelling none of these is not split into arguments.
_STUB_MARKS = ("_stub", "device_type", "DeviceType", "kCPU", "kCUDA", "kMPS", "kMeta")


def _stub_calls(body_masked: str, body_text: str, first_line: int, known: Collection[str]) -> list[StubCall]:
    """Stubs in a body: `x(device_type(), ...)` calls and stub names passed as arguments.  The calls are
    those `name (` the pattern `([A-Za-z_]\\w*)\\s*\\(` finds outside a longer word, in order, each '('
    paired with its ')' by one pass over the body; without *known* stubs, only the calls whose arguments
    spell a stub mark are read."""
    calls: list[StubCall] = []
    marks = None if known else _Marks(body_masked)
    if marks is not None and not marks.starts:
        return calls  # a body calling other ops only: no call's arguments can name a stub
    for open_at, close in sorted(paren_pairs(body_masked).items()):
        if marks is not None and not marks.within(open_at + 1, close):
            continue
        callee = _callee(body_masked, open_at)
        if callee is None:
            continue
        start, name = callee
        args = split_top_level(body_masked[open_at + 1 : close])
        line = first_line + body_masked.count("\n", 0, start)
        if args and _DEVICE_ARG.match(args[0]) and len(args) >= 2:
            extras = tuple(" ".join(a.split()) for a in args[2:])
            calls.append(StubCall(name, line, None, extras, _diverted(body_masked, start)))
            continue
        for arg in args:
            if re.fullmatch(r"(?:at::native::)?([A-Za-z_]\w*)", arg):
                bare = arg.rsplit("::", 1)[-1]
                if bare.endswith("_stub") or bare in known:
                    calls.append(StubCall(bare, line, name))
    return calls


class _Marks:
    """Where a body spells each of _STUB_MARKS: `within(a, b)` tells whether one lies inside body[a:b]."""

    def __init__(self, body_masked: str) -> None:
        spans = []
        for w in _STUB_MARKS:
            k = body_masked.find(w)
            while k >= 0:
                spans.append((k, k + len(w)))
                k = body_masked.find(w, k + 1)
        spans.sort()
        self.starts = [a for a, _ in spans]
        # the nearest end among the marks from each one on (a mark starting at or after a ends by then)
        self._ends = list(accumulate(reversed([b for _, b in spans]), min))[::-1]

    def within(self, a: int, b: int) -> bool:
        k = bisect_left(self.starts, a)
        return k < len(self._ends) and self._ends[k] <= b


def _callee(masked: str, open_at: int) -> tuple[int, str] | None:
    """(offset, name) of the identifier the '(' at *open_at* calls: the word before it (spaces between),
    opening with an ASCII letter or `_`; None when no such word is there."""
    end = open_at
    while end and masked[end - 1].isspace():
        end -= 1
    start = word_start(masked, end)
    return (start, masked[start:end]) if start < end and masked[start] in IDENTIFIER_FIRST else None


def _expand(params: list[str], body: str, args: list[str]) -> str:
    """*body* with each identifier naming a parameter replaced by its argument, `##` pasted and `#x` made
    bare (masked anyway): what a substitution at every identifier of the body gives, from the body cut
    once at its identifiers (a kernel-making macro is expanded for many kernels)."""
    subst = dict(zip(params, args))
    texts, names = _identifier_cuts(body)
    parts = [""] * (len(texts) + len(names))
    parts[0::2] = texts
    parts[1::2] = map(subst.get, names, names)  # a parameter's argument, any other name itself
    out = "".join(parts)
    if "##" in out:
        # `re.sub(r"\s*##\s*", "", out)`: each `##` and the spaces on either side of it dropped
        pieces = out.split("##")
        out = "".join([pieces[0].rstrip(), *(p.strip() for p in pieces[1:-1]), pieces[-1].lstrip()])
    if "#" in out:
        out = re.sub(r"(?<![\w#])#\s*(\w+)", lambda m: m.group(1), out)  # stringize -> bare (masked anyway)
    return out


@functools.lru_cache(maxsize=256)
def _identifier_cuts(body: str) -> tuple[list[str], list[str]]:
    """(the texts between the identifiers of *body* (`[A-Za-z_]\\w*`, as a substitution scanning it finds
    them), the identifiers): body == texts[0] + names[0] + texts[1] + ... + texts[-1]."""
    texts, names, at = [], [], 0
    for m in _IDENTIFIER.finditer(body):
        texts.append(body[at : m.start()])
        names.append(m.group(0))
        at = m.end()
    texts.append(body[at:])
    return texts, names


_IDENTIFIER = re.compile(r"[A-Za-z_]\w*")


# Every `TORCH_IMPL_FUNC(name)(` head, its name captured: one compiled pattern for every kernel (the
# same matches as a pattern spelling the kernel's name, filtered by name).
_IMPL_FUNC = re.compile(r"TORCH_IMPL_FUNC(?<!\wTORCH_IMPL_FUNC)\s*\(\s*(\w+)\s*\)\s*\(")


def _impl_func_in(masked: str, kernel: str) -> tuple[int, int, int] | None:
    """(start, body_open, body_close) of `TORCH_IMPL_FUNC(kernel)(...) {...}` in masked text."""
    for m in _IMPL_FUNC.finditer(masked):
        if m.group(1) != kernel:
            continue
        pclose = match_close(masked, m.end() - 1)
        if pclose is None:
            continue
        brace = re.compile(r"\s*\{").match(masked, pclose + 1)
        if not brace:
            continue
        bclose = match_close(masked, brace.end() - 1)
        if bclose is not None:
            return m.start(), brace.end() - 1, bclose
    return None


def find_shared_impl(sources: dict[str, str], kernel: str, known_stubs: Collection[str] = (),
                     may_define: Callable[[str], bool] | None = None) -> SharedImpl | None:
    """Where the CPU/CUDA kernel *kernel* is defined in native/*.cpp and which stubs it uses.

    Looks for, in this order: an explicit `TORCH_IMPL_FUNC(kernel)`, an invocation of a helper macro
    whose `#define` (in any of *sources*) generates it, a known `CREATE_*_IMPL_FUNC(kernel, stub)`
    macro whose definition is not among *sources*, and a plain function `T kernel(...) {...}`.
    Each source is indexed once (and cached), so asking for many kernels costs one scan per file.
    *may_define(path)*, when given, is False for a source known to hold no plain function of that
    name (it spells the name only inside longer words): that source is not searched for one.
    """
    indexes = [index_of(p, t) for p, t in sources.items()]

    def located(ix: SourceIndex, f: FunctionSpan, form: ImplForm) -> SharedImpl:
        bopen, bclose = f.body_open, f.body_close
        first = ix.line(bopen)
        calls = _stub_calls(ix.masked_slice(bopen, bclose + 1), ix.text[bopen : bclose + 1], first, known_stubs)
        return SharedImpl(kernel, form, tuple(calls), ix.path, ix.line(f.start), ix.line(bclose),
                          builds_elementwise_iterator(ix.text, f.start, bclose))

    for ix in indexes:
        f = ix.impl_func(kernel)
        if f is not None:
            return located(ix, f, "TORCH_IMPL_FUNC")

    macros: dict[str, tuple[list[str], str]] = {}
    for ix in indexes:
        for name, d in ix.impl_macro_defs.items():
            macros.setdefault(name, (list(d.params), d.body))

    for ix in indexes:
        helpers = _helper_calls(ix, tuple(macros))
        if not helpers.may_make(kernel):
            continue
        for call in helpers.calls:
            # an argument holding the kernel's name, or one it opens with (CREATE_...(eq) makes eq_Tensor_out):
            # each tested in C (the args hold no NUL, so a joined match lies inside one of them)
            if kernel not in "\0".join(call.args) and not kernel.startswith(tuple(filter(None, call.args))):
                continue
            macro, args = call.name, list(call.args)
            if macro in macros:
                expanded = _expand_all(macro, args, macros)
                hit = _impl_func_in(expanded, kernel)
                if hit:
                    _, bopen, bclose = hit
                    calls = [
                        StubCall(c.stub, call.line, c.via, c.extra_args, c.diverts)
                        for c in _stub_calls(expanded[bopen : bclose + 1], "", call.line, known_stubs)
                    ]
                    return SharedImpl(kernel, "macro", tuple(calls), ix.path, call.line, call.end_line,
                                      builds_elementwise_iterator(ix.text, call.start, call.close), macro)
            elif re.fullmatch(r"CREATE_\w*IMPL\w*FUNC\w*", macro) and len(args) == 2 and args[0] == kernel:
                # Definition not among the sources: the (func_out, func_stub) convention of native/*.cpp.
                return SharedImpl(kernel, "macro", (StubCall(args[1], call.line),), ix.path, call.line, call.end_line,
                                  builds_elementwise_iterator(ix.text, call.start, call.close), macro)

    for ix in indexes:
        if may_define is not None and not may_define(ix.path):
            continue
        f = ix.plain_function(kernel)
        # index_fill_(Tensor&, Dimname, ...): NamedTensor.cpp's.  Its head read from the region the lookup
        # masked (masked_slice), not from a mask of the whole file made for it.
        if f is not None and _named_overload(ix.masked_slice(f.start, f.body_open)):
            f = next((g for g in ix.functions_by_name.get(kernel, ()) if g.macro is None
                      and not _named_overload(ix.masked[g.start: g.body_open])), None)
        if f is not None:
            return located(ix, f, "function")
    return None


class _HelperCalls:
    """A file's calls of the helper macros a search knows (and of CREATE_*IMPL*FUNC*), in file order, with
    what tells in C whether one may make a kernel: an argument holding its name or one it opens with."""

    def __init__(self, calls: list[MacroCall]) -> None:
        self.calls = calls
        self._args = "\1".join("\0".join(c.args) for c in calls)
        self._nonempty = frozenset(a for c in calls for a in c.args if a)

    def may_make(self, kernel: str) -> bool:
        """False only when no call's argument holds *kernel* or is a prefix of it (the scan of the calls
        would skip each); a name spelling a separator is never ruled out."""
        if kernel in self._args or "\0" in kernel or "\1" in kernel:
            return True
        return any(kernel[:k] in self._nonempty for k in range(1, len(kernel) + 1))


@functools.lru_cache(maxsize=1024)
def _helper_calls(ix: SourceIndex, macros: tuple[str, ...]) -> _HelperCalls:
    found = ix.calls_of(*macros)
    if ix.spells_create_impl:
        found = sorted(found + ix.calls_matching(r"CREATE_\w*IMPL\w*FUNC\w*"), key=lambda c: c.start)
    return _HelperCalls(found)


def _named_overload(head: str) -> bool:
    """A definition taking a `Dimname` (*head*: its masked text from its name to its body's `{`): a named-tensor
    overload (CompositeImplicit, no dispatch key's kernel), never the CPU/CUDA kernel a yaml line names however
    it shares that kernel's name."""
    return re.search(r"\bDimname(?:List)?\b", head) is not None


def _expand_all(macro: str, args: list[str], macros: dict[str, tuple[list[str], str]], depth: int = 0) -> str:
    params, body = macros[macro]
    out = _expand(params, body, args)
    if depth >= 3:
        return out
    # Expand nested helper macros once more (a macro that invokes another IMPL macro).
    pieces = [out]
    for m in re.finditer(r"([A-Z](?<!\w[A-Z])[A-Z0-9_]*)\s*\(", out):  # \b tested behind: the engine skips to capitals
        if m.group(1) in macros and m.group(1) != macro:
            close = match_close(out, m.end() - 1)
            if close is not None:
                inner_args = split_top_level(out[m.end() : close])
                pieces.append(_expand_all(m.group(1), inner_args, macros, depth + 1))
    return "\n".join(pieces)


# -- elementwise or not -------------------------------------------------------------------------

# Each pattern opens with a literal, its word boundary tested behind it (`\bXY` is `XY(?<!\wXY)` when X is a
# word character), so the regex engine skips in C to the literal instead of trying every offset.
_ELEMENTWISE = re.compile(r"TensorIterator(?<!\wTensorIterator)(?:::\w*(?:unary|binary|comparison|nullary)\w*op\b|Config\(\))")
# Reductions, and iterators over restrided views (flip): they take a TensorIterator but are not pointwise.
_NOT_ELEMENTWISE = re.compile(r"make_reduction(?<!\wmake_reduction)\w*|resize_outputs(?<!\wresize_outputs)\(\s*false\s*\)|as_strided(?<!\was_strided)\b"
                              r"|restride(?<!\wrestride)\w*")


def builds_elementwise_iterator(text: str, start: int, end: int) -> bool:
    """True when the lines holding text[start:end] (a definition) build an elementwise TensorIterator
    (`TensorIterator::binary_op(...)`, a TensorIteratorConfig) and no reduction or restrided view:
    a match of the first kind lies inside those lines and none of the second.  Read from those lines
    alone: a match of either pattern lies inside them in the whole text exactly when it is a match of
    theirs (only `resize_outputs(false)` may cross a line, and a cut can only end it)."""
    first = text.rfind("\n", 0, start) + 1
    last = text.find("\n", end)
    lines = text[first : len(text) if last < 0 else last]
    return _ELEMENTWISE.search(lines) is not None and _NOT_ELEMENTWISE.search(lines) is None


def not_elementwise_reason(kernel: str, at: str) -> str:
    """Why an entry is no pointwise migration candidate (status) and is refused (migrate, new-op)."""
    return (f"the entry is neither TensorIterator-structured nor tagged pointwise, and {kernel} ({at}) "
            "builds no elementwise TensorIterator (a reduction, shape or other op)")
