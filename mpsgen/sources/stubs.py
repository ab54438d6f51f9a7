"""DispatchStub facts: DECLARE_DISPATCH types in ATen/native/*.h and which stub a shared kernel calls.

Readers only: every function takes texts keyed by display path and returns located facts.
Sources are read through their cached one-pass index (sources/index.py).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Collection, Iterable

from mpsgen.errors import MpsgenError
from mpsgen.scan.brackets import calls_outside_directives, match_close, split_top_level
from mpsgen.scan.definitions import namespaces_at
from mpsgen.scan.mask import mask_code
from mpsgen.sources.index import index_of

# The scanner lives in mpsgen.scan; these names are re-exported for readers of this module.
__all__ = ["mask_code", "match_close", "split_top_level", "namespaces_at"]


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


@dataclass(frozen=True)
class StubDecl:
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


_USING = re.compile(r"\busing\s+(\w+)\s*=\s*([^;]+);")
_TYPEDEF_FN = re.compile(r"\btypedef\s+void\s*\(\s*\*\s*(\w+)\s*\)\s*(\([^;]*\))\s*;")
_DECLARE = re.compile(r"\bDECLARE_DISPATCH\s*\(")


def _aliases(headers: dict[str, str]) -> dict[str, dict[str, str]]:
    """{path: {alias: type text}} for every `using X = ...;` / `typedef void (*X)(...);`."""
    result: dict[str, dict[str, str]] = {}
    for path, text in headers.items():
        if "(*" not in text.replace(" ", ""):
            result[path] = {}  # no function-pointer type to alias: skip the scan
            continue
        masked = mask_code(text)
        found: dict[str, str] = {}
        for m in _USING.finditer(masked):
            found[m.group(1)] = m.group(2)  # masked: comments in parameter lists are blanked
        for m in _TYPEDEF_FN.finditer(masked):
            found[m.group(1)] = "void(*)" + m.group(2)
        result[path] = found
    return result


def _resolve(type_text: str, local: dict[str, str], everywhere: dict[str, str]) -> tuple[str, str | None]:
    """Follow alias chains; returns (resolved text, first alias used)."""
    first: str | None = None
    seen: set[str] = set()
    current = type_text.strip()
    while re.fullmatch(r"(?:[\w]+::)*\w+", current):
        key = current.rsplit("::", 1)[-1]
        if key in seen:
            break
        seen.add(key)
        nxt = local.get(key, everywhere.get(key))
        if nxt is None:
            break
        first = first or key
        current = nxt.strip()
    return current, first


def index_stub_declarations(headers: dict[str, str]) -> dict[str, StubDecl]:
    """Every DECLARE_DISPATCH in *headers* ({display path: text}), keyed by stub name.

    `#define DECLARE_DISPATCH(...)` itself and macro bodies are skipped.  Declarations whose type
    cannot be resolved are still listed (``resolved`` is False) so that callers can say why.
    """
    aliases = _aliases(headers)
    everywhere: dict[str, str] = {}
    for found in aliases.values():
        for k, v in found.items():
            everywhere.setdefault(k, v)
    index: dict[str, StubDecl] = {}
    for path, text in headers.items():
        if "DECLARE_DISPATCH" not in text:
            continue
        masked = mask_code(text)
        spaces = namespaces_at(masked, (m.start() for m in _DECLARE.finditer(masked)))
        for m, line, close in calls_outside_directives(text, masked, _DECLARE):
            parts = split_top_level(masked[m.end() : close])
            name = parts[-1] if parts else ""
            if len(parts) < 2 or not re.fullmatch(r"[A-Za-z_]\w*", name):
                continue
            # Take the type from the original text (masked text is identical outside literals).
            type_raw = masked[m.end() : close].rsplit(",", 1)[0]
            resolved, alias = _resolve(type_raw, aliases[path], everywhere)
            parsed = parse_fn_pointer_type(resolved)
            ret, params, names = parsed if parsed else ("", (), ())
            fn_type = f"{ret}(*)(" + ", ".join(params) + ")" if parsed else " ".join(resolved.split())
            namespace = spaces[m.start()]
            previous = index.get(name)
            if previous is not None and previous.namespace == "at::native" and namespace != "at::native":
                continue  # same name in a nested namespace (cpublas::copy_stub): at::native wins
            index[name] = StubDecl(
                name=name,
                fn_type=fn_type,
                params=params,
                param_names=names,
                header=_header_include(path),
                path=path,
                line=line,
                alias=alias,
                namespace=namespace,
                returns=ret,
            )
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


def host_params(decl: StubDecl) -> str:
    """Parameter list of an MPS host kernel for *decl*, e.g. "TensorIteratorBase& iter, const Scalar& alpha"."""
    if not decl.resolved:
        raise MpsgenError(
            f"cannot read the function type of {decl.name}: {decl.fn_type}",
            path=decl.path,
            line=decl.line,
            hint="write the host kernel by hand, or report this declaration shape",
        )
    return ", ".join(f"{t} {n}" for t, n in zip(decl.params, _param_names(decl)))


# --------------------------------------------------------------------------------------------
# Shared implementation of a kernel and the stub(s) it calls
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class StubCall:
    """A stub used by a shared implementation: called directly or passed to a helper."""

    stub: str
    line: int
    via: str | None = None  # helper it was passed to (comparison_op_out, unary_op_impl_out, ...)
    extra_args: tuple[str, ...] = ()  # arguments after (device, iterator), e.g. ("-alpha",)


@dataclass(frozen=True)
class SharedImpl:
    kernel: str
    form: str  # "TORCH_IMPL_FUNC" | "macro:<NAME>" | "function"
    stubs: tuple[StubCall, ...]
    path: str
    line: int
    end_line: int

    @property
    def stub_names(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(c.stub for c in self.stubs))


_NON_FUNCTIONS = {"if", "for", "while", "switch", "catch", "return", "sizeof", "decltype", "defined"}
_DEVICE_ARG = re.compile(r"^\s*(?:[\w.\->()*]*device_type\(\)|k(?:CPU|CUDA|MPS|Meta)|c10::DeviceType::\w+)\s*$")


def _stub_calls(body_masked: str, body_text: str, first_line: int, known: Collection[str]) -> list[StubCall]:
    """Stubs in a body: `x(device_type(), ...)` calls and stub names passed as arguments."""
    calls: list[StubCall] = []
    for m in re.finditer(r"\b([A-Za-z_]\w*)\s*\(", body_masked):
        name = m.group(1)
        close = match_close(body_masked, m.end() - 1)
        if close is None:
            continue
        args = split_top_level(body_masked[m.end() : close])
        line = first_line + body_masked.count("\n", 0, m.start())
        if args and _DEVICE_ARG.match(args[0]) and len(args) >= 2:
            extras = tuple(" ".join(a.split()) for a in args[2:])
            calls.append(StubCall(name, line, None, extras))
            continue
        for arg in args:
            if re.fullmatch(r"(?:at::native::)?([A-Za-z_]\w*)", arg):
                bare = arg.rsplit("::", 1)[-1]
                if bare.endswith("_stub") or bare in known:
                    calls.append(StubCall(bare, line, name))
    return calls


def _expand(params: list[str], body: str, args: list[str]) -> str:
    subst = dict(zip(params, args))

    def repl(m: re.Match[str]) -> str:
        return subst.get(m.group(0), m.group(0))

    out = re.sub(r"[A-Za-z_]\w*", repl, body)
    out = re.sub(r"\s*##\s*", "", out)
    return re.sub(r"(?<![\w#])#\s*(\w+)", lambda m: m.group(1), out)  # stringize -> bare (masked anyway)


_IMPL_FUNC = r"\bTORCH_IMPL_FUNC\s*\(\s*{name}\s*\)\s*\("


def _impl_func_in(masked: str, kernel: str) -> tuple[int, int, int] | None:
    """(start, body_open, body_close) of `TORCH_IMPL_FUNC(kernel)(...) {...}` in masked text."""
    for m in re.finditer(_IMPL_FUNC.format(name=re.escape(kernel)), masked):
        pclose = match_close(masked, m.end() - 1)
        if pclose is None:
            continue
        brace = re.compile(r"\s*\{").match(masked, pclose + 1)
        if not brace:
            continue
        bclose = match_close(masked, brace.end() - 1)
        if bclose is not None:
            return m.start(), brace.end() - 1, bclose
    return None


def find_shared_impl(sources: dict[str, str], kernel: str, known_stubs: Collection[str] = ()) -> SharedImpl | None:
    """Where the CPU/CUDA kernel *kernel* is defined in native/*.cpp and which stubs it uses.

    Looks for, in this order: an explicit `TORCH_IMPL_FUNC(kernel)`, an invocation of a helper macro
    whose `#define` (in any of *sources*) generates it, a known `CREATE_*_IMPL_FUNC(kernel, stub)`
    macro whose definition is not among *sources*, and a plain function `T kernel(...) {...}`.
    Each source is indexed once (and cached), so asking for many kernels costs one scan per file.
    """
    indexes = [index_of(p, t) for p, t in sources.items()]

    def located(ix, f, form: str) -> SharedImpl:
        bopen, bclose = f.body_open, f.body_close
        first = ix.line(bopen)
        calls = _stub_calls(ix.masked_slice(bopen, bclose + 1), ix.text[bopen : bclose + 1], first, known_stubs)
        return SharedImpl(kernel, form, tuple(calls), ix.path, ix.line(f.start), ix.line(bclose))

    for ix in indexes:
        f = ix.impl_func(kernel)
        if f is not None:
            return located(ix, f, "TORCH_IMPL_FUNC")

    macros: dict[str, tuple[list[str], str]] = {}
    for ix in indexes:
        for name, d in ix.impl_macro_defs.items():
            macros.setdefault(name, (list(d.params), d.body))

    for ix in indexes:
        found = ix.calls_of(*macros)
        if "CREATE_" in ix.text and "IMPL" in ix.text and "CREATE_" in ix.masked:
            found = sorted(found + ix.calls_matching(r"CREATE_\w*IMPL\w*FUNC\w*"), key=lambda c: c.start)
        for call in found:
            macro, args = call.name, list(call.args)
            if not any(kernel in a for a in args) and not any(kernel.startswith(a) for a in args if a):
                continue
            if macro in macros:
                expanded = _expand_all(macro, args, macros)
                hit = _impl_func_in(expanded, kernel)
                if hit:
                    _, bopen, bclose = hit
                    calls = [
                        StubCall(c.stub, call.line, c.via, c.extra_args)
                        for c in _stub_calls(expanded[bopen : bclose + 1], "", call.line, known_stubs)
                    ]
                    return SharedImpl(kernel, f"macro:{macro}", tuple(calls), ix.path, call.line, call.end_line)
            elif re.fullmatch(r"CREATE_\w*IMPL\w*FUNC\w*", macro) and len(args) == 2 and args[0] == kernel:
                # Definition not among the sources: the (func_out, func_stub) convention of native/*.cpp.
                return SharedImpl(kernel, f"macro:{macro}", (StubCall(args[1], call.line),), ix.path, call.line, call.end_line)

    for ix in indexes:
        f = ix.plain_function(kernel)
        if f is not None:
            return located(ix, f, "function")
    return None


def _expand_all(macro: str, args: list[str], macros: dict[str, tuple[list[str], str]], depth: int = 0) -> str:
    params, body = macros[macro]
    out = _expand(params, body, args)
    if depth >= 3:
        return out
    # Expand nested helper macros once more (a macro that invokes another IMPL macro).
    pieces = [out]
    for m in re.finditer(r"\b([A-Z][A-Z0-9_]*)\s*\(", out):
        if m.group(1) in macros and m.group(1) != macro:
            close = match_close(out, m.end() - 1)
            if close is not None:
                inner_args = split_top_level(out[m.end() : close])
                pieces.append(_expand_all(m.group(1), inner_args, macros, depth + 1))
    return "\n".join(pieces)


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

    Refuses (MpsgenError) when the shared implementation is missing, calls no stub, calls several,
    or passes extra arguments, unless *stub_override* names the stub (the CLI's `--stub NAME`).
    """
    decls = index_stub_declarations(headers)
    if stub_override is not None:
        decl = decls.get(stub_override)
        if decl is None:
            raise MpsgenError(
                f"--stub {stub_override}: no DECLARE_DISPATCH(..., {stub_override}) in aten/src/ATen/native/*.h",
                hint=_suggest(stub_override, decls),
            )
        _require_resolved(decl)
        return decl

    impl = find_shared_impl(sources, kernel, known_stubs=decls.keys())
    if impl is None:
        raise MpsgenError(
            f"no TORCH_IMPL_FUNC({kernel}), helper macro or function {kernel}(...) found in aten/src/ATen/native/*.cpp",
            hint="check the CPU/CUDA kernel name in native_functions.yaml, or name the stub with --stub NAME",
        )
    names = impl.stub_names
    where = f"{impl.form} {kernel}"
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
    extra = next((c for c in impl.stubs if c.extra_args), None)
    if extra is not None:
        raise MpsgenError(
            f"{where} calls {extra.stub} with extra arguments ({', '.join(extra.extra_args)}) at line {extra.line}",
            path=impl.path,
            line=impl.line,
            hint=f"the stub is shared with another op; confirm with --stub {extra.stub} and check the host kernel",
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
    _require_resolved(decl)
    return decl


def _require_resolved(decl: StubDecl) -> None:
    if not decl.resolved:
        raise MpsgenError(
            f"cannot read the function type of {decl.name}: {decl.fn_type}",
            path=decl.path,
            line=decl.line,
            hint="declare it as void(*)(...) or through a `using` alias of that shape",
        )
