"""DispatchStub facts: DECLARE_DISPATCH types in ATen/native/*.h and which stub a shared kernel calls.

Readers only: every function takes texts keyed by display path and returns located facts; sources are
read through their cached one-pass index (sources/index.py).
"""

from __future__ import annotations

import functools
import re
from typing import TYPE_CHECKING, Callable, Iterable, Protocol

from mpsgen.errors import MpsgenError
from mpsgen.scan.brackets import calls_outside_directives, match_close, split_top_level
from mpsgen.scan.definitions import namespaces_at
from mpsgen.scan.mask import mask_code
from mpsgen.sources.native.shared_impl import SharedImpl, StubCall, find_shared_impl
from mpsgen.model import Location
from mpsgen.records import NamedTuple

__all__ = ["mask_code", "match_close", "split_top_level", "namespaces_at", "SharedImpl", "StubCall", "find_shared_impl"]


@functools.lru_cache(maxsize=2048)  # a few dozen type spellings recur across the 374 DECLARE_DISPATCHes
def _normalize_type(t: str) -> str:
    t = " ".join(t.split())
    t = re.sub(r"\s*([&*])", r"\1", t)
    t = re.sub(r"\s*(::|<|>|,)\s*", lambda m: m.group(1) + (" " if m.group(1) == "," else ""), t)
    t = re.sub(r"\(\s*\*\s*\)", "(*)", t)
    return t.replace("void (*)", "void(*)")


# --------------------------------------------------------------------------------------------
# DECLARE_DISPATCH types
# --------------------------------------------------------------------------------------------

_TYPE_WORDS = {
    "int", "double", "float", "bool", "char", "long", "short", "unsigned", "signed", "void", "auto",
    "int64_t", "int32_t", "uint64_t", "uint32_t", "int8_t", "uint8_t", "size_t",
}
_QUALIFIERS = {"const", "volatile", "unsigned", "signed", "struct", "enum", "typename"}


class StubDecl(NamedTuple):
    """One `DECLARE_DISPATCH(type, name)`, its function type with `using` aliases resolved."""

    name: str
    fn_type: str  # e.g. "void(*)(TensorIteratorBase&, const Scalar&)"; the raw text when unresolved
    params: tuple[str, ...]  # parameter types; empty when the type could not be resolved
    param_names: tuple[str, ...]  # names as declared ("" where the declaration has none)
    header: str  # include path, e.g. "ATen/native/BinaryOps.h"
    path: str
    line: int
    alias: str | None = None  # the `using` alias the declaration named, if any
    namespace: str = "at::native"
    returns: str = ""  # return type; empty when the type could not be resolved

    @property
    def resolved(self) -> bool:
        return bool(self.returns)

    @property
    def iterator_type(self) -> str | None:
        """"TensorIteratorBase" or "TensorIterator" when the first parameter is an iterator reference."""
        if not self.params:
            return None
        m = re.fullmatch(r"(?:at::)?(TensorIteratorBase|TensorIterator)&", self.params[0])
        return m.group(1) if m else None

    @property
    def extra_params(self) -> tuple[tuple[str, str], ...]:
        """(type, name) of the parameters after the iterator: what a host kernel must forward."""
        return tuple(zip(self.params[1:], _param_names(self)[1:]))

    @property
    def location(self) -> Location:
        """Where it was found (model.Location renders `path:line`)."""
        return Location(self.path, self.line)


@functools.lru_cache(maxsize=2048)
def _split_param(param: str) -> tuple[str, str]:
    """('const Scalar&', 'alpha') from 'const Scalar& alpha'; name '' when none is given."""
    p = " ".join(param.split())
    m = re.fullmatch(r"(.*?[\w&*>\]])\s*\b([A-Za-z_]\w*)", p)
    if m:
        head, name = m.group(1), m.group(2)
        head_words = re.findall(r"[A-Za-z_]\w*", head)
        ends_with_sigil = head.rstrip()[-1] in "&*>"
        if name not in _TYPE_WORDS and name not in _QUALIFIERS and not head.endswith("::"):
            if ends_with_sigil or (head_words and not all(w in _QUALIFIERS for w in head_words)):
                return _normalize_type(head), name
    return _normalize_type(p), ""


def parse_fn_pointer_type(type_text: str) -> tuple[str, tuple[str, ...], tuple[str, ...]] | None:
    """(return type, parameter types, names) of `R (*)(...)`, or None if it is not that shape."""
    t = " ".join(type_text.split())
    m = re.fullmatch(r"(.+?)\s*\(\s*\*\s*\w*\s*\)\s*\((.*)\)", t)
    if not m:
        return None
    ret = _normalize_type(m.group(1))
    inner = m.group(2).strip()
    if not inner or inner == "void":
        return ret, (), ()
    pairs = [_split_param(p) for p in split_top_level(inner)]
    return ret, tuple(p[0] for p in pairs), tuple(p[1] for p in pairs)


