"""The generated ATen headers of a yaml that differs from the checkout's only in the kernels its dispatch
lines name, derived from the checkout's own set instead of running torchgen again.

migrate and new-op only ever take kernel names out of dispatch lines (`MPS: atan2_out_mps` goes, `MPS`
joins `CPU, CUDA: atan2_out`, a kernel torchgen already declares): then the only generated headers
that change are the <op>_native.h files declaring a kernel no line names any more, which lose that
declaration (a function, or a structured kernel's `struct … { void impl(…); };`). Deriving them costs
milliseconds where torchgen costs ~15 s of CPU, and `migrate --all` compiles one yaml per family.
Any other yaml edit (a signature, a new kernel name) returns None: the caller runs torchgen.
"""

from __future__ import annotations

import re
from pathlib import Path

# A dispatch line: `    CPU, CUDA: atan2_out` (keys under `dispatch:`, deeper than an entry's own
# `  structured: True`; one kernel name), with its line break.
_DISPATCH_LINE = re.compile(r"^[ \t]{4,}[A-Za-z][\w, ]*:[ \t]*(\w+)[ \t]*(?:\n|$)", re.MULTILINE)
_NATIVE_HEADERS = "ATen/ops"


def removed_kernels_only(old_yaml: str, new_yaml: str) -> list[str] | None:
    """The kernel names *new_yaml* no longer names when that is all that differs (the dispatch lines
    aside, the texts are equal, and every kernel it names *old_yaml* names too); else None."""
    if _DISPATCH_LINE.sub("", old_yaml) != _DISPATCH_LINE.sub("", new_yaml):
        return None
    old, new = set(_DISPATCH_LINE.findall(old_yaml)), set(_DISPATCH_LINE.findall(new_yaml))
    if not new <= old:
        return None
    return sorted(old - new)


def without_kernels(generated: Path, kernels: list[str]) -> dict[str, str]:
    """absolute path -> text, for each <op>_native.h of the header set *generated* that declares one of
    *kernels*, with those declarations taken out."""
    if not kernels:
        return {}
    names = "|".join(map(re.escape, kernels))
    function = re.compile(rf"^TORCH_API [^\n]*\b(?:{names})\([^\n]*;\n", re.MULTILINE)
    structured = re.compile(rf"^struct TORCH_API structured_(?:{names}) :[^\n]*\{{\n(?:[^\n]*\n)*?\}};\n", re.MULTILINE)
    mentions = re.compile(rf"\b(?:structured_)?(?:{names})\b")
    out: dict[str, str] = {}
    for header in sorted((generated / _NATIVE_HEADERS).glob("*_native.h")):
        text = header.read_text(encoding="utf-8")
        if not mentions.search(text):
            continue
        edited = structured.sub("", function.sub("", text))
        if edited != text:
            out[str(header)] = edited
    return out
