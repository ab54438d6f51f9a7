"""Whether a shared kernel checks that its iterator's inputs share one dtype before it builds the
iterator: complex_out and polar_out call complex_check_dtype(result, real, imag), whose
`TORCH_CHECK(a.scalar_type() == b.scalar_type(), ...)` makes check_all_same_dtype(false) a matter of
the complex output only (the inputs still share one dtype)."""

from __future__ import annotations

import re

from mpsgen.scan.brackets import match_close, split_top_level
from mpsgen.scan.mask import mask_code
from mpsgen.sources.index import index_of
from mpsgen.sources.native.iterator_operands import parameter_names

_SAME = re.compile(r"\bTORCH_CHECK\s*\(\s*(\w+)\s*\.\s*scalar_type\s*\(\s*\)\s*==\s*(\w+)\s*\.\s*scalar_type\s*\(\s*\)")
_CALL = re.compile(r"(?:^|[;{}])\s*([A-Za-z_]\w*)\s*\(")


def _equal_pairs(body: str) -> list[tuple[str, str]]:
    return [(m.group(1), m.group(2)) for m in _SAME.finditer(body)]


def inputs_checked_same(path: str, text: str, line: int, end_line: int, inputs: tuple[str, ...]) -> bool:
    """True when the shared kernel on lines *line*..*end_line* of *text* checks, itself or through a
    function of the same file it calls as a statement, that every one of *inputs* has one scalar_type."""
    ix = index_of(path, text)
    masked = ix.masked
    starts = [0] + [m.end() for m in re.finditer("\n", text)]
    body = masked[starts[line - 1] : starts[end_line] if end_line < len(starts) else len(masked)]
    pairs = _equal_pairs(body)
    for m in _CALL.finditer(body):
        callee = ix.plain_function(m.group(1))
        if callee is None:
            continue
        close = match_close(body, m.end() - 1)
        if close is None:
            continue
        args = [a.strip() for a in split_top_level(body[m.end() : close])]
        params = dict(zip(parameter_names(masked, callee.body_open), args))
        pairs += [(params.get(a, a), params.get(b, b))
                  for a, b in _equal_pairs(masked[callee.body_open : callee.body_close])]
    same = {inputs[0]}
    for _ in inputs:  # grow the class of names checked equal to the first input
        same |= {b for a, b in pairs if a in same} | {a for a, b in pairs if b in same}
    return set(inputs) <= same


_UNCHECKED = re.compile(r"\.check_all_same_dtype\(\s*false\s*\)")


def unchecked_dtype_line(text: str, line: int, end_line: int) -> int | None:
    """The first of lines *line*..*end_line* of *text* (a shared kernel) that builds its iterator with
    check_all_same_dtype(false), outside comments: its inputs may then differ in dtype (where's bool condition)."""
    for k, code in enumerate(mask_code(text).split("\n")[line - 1 : end_line]):
        if _UNCHECKED.search(code):
            return line + k
    return None
