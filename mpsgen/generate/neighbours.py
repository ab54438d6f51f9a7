"""How the checkout already writes ops of the kind being added, read before rendering, so the new op is
written as its neighbours are:

* registrations: the target .metal's own one-parameter macros (`#define REGISTER_COMPARISON_OP(NAME)`,
  `REGISTER_FLOAT_BINARY_OP(NAME)`, ...) replace the explicit REGISTER_* lines they expand to, exactly:
  a macro is used only when every registration it makes is one the plan asks for, so it never
  registers a dtype the plan does not;
* the host call of a kernel returning bool: the arguments the file's own bool kernels pass after the
  kernel name (`std::nullopt, std::nullopt, kBool, kCmpILPThreshold`), else, when MetalShaderLibrary.h's
  exec_binary_kernel takes the kernel's natural output dtype (comparisons "must pass kBool"), kBool there;
* the params struct's header: the kernels/*.h the checkout keeps the params of that kind of op in
  (kernels/Activation.h holds ELUParams; threshold's stub is declared in native/Activation.h), else the
  kernel file's own kernels/<Stem>.h.

Pure functions of texts: the planner gathers them.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from pathlib import PurePosixPath

from mpsgen.records import NamedTuple
from mpsgen.scan.brackets import match_close, split_bounds, split_top_level
from mpsgen.scan.mask import mask_code
from mpsgen.sources.host.api import HostApi

_DEFINE = re.compile(r"^[ \t]*#[ \t]*define[ \t]+(REGISTER_\w+)\((\w+)\)[ \t]*((?:.*\\\r?\n)*.*)$", re.M)
_CALL = re.compile(r"^\s*([A-Z_][A-Z0-9_]*)\s*\((.*)\)\s*$", re.S)
_EXEC_CALL = re.compile(r"\bexec_(binary|unary)_kernel\s*\(")
_PARAMS_STRUCT = re.compile(r"\bstruct\s+\w+Params\b")
NAME = "\0NAME\0"  # the macro parameter, in an expansion


class Registration(NamedTuple):
    macro: str
    args: tuple[str, ...]


def _registration(text: str) -> Registration | None:
    m = _CALL.match(text.strip().rstrip(";"))
    if m is None:
        return None
    return Registration(m.group(1), tuple(" ".join(a.split()) for a in split_top_level(m.group(2))))


def register_macros(metal_text: str) -> dict[str, frozenset[Registration]]:
    """The file's one-parameter REGISTER_* macros whose bodies are only registration calls (of c10/metal's
    macros or of each other), each with the registrations it makes, its parameter as NAME."""
    bodies: dict[str, list[Registration]] = {}
    for m in _DEFINE.finditer(metal_text):
        name, param, body = m.group(1), m.group(2), re.sub(r"\\\r?\n", " ", m.group(3))
        calls = [_registration(s) for s in body.split(";") if s.strip()]
        if not calls or any(c is None for c in calls):
            continue  # a body with anything but calls (a functor, a kernel): not a registration shorthand
        bodies[name] = [Registration(c.macro, tuple(NAME if a == param else a for a in c.args))
                        for c in calls if c is not None]
    expanded: dict[str, frozenset[Registration]] = {}

    def expand(name: str, seen: frozenset[str]) -> frozenset[Registration] | None:
        if name in expanded:
            return expanded[name]
        out: set[Registration] = set()
        for call in bodies[name]:
            if call.macro in bodies and call.args == (NAME,) and call.macro not in seen:
                inner = expand(call.macro, seen | {call.macro})
                if inner is None:
                    return None
                out |= inner
            elif call.macro in bodies:
                return None  # another macro called with other arguments: not followed
            else:
                out.add(call)
        expanded[name] = frozenset(out)
        return expanded[name]

    for name in bodies:
        expand(name, frozenset({name}))
    return {k: v for k, v in expanded.items() if v}


def compact(lines: Sequence[str], name: str, macros: Mapping[str, frozenset[Registration]]) -> list[str]:
    """*lines* (explicit registrations of kernel *name*) with each run a file macro makes exactly replaced
    by one call of it, at the place of the first line it covers; the largest macros first."""
    wanted = {_registration(ln): ln for ln in lines}
    if None in wanted:
        return list(lines)
    end = ";" if lines and lines[0].rstrip().endswith(";") else ""
    left = set(wanted)
    chosen: dict[Registration, str] = {}  # a covered registration -> the macro call replacing it
    for macro, regs in sorted(macros.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        mine = {Registration(r.macro, tuple(name if a == NAME else a for a in r.args)) for r in regs}
        if mine <= left:
            left -= mine
            chosen.update((r, f"{macro}({name}){end}") for r in mine)
    out: list[str] = []
    for reg, line in wanted.items():
        text = chosen.get(reg, line)  # type: ignore[arg-type]
        if text not in out:
            out.append(text)
    return out


def bool_kernel_args(host_text: str, api: HostApi, kind: str) -> tuple[str, ...]:
    """What a kernel returning bool passes after its name to exec_<kind>_kernel: as the host file's own
    bool kernels do, else kBool at the header's natural-output-dtype parameter (HostApi.bool_result_args);
    () when neither says."""
    masked = mask_code(host_text)
    for m in _EXEC_CALL.finditer(masked):
        if m.group(1) != kind:
            continue
        close = match_close(masked, m.end() - 1)
        if close is None:
            continue
        inner = host_text[m.end():close]
        args = [" ".join(inner[a:b].split()) for a, b in split_bounds(masked[m.end():close])]
        if "kBool" in args[2:]:
            return tuple(args[2:])
    return api.bool_result_args.get(kind, ())


def params_header(metal_rel: str, stub_header: str, headers: Mapping[str, str]) -> str:
    """The include path of the header the params struct goes in: kernels/<X>.h when the stub is declared
    in native/<X>.h and that kernels header already holds params structs (Activation.h: ELUParams), else
    the kernel file's own kernels/<Stem>.h.  *headers*: kernels/*.h path -> text."""
    kernels = PurePosixPath(metal_rel).parent
    kind = PurePosixPath(stub_header).stem
    candidate = str(kernels / f"{kind}.h")
    if kind and candidate in headers and _PARAMS_STRUCT.search(headers[candidate]):
        return _include(candidate)
    return _include(str(kernels / f"{PurePosixPath(metal_rel).stem}.h"))


def _include(rel: str) -> str:
    """aten/src/ATen/native/mps/kernels/X.h -> ATen/native/mps/kernels/X.h"""
    return rel.split("aten/src/", 1)[-1]
