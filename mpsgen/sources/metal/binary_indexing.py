"""Write a binary kernel into an early-2025 BinaryKernel.metal (PyTorch 2.6-2.7).

That file registers functors with its own ``REGISTER_BINARY_INDEXING_OP(NAME, DTYPE)`` (one line
per input type: a strided ``NAME_DTYPE`` and a ``NAME_dense_DTYPE`` kernel whose output type is
the functor's result), bfloat lines in an ``#if __METAL_VERSION__ >= 310`` block, and BinaryKernel.mm
runs them with its ``binary_mps_impl(iter, "NAME")``.  The functor goes after the file's last
functor, the plain lines after the last plain line, the bfloat ones at the end of that block.
"""

from __future__ import annotations

import re

from mpsgen.errors import MpsgenError
from mpsgen.model import KernelSpec
from mpsgen.scan.lines import split_lines
from mpsgen.sources.metal.edit import add_includes, existing_functor, insert_lines, newline_of
from mpsgen.sources.metal.index import MetalIndex, index_metal
from mpsgen.sources.metal.layout import BINARY_INDEXING_MACRO

MACRO = BINARY_INDEXING_MACRO
ALPHA_MACRO = "REGISTER_BINARY_ALPHA_INDEXING_OP"  # added by the change (backfill/binary_alpha_metal)
# three inputs, added by the change (backfill/ternary_metal)
TERNARY_MACRO, TERNARY_ALPHA_MACRO = "REGISTER_TERNARY_INDEXING_OP", "REGISTER_TERNARY_ALPHA_INDEXING_OP"
TERNARY_COND_MACRO = "REGISTER_TERNARY_COND_INDEXING_OP"  # where's (backfill/ternary_cond)
_MACROS = (MACRO, ALPHA_MACRO, TERNARY_MACRO, TERNARY_ALPHA_MACRO, TERNARY_COND_MACRO)


def registrations(spec: KernelSpec) -> list[str]:
    """One line per input type, in the file's order (float types, then integers), bfloat last; a kernel
    with scalars names the type they reach it in (backfill/binary_alpha_metal's macro)."""
    from mpsgen.generate.render import input_types

    types = input_types(spec)
    ternary = spec.arity.startswith("ternary")
    if spec.scalars:
        args = {t: f"{t}, {alpha_type(spec, t)}" for t in types}
        lines = [f"{TERNARY_ALPHA_MACRO if ternary else ALPHA_MACRO}({spec.name}, {args[t]});" for t in types]
    elif ternary and spec.bool_inputs:  # where: the condition's type named first (backfill/ternary_cond)
        lines = [f"{TERNARY_COND_MACRO}({spec.name}, bool, {t});" for t in types]
    else:
        lines = [f"{TERNARY_MACRO if ternary else MACRO}({spec.name}, {t});" for t in types]
    return [ln for ln, t in zip(lines, types) if t != "bfloat"] + [ln for ln, t in zip(lines, types) if t == "bfloat"]


def alpha_type(spec: KernelSpec, metal_type: str) -> str:
    """What the scalars of a kernel reading *metal_type* arrive in: the scalar's type (its opmath
    type, float, for half and bfloat when the CPU computes there), or the op's params struct of it."""
    from mpsgen.generate.render import INT_TYPES, scalar_type_for

    if "int2float" in spec.dtypes and metal_type in INT_TYPES:
        raise MpsgenError(f"{spec.name} reads integers as float and takes scalars: mpsgen writes that kernel on "
                          "this checkout for floating inputs only", hint="pass --drop-dtypes for the integer types, "
                          "or write the kernel by hand")
    scalar = scalar_type_for(spec, metal_type)
    return f"{spec.params_struct}<{scalar}>" if spec.has_params else scalar


def _bfloat_block(lines: list[str], index: MetalIndex) -> tuple[int, int] | None:
    """1-based (#if, #endif) lines of the `#if __METAL_VERSION__ >= 310` block that holds the file's bfloat
    registrations and nothing but registrations; None when there is no such block."""
    registered = [c for c in index.top_level_calls() if c.macro in _MACROS]
    calls = [c for c in registered if "bfloat" in c.args[1:2]]
    if not calls:
        return None
    # a registration clang-format wrapped (a long params struct name) spans several lines
    covered = {k for c in registered for k in range(c.line, c.end_line + 1)}

    def past_registrations(k: int, step: int) -> int:
        while 1 <= k <= len(lines) and (not lines[k - 1].strip() or k in covered):
            k += step
        return k

    start, end = past_registrations(calls[0].line - 1, -1), past_registrations(calls[-1].end_line + 1, 1)
    if not (1 <= start and end <= len(lines)):
        return None
    opens = re.fullmatch(r"#\s*if\s+__METAL_VERSION__\s*>=\s*310", lines[start - 1].strip())
    closes = re.match(r"#\s*endif\b", lines[end - 1].strip())
    return (start, end) if opens and closes else None


def add_binary_kernel(text: str, path: str, spec: KernelSpec, functor: str, before_functor: str = "") -> str:
    """*text* with spec's functor (after *before_functor*: the params struct it takes) and its
    REGISTER_BINARY_INDEXING_OP lines; unchanged when all are there."""
    nl = newline_of(text)
    index = index_metal(text, path)
    existing = existing_functor(index, spec.name, functor)
    text = add_includes(text, path, spec.includes, nl)
    index = index_metal(text, path)
    lines = split_lines(text)
    if existing is None:
        first_define = min((d.line for d in index.defines), default=len(lines) + 1)
        structs = [f for f in index.functors if f.macro is None and f.end_line < first_define]
        if not structs:
            raise MpsgenError("no functor before the file's macros to place a new one after", path=path, line=1,
                              hint="add the functor by hand")
        head = ["", *before_functor.split("\n")] if before_functor else []
        lines = insert_lines(lines, structs[-1].end_line, [*head, "", *functor.split("\n")], nl)
        index = index_metal("".join(lines), path)
    present = {re.sub(r"\s+", "", c.text) for c in index.top_level_calls() if c.macro in _MACROS}
    wanted = [r for r in registrations(spec) if re.sub(r"\s+|;", "", r) not in present]
    bfloat = [r for r in wanted if re.search(r"\(\s*\w+\s*,\s*bfloat\s*[,)]", r)]
    plain = [r for r in wanted if r not in bfloat]
    block = _bfloat_block(lines, index)
    if bfloat:
        if block is None:
            raise MpsgenError(f"no `#if __METAL_VERSION__ >= 310` block of bfloat {MACRO} lines", path=path, line=1,
                              hint="add the bfloat registration by hand, or pass --drop-dtypes bfloat16")
        lines = insert_lines(lines, block[1] - 1, bfloat, nl)
    if plain:
        before = block[0] if block is not None else len(lines) + 1
        runs = [c for c in index.top_level_calls() if c.macro in _MACROS and c.line < before]
        if not runs:
            raise MpsgenError(f"no {MACRO} lines to place the new ones after", path=path, line=1,
                              hint="add the registrations by hand")
        lines = insert_lines(lines, runs[-1].end_line, plain, nl)
    return "".join(lines)