def _header_include(path: str) -> str:
    p = path.replace("\\", "/")
    k = p.find("ATen/")
    if k >= 0:
        return p[k:]
    return "ATen/native/" + p.rsplit("/", 1)[-1]


# Each opens with its literal, the word boundary tested behind it (the engine skips to it in C).
_USING = re.compile(r"using(?<!\wusing)\s+(\w+)\s*=\s*([^;]+);")
_TYPEDEF_FN = re.compile(r"typedef(?<!\wtypedef)\s+void\s*\(\s*\*\s*(\w+)\s*\)\s*(\([^;]*\))\s*;")
_DECLARE = re.compile(r"DECLARE_DISPATCH(?<!\wDECLARE_DISPATCH)\s*\(")
_FN_POINTER = re.compile(r"\( *\*")  # `(*`, spaces allowed between: a text without one aliases no function pointer


def aliases_in(text: str) -> dict[str, str]:
    """{alias: type text} for every `using X = ...;` / `typedef void (*X)(...);` of one header."""
    if not _FN_POINTER.search(text):
        return {}  # no function-pointer type to alias: skip the scan
    masked = mask_code(text)
    found: dict[str, str] = {}
    for m in _USING.finditer(masked):
        found[m.group(1)] = m.group(2)  # masked: comments in parameter lists are blanked
    for m in _TYPEDEF_FN.finditer(masked):
        found[m.group(1)] = "void(*)" + m.group(2)
    return found


def _resolve(type_text: str, local: dict[str, str], everywhere: Callable[[str], str | None]) -> tuple[str, str | None]:
    """Follow alias chains (the header's own aliases first, then *everywhere*'s); returns (resolved text,
    first alias used)."""
    first: str | None = None
    seen: set[str] = set()
    current = type_text.strip()
    while re.fullmatch(r"(?:[\w]+::)*\w+", current):
        key = current.rsplit("::", 1)[-1]
        if key in seen:
            break
        seen.add(key)
        nxt = local[key] if key in local else everywhere(key)
        if nxt is None:
            break
        first = first or key
        current = nxt.strip()
    return current, first


if TYPE_CHECKING:  # annotations only: nothing built when a command imports the module
    ParsedType = tuple[str, tuple[str, ...], tuple[str, ...]] | None

    class StubDeclarations(Protocol):
        """What answers one stub's declaration: index_stub_declarations' dict, or Inventory.stub_declarations
        (sources/native/stub_lookup.py)."""

        def get(self, name: str, /) -> StubDecl | None: ...


class DeclarationSite(NamedTuple):
    """One `DECLARE_DISPATCH(type, name)` of a header as written: its name, its type's text (masked), where."""

    name: str
    type_text: str
    line: int
    namespace: str


@functools.lru_cache(maxsize=256)  # a header's sites are read for its c-header fact and for Inventory.stub_declarations
def declaration_sites(text: str) -> tuple[DeclarationSite, ...]:
    """Each DECLARE_DISPATCH of one header, in order (`#define DECLARE_DISPATCH(...)` and macro bodies
    skipped), its type not yet resolved: a reader asking about one stub resolves that one (declaration())."""
    if "DECLARE_DISPATCH" not in text:
        return ()
    masked = mask_code(text)
    spaces = namespaces_at(masked, (m.start() for m in _DECLARE.finditer(masked)))
    found = []
    for m, line, close in calls_outside_directives(text, masked, _DECLARE):
        parts = split_top_level(masked[m.end() : close])
        name = parts[-1] if parts else ""
        if len(parts) < 2 or not re.fullmatch(r"[A-Za-z_]\w*", name):
            continue
        # Take the type from the masked text (identical to the original outside literals).
        found.append(DeclarationSite(name, masked[m.end() : close].rsplit(",", 1)[0], line, spaces[m.start()]))
    return tuple(found)


