"""The Metal shader library an operations/*.mm declares: whether it has one, and the editor that adds
one after its `namespace at::native {` line (the nullary kind's host file, as upstream's ConstantOps.mm)."""

from __future__ import annotations

import re

from mpsgen.errors import MpsgenError
from mpsgen.scan.mask import blank_comments

# The bundled library, a file-local one, or a run-time compiled one's generated header.
_LIBRARY = re.compile(r"\bgetBundledLibrary\b|\bMetalShaderLibrary\s+lib\b|_metallib\.h")
_NAMESPACE = re.compile(r"^namespace at::native \{[^\n]*\n", re.MULTILINE)


def runs_a_shader_library(text: str) -> bool:
    """Whether the .mm *text* declares a shader library (outside comments; an #include counts)."""
    return _LIBRARY.search(blank_comments(text)) is not None


def with_library(text: str, library: str, path: str) -> str:
    """*text* with *library* (its declaration lines) after the `namespace at::native {` line, blank lines
    around it, in the file's own line ends."""
    m = _NAMESPACE.search(text)
    if m is None:
        raise MpsgenError("no `namespace at::native {` line to declare the shader library in", path=path,
                          hint="register the stub by hand")
    nl = "\r\n" if m.group(0).endswith("\r\n") else "\n"
    block = nl + library.replace("\n", nl) + nl
    return text[: m.end()] + block + text[m.end():]
