"""kernels/<Stem>.h: the params structs a host kernel and its Metal kernel share (as upstream's
Activation.h holds ELUParams).  A pure text -> text editor."""

from __future__ import annotations

import re

from mpsgen.errors import MpsgenError
from mpsgen.scan.mask import mask_code
from mpsgen.tree.checkout import newline_of

# The guard the wheel's installer wraps every header in; a source tree's header has none, but a
# tree assembled from installed headers does.
_INSTALL_GUARD = re.compile(r"^#else\s*\n#error \"This file should not be included when either TORCH_STABLE_ONLY",
                            re.M)


def _struct_span(masked: str, name: str) -> tuple[int, int] | None:
    m = re.search(rf"\bstruct\s+{re.escape(name)}\s*\{{", masked)
    if not m:
        return None
    end = masked.find("};", m.end())
    return (m.start(), end + 2) if end >= 0 else None


def add_struct(text: str | None, struct: str, name: str, *, path: str, purpose: str) -> str:
    """*text* with *struct* (``template <typename T> struct Name {...};``) appended, or a new header
    holding it when *text* is None.  The same struct already there: unchanged.  Another struct of
    that name: refused."""
    if text is None:
        return (f"#pragma once\n\n// Scalar parameters of Metal kernels, shared by {purpose}.\n\n{struct}\n")
    nl = newline_of(text)
    masked = mask_code(text)
    found = _struct_span(masked, name)
    if found is not None:
        mine = _struct_span(mask_code(struct), name)
        assert mine is not None, struct
        if " ".join(text[found[0]:found[1]].split()) == " ".join(struct[mine[0]:mine[1]].split()):
            return text
        line = text.count("\n", 0, found[0]) + 1
        raise MpsgenError(f"struct {name} already exists with other fields", path=path, line=line,
                          hint="rename or remove it, or write the kernel by hand")
    block = struct.replace("\n", nl)
    guard = _INSTALL_GUARD.search(text)
    if guard:  # inside the installed-header guard, before its #else
        return text[: guard.start()] + block + nl + nl + text[guard.start() :]
    body = text.rstrip("\r\n")
    return body + nl + nl + block + nl
