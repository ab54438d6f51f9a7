"""The branch a shared kernel calls a stub in: `if (self.is_complex()) { sgn_stub(...) } else
{ sign_stub(...) }`, `else if (*rounding_mode == "trunc") { div_trunc_stub(...) }`.

A reader: given the source text and the line of a stub call, the condition of the `if` whose block
holds the call (as written, string literals kept) and whether the call sits in its `else` block;
condition_of reads the forms of condition the planner understands.  What they mean for the op (which
inputs or arguments reach the stub) is the planner's business (plan/multistub.py).
"""

from __future__ import annotations

import re

from mpsgen.records import NamedTuple
from mpsgen.scan.brackets import match_close
from mpsgen.scan.lines import LineTable
from mpsgen.scan.mask import mask_code


class Guard(NamedTuple):
    condition: str  # the `if`'s condition, as written ("" when the call is in no if/else block)
    negated: bool  # the call is in the `else` block of that `if`


_NO_GUARD = Guard("", False)


def _open_before(masked: str, close: int, opener: str, closer: str) -> int | None:
    """Index of the bracket opening the one closing at *close* (masked text)."""
    depth = 0
    for k in range(close, -1, -1):
        ch = masked[k]
        depth += (ch == closer) - (ch == opener)
        if depth == 0:
            return k
    return None


def _enclosing_brace(masked: str, at: int, stop: int) -> int | None:
    """The `{` opening the innermost block holding offset *at* (not before *stop*)."""
    depth = 0
    for k in range(at - 1, stop - 1, -1):
        ch = masked[k]
        if ch == "}":
            depth += 1
        elif ch == "{":
            if depth == 0:
                return k
            depth -= 1
    return None


def _if_condition(text: str, masked: str, before: int) -> tuple[int, str] | None:
    """(start of `if`, condition) when masked[:before] ends with `if (COND)` (or `else if (COND)`)."""
    head = masked[:before].rstrip()
    if not head.endswith(")"):
        return None
    close = len(head) - 1
    opened = _open_before(masked, close, "(", ")")
    if opened is None:
        return None
    word = re.search(r"\bif\s*$", masked[:opened])
    if word is None:
        return None
    return word.start(), " ".join(text[opened + 1 : close].split())


def guard_of_call(text: str, line: int, stub: str, first_line: int = 1) -> Guard:
    """The guard of the call `stub(...)` on *line* of *text* (1-based; *first_line*: the line where
    the shared kernel's definition starts, so an outer block is never taken for the call's own)."""
    masked = mask_code(text)
    table = LineTable(text)
    start = table.start_of(line)
    found = re.compile(rf"\b{re.escape(stub)}\s*\(").search(masked, start)
    if found is None:
        return _NO_GUARD
    stop = table.start_of(first_line)
    brace = _enclosing_brace(masked, found.start(), stop)
    if brace is None:
        return _NO_GUARD
    cond = _if_condition(text, masked, brace)
    if cond is not None:
        return Guard(cond[1], False)
    if re.search(r"\belse\s*$", masked[:brace]) is None:
        return _NO_GUARD  # the function's own body, a loop, a lambda: no branch of an if
    else_at = re.search(r"\belse\s*$", masked[:brace])
    assert else_at is not None
    then_close = masked[: else_at.start()].rstrip()
    if not then_close.endswith("}"):
        return _NO_GUARD
    then_open = _open_before(masked, len(then_close) - 1, "{", "}")
    if then_open is None or match_close(masked, then_open) != len(then_close) - 1:
        return _NO_GUARD
    cond = _if_condition(text, masked, then_open)
    return Guard(cond[1], True) if cond is not None else _NO_GUARD



class Condition(NamedTuple):
    """What a guard's condition tests, where it is one of the forms the planner reads."""

    kind: str  # "complex": x.is_complex() / isComplexType(...); "equals": *arg == "text"; "absent": !arg; "" else
    argument: str = ""
    value: str = ""  # the text an "equals" condition compares with


def condition_of(cond: str) -> Condition:
    """The reading of a Guard's condition: `self.is_complex()`, `*rounding_mode == "trunc"` (or
    `rounding_mode.value() == "trunc"`), `!rounding_mode` (or `!rounding_mode.has_value()`)."""
    if re.fullmatch(r"(?:\w+\.is_complex\(\)|(?:at::|c10::)?isComplexType\(.+\))", cond):
        return Condition("complex")
    m = re.fullmatch(r"\*?(\w+)(?:\.value\(\))?\s*==\s*\"(\w*)\"", cond)
    if m:
        return Condition("equals", m.group(1), m.group(2))
    m = re.fullmatch(r"!\s*(\w+)(?:\.has_value\(\))?", cond)
    if m:
        return Condition("absent", m.group(1))
    return Condition("")
