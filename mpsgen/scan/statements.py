"""The statement structure of a C++/Metal text, to prove an edit kept it outside its own lines.

A text becomes a sequence of items: each top-level statement (split at `;`, `{` and `}` outside
parentheses and brackets), each preprocessor directive, and each statement of a `#define` body.
An edit that only inserts or deletes whole statements changes that sequence by insertions and
deletions alone; text written into the middle of a statement (a parameter list, an attribute)
changes an existing item, which `first_broken_statement` reports.
"""

from __future__ import annotations

import difflib
import re

from mpsgen.records import NamedTuple
from mpsgen.scan.lines import LineTable
from mpsgen.scan.mask import code_only, directives, mask_code

_SPLIT = re.compile(r"[;{}()\[\]]")
_CALL_START = re.compile(r"\s*[A-Za-z_]\w*\s*\(")
_LINE_BREAK_NEXT = re.compile(r"[ \t\r\f\v]*\n\s*(?:[A-Za-z_#}]|\Z)")
_DEFINE_HEAD = re.compile(r"\s*#\s*define\s+(\w+)(\([^)]*\))?")


class Statement(NamedTuple):
    pos: int
    text: str  # whitespace-normalised masked text


def _split(code: str, base: int, prefix: str) -> list[Statement]:
    items: list[Statement] = []
    depth = 0
    start = 0

    def emit(end: int, tail: str = "") -> None:
        raw = code[start:end]
        seg = " ".join(raw.split())
        if seg or tail:
            lead = len(raw) - len(raw.lstrip())
            items.append(Statement(base + start + lead, prefix + (seg + tail if seg else tail)))

    for m in _SPLIT.finditer(code):
        ch, k = m.group(0), m.start()
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
            if depth == 0 and ch == ")" and _CALL_START.match(code, start) and _LINE_BREAK_NEXT.match(code, k + 1):
                emit(k + 1)  # `MACRO(args)` ending its line without ';' is a statement of its own
                start = k + 1
        elif depth == 0 and ch == ";":
            emit(k, ";")
            start = k + 1
        elif depth == 0 and ch == "{":
            emit(k, "{")
            start = k + 1
        elif depth == 0 and ch == "}":
            emit(k)
            items.append(Statement(base + k, prefix + "}"))
            start = k + 1
    emit(len(code))
    return items


def statements(text: str) -> list[Statement]:
    """The statement sequence of *text* (comments and literals masked), in file order."""
    masked = mask_code(text)
    items = _split(code_only(masked), 0, "")
    for s, e in directives(masked).spans:
        body = masked[s:e].replace("\\\r\n", "   ").replace("\\\n", "  ")  # same length: offsets hold
        m = _DEFINE_HEAD.match(body)
        if m is None:
            items.append(Statement(s, " ".join(body.split())))
            continue
        head = f"#define {m.group(1)}{m.group(2) or ''}"
        items.append(Statement(s, head))
        items += _split(body[m.end() :], s + m.end(), head + ": ")
    items.sort(key=lambda st: st.pos)
    return items


def first_broken_statement(old: str, new: str) -> int | None:
    """1-based line in *new* of the first statement of *old* that the edit changed (rather than
    inserted or deleted whole), or None when the structure outside the edit is intact."""
    a, b = _without_unshared_definitions(old, new)
    # The statements before and after the edit are equal: only the middle needs a diff (difflib
    # on a whole 35 KB .metal file costs more than splitting it).
    head = 0
    while head < min(len(a), len(b)) and a[head].text == b[head].text:
        head += 1
    tail = 0
    while tail < min(len(a), len(b)) - head and a[-1 - tail].text == b[-1 - tail].text:
        tail += 1
    a_mid, b_mid = a[head:len(a) - tail], b[head:len(b) - tail]
    matcher = difflib.SequenceMatcher(None, [s.text for s in a_mid], [s.text for s in b_mid], autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "replace" and not _definitions_replaced(a_mid[i1:i2], b_mid[j1:j2]) \
                and not _callees_renamed(a_mid[i1:i2], b_mid[j1:j2]):
            pos = b_mid[j1].pos if j1 < len(b_mid) else len(new)
            return LineTable(new).line(pos)
    return None


def _balanced(run: list[Statement]) -> int | None:
    """The number of braced blocks *run* opens and closes itself, or None when it is no whole unit."""
    depth = blocks = 0
    for s in run:
        if s.text.endswith("{"):
            depth, blocks = depth + 1, blocks + 1
        elif s.text == "}":
            depth -= 1
            if depth < 0:
                return None
    return blocks if depth == 0 else None


_QUALIFIED_NAME = re.compile(r"(?:::)?(?:\w+::)*\w+")


def _callees_renamed(old: list[Statement], new: list[Statement]) -> bool:
    """Each statement the same but for the (qualified) name of one function it calls, now an `at::`
    function (`logical_not_out_mps(self, out)` -> `at::logical_not_outf(self, out)`): a call pointed at
    the op once the function it called is deleted (plan/callers.py), the statement otherwise kept."""
    if len(old) != len(new):
        return False
    for o, n in zip(old, new):
        a, b = o.text, n.text
        head = 0
        while head < min(len(a), len(b)) and a[head] == b[head]:
            head += 1
        while head and (a[head - 1].isalnum() or a[head - 1] in "_:"):  # back to the name's start
            head -= 1
        tail = 0
        while tail < min(len(a), len(b)) - head and a[-1 - tail] == b[-1 - tail]:
            tail += 1
        while tail and (b[len(b) - tail].isalnum() or b[len(b) - tail] == "_"):  # on to the name's end
            tail -= 1
        was, now, rest = a[head : len(a) - tail], b[head : len(b) - tail], b[len(b) - tail :]
        if not (_QUALIFIED_NAME.fullmatch(was) and _QUALIFIED_NAME.fullmatch(now) and now.startswith("at::")
                and rest.lstrip().startswith("(")):
            return False
    return True


def _definitions_replaced(old: list[Statement], new: list[Statement]) -> bool:
    """Whole definitions deleted right where whole statements are inserted (a legacy function removed
    where a REGISTER_DISPATCH line goes), as opposed to text written into a statement: the old run is
    complete braced blocks, the new one whole statements, and none of them still resembles an old one
    (`f(a, b);` -> `f(a, x, b);`)."""
    if not _balanced(old) or _balanced(new) is None:
        return False
    return not any(difflib.SequenceMatcher(None, o.text, n.text, autojunk=False).ratio() >= 0.6
                   for o in old for n in new)


def _without_unshared_definitions(old: str, new: str) -> tuple[list[Statement], list[Statement]]:
    """The statements of *old* and *new* but those of whole function definitions only one side names at
    all (a legacy function deleted, a host kernel added in the same file, as fill's ConstantOps.mm): an
    edit adding or deleting a whole definition breaks no statement, however difflib would pair their
    bodies' look-alike lines (`using namespace mps;`)."""
    from mpsgen.scan.definitions import function_definitions

    a, b = statements(old), statements(new)
    masked_old, masked_new = mask_code(old), mask_code(new)

    def spans(masked: str, other: str) -> list[tuple[int, int]]:
        found = []
        for d in function_definitions(masked):
            if re.search(rf"\b{re.escape(d.name)}\b", other) is None:
                found.append((masked.rfind("\n", 0, d.start) + 1, d.body_close))
        return found

    def outside(items: list[Statement], dropped: list[tuple[int, int]]) -> list[Statement]:
        return [st for st in items if not any(s <= st.pos <= e for s, e in dropped)] if dropped else items

    return outside(a, spans(masked_old, new)), outside(b, spans(masked_new, old))
