"""Function definitions in masked C++: `T name(...) {...}` and `MACRO(name)(...) {...}` heads."""

from __future__ import annotations

import re
from dataclasses import dataclass

from mpsgen.scan.brackets import match_close
from mpsgen.scan.mask import code_only

_WINDOW = 256  # how far back a definition's return type is looked for


@dataclass(frozen=True)
class FunctionSpan:
    name: str
    start: int  # offset of the name (or of the defining macro)
    body_open: int
    body_close: int
    macro: str | None = None  # e.g. "TORCH_IMPL_FUNC" for `TORCH_IMPL_FUNC(name)(...) {`


_CONTROL = frozenset({"if", "for", "while", "switch", "catch", "return", "sizeof", "decltype", "defined"})
_TAIL_OK = re.compile(r"[\w&*>]$")
_TAIL_KEYWORD = re.compile(r"\b(?:return|new|else)$")
_TAIL_MEMBER = re.compile(r"(?:\.|->|::)$")


def _before(masked: str, pos: int) -> str:
    """The text before *pos*, right-stripped, read from a bounded window (O(1) per call)."""
    lo = max(0, pos - _WINDOW)
    before = masked[lo:pos].rstrip()
    while not before and lo > 0:
        lo = max(0, lo - _WINDOW)
        before = masked[lo:pos].rstrip()
    return before


def looks_like_definition_name(masked: str, pos: int) -> bool:
    """Whether the identifier at *pos* can name a function being defined: a return type (or `&`,
    `*`, `>`) comes before it, not `return`/`new`/`else`, and it is not a member or qualified call."""
    before = _before(masked, pos)
    if not before or not _TAIL_OK.search(before) or _TAIL_KEYWORD.search(before):
        return False
    return not _TAIL_MEMBER.search(before)


_BODY_OPEN = re.compile(r"\s*(?:const\s*)?(?:noexcept\s*)?(?:override\s*)?\{")


def definition_body(masked: str, paren_open: int) -> tuple[int, int] | None:
    """(body_open, body_close) when the parameter list opening at *paren_open* is followed by a body."""
    pclose = match_close(masked, paren_open)
    if pclose is None:
        return None
    brace = _BODY_OPEN.match(masked, pclose + 1)
    if not brace:
        return None
    bclose = match_close(masked, brace.end() - 1)
    return None if bclose is None else (brace.end() - 1, bclose)


def brace_pairs(code: str) -> dict[int, int]:
    """{offset of '{': offset of its '}'} for masked code (directives blanked); strays are ignored."""
    pairs: dict[int, int] = {}
    stack: list[int] = []
    for m in _BRACE.finditer(code):
        if m.group(0) == "{":
            stack.append(m.start())
        elif stack:
            pairs[stack.pop()] = m.start()
    return pairs


_BRACE = re.compile(r"[{}]")
_SPACE = frozenset(" \t\r\n\f\v")
_QUALIFIER_END = re.compile(r"\b(?:const|noexcept|override)$")
_NAME_END = re.compile(r"([A-Za-z_]\w*)\s*$")


def _match_open(code: str, close: int) -> int | None:
    """Offset of the '(' matching the ')' at *close*, scanning backwards."""
    depth = 0
    k = close
    while k >= 0:
        ch = code[k]
        if ch == ")":
            depth += 1
        elif ch == "(":
            depth -= 1
            if depth == 0:
                return k
        elif ch in "{};":
            return None
        k -= 1
    return None


def _head(code: str, brace: int, head_macros: tuple[str, ...]) -> tuple[str, int, str | None] | None:
    """(name, start, macro) when the '{' at *brace* opens a function body."""
    k = brace - 1
    while True:
        while k >= 0 and code[k] in _SPACE:
            k -= 1
        if k < 0 or code[k] == ")":
            break
        word = _QUALIFIER_END.search(code, max(0, k - 10), k + 1)
        if word is None:
            return None
        k = word.start() - 1
    if k < 0:
        return None
    popen = _match_open(code, k)
    if popen is None:
        return None
    n = _NAME_END.search(code, max(0, popen - _WINDOW), popen)
    if n is not None:
        name = n.group(1)
        if name in _CONTROL or name in head_macros or not looks_like_definition_name(code, n.start()):
            return None
        return name, n.start(), None
    if head_macros and code[:popen].rstrip().endswith(")"):
        k = code.rindex(")", 0, popen)
        mopen = _match_open(code, k)
        if mopen is None:
            return None
        macro = _NAME_END.search(code, max(0, mopen - _WINDOW), mopen)
        arg = code[mopen + 1 : k].strip()
        if macro is not None and macro.group(1) in head_macros and re.fullmatch(r"\w+", arg):
            return arg, macro.start(), macro.group(1)
    return None


def function_definitions(masked: str, head_macros: tuple[str, ...] = ()) -> list[FunctionSpan]:
    """Function definitions at namespace or class scope, outside preprocessor lines, in file order.
    A macro in *head_macros* names the function it defines: `MACRO(name)(params) {body}`.

    One pass over the braces: a '{' after `name(...)` opens a body (skipped whole); any other
    brace (namespace, class, extern "C") is entered."""
    code = code_only(masked)
    spans: list[FunctionSpan] = []
    inside_until = -1
    for open_pos, close_pos in sorted(brace_pairs(code).items()):
        if open_pos < inside_until:
            continue
        head = _head(code, open_pos, head_macros)
        if head is not None:
            name, start, macro = head
            spans.append(FunctionSpan(name, start, open_pos, close_pos, macro=macro))
            inside_until = close_pos
    return spans


def namespaces_at(masked: str, positions) -> dict[int, str]:
    """The enclosing C++ namespace ("at::native", "" at file scope) of each position in a masked text."""
    wanted = sorted(set(positions))
    result: dict[int, str] = {}
    stack: list[str | None] = []  # a name for namespace braces, None for any other brace
    k = 0
    for m in re.finditer(r"\bnamespace\s+([\w:]+)\s*\{|[{}]", masked):
        while k < len(wanted) and wanted[k] < m.start():
            result[wanted[k]] = "::".join(n for n in stack if n)
            k += 1
        if m.group(1):
            stack.append(m.group(1))
        elif m.group(0) == "{":
            stack.append(None)
        elif stack:
            stack.pop()
    for pos in wanted[k:]:
        result[pos] = "::".join(n for n in stack if n)
    return result
