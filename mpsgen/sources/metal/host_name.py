"""Write a unary kernel into an early-2025 TEMPLATE_HOST_NAME .metal (PyTorch 2.6-2.7 UnaryKernel.metal).

An op whose instances are exactly those of the file's ``INSTANTIATE_UNARY_KERNELS2`` calls (bfloat,
half, float, and every integer -> float) joins that macro, its complex kernel joins
``INSTANTIATE_UNARY_KERNELS_VEC2``, and its functor and kernels go right above the macro.  Any
other list gets macros of its own at the end of the file, as 2.7's sinc and round_decimals have.
Entries copy the parameter lines of the macro's first entry, so they are in the file's own words.
"""

from __future__ import annotations

import re

from mpsgen.errors import MpsgenError
from mpsgen.generate import template_kernel as tk
from mpsgen.model import KernelSpec
from mpsgen.records import NamedTuple
from mpsgen.scan.lines import above_comments, split_lines
from mpsgen.sources.metal.edit import add_includes, existing_functor, insert_lines, newline_of
from mpsgen.sources.metal.index import KERNELS2, VEC2, MacroDef, MetalIndex, index_metal

_HOST_NAME = re.compile(r'host_name\("(\w+?)_(complex_)?"\s*#\s*(\w+)\s*"_"\s*#\s*(\w+)\)')


class _Entry(NamedTuple):
    """One `template [[host_name(...)]]` declaration inside a macro: its op, its line span (1-based) and
    its lines without the trailing backslashes."""

    op: str
    first: int
    last: int
    lines: list[str]


def _content(line: str) -> str:
    return re.sub(r"\s*\\$", "", line.rstrip("\r\n"))


def _entries(lines: list[str], d: MacroDef, path: str) -> list[_Entry]:
    out: list[_Entry] = []
    start = None
    for ln in range(d.line + 1, d.end_line + 1):
        text = _content(lines[ln - 1])
        if "[[host_name(" in text:
            start = ln
        if start is not None and text.rstrip().endswith((";", ")")) and "thread_position_in_grid" in text:
            head = " ".join(_content(lines[k - 1]) for k in range(start, ln + 1))
            m = _HOST_NAME.search(head)
            if m is None:
                raise MpsgenError(f"a `template [[host_name(...)]]` entry of {d.name} that mpsgen cannot read",
                                  path=path, line=start, hint=f"add the instantiation to {d.name} by hand")
            out.append(_Entry(m.group(1), start, ln, [_content(lines[k - 1]) for k in range(start, ln + 1)]))
            start = None
    return out


def _new_entry(spec: KernelSpec, model: _Entry, complex_: bool, path: str) -> list[str]:
    """The model entry with spec's op: its host_name arguments and parameter lines unchanged."""
    head = " ".join(model.lines)
    m = _HOST_NAME.search(head)
    assert m is not None
    fn = re.search(rf"\b{re.escape(model.op)}(_complex)?_kernel(<\s*\w+\s*>)?\s*\(", head)
    params = [ln for ln in model.lines if "[[buffer(" in ln or "thread_position_in_grid" in ln]
    if fn is None or len(params) != 3 or bool(fn.group(1)) != complex_:
        raise MpsgenError(f"the `{model.op}` entry is not the shape mpsgen copies (a {model.op}"
                          f"{'_complex' if complex_ else ''}_kernel of one output, one input and the thread index)",
                          path=path, line=model.first, hint="add the instantiation by hand")
    prefix = f"{spec.name}_complex_" if complex_ else f"{spec.name}_"
    function = f"{spec.name}{fn.group(1) or ''}_kernel{(fn.group(2) or '').replace(' ', '')}"
    indent = re.match(r"\s*", model.lines[0]).group(0)  # type: ignore[union-attr]
    return [*tk.declaration_head(prefix, m.group(3), m.group(4), function, indent), *params]


