"""The kernel names a kernels/*.metal file puts into the metallib, in every layout, each with file:line.

A name reaches the library in one of three forms:

* a registration macro of c10/metal (`REGISTER_UNARY_OP(exp, float, float)`, any `REGISTER_*` from a
  header): the host adds a dtype/layout suffix (`exp_dense_float_float`), so the first argument is the name;
* an explicit instantiation `template [[host_name("exp_" #DTYPE0 "_" #DTYPE1)]] kernel void exp_kernel(...)`
  (early-2025 files): the full name is the concatenated string, and the host name is a prefix of it
  followed by dtype/layout words (`exp` for `exp_float_float`);
* a plain `kernel void name(...)`: the name itself.

Macros the file defines itself (`INSTANTIATE_UNARY_KERNELS2`, `REGISTER_SPECIAL`, early-2025
`REGISTER_BINARY_OP(NAME, DTYPE)`) are expanded at each call site, with `#PARAM` stringised and
`A##B` pasted, so a name written as `#NAME` or `"i0_" #DTO` is found.  Each name is located on the
line where it is spelled: the `#define` body line that writes it (`"exp_"`), else the call site
that passes it (`REGISTER_FLOAT_BINARY_OP(hypot)`).  The scan is sources/metal/name_scan.py's (a
macro's body read once per file, each call of plain words filled in).
"""

from __future__ import annotations

from functools import cached_property
from operator import attrgetter
from typing import Iterable

from mpsgen.model import Location
from mpsgen.records import NamedTuple
from mpsgen.sources.metal.name_scan import scan_text

# Words the host appends to a kernel name: Metal dtypes and the layout/variant words of
# OperationUtils.mm ("{name}_{dense|strided}[_cast|_castout|_scalar...]_{outT}_{inT}").
SUFFIX_WORDS = frozenset(
    "float half bfloat long int short char uchar bool float2 half2 uint ushort ulong "
    "dense strided cast castout scalar broadcast ilp lhs rhs "
    "8bit 16bit 32bit 64bit".split()  # 2.7 Indexing.mm's getBitSizeString: masked_fill_scalar_dense_8bit
)


class MetalName(NamedTuple):
    """One name registered in a .metal file."""

    name: str  # the registration macro's first argument, the full host_name string, or the kernel's name
    path: str
    line: int
    macro: str  # the macro spelled on that line (REGISTER_UNARY_OP, INSTANTIATE_UNARY_KERNELS2), "host_name" or "kernel"
    suffixed: bool  # the host appends dtype/layout words to `name` (registration macros, partly resolved host_names)

    @property
    def prefixes(self) -> tuple[str, ...]:
        """Host names that reach this kernel: the name itself, and (for a full host_name) each
        prefix left after dropping trailing dtype/layout words (`exp_float_float` -> `exp_float`, `exp`)."""
        if self.suffixed:
            return (self.name,)
        words = self.name.split("_")
        out = [self.name]
        while len(words) > 1 and words[-1] in SUFFIX_WORDS:
            words.pop()
            out.append("_".join(words))
        return tuple(out)

    @property
    def location(self) -> Location:
        """Where it was found (model.Location renders `path:line`)."""
        return Location(self.path, self.line)


class MetalNames:
    """Every name registered by a set of .metal files (names are global across the metallib)."""

    def __init__(self, names: Iterable[MetalName]) -> None:
        self.names = tuple(names)

    @cached_property
    def by_host_name(self) -> dict[str, tuple[MetalName, ...]]:
        index: dict[str, list[MetalName]] = {}
        for n in self.names:
            for p in n.prefixes:
                index.setdefault(p, []).append(n)
        return {k: tuple(v) for k, v in index.items()}

    def where(self, host_name: str) -> tuple[MetalName, ...]:
        """The registrations a host call `exec_*_kernel(iter, "<host_name>")` can reach (empty: none)."""
        return self.by_host_name.get(host_name, ())


_BY_LINE_AND_NAME = attrgetter("line", "name")


def names_in(text: str, path: str) -> list[MetalName]:
    """The names one .metal text registers, in order, one per (name, line)."""
    return names_and_registrations(text, path)[0]


def names_and_registrations(text: str, path: str) -> tuple[list[MetalName], list[tuple[str, ...]]]:
    """names_in() and all_registrations() of one text, from one scan."""
    found: dict[tuple[str, int], tuple[str, bool]] = {}
    registrations: list[tuple[str, ...]] = []
    scan_text(text, found, registrations)
    names = [MetalName(name, path, line, macro, suffixed) for (name, line), (macro, suffixed) in found.items()]
    return sorted(names, key=_BY_LINE_AND_NAME), [a for a in registrations if len(a) > 1]


def registered_input_types(text: str, path: str, name: str, *, alpha: bool) -> set[str]:
    """The input dtypes (second argument) of every REGISTER_* registration of kernel *name* in one
    .metal text, file-local macros expanded (REGISTER_ROUNDING_OPS(float) registers ceil for float):
    of the alpha forms (REGISTER_*_ALPHA_OP, whose host names end in the alpha's type) or of the others."""
    return {args[2] for args in registrations_of(text, path, name)
            if len(args) > 2 and ("_ALPHA_" in args[0]) == alpha}


def registrations_of(text: str, path: str, name: str) -> list[tuple[str, ...]]:
    """(macro, name, arguments...) of every REGISTER_* registration of kernel *name* in one .metal
    text, file-local macros expanded: REGISTER_UNARY_ALPHA_OP(nan_to_num, half, NanToNumParams_float, half)."""
    return [args for args in all_registrations(text, path) if args[1] == name]


def all_registrations(text: str, path: str) -> list[tuple[str, ...]]:
    """(macro, name, arguments...) of every REGISTER_* registration in one .metal text, file-local
    macros expanded, in file order."""
    registrations: list[tuple[str, ...]] = []
    scan_text(text, {}, registrations)
    return [args for args in registrations if len(args) > 1]
