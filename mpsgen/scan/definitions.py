"""Function definitions in masked C++: `T name(...) {...}` and `MACRO(name)(...) {...}` heads."""

from __future__ import annotations

import re
from typing import Iterable

from mpsgen.records import NamedTuple
from mpsgen.scan.brackets import bracket_pairs, match_close
from mpsgen.scan.mask import code_only



class FunctionSpan(NamedTuple):
    name: str
    start: int  # offset of the name (or of the defining macro)
    body_open: int
    body_close: int
    macro: str | None = None  # e.g. "TORCH_IMPL_FUNC" for `TORCH_IMPL_FUNC(name)(...) {`


CONTROL_WORDS = frozenset(  # words before a `(` that open no function definition
    {"if", "for", "while", "switch", "catch", "return", "sizeof", "decltype", "defined"})
_SPACE = frozenset(" \t\r\n\f\v")
_NOT_BEFORE_A_DEFINITION = frozenset({"return", "new", "else"})


def is_word_char(ch: str) -> bool:
    """A character of a C++ identifier (`\\w`: str.isalnum() or `_`)."""
    return ch.isalnum() or ch == "_"


def _last_non_space(code: str, end: int) -> str:
    """`code[:end].rstrip()[-1:]` without copying the code before *end*."""
    while end > 0 and code[end - 1].isspace():
        end -= 1
    return code[end - 1] if end > 0 else ""


_ASCII_WORD_CHARS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_"


def word_start(code: str, end: int) -> int:
    """Start of the run of word characters that ends right before *end* (*end* when none does).
    str.rstrip finds it in C over a short window; the walk character by character runs only when the
    run may go on before the window or a non-ASCII character (perhaps a letter) stops it."""
    lo = max(0, end - 48)
    start = lo + len(code[lo:end].rstrip(_ASCII_WORD_CHARS))
    if (start == lo and lo > 0) or (start > 0 and not code[start - 1].isascii()):
        start = end
        while start > 0 and is_word_char(code[start - 1]):
            start -= 1
    return start


def _word_before(code: str, end: int) -> tuple[int, int] | None:
    """(start, end) of the identifier ending right before *end* (spaces skipped), or None."""
    k = end - 1
    while k >= 0 and code[k] in _SPACE:
        k -= 1
    j = word_start(code, k + 1)
    if j == k + 1 or code[j].isdigit():
        return None
    return j, k + 1


def looks_like_definition_name(masked: str, pos: int) -> bool:
    """Whether the identifier at *pos* can name a function being defined: a return type (or `&`,
    `*`, `>`) comes before it, not `return`/`new`/`else`, and it is not a member or qualified call.
    Reads backwards from *pos* only as far as it must (O(1) per call)."""
    k = pos - 1
    while k >= 0 and masked[k] in _SPACE:
        k -= 1
    if k < 0:
        return False
    ch = masked[k]
    if ch in "&*":
        return True
    if ch == ">":
        return not (k > 0 and masked[k - 1] == "-")
    if not is_word_char(ch):
        return False
    word = _word_before(masked, k + 1)
    return word is None or masked[word[0] : word[1]] not in _NOT_BEFORE_A_DEFINITION


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
    return bracket_pairs(code, "{", "}")


_QUALIFIER_END = re.compile(r"\b(?:const|noexcept|override)$")


def _match_open(code: str, close: int) -> int | None:
    """Offset of the '(' matching the ')' at *close*, scanning backwards; None when a `{`, `}` or `;`
    comes first.  From one '(' to the one before it (str.rfind), counting the ')'s between (all in C:
    a walk in Python cost ~15 ms over the .mm files); the stretch passed is tested for `{`, `}` and
    `;` (a short slice: a search back for the nearest of them went as far as the previous body)."""
    if code[close] in "{};":
        return None
    depth = 0  # ')' minus '(' from *close* back
    end = close + 1
    while (opening := code.rfind("(", 0, end)) >= 0:
        passed = code[opening:end]
        if "{" in passed or "}" in passed or ";" in passed:
            return None
        depth += passed.count(")") - 1
        if depth == 0:
            return opening
        end = opening
    return None


def function_head(code: str, brace: int, head_macros: tuple[str, ...]) -> tuple[str, int, str | None] | None:
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
    n = _word_before(code, popen)
    if n is not None:
        name = code[n[0] : n[1]]
        if name in CONTROL_WORDS or name in head_macros or not looks_like_definition_name(code, n[0]):
            return None
        return name, n[0], None
    if head_macros and _last_non_space(code, popen) == ")":
        k = code.rindex(")", 0, popen)
        mopen = _match_open(code, k)
        if mopen is None:
            return None
        macro = _word_before(code, mopen)
        arg = code[mopen + 1 : k].strip()
        if macro is not None and code[macro[0] : macro[1]] in head_macros and re.fullmatch(r"\w+", arg):
            return arg, macro[0], code[macro[0] : macro[1]]
    return None


def function_definitions(
    masked: str, head_macros: tuple[str, ...] = (), pairs: dict[int, int] | None = None
) -> list[FunctionSpan]:
    """Function definitions at namespace or class scope, outside preprocessor lines, in file order.
    A macro in *head_macros* names the function it defines: `MACRO(name)(params) {body}`.

    One pass over the braces: a '{' after `name(...)` opens a body (skipped whole); any other
    brace (namespace, class, extern "C") is entered."""
    code = code_only(masked)
    spans: list[FunctionSpan] = []
    inside_until = -1
    for open_pos, close_pos in sorted((pairs if pairs is not None else brace_pairs(code)).items()):
        if open_pos < inside_until:
            continue
        head = function_head(code, open_pos, head_macros)
        if head is not None:
            name, start, macro = head
            spans.append(FunctionSpan(name, start, open_pos, close_pos, macro=macro))
            inside_until = close_pos
    return spans


# `\bnamespace` as `namespace(?<!\wnamespace)`, and the braces as two literals (not `[{}]`): every branch opening
# with a literal, the engine skips in C to an `n` or a brace instead of trying the pattern at each character.
_NAMESPACE_OR_BRACE = re.compile(r"namespace(?<!\wnamespace)\s+([\w:]+)\s*\{|\{|\}")


def namespaces_at(masked: str, positions: Iterable[int]) -> dict[int, str]:
    """The enclosing C++ namespace ("at::native", "" at file scope) of each position in a masked text."""
    wanted = sorted(set(positions))
    result: dict[int, str] = {}
    stack: list[str | None] = []  # a name for namespace braces, None for any other brace
    k = 0
    for m in _NAMESPACE_OR_BRACE.finditer(masked):
        while k < len(wanted) and wanted[k] < m.start():
            result[wanted[k]] = "::".join(n for n in stack if n)
            k += 1
        if k == len(wanted):
            return result  # every position placed: the braces after the last do not matter
        if m.group(1):
            stack.append(m.group(1))
        elif m.group(0) == "{":
            stack.append(None)
        elif stack:
            stack.pop()
    for pos in wanted[k:]:
        result[pos] = "::".join(n for n in stack if n)
    return result
