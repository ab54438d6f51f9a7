"""Which layout a kernels/*.metal file is written in, and whether mpsgen may write into it.

PyTorch has registered Metal kernels in several ways since c10/metal appeared.  Readers accept
every one; writers write only the forms they can write correctly and refuse the others with the
file, the line where the layout shows, its name and what to do.
"""

from __future__ import annotations

import re
from typing import Iterable

from mpsgen.errors import MpsgenError
from mpsgen.model import MetalLayout
from mpsgen.records import NamedTuple
from mpsgen.sources.metal.index import BUILTIN_REGISTER_MACROS, KERNELS2, VEC2, MacroDef, MetalIndex


# What each layout looks like, and when PyTorch wrote it (in messages).
DESCRIPTIONS: dict[MetalLayout, str] = {
    "TEMPLATE_HOST_NAME": "template kernels instantiated by `template [[host_name(...)]]` lines in INSTANTIATE_* "
                          "macros (early 2025)",
    "BINARY_INDEXING": ("functors registered by the file's own REGISTER_BINARY_INDEXING_OP(NAME, DTYPE), run by "
                        "BinaryKernel.mm's binary_mps_impl (early 2025)"),
    "FUNCTOR_LOCAL_MACROS": "functors registered by REGISTER_* macros #defined in the file itself (early 2025)",
    "FUNCTOR_REGISTER": ("functors registered by c10/metal's REGISTER_*_OP (directly, in INSTANTIATE_UNARY_KERNELS2/"
                         "_VEC2 or in dtype-group macros such as REGISTER_FLOAT_BINARY_OP) (late 2025)"),
    "FUNCTOR_REGISTER_WITH_TEMPLATES": ("FUNCTOR_REGISTER beside hand-written template kernels instantiated by "
                                        "`template [[host_name(...)]]` in their own macros (2026)"),
    "UNKNOWN": "no functor and no registration macro recognised",
}
BINARY_INDEXING_MACRO = "REGISTER_BINARY_INDEXING_OP"


def writable(layout: MetalLayout) -> bool:
    """False for a layout whose REGISTER_* kernels mpsgen cannot write (TEMPLATE_HOST_NAME takes plain
    unary kernels through sources/metal/host_name.py).  UNKNOWN is left to the placement code, which
    refuses when it finds no functor or registration to place new ones next to."""
    return layout != "TEMPLATE_HOST_NAME"


class LayoutFound(NamedTuple):
    layout: MetalLayout
    line: int  # where the layout shows (the first line of its evidence)
    evidence: str


def _in(d: MacroDef, lines: Iterable[int]) -> list[int]:
    return [ln for ln in lines if d.line <= ln <= d.end_line]


def layout_of(index: MetalIndex) -> LayoutFound:
    """The layout of one indexed .metal file."""
    d = index.define(BINARY_INDEXING_MACRO)
    if d is not None and d.params is not None and len(d.params) == 2:  # 2.7's BinaryKernel.metal
        return LayoutFound("BINARY_INDEXING", d.line, f"#define {BINARY_INDEXING_MACRO}(NAME, DTYPE) in the file")
    for name in (KERNELS2, VEC2):
        d = index.define(name)
        if d is not None and (hits := _in(d, index.host_name_lines)):
            return LayoutFound("TEMPLATE_HOST_NAME", hits[0], f"`template [[host_name(...)]]` inside {name}")
    local = [d for d in index.defines if d.name in BUILTIN_REGISTER_MACROS]
    if local:
        return LayoutFound("FUNCTOR_LOCAL_MACROS", local[0].line, f"#define {local[0].name} in the file")
    builtin = [c for c in index.calls if c.macro in BUILTIN_REGISTER_MACROS]
    if builtin:
        if index.host_name_lines:
            return LayoutFound("FUNCTOR_REGISTER_WITH_TEMPLATES", index.host_name_lines[0],
                               "`template [[host_name(...)]]` kernels beside functors")
        return LayoutFound("FUNCTOR_REGISTER", builtin[0].line, f"{builtin[0].macro}(...)")
    if index.host_name_lines:
        return LayoutFound("TEMPLATE_HOST_NAME", index.host_name_lines[0], "`template [[host_name(...)]]`")
    return LayoutFound("UNKNOWN", 1, "no functor registration")


def macros_defined(header_texts: Iterable[str]) -> frozenset[str]:
    """Function-like macros #defined in c10/metal headers (what a .metal file may invoke)."""
    names: set[str] = set()
    for text in header_texts:
        names.update(re.findall(r"^[ \t]*#[ \t]*define[ \t]+(\w+)\(", text, re.M))
    return frozenset(names)


def require_writable(index: MetalIndex, registrations: list[str], available: frozenset[str] | None) -> LayoutFound:
    """Refuse (MpsgenError) to write *registrations* into a layout, a macro body or with a macro
    mpsgen cannot write correctly; returns the layout found otherwise."""
    found = layout_of(index)
    if not writable(found.layout):
        raise MpsgenError(
            f"layout {found.layout} ({found.evidence}, {DESCRIPTIONS[found.layout].rsplit('(', 1)[-1]}; "
            "mpsgen writes plain unary kernels (one tensor, no scalar) there, and this one is not",
            path=index.path, line=found.line,
            hint="write this kernel and its instantiations by hand in the file's own style, "
                 "or use a checkout whose kernels are functors (late 2025 or newer)",
        )
    local = {d.name for d in index.defines}
    for reg in registrations:
        macro = reg.strip().split("(", 1)[0].strip()
        if available is not None and macro not in local and macro not in available:
            raise MpsgenError(
                f"{macro} is neither #defined in {index.path} nor in this checkout's c10/metal headers "
                f"(layout {found.layout})",
                path=index.path, line=found.line,
                hint=f"this PyTorch predates {macro}; register the kernel by hand with the file's own macros",
            )
        target = KERNELS2 if "DTYPE1, DTYPE0" in reg else VEC2 if "DTYPE##2" in reg else None
        d = index.define(target) if target else None
        if d is None:
            continue
        foreign = [c for c in index.calls_in(d.name) if not c.macro.startswith("REGISTER_")]
        if _in(d, index.host_name_lines) or foreign:
            line = (_in(d, index.host_name_lines) or [foreign[0].line])[0]
            raise MpsgenError(
                f"#define {d.name} holds statements other than REGISTER_* lines; mpsgen will not insert "
                f"`{reg.strip()}` among them (layout {found.layout})",
                path=index.path, line=line,
                hint=f"add the registration to {d.name} by hand",
            )
    return found