def _add_to_macro(lines: list[str], d: MacroDef, spec: KernelSpec, complex_: bool, path: str, nl: str) -> list[str]:
    entries = _entries(lines, d, path)
    if not entries:
        raise MpsgenError(f"#define {d.name} has no `template [[host_name(...)]]` entry to follow", path=path,
                          line=d.line, hint="add the instantiation by hand")
    new = _new_entry(spec, entries[0], complex_, path)
    ops = [e.op for e in entries]
    later = [e for e in entries if e.op > spec.name] if ops == sorted(ops) else []
    body = [_content(lines[k - 1]) for k in range(d.line, d.end_line + 1)]
    at = (later[0].first if later else entries[-1].last + 1) - d.line
    body[at:at] = new
    ends = [b for b in lines[d.line - 1 : d.end_line - 1] if b.rstrip("\r\n").endswith("\\")]
    column = len(ends[0].rstrip("\r\n")) - 1 if ends and len({len(b.rstrip("\r\n")) for b in ends}) == 1 else None
    aligned = tk.align_backslashes(body, column)
    last_end = lines[d.end_line - 1][len(lines[d.end_line - 1].rstrip("\r\n")):]
    out = list(lines)
    out[d.line - 1 : d.end_line] = [a + nl for a in aligned[:-1]] + [aligned[-1] + last_end]
    return out


def _kernels2_pairs(index: MetalIndex) -> set[tuple[str, str]]:
    return {(c.args[0], c.args[1]) for c in index.top_level_calls() if c.macro == KERNELS2 and len(c.args) == 2}


def joins_kernels2(spec: KernelSpec, index: MetalIndex) -> bool:
    """Whether spec's scalar instances are exactly those INSTANTIATE_UNARY_KERNELS2 is called with."""
    wanted = {(i.out, i.inp) for i in tk.instances(spec) if not i.complex_}
    return index.define(KERNELS2) is not None and bool(wanted) and wanted == _kernels2_pairs(index) \
        and not spec.scalars  # the macro's kernels take no scalar argument


def _vec2_serves_float(index: MetalIndex) -> bool:
    return any(c.macro == VEC2 and c.args and c.args[-1] == "float" for c in index.top_level_calls())


def registered(spec: KernelSpec, text: str) -> bool:
    """Whether the file already instantiates spec's first host name (a re-run)."""
    inst = tk.instances(spec)[0]
    middle = "complex_" if inst.complex_ else ""
    return f'host_name("{spec.name}_{middle}"' in text


def add_template_kernel(text: str, path: str, spec: KernelSpec, functor: str) -> str:
    """*text* with spec's functor, template kernel(s) and instantiations; unchanged when all are there."""
    index = index_metal(text, path)
    if existing_functor(index, spec.name, functor) is not None and registered(spec, text):
        return text
    for kernel in (f"{spec.name}_kernel", f"{spec.name}_complex_kernel"):
        if m := re.search(rf"kernel\s+void\s+{kernel}\s*\(", text):
            raise MpsgenError(f"{kernel} is already defined here", path=path, line=text.count("\n", 0, m.start()) + 1,
                              hint="delete or rename the old kernel first")
    nl = newline_of(text)
    text = add_includes(text, path, spec.includes, nl)
    index = index_metal(text, path)
    lines = split_lines(text)
    scalar = any(fam != "complex" for fam in spec.dtypes)
    # VEC2's entries write complex: a complex -> bool kernel gets a macro of its own
    in_vec2 = ("complex" in spec.dtypes and spec.result != "bool" and index.define(VEC2) is not None
               and _vec2_serves_float(index))
    if scalar and not joins_kernels2(spec, index):
        return _append_own_block(lines, spec, functor, nl)
    if "complex" in spec.dtypes and not in_vec2:
        return _append_own_block(lines, spec, functor, nl)
    # Above the first instantiating macro (its comments stay with it), functor then kernels.
    anchor = index.define(KERNELS2) if scalar else index.define(VEC2)
    assert anchor is not None
    block = "\n\n".join([functor, *tk.kernels(spec)]).split("\n")
    lines = insert_lines(lines, above_comments(lines, anchor.line) - 1, [*block, ""], nl)
    for name, complex_ in ((KERNELS2, False), (VEC2, True)):
        if (complex_ and "complex" in spec.dtypes) or (not complex_ and scalar):
            d = index_metal("".join(lines), path).define(name)
            assert d is not None
            lines = _add_to_macro(lines, d, spec, complex_, path, nl)
    return "".join(lines)


def _append_own_block(lines: list[str], spec: KernelSpec, functor: str, nl: str) -> str:
    last = max((k + 1 for k, ln in enumerate(lines) if ln.strip()), default=0)
    return "".join(insert_lines(lines, last, ["", *tk.own_block(spec, functor)], nl))
