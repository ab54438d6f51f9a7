"""A host API form the checkout lacks, added by the change itself (the shape table's "extend" action,
plan/shape.py): which files it touches, the edits sources/host_api_extend and
sources/metal_api_extend derive from the siblings in those files, laid out by the checkout's own
clang-format, and the section the plan, the summary and the PR text show.

Pure over texts: *read* gives a file's planned text (None when absent); the result is the new texts by
path and one line per added piece (clang-format lays them out with every other written line).  A piece already there
(added by an earlier op of the same run, or an earlier run) is reused, never written twice.
"""

from __future__ import annotations

from typing import Callable, NamedTuple

from mpsgen.errors import MpsgenError
from mpsgen.sources import host_api_extend, metal_api_extend
from mpsgen.sources.host_api import LIBRARY_HEADER_REL

INDEXING_REL = "c10/metal/indexing.h"
SECTION_TITLE = "Host API added"


class Extension(NamedTuple):
    texts: dict[str, str]  # path -> new text (only the files that changed)
    added: tuple[str, ...]  # "path: what" per piece added (empty: every piece was there already)


_METAL = (INDEXING_REL, metal_api_extend.add_ternary_alpha,
          "ternary_alpha_{strided,strided_cast,dense,dense_cast} kernels and REGISTER_TERNARY_ALPHA_OP_, "
          "REGISTER_OPMATH_TERNARY_ALPHA_OP, REGISTER_TERNARY_ALPHA_OP after their ternary siblings")
Edit = tuple[str, Callable[[str, str], str], str]


def _definer(read: Callable[[str], str | None], files: tuple[str, ...], test: Callable[[str], bool], what: str) -> str:
    found = next((rel for rel in files if (t := read(rel)) is not None and test(t)), None)
    if found is None:
        raise MpsgenError(f"no file among {', '.join(files)} defines {what}, the sibling to model on",
                          path=LIBRARY_HEADER_REL, line=1, hint="add the ternary host API by hand")
    return found


def _ternary_alpha(read: Callable[[str], str | None]) -> list[Edit]:
    definer = _definer(read, host_api_extend.DEFINITION_FILES, host_api_extend.defines_sibling,
                       "MetalShaderLibrary::exec_ternary_kernel(iter, name)")
    return [
        (LIBRARY_HEADER_REL, host_api_extend.add_declaration,
         "exec_ternary_kernel(iter, name, alpha, scalar_arg_type) declared beside exec_ternary_kernel(iter, name)"),
        (definer, host_api_extend.add_definition,
         "exec_ternary_kernel(iter, name, alpha, scalar_arg_type) defined after exec_ternary_kernel(iter, name), "
         "with exec_binary_kernel's alpha path"),
        _METAL,
    ]


def _ternary_params(read: Callable[[str], str | None]) -> list[Edit]:
    sibling_file = _definer(read, host_api_extend.DEFINITION_FILES, host_api_extend.defines_sibling,
                            "MetalShaderLibrary::exec_ternary_kernel(iter, name)")
    sibling = host_api_extend.ternary_definition(str(read(sibling_file)), sibling_file)
    files = (host_api_extend.HEADER_DEFINITIONS, *host_api_extend.DEFINITION_FILES)
    definer = _definer(read, files, lambda t: bool(host_api_extend.find_callables(
        t, host_api_extend.BINARY_PARAMS, qualified=True)), f"MetalShaderLibrary::{host_api_extend.BINARY_PARAMS}")
    return [
        (LIBRARY_HEADER_REL, host_api_extend.add_params_declaration,
         "exec_ternary_kernel_with_params<T>(iter, name, params, params_type_name) declared after its binary sibling"),
        (definer, lambda text, rel: host_api_extend.add_params_definition(text, rel, sibling, sibling_file),
         f"exec_ternary_kernel_with_params<T> defined after exec_binary_kernel_with_params: {sibling_file}'s "
         "exec_ternary_kernel(iter, name) with the binary template's params path"),
        _METAL,
    ]


_EXTENSIONS = {"ternary_alpha": _ternary_alpha, "ternary_params": _ternary_params}


def extend(name: str, read: Callable[[str], str | None]) -> Extension:
    """Add the pieces of extension *name* ("ternary_alpha", "ternary_params") the texts lack."""
    if name not in _EXTENSIONS:
        raise MpsgenError(f"no writer for the host API extension '{name}'", hint="write the host API by hand")
    header = read(LIBRARY_HEADER_REL)
    indexing = read(INDEXING_REL)
    if header is None or indexing is None:
        missing = LIBRARY_HEADER_REL if header is None else INDEXING_REL
        raise MpsgenError(f"{missing} not found: no sibling to model the ternary host API on",
                          path=missing, hint="add the ternary host API by hand")
    texts: dict[str, str] = {}
    added: list[str] = []
    for rel, edit, what in _EXTENSIONS[name](read):
        before = texts.get(rel) or read(rel)
        assert before is not None
        after = edit(before, rel)
        if after != before:
            texts[rel] = after
            added.append(f"{rel}: {what}")
    return Extension(texts, tuple(added))