def declaration(path: str, site: DeclarationSite, local: dict[str, str], everywhere: Callable[[str], str | None],
                parsed_types: dict[str, ParsedType]) -> StubDecl:
    """The StubDecl of *site* in header *path*, its type's aliases resolved (the header's own *local* ones
    first); *parsed_types* keeps each type text parsed once across headers."""
    resolved, alias = _resolve(site.type_text, local, everywhere)
    key = " ".join(resolved.split())  # what parse_fn_pointer_type reads
    if key not in parsed_types:
        parsed_types[key] = parse_fn_pointer_type(key)
    parsed = parsed_types[key]
    ret, params, names = parsed if parsed else ("", (), ())
    fn_type = f"{ret}(*)(" + ", ".join(params) + ")" if parsed else key
    return StubDecl(name=site.name, fn_type=fn_type, params=params, param_names=names, header=_header_include(path),
                    path=path, line=site.line, alias=alias, namespace=site.namespace, returns=ret)


def preferred_declaration(previous: StubDecl | None, decl: StubDecl) -> StubDecl:
    """Of two declarations of one name, in header order: the later, unless the earlier is in at::native
    and the later in a nested namespace (cpublas::copy_stub): at::native wins."""
    if previous is not None and previous.namespace == "at::native" and decl.namespace != "at::native":
        return previous
    return decl


def index_stub_declarations(headers: dict[str, str]) -> dict[str, StubDecl]:
    """Every DECLARE_DISPATCH in *headers* ({display path: text}), keyed by stub name.

    `#define DECLARE_DISPATCH(...)` itself and macro bodies are skipped.  Declarations whose type
    cannot be resolved are still listed (``resolved`` is False) so that callers can say why.
    """
    aliases = {path: aliases_in(text) for path, text in headers.items()}
    everywhere: dict[str, str] = {}
    for found in aliases.values():
        for k, v in found.items():
            everywhere.setdefault(k, v)
    index: dict[str, StubDecl] = {}
    # Most stubs share an alias (unary_fn, structured_binary_fn, ...): each type text is parsed once.
    parsed_types: dict[str, ParsedType] = {}
    for path, text in headers.items():
        for site in declaration_sites(text):
            decl = declaration(path, site, aliases[path], everywhere.get, parsed_types)
            index[decl.name] = preferred_declaration(index.get(decl.name), decl)
    return index


def _param_names(decl: StubDecl) -> tuple[str, ...]:
    names: list[str] = []
    for k, (ptype, pname) in enumerate(zip(decl.params, decl.param_names)):
        if k == 0 and decl.iterator_type:
            names.append("iter")
            continue
        base = pname or _default_name(ptype)
        name = base
        n = 2
        while name in names:
            name = f"{base}{n}"
            n += 1
        names.append(name)
    return tuple(names)


def is_default_name(name: str) -> bool:
    """Whether *name* is the one _param_names gives an unnamed Scalar parameter (alpha, alpha2, ...):
    a name only when the stub has one such parameter."""
    return re.fullmatch(r"alpha\d*", name) is not None


def _default_name(ptype: str) -> str:
    if "Scalar" in ptype:
        return "alpha"
    if "Generator" in ptype:
        return "gen"
    if "optional" in ptype:
        return "arg"
    if ptype.endswith("&") or ptype.endswith("*"):
        return "tensor"
    return "value"


def host_params(decl: StubDecl, names: Iterable[str] = ()) -> str:
    """Parameter list of an MPS host kernel for *decl*, e.g. "TensorIteratorBase& iter, const Scalar& alpha";
    *names* name the parameters after the iterator (the kernel shape's scalars)."""
    _require_resolved(decl, hint="write the host kernel by hand, or report this declaration shape")
    given = list(names)
    declared = _param_names(decl)
    chosen = [given[k - 1] if 0 < k <= len(given) else n for k, n in enumerate(declared)]
    return ", ".join(f"{t} {n}" for t, n in zip(decl.params, chosen))


def host_param_names(params: str) -> tuple[str, ...]:
    """The names host_params' list declares: "TensorIteratorBase& iter, const Scalar& alpha" -> (iter, alpha)."""
    return tuple(re.sub(r".*[\s&*]", "", p.strip()) for p in split_top_level(params))


# Stub parameter types a host kernel can convert to the kernel's scalar type: a Scalar, a number, a
# bool (elu_backward's is_result) or an optional double, passed by value or const reference.
_SCALAR_TYPES = re.compile(r"(?:const\s*)?(?:(?:c10::|at::)?Scalar|double|float|bool|int64_t|(?:std::|c10::)?optional<double>)"
                           r"\s*&?")


_C10_SCALAR = re.compile(r"(?:const\s*)?(?:c10::|at::)?Scalar\s*&?")


def is_c10_scalar(cpp_type: str) -> bool:
    """Whether a stub parameter of *cpp_type* is a `c10::Scalar` (fill_stub's value), not a C++ number."""
    return bool(_C10_SCALAR.fullmatch(cpp_type.strip()))


