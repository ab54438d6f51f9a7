"""kernels/*.metal, edited: check a new kernel's name against every file, and insert a functor,
its registrations and includes in the file's own layout.

Editors are pure text -> text and change only the lines they must.  The reading side is
metal_index; its main entry points are re-exported here for callers that only want "metal".
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Iterable

from mpsgen.errors import MpsgenError
from mpsgen.model import KernelSpec, MetalStyle  # noqa: F401  (MetalStyle: re-exported)
from mpsgen.scan.lines import above_comments, plain_lines, split_lines
from mpsgen.scan.mask import mask_code
from mpsgen.sources.metal.index import (  # noqa: F401  (style_of, metal_style, registered_kernel_names: re-exported)
    KERNELS2,
    Functor,
    VEC2,
    MacroDef,
    MetalIndex,
    index_metal,
    is_complex_args,
    metal_style,
    registered_kernel_names,
    split_args,
    style_of,
)
from mpsgen.tree.checkout import KERNELS_REL, newline_of


def normalised(functor_text: str) -> str:
    return re.sub(r"\s+", "", mask_code(functor_text))


def check_kernel_name(indexes: Iterable[MetalIndex], name: str, functor_text: str) -> str:
    """"new" when *name* is free, "reuse" when it is registered with exactly this functor
    (a two-step migration: write nothing); MpsgenError on a clash with a different functor."""
    indexes = list(indexes)
    where = registered_kernel_names(indexes).get(name)
    if not where:
        return "new"
    wanted = normalised(functor_text)
    existing = [(ix.path, f) for ix in indexes if (f := ix.functor(name)) is not None]
    if any(normalised(f.text) == wanted for _, f in existing):
        return "reuse"
    path, line, macro = where[0]
    if existing:
        fpath, f = existing[0]
        raise MpsgenError(
            f"kernel name '{name}' is already registered ({macro} at {path}:{line}) with a different {name}_functor",
            path=fpath,
            line=f.line,
            hint="kernel names are global across all .metal files: rename or delete the existing kernel, or pass an --expr that makes the bodies identical to reuse it",
        )
    raise MpsgenError(
        f"kernel name '{name}' is already registered by {macro}",
        path=path,
        line=line,
        hint="kernel names are global across all .metal files: rename or delete the existing registration first",
    )


def same_functor(found: Functor, functor_text: str) -> bool:
    """Whether an indexed functor is *functor_text* (whitespace aside)."""
    return normalised(found.text) == normalised(functor_text)


def metal_file_for(mm: str | Path) -> str:
    """kernels/<Stem>.metal for operations/<Stem>.mm (JIT-shader builds see only that file)."""
    return f"{KERNELS_REL}/{Path(str(mm)).stem}.metal"


# -- editing -------------------------------------------------------------------------------


def insert_lines(lines: list[str], after: int, new: list[str], nl: str) -> list[str]:
    """Insert *new* (without newlines) after 1-based line *after* (0 = at the top)."""
    out = list(lines)
    if after > 0 and after == len(out) and not out[-1].endswith(("\n", "\r")):
        out[-1] += nl  # the file lacked a final newline; the new last line keeps that habit
        block = [s + nl for s in new]
        block[-1] = block[-1][: -len(nl)]
    else:
        block = [s + nl for s in new]
    out[after:after] = block
    return out


def plan_metal_addition(
    text: str, path: str | Path, spec: "KernelSpec", functor_text: str, registrations: list[str],
    *, available_macros: frozenset[str] | None = None, after_functor: Iterable[str] = (),
) -> str:
    """Add the functor, its registrations and needed includes in the file's layout; *after_functor*
    lines (a params form's typedefs) go right after the functor.

    Refuses a file it cannot scan, a layout it cannot write (metal_layout.require_writable) and,
    when *available_macros* (those of the checkout's c10/metal headers) is given, a registration
    macro neither they nor the file define.  Idempotent: an identical functor or registration
    already present is not written again.
    """
    from mpsgen.sources.index import require_scannable
    from mpsgen.sources.metal.layout import require_writable

    path = str(path)
    require_scannable(path, text)
    require_writable(index_metal(text, path), registrations, available_macros)
    nl = newline_of(text)
    text = add_includes(text, path, spec.includes, nl)
    text = _add_functor(text, path, spec, functor_text, nl)
    text = _add_after_functor(text, path, spec, list(after_functor), nl)
    for line in registrations:
        text = _add_registration(text, path, spec, line, nl)
    return text


def add_includes(text: str, path: str, headers: Iterable[str], nl: str) -> str:
    for header in headers:
        index = index_metal(text, path)
        if any(h == header for h, _ in index.includes):
            continue
        if not index.includes:
            raise MpsgenError("no #include lines to extend", path=path, line=1,
                              hint=f"add #include <{header}> by hand")
        # Keep its group sorted (the includes under the same top folder, c10/ or ATen/): before the first
        # header of the group that sorts after the new one.
        top = header.split("/", 1)[0] + "/"
        group = [(h, ln) for h, ln in index.includes if h.startswith(top)] or list(index.includes)
        later = [ln for h, ln in group if h > header]
        after = later[0] - 1 if later else group[-1][1]
        text = "".join(insert_lines(split_lines(text), after, [f"#include <{header}>"], nl))
    return text


def add_include(text: str, path: str, header: str) -> str:
    """*text* with ``#include <header>`` among its includes (sorted into place), unless there."""
    return add_includes(text, path, [header], newline_of(text))


def _add_after_functor(text: str, path: str, spec: "KernelSpec", lines_after: list[str], nl: str) -> str:
    """Lines that belong right after the functor (a params form's typedefs), those not there yet."""
    index = index_metal(text, path)
    missing = [ln for ln in lines_after if ln not in text]
    functor = index.functor(spec.name)
    if not missing or functor is None:
        return text
    return "".join(insert_lines(split_lines(text), functor.end_line, ["", *missing], nl))


def existing_functor(index: MetalIndex, name: str, functor_text: str) -> Functor | None:
    """The file's `<name>_functor` when it is *functor_text* (whitespace aside), None when it has none;
    refused when it has one with another body."""
    existing = index.functor(name)
    if existing is not None and normalised(existing.text) != normalised(functor_text):
        raise MpsgenError(f"{name}_functor already exists here with a different body", path=index.path,
                          line=existing.line, hint="delete or rename the old functor first")
    return existing


def _add_functor(text: str, path: str, spec: "KernelSpec", functor_text: str, nl: str) -> str:
    index = index_metal(text, path)
    if existing_functor(index, spec.name, functor_text) is not None:
        return text
    lines = split_lines(text)
    body = plain_lines(functor_text)
    structs = [f for f in index.functors if f.macro is None]
    if spec.is_unary_family:
        first_reg = min(
            [c.line for c in index.top_level_calls() if c.macro.startswith(("REGISTER_", "INSTANTIATE_"))]
            + [d.line for d in index.defines if d.name.startswith(("REGISTER_", "INSTANTIATE_"))]
            + [10**9]
        )
        before = [f for f in structs if f.end_line < first_reg]
        if before:
            return "".join(insert_lines(lines, before[-1].end_line, ["", *body], nl))
        if first_reg < 10**9:
            return "".join(insert_lines(lines, above_comments(lines, first_reg) - 1, [*body, ""], nl))
    else:
        local = [d for d in index.defines if d.name.startswith("REGISTER_")]
        if local:
            return "".join(insert_lines(lines, above_comments(lines, local[0].line) - 1, [*body, ""], nl))
        if structs:
            return "".join(insert_lines(lines, structs[-1].end_line, ["", *body], nl))
    raise MpsgenError(
        "cannot tell where functors go in this .metal file (no functor and no registration found)",
        path=path,
        line=1,
        hint="add the functor by hand, or point mpsgen at the .metal that matches the .mm",
    )


def _present(index: MetalIndex, reg: str, where: str | None) -> bool:
    want = normalised(reg.rstrip(";"))
    return any(normalised(c.text) == want and c.in_define == where for c in index.calls)


def _add_registration(text: str, path: str, spec: "KernelSpec", reg: str, nl: str) -> str:
    index = index_metal(text, path)
    if "DTYPE1, DTYPE0" in reg or "DTYPE##2" in reg:
        macro = KERNELS2 if "DTYPE1, DTYPE0" in reg else VEC2
        if _present(index, reg, macro):
            return text
        d = index.define(macro)
        if d is None:
            raise MpsgenError(f"#define {macro} not found", path=path, line=1,
                              hint="render registrations with this file's style (metal_style)")
        return _add_to_macro(text, path, d, reg, nl)
    if _present(index, reg, None):
        return text
    lines = split_lines(text)
    top = index.top_level_calls()
    if spec.arity == "binary" and is_complex_args(split_args(reg[reg.index("(") + 1 : reg.rindex(")")])):
        block = index.complex_block
        if block is not None:
            return "".join(insert_lines(lines, block[1], [reg], nl))
    if spec.inputs > 1:
        family = {"binary_alpha": "BINARY_ALPHA", "binary_params": "BINARY_ALPHA", "ternary_params": "TERNARY_ALPHA", "ternary": "TERNARY",
                  "ternary_alpha": "TERNARY_ALPHA"}.get(spec.arity)
        same = [c for c in top if family and family in c.macro]
        if same:
            return "".join(insert_lines(lines, same[-1].end_line, [reg], nl))
        block = index.plain_block
        if block is not None:
            return "".join(insert_lines(lines, block[1], [reg], nl))
        raise MpsgenError("no REGISTER_*_BINARY_OP registration run found", path=path, line=1,
                          hint="is this the BinaryKernel-style .metal that matches the .mm?")
    # Unary: explicit lines form their own block after the last one of their kind.
    kind = "REGISTER_UNARY_OP" if spec.arity == "unary" else "REGISTER_UNARY_ALPHA_OP"
    name = reg[reg.index("(") + 1 :].split(",")[0].strip()
    mine = [c for c in top if c.macro == kind and c.args and c.args[0] == name]
    if mine:
        return "".join(insert_lines(lines, mine[-1].end_line, [reg], nl))
    kernels2 = index.define(KERNELS2)
    same = [c for c in top if c.macro == kind and (kernels2 is None or kind != "REGISTER_UNARY_OP"
                                                    or c.line < kernels2.line)]
    if same:
        return "".join(insert_lines(lines, same[-1].end_line, ["", reg], nl))
    if kernels2 is not None and kind == "REGISTER_UNARY_OP":
        return "".join(insert_lines(lines, above_comments(lines, kernels2.line) - 1, [reg, ""], nl))
    regs = [c for c in top if c.macro.startswith(("REGISTER_", "INSTANTIATE_"))]
    if regs:
        return "".join(insert_lines(lines, regs[-1].end_line, ["", reg], nl))
    raise MpsgenError("no registration lines found to place the new ones next to", path=path, line=1,
                      hint="is this the .metal that matches the .mm?")


def _add_to_macro(text: str, path: str, d: MacroDef, reg: str, nl: str) -> str:
    """Insert *reg* as the second-to-last body line of a multi-line #define and re-align backslashes."""
    lines = split_lines(text)
    if d.end_line == d.line:
        raise MpsgenError(f"{d.name} is a one-line macro; mpsgen expects a multi-line body",
                          path=path, line=d.line, hint="split it one registration per line")
    span = lines[d.line - 1 : d.end_line]
    ending = [s[len(s.rstrip("\r\n")) :] for s in span]
    bodies = [s.rstrip("\r\n") for s in span]
    # Content without the trailing backslash, and the column the backslashes sit at now.
    content = [re.sub(r"\s*\\$", "", b) for b in bodies]
    cols = {len(b) - 1 for b in bodies[:-1]}
    indent = re.match(r"\s*", content[-1]).group(0) or "  "  # type: ignore[union-attr]
    uses_semi = any(c.rstrip().endswith(";") for c in content[1:-1]) or content[-1].rstrip().endswith(";")
    new = indent + (reg if uses_semi else reg.rstrip(";"))
    content = content[:-1] + [new] + content[-1:]
    ending = ending[:-1] + [nl] + ending[-1:]
    longest = max(len(c) for c in content[:-1])
    if len(cols) == 1 and (col := cols.pop()) > longest:
        width = col  # existing alignment column still fits: leave other lines untouched
    else:
        width = longest + 1
    out = [c.ljust(width) + "\\" if k < len(content) - 1 else c for k, c in enumerate(content)]
    lines[d.line - 1 : d.end_line] = [o + e for o, e in zip(out, ending)]
    return "".join(lines)
