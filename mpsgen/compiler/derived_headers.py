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
    # Only the lines between the texts' common first and last lines can differ (a change edits a few
    # entries of a ~600 KB yaml, and `migrate --all` asks once per family and file); the pattern reads
    # one line at a time, so the middle alone decides.
    old_lines, new_lines = old_yaml.split("\n"), new_yaml.split("\n")
    head = 0
    while head < min(len(old_lines), len(new_lines)) and old_lines[head] == new_lines[head]:
        head += 1
    tail = 0
    while tail < min(len(old_lines), len(new_lines)) - head and old_lines[-1 - tail] == new_lines[-1 - tail]:
        tail += 1
    old_middle = "".join(line + "\n" for line in old_lines[head:len(old_lines) - tail])
    new_middle = "".join(line + "\n" for line in new_lines[head:len(new_lines) - tail])
    if _DISPATCH_LINE.sub("", old_middle) != _DISPATCH_LINE.sub("", new_middle):
        return None
    old, new = set(_DISPATCH_LINE.findall(old_middle)), set(_DISPATCH_LINE.findall(new_middle))
    kept = "\n".join([*old_lines[:head], *old_lines[len(old_lines) - tail:]])
    named_elsewhere = {k for k in old | new if k in kept and k in _DISPATCH_LINE.findall(
        "\n".join(line for line in kept.split("\n") if k in line) + "\n")}
    if not new <= old | named_elsewhere:
        return None
    return sorted(old - new - named_elsewhere)


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
