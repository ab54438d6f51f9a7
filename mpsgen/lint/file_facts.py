"""The facts `check` and `status` keep per file: each a pure function of (path, text), so the fact
store (tree/factcache.py) can re-use its value while the file is unchanged.  The store pickles
the values, so they are tuples, frozensets, dicts and the readers' frozen records."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from mpsgen.records import NamedTuple
from mpsgen.scan.definitions import is_word_char
from mpsgen.sources.host import mm as host
from mpsgen.sources.host.mm import Definition
from mpsgen.sources.index import index_of

if TYPE_CHECKING:
    from mpsgen.scan.includes import Include
    from mpsgen.sources.native.stubs import StubDecl
    from mpsgen.sources.metal.index import MetalIndex
    from mpsgen.sources.metal.names import MetalName
    from mpsgen.sources.metal.registration_sites import RegistrationSite
    from mpsgen.sources.metal.symbols import MetalSymbols

_METALLIB = re.compile(r"#\s*include\s*[<\"]ATen/native/mps/(\w+)_metallib\.h[>\"]")
_METALLIB_SUFFIX = "_metallib.h"
# An UPPER_CASE macro call read backwards from its '(' (the engine skips to each '(' in C; a forward pattern
# opening with a class is tried at every capital, ~10x the work): a maximal run of [A-Z0-9_] opening with
# a capital, no blank before the '('.
_MACRO_CALL_REVERSED = re.compile(r"\(([A-Z0-9_]+[A-Z])(?!\w)")
_FIRST_ARG = re.compile(r"\s*([A-Za-z_]\w*)")
# A name-like string literal: `'name'` or `"name"` (either quote at either end).  Both quotes are one to the
# pattern, so it is run with each `"` made `'`: opening with a literal, the engine skips to it in C (a
# pattern opening with a class is tried at every offset, 3x slower); in an ASCII text (every real one)
# a word character is [A-Za-z0-9_], tested faster than by its Unicode class.
_QUOTED_ASCII = re.compile(r"'([A-Za-z0-9_.]+)'")


# -- operations/*.mm and the other MPS sources -------------------------------------------------
def definitions(rel: str, text: str) -> tuple[Definition, ...]:
    """Every function and CREATE_MPS_* generated kernel, with its backend."""
    return tuple(host.definitions(rel, text))


def macro_arguments(rel: str, text: str) -> frozenset[str]:
    """Identifiers passed first to an UPPER_CASE macro (kernels made by macros mpsgen does not know): each
    call's first argument when it opens with an identifier, the calls taken in file order past the last
    argument kept, as a forward findall would (`A(B(x))` passes B, not x)."""
    masked = index_of(rel, text).masked
    n = len(masked)
    # (the name's first character, just past its '('), in file order: the reversed text's matches, last first
    calls = [(n - m.end(1), n - m.start()) for m in _MACRO_CALL_REVERSED.finditer(masked[::-1])]
    calls.reverse()
    found: list[str] = []
    last_end = 0
    for start, paren in calls:
        if start >= last_end and (arg := _FIRST_ARG.match(masked, paren)) is not None:
            found.append(arg.group(1))
            last_end = arg.end()
    return frozenset(found)


def mps_identifier_counts(rel: str, text: str) -> dict[str, int]:
    """How often each identifier spelling `mps` occurs outside comments and literals (dead_implementation
    asks only about `..._mps...` functions)."""
    return dict(index_of(rel, text).identifiers_with("mps"))


def registrations(rel: str, text: str) -> tuple[host.Registration, ...]:
    return tuple(host.registrations(text, rel))


def host_calls(rel: str, text: str) -> tuple[tuple[host.KernelCall, ...] | None, tuple[str, ...]]:
    """(kernel names passed to the bundled metallib, None for a file with inline shaders;
    the `<X>_metallib.h` stems it includes)."""
    from mpsgen.lint.host_calls import kernel_calls

    stems = _metallib_stems(text)
    # a file running kernels of the prebuilt metallib (not an inline shader string) asks for the bundled
    # library or includes a metallib header
    calls = tuple(kernel_calls(text, rel)) if "getBundledLibrary" in text or stems else None
    return calls, tuple(dict.fromkeys(stems))


def _metallib_stems(text: str) -> list[str]:
    """`_METALLIB.findall(text)`, tried only from the '#' before the first `_metallib.h` to the end of the
    last (every match spells it; the pattern's '#' prefix is sought a character at a time, str.find
    skips)."""
    first = text.find(_METALLIB_SUFFIX)
    if first < 0:
        return []
    last = text.rfind(_METALLIB_SUFFIX) + len(_METALLIB_SUFFIX) + 1  # (and the closing > or ")
    return _METALLIB.findall(text, max(0, text.rfind("#", 0, first)), last)


class HostSignature(NamedTuple):
    """A definition of a function some REGISTER_*DISPATCH of its file registers."""

    fn: str
    line: int
    params: tuple[str, ...] | None  # comparable parameter types (sources/host/param_types); None: unread


def host_signatures(rel: str, text: str) -> dict[str, tuple[HostSignature, ...]]:
    """{registered function: its definitions in the file} (a macro-made function has none)."""
    from mpsgen.sources.host.param_types import parameter_list, parameter_types

    wanted = {r.fn.rsplit("::", 1)[-1] for r in host.registrations(text, rel) if r.fn}
    if not wanted:
        return {}
    ix = index_of(rel, text)
    found: dict[str, list[HostSignature]] = {}
    for f in ix.functions:
        if f.macro is None and f.name in wanted:
            params = parameter_list(ix.masked, f.start + len(f.name))
            types = parameter_types(params[0]) if params else None
            found.setdefault(f.name, []).append(HostSignature(f.name, ix.line(f.start), types))
    return {fn: tuple(defs) for fn, defs in found.items()}


def c_header(rel: str, text: str) -> tuple[tuple[Include, ...], dict[str, StubDecl]]:
    """(the #include lines, the DispatchStubs it declares with DECLARE_DISPATCH) of a C++/ObjC++
    file; a stub whose type names an alias of another header is listed unresolved."""
    from mpsgen.scan.includes import includes as read_includes

    stubs: dict[str, StubDecl] = {}
    if "DECLARE_DISPATCH" in text:
        from mpsgen.sources.native.stubs import index_stub_declarations

        stubs = index_stub_declarations({rel: text})
    return read_includes(text), stubs


# -- kernels/*.metal ---------------------------------------------------------------------------
def registration_sites(rel: str, text: str) -> tuple[RegistrationSite, ...]:
    from mpsgen.sources.metal.registration_sites import registration_sites as read_sites

    return read_sites(text, rel)


def metal_symbols(rel: str, text: str) -> MetalSymbols:
    """What a .metal file uses of c10/metal (sources/metal/symbols)."""
    from mpsgen.sources.metal.symbols import metal_symbols as read_symbols

    return read_symbols(text)


def metal_macros(rel: str, text: str) -> frozenset[str]:
    """The macros a Metal header #defines (sources/metal/symbols)."""
    from mpsgen.sources.metal.symbols import defined_macros

    return defined_macros(text)


def metal_words(rel: str, text: str) -> frozenset[str]:
    """The identifiers a Metal header spells outside comments and literals (sources/metal/symbols)."""
    from mpsgen.sources.metal.symbols import spelled_words

    return spelled_words(text)


def metal_types(rel: str, text: str) -> frozenset[str]:
    """The type names a .metal file or Metal header declares (sources/metal/symbols)."""
    from mpsgen.sources.metal.symbols import declared_types

    return declared_types(text)


def metal_index(rel: str, text: str) -> MetalIndex:
    from mpsgen.sources.metal.index import index_metal

    return index_metal(text, rel)


def metal_names(rel: str, text: str) -> tuple[list[MetalName], dict[str, frozenset[str]]]:
    """The kernel names the file registers, and {name: the input dtypes its REGISTER_* lines
    register} (the second macro argument), from one scan."""
    from mpsgen.sources.metal.names import names_and_registrations

    names, registrations = names_and_registrations(text, rel)
    dtypes: dict[str, set[str]] = {}
    for args in registrations:
        if len(args) > 2:
            dtypes.setdefault(args[1], set()).add(args[2])
    return names, {name: frozenset(d) for name, d in dtypes.items()}


def functor_uses(rel: str, text: str) -> dict[str, int]:
    """How often each `<name>_functor` is spelled (comments included)."""
    # The words `\b(\w+)_functor\b` finds, from str.find of "_functor" (the pattern, opening with \b\w+,
    # was tried at every offset): a word ending in it names the functor before it.
    uses: dict[str, int] = {}
    k, n = text.find("_functor"), len(text)
    while k >= 0:
        end = k + 8
        if end == n or not is_word_char(text[end]):
            start = k
            while start and is_word_char(text[start - 1]):
                start -= 1
            if start < k:
                name = text[start:k]
                uses[name] = uses.get(name, 0) + 1
        k = text.find("_functor", k + 1)
    return uses


# -- test lists --------------------------------------------------------------------------------
class TableKey(NamedTuple):
    """A key of a common_mps.py table (a tuple: reading it back needs no testlists import)."""

    key: str
    table: str
    line: int


def table_keys(rel: str, text: str) -> tuple[TableKey, ...]:
    from mpsgen.sources.testlists.tables import modifiers_source, tables  # the table reader alone (not the editors)

    python_syntax_ok(rel, text, modifiers_source(text))
    # entries() in file order, read from the tables themselves (not through a TableEntry each)
    return tuple(TableKey(key, t.name, line) for t in tables(text, rel) for key, line in zip(t.keys, t.key_lines))


def quoted_names(rel: str, text: str) -> frozenset[str]:
    """Every quoted name-like string of an OpInfo file (OpInfo names and variant_test_names are among them)."""
    pattern = _QUOTED_ASCII if text.isascii() else re.compile(r"'([\w.]+)'")
    return frozenset(pattern.findall(text.replace('"', "'")))


def could_be_opinfo_key(key: str, strings: frozenset[str]) -> bool:
    """True when *key* is a quoted name, or a quoted name followed by a quoted variant_test_name."""
    if key in strings:
        return True
    return any(key[:k] in strings and key[k:] in strings for k in range(1, len(key)))


def python_syntax_ok(rel: str, text: str, region: str | None = None) -> None:
    """Raise MpsgenError (file:line and Python's reason) when *text* does not compile (a test list
    that does not parse would otherwise read as one with no entries).  With *region* (the lines the
    lists are read from, at their own line numbers), only those: when they compile the lists are
    read from them alone, and 2.7's test_mps.py is 13,000 lines whose compile cost ~0.17 s."""
    from mpsgen.sources.testlists.tables import compile_error  # from the tree the table reader re-uses

    error = compile_error(region, rel) if region is not None else None
    if region is None or error is not None:
        error = compile_error(text, rel)  # the lists are then read from the whole file: it must compile
    if error is not None:
        from mpsgen.errors import MpsgenError

        raise MpsgenError(f"does not parse as Python: {error.msg}", path=rel, line=error.lineno or 1,
                          hint="fix the syntax error")
