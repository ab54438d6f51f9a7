"""How the checkout's headers spell a kernel launch a host function writes out by hand (the two-output
helper): the profiler calls' arity and the queue's dispatch function.

They moved between the headers a checkout holds together: 2.7 and 2.13 declare
`beginProfileKernel(handle, name, tensors)` and `endProfileKernel(handle, SyncType)`; newer upstream
passes the stream to both.  `dispatch_sync_with_rethrow` is declared in 2.7's OperationUtils.h and in
2.13's MPSStream.h; a checkout declaring it in neither gets plain `dispatch_sync`, which newer upstream
uses, with the pipeline state looked up before the block so that its errors still reach the caller.
"""

from __future__ import annotations

import re

from mpsgen.records import NamedTuple
from mpsgen.scan.brackets import match_close, split_top_level
from mpsgen.scan.mask import mask_code

PROFILER_REL = "aten/src/ATen/mps/MPSProfiler.h"
STREAM_REL = "aten/src/ATen/mps/MPSStream.h"
UTILS_REL = "aten/src/ATen/native/mps/OperationUtils.h"
READ_FROM = (PROFILER_REL, STREAM_REL, UTILS_REL)


class Launch(NamedTuple):
    dispatch: str = "dispatch_sync_with_rethrow"
    begin_takes_stream: bool = False  # beginProfileKernel(pso, name, tensors, stream)
    end_takes_stream: bool = False  # endProfileKernel(pso, stream)


def _declared_with_stream(code: str, fn: str) -> bool:
    """Whether a declaration of *fn* (a member: `<type> fn(`) has an MPSStream parameter."""
    return any("MPSStream" in m.group(1) for m in re.finditer(rf"\b(?:void|uint64_t)\s+{fn}\s*\(([^;{{]*)\)", code))


def read_launch(texts: dict[str, str | None]) -> Launch:
    """The spelling the headers in *texts* ({checkout path: text, None when absent}) declare; a checkout
    without the headers (a trimmed sample) gets 2.7/2.13's."""
    profiler = mask_code(texts.get(PROFILER_REL) or "")
    declares_rethrow = re.compile(r"\bvoid\s+dispatch_sync_with_rethrow\s*\(")
    headers = [texts.get(rel) for rel in (STREAM_REL, UTILS_REL)]
    rethrow = (all(t is None for t in headers)
               or any(t is not None and declares_rethrow.search(mask_code(t)) for t in headers))
    return Launch("dispatch_sync_with_rethrow" if rethrow else "dispatch_sync",
                  _declared_with_stream(profiler, "beginProfileKernel"),
                  _declared_with_stream(profiler, "endProfileKernel"))


def respelled(text: str, launch: Launch) -> str:
    """*text* (a sibling's definition copied into the change) with its profiler calls given the arity
    *launch* declares: a sibling from a newer OperationUtils.mm than the checkout's MPSProfiler.h passes
    the stream the header's overloads do not take.  Calls of the declared arity are left as written."""
    for fn, takes_stream, arity in (("beginProfileKernel", launch.begin_takes_stream, 4),
                                    ("endProfileKernel", launch.end_takes_stream, 2)):
        if takes_stream:
            continue
        masked = mask_code(text)
        for m in reversed(list(re.finditer(rf"\b{fn}\s*\(", masked))):
            close = match_close(masked, m.end() - 1)
            args = split_top_level(masked[m.end():close]) if close is not None else []
            if len(args) == arity and "stream" in args[-1].lower():
                cut = masked.rindex(",", m.end(), close)
                text = text[:cut] + text[close:]
                masked = mask_code(text)
    return text
