"""Upstream's two-output kernels in a .metal (2026's UnaryKernel.metal: `frexp_dense<T>` and
`frexp_strided<T>`, writing a mantissa and an exponent, registered as frexp_dense_<T> and
frexp_strided_<T> by a local macro), and the functions their bodies call, lifted out for the numeric
check: the overloads of the function the dense kernel applies to its input and the file's functions
those call (frexp_ and frexp_bits)."""

from __future__ import annotations

import re

from mpsgen.model import Location
from mpsgen.records import NamedTuple
from mpsgen.scan.definitions import function_definitions
from mpsgen.scan.lines import LineTable, line_start
from mpsgen.scan.mask import mask_code

LAYOUTS = ("dense", "strided")
_CALL = re.compile(r"\b([A-Za-z_]\w*)\s*(?:<[^;(){}<>]*>)?\s*\(")  # f(...) or f<T, U>(...)


class TwoOutputKernels(NamedTuple):
    """upstream's kernels of a family writing two outputs, registered for every type in *types*."""

    family: str
    path: str
    line: int  # the first registration
    macro: str  # the macro spelled there (REGISTER_FREXP_OP)
    types: tuple[str, ...]  # Metal input types registered in both layouts
    call: str = ""  # the function the dense kernel applies to each input (frexp_), "" if not found
    helpers: str = ""  # its definitions and those of the file's functions they call, in file order

    @property
    def location(self) -> Location:
        return Location(self.path, self.line)

    def shown(self) -> str:
        return f"{self.macro} at {self.location}"


def find_two_output_kernels(texts: dict[str, str], family: str) -> TwoOutputKernels | None:
    """The registrations `<family>_dense_<T>` and `<family>_strided_<T>` of kernels whose first two
    parameters are `device` buffers (two outputs), None when the files hold none."""
    from mpsgen.sources.metal.names import names_in

    for path, text in texts.items():
        if f"{family}_dense" not in text:
            continue
        found: dict[str, set[str]] = {layout: set() for layout in LAYOUTS}
        first = None
        for name in names_in(text, path):
            for layout in LAYOUTS:
                prefix = f"{family}_{layout}_"
                if name.name.startswith(prefix) and re.fullmatch(r"[a-z0-9]+", name.name[len(prefix):]):
                    found[layout].add(name.name[len(prefix):])
                    first = first or name
        types = tuple(sorted(found["dense"] & found["strided"]))
        kernel = re.search(rf"\bkernel\s+void\s+{family}_dense\s*\(\s*device\s[^,]*,\s*device\s", text)
        if first is None or not types or kernel is None:
            continue
        call, helpers = _lift(text, kernel.start())
        return TwoOutputKernels(family, path, first.line, first.macro, types, call, helpers)
    return None


def _lift(text: str, kernel_at: int) -> tuple[str, str]:
    """The function the kernel at *kernel_at* calls first that the file defines, and the text of its
    definitions plus those of the file's functions they call (templates with their `template <...>`)."""
    masked = mask_code(text)
    spans = function_definitions(masked)
    defined = {s.name for s in spans}
    body = next((s for s in spans if s.start <= kernel_at < s.body_close or s.start > kernel_at), None)
    if body is None:
        return "", ""
    call = next((m.group(1) for m in _CALL.finditer(masked, body.body_open, body.body_close)
                 if m.group(1) in defined), "")
    if not call:
        return "", ""
    wanted, queue = {call}, [call]
    while queue:
        name = queue.pop()
        for s in spans:
            if s.name == name:
                for m in _CALL.finditer(masked, s.body_open, s.body_close):
                    if m.group(1) in defined and m.group(1) not in wanted:
                        wanted.add(m.group(1))
                        queue.append(m.group(1))
    table = LineTable(text)
    pieces = []
    for s in spans:
        if s.name not in wanted:
            continue
        start = line_start(text, s.start)
        previous = line_start(text, max(0, start - 1))
        if start > 0 and masked[previous:start].lstrip().startswith("template"):
            start = previous
        end = table.starts[table.line(s.body_close)] if table.line(s.body_close) < len(table.starts) else len(text)
        pieces.append(text[start:end])
    return call, "".join(pieces)


def strided_takes_shape_strides_ndim(text: str, family: str) -> bool:
    """`kernel void <family>_strided(out0, out1, in, sizes, 3 strides, uint ndim, index)` in *text*: the
    parameters a host helper binding the iterator's two outputs and input passes."""
    m = re.search(rf"\bkernel\s+void\s+{family}_strided\s*\(([^{{]*)\)\s*{{", mask_code(text))
    if m is None:
        return False
    params = [p.strip() for p in m.group(1).split(",")]
    return (len(params) == 9 and all(p.startswith("device") for p in params[:2])
            and all(p.startswith("constant long*") for p in params[3:7]) and params[7].startswith("constant uint&"))
