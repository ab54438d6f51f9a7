"""A shared kernel's lines, found without a line table or a mask of its whole file when the text allows.

The child process that searched native/*.cpp found the definition; the parent holds only its lines.  Looking
the definition up again in the parent's index of the file masks only the region around it (sources/index.py):
SourceIndex.masked_slice then answers from that region (the same text as a slice of the whole file's mask),
and the definition's offsets say where its lines start and end (no table of every line's start).
"""

from __future__ import annotations

import functools

from mpsgen.scan.lines import line_start
from mpsgen.sources.index import SourceIndex, index_of
from mpsgen.sources.native.shared_impl import SharedImpl


@functools.lru_cache(maxsize=256)  # the frontier's readers ask about one kernel in turn
def impl_span(text: str, impl: SharedImpl) -> tuple[SourceIndex, int, int]:
    """(the index of *impl*'s file *text*, the offset of its first line, the end of its last line and its
    line break): `ix.lines.start_of(impl.line)`, `ix.lines.start_of(impl.end_line + 1)`."""
    ix = index_of(impl.path, text)
    if impl.form == "TORCH_IMPL_FUNC":
        found = ix.impl_func(impl.kernel)  # registers the region masked alone (an indexed file masks nothing)
    elif impl.form == "function":
        found = ix.plain_function(impl.kernel)
    else:
        found = None
    if found is None or ix.line(found.start) != impl.line or ix.line(found.body_close) != impl.end_line:
        return ix, ix.lines.start_of(impl.line), ix.lines.start_of(impl.end_line + 1)
    brk = text.find("\n", found.body_close)
    return ix, line_start(text, found.start), brk + 1 if brk >= 0 else len(text)


def masked_lines(text: str, impl: SharedImpl) -> tuple[SourceIndex, int, str]:
    """(the index of *impl*'s file *text*, the offset of its first line, those lines to the end of its last,
    masked): `ix.masked[start:end]`."""
    ix, start, end = impl_span(text, impl)
    return ix, start, ix.masked_slice(start, end)
