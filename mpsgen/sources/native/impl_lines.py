"""The masked lines of a shared kernel's definition, without masking its whole file when the text allows.

The child process that searched native/*.cpp found the definition; the parent holds only its lines.  Looking
the definition up again in the parent's index of the file masks only the region around it (sources/index.py),
and SourceIndex.masked_slice answers from that region: the same text as a slice of the whole file's mask.
"""

from __future__ import annotations

import functools

from mpsgen.sources.index import SourceIndex, index_of
from mpsgen.sources.native.shared_impl import SharedImpl


@functools.lru_cache(maxsize=256)  # the frontier's readers ask about one kernel in turn
def masked_lines(text: str, impl: SharedImpl) -> tuple[SourceIndex, int, str]:
    """(the index of *impl*'s file *text*, the offset of its first line, those lines to the end of its last,
    masked): `ix.masked[start:end]`."""
    ix = index_of(impl.path, text)
    start, end = ix.lines.start_of(impl.line), ix.lines.start_of(impl.end_line + 1)
    if impl.form == "TORCH_IMPL_FUNC":
        ix.impl_func(impl.kernel)  # registers the region masked alone (a lookup of an indexed file masks nothing)
    elif impl.form == "function":
        ix.plain_function(impl.kernel)
    return ix, start, ix.masked_slice(start, end)