def is_scalar_type(cpp_type: str) -> bool:
    """Whether a stub parameter of *cpp_type* is a scalar a host kernel can pass to a kernel."""
    return bool(_SCALAR_TYPES.fullmatch(cpp_type.replace(" ", "")) or _SCALAR_TYPES.fullmatch(cpp_type))


# --------------------------------------------------------------------------------------------
# Inference with refusal
# --------------------------------------------------------------------------------------------


def _suggest(name: str, candidates: Iterable[str]) -> str:
    import difflib  # only needed on the error path
    close = difflib.get_close_matches(name, list(candidates), n=3)
    return f"did you mean {', '.join(close)}?" if close else "name a stub declared with DECLARE_DISPATCH"


def infer_stub(
    headers: dict[str, str],
    sources: dict[str, str],
    kernel: str,
    stub_override: str | None = None,
) -> StubDecl:
    """The DispatchStub an MPS host kernel for *kernel* must register, with its declared type.

    Refuses (MpsgenError) when the shared implementation is missing, calls no stub or several,
    unless *stub_override* names the stub (the CLI's `--stub NAME`).  What the stub is passed beyond
    the iterator is the kernel shape's business (plan/shape.py).
    """
    decls = index_stub_declarations(headers)
    if stub_override is not None:
        decl = decls.get(stub_override)
        if decl is None:
            raise MpsgenError(
                f"--stub {stub_override}: no DECLARE_DISPATCH(..., {stub_override}) in aten/src/ATen/native/*.h",
                hint=_suggest(stub_override, decls),
            )
        decl = _declared_where_defined(headers, sources, decl)
        _require_resolved(decl)
        return decl

    impl = find_shared_impl(sources, kernel, known_stubs=decls.keys())
    if impl is None:
        raise MpsgenError(
            f"no TORCH_IMPL_FUNC({kernel}), helper macro or function {kernel}(...) found in aten/src/ATen/native/*.cpp",
            hint="check the CPU/CUDA kernel name in native_functions.yaml, or name the stub with --stub NAME",
        )
    names = impl.stub_names
    where = f"{impl.shown_form} {kernel}"
    if not names:
        raise MpsgenError(
            f"{where} calls no DispatchStub",
            path=impl.path,
            line=impl.line,
            hint="the op may not be a TensorIterator op; name the stub with --stub NAME if it has one",
        )
    if len(names) > 1:
        found = ", ".join(f"{c.stub} (line {c.line})" for c in impl.stubs)
        raise MpsgenError(
            f"{where} uses several stubs: {found}",
            path=impl.path,
            line=impl.line,
            hint="pick the one MPS should register with --stub NAME",
        )
    stub = names[0]
    decl = decls.get(stub)
    if decl is None:
        raise MpsgenError(
            f"{where} calls {stub}, but no DECLARE_DISPATCH(..., {stub}) was found in aten/src/ATen/native/*.h",
            path=impl.path,
            line=impl.stubs[0].line,
            hint="is the header outside aten/src/ATen/native? name the stub with --stub NAME",
        )
    decl = _declared_where_defined(headers, sources, decl)
    _require_resolved(decl)
    return decl


def _declared_where_defined(headers: dict[str, str], sources: dict[str, str], decl: StubDecl) -> StubDecl:
    """*decl*, or the other declaration of its name that the .cpp defining the stub includes: 2.7 declares
    clamp_stub twice, a stale (iter, min, max) in UnaryOps.h and the (iter) TensorCompare.cpp defines."""
    others = [d for p, t in headers.items() if p != decl.path and decl.name in t
              for d in [index_stub_declarations({p: t}).get(decl.name)] if d is not None]
    if not others:
        return decl
    define = re.compile(rf"\bDEFINE_DISPATCH\(\s*{re.escape(decl.name)}\s*\)")
    definer = next((t for t in sources.values() if define.search(mask_code(t))), None)
    if definer is None:
        return decl
    included = [d for d in (decl, *others) if re.search(rf'#\s*include\s*[<"]{re.escape(d.header)}[>"]', definer)]
    return included[0] if len(included) == 1 else decl


_DECLARE_SHAPE_HINT = "declare it as void(*)(...) or through a `using` alias of that shape"


def _require_resolved(decl: StubDecl, hint: str = _DECLARE_SHAPE_HINT) -> None:
    if not decl.resolved:
        raise MpsgenError(f"cannot read the function type of {decl.name}: {decl.fn_type}", path=decl.path,
                          line=decl.line, hint=hint)
