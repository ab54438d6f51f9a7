"""The per-operator header a file needs to call an `at::` function, added where the file keeps them.

PyTorch's .mm files include operator headers in one of two layouts:

    #ifndef AT_PER_OPERATOR_HEADERS          #define TORCH_ASSERT_ONLY_METHOD_OPERATORS
    #include <ATen/Functions.h>              #include <ATen/ops/bitwise_and_native.h>
    #else                                    #include <ATen/ops/logical_not_native.h>
    #include <ATen/ops/add_native.h>
    #endif

In the first the header goes, in sorted position, into the `#else` branch (the other branch's
<ATen/Functions.h> declares every op); in the second into the run of <ATen/ops/...> lines.  Any other
layout is refused: the caller then keeps the code that needed no header.
"""

from __future__ import annotations

import re

from mpsgen.errors import MpsgenError
from mpsgen.sources.host.register import ensure_include
from mpsgen.sources.host.text import INCLUDE, join_after, lines_of
from mpsgen.tree.checkout import newline_of

_IFNDEF_PER_OP = re.compile(r"^[ \t]*#[ \t]*ifndef[ \t]+AT_PER_OPERATOR_HEADERS\b")
_IF = re.compile(r"^[ \t]*#[ \t]*if")
_ELSE = re.compile(r"^[ \t]*#[ \t]*else\b")
_ENDIF = re.compile(r"^[ \t]*#[ \t]*endif\b")


def _per_operator_block(lines: list[str]) -> tuple[int, int, int] | None:
    """(the #ifndef line, its #else, its #endif) as 0-based indexes, or None."""
    for k, line in enumerate(lines):
        if not _IFNDEF_PER_OP.match(line):
            continue
        depth, other = 0, None
        for j in range(k + 1, len(lines)):
            if _IF.match(lines[j]):
                depth += 1
            elif _ENDIF.match(lines[j]):
                if depth == 0:
                    return (k, other, j) if other is not None else None
                depth -= 1
            elif depth == 0 and _ELSE.match(lines[j]):
                other = j
        return None
    return None


def ensure_op_header(text: str, header: str, *, path: str = "<text>") -> str:
    """*text* including `<header>` (`ATen/ops/logical_not.h`) where its layout keeps operator headers;
    unchanged when it already does.  Raises MpsgenError for a layout mpsgen cannot place it in."""
    lines = lines_of(text)
    heads = [m.group(1) for line in lines if (m := INCLUDE.match(line))]
    if header in heads:
        return text
    block = _per_operator_block(lines)
    if block is None:
        if not any(h.startswith("ATen/ops/") for h in heads):
            raise MpsgenError(f"no #include <ATen/ops/...> lines to add <{header}> to", path=path,
                              hint=f"add #include <{header}> by hand")
        return ensure_include(text, header, path=path)
    start, other, end = block
    if "ATen/Functions.h" not in [m.group(1) for line in lines[start:other] if (m := INCLUDE.match(line))]:
        raise MpsgenError(f"the `#ifndef AT_PER_OPERATOR_HEADERS` branch does not include <ATen/Functions.h>, "
                          f"which <{header}> stands for", path=path, line=start + 1,
                          hint=f"add #include <{header}> by hand")
    position = end
    for k in range(other + 1, end):
        m = INCLUDE.match(lines[k])
        if m and m.group(1).startswith("ATen/ops/") and m.group(1) > header:
            position = k
            break
    return "".join(join_after(lines, position, [f"#include <{header}>{newline_of(text)}"]))
