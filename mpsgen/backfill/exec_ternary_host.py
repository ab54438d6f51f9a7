"""The host half of a host API a checkout lacks, derived from its siblings in the same checkout (pure
text -> text): `exec_ternary_kernel(iter, name, alpha)` declared in MetalShaderLibrary.h beside
`exec_ternary_kernel(iter, name)` and defined where the checkout defines that one (OperationUtils.mm
or MetalShaderLibrary.mm).

The new definition is the sibling's own text with the alpha path exec_binary_kernel has in the same
file: its alpha parameter, its `alpha_type` / `alpha_suffix` statements (the kernel name ends in the
alpha's Metal type), and its `getMPSScalar(*alpha, alpha_type)` bound right after the tensors (the
later arguments one slot up, as the ternary_alpha_* kernels of backfill/exec_ternary_metal expect).
exec_binary_kernel reads `*alpha` only `if (alpha)`, its later arguments a slot lower without one;
the new form, whose later slots are fixed, hands an empty alpha to exec_ternary_kernel(iter, name)
first (the kernels without the alpha suffix, which exec_binary_kernel would pick then too).  The
sibling's TODO comments are its authors' and stay with it.  Each step must find what it edits; a
checkout whose siblings differ is refused, naming them.
"""

from __future__ import annotations

import re

from mpsgen.errors import MpsgenError
from mpsgen.records import NamedTuple
from mpsgen.scan.brackets import match_close, split_top_level
from mpsgen.scan.mask import mask_code
from mpsgen.sources.host.text import without_todo_comments

TERNARY = "exec_ternary_kernel"
BINARY = "exec_binary_kernel"
DEFINITION_FILES = ("aten/src/ATen/native/mps/OperationUtils.mm", "aten/src/ATen/native/mps/MetalShaderLibrary.mm")
_TENSORS = 4
# what exec_binary_kernel's alpha path reads (its statements are copied verbatim)
ALPHA_PATH_NAMES = "alpha scalar_arg_type"  # the output and three inputs bind_iter_tensors binds first


class Callable(NamedTuple):
    """One declaration or definition of a function: its span and its parameters' texts."""

    start: int  # the start of its first line
    end: int  # after its `;` or its body's `}`
    params: tuple[str, ...]
    params_open: int  # the offset of its `(`


def _refuse(path: str, what: str, line: int = 1) -> MpsgenError:
    return MpsgenError(f"{path}: {what}, the sibling {TERNARY}(iter, name, alpha) would be modeled on",
                       path=path, line=line, hint=f"add {TERNARY}(iter, name, alpha) by hand")


def find_callables(text: str, name: str, *, qualified: bool) -> list[Callable]:
    """Declarations (`void name(...);`) or, *qualified*, definitions (`void MetalShaderLibrary::name(...) {}`)."""
    masked = mask_code(text)
    scope = r"MetalShaderLibrary::" if qualified else r""
    out = []
    for m in re.finditer(rf"^[ \t]*void\s+{scope}{name}\s*\(", masked, re.M):  # a template line before: kept
        close = match_close(masked, m.end() - 1)
        if close is None:
            continue
        after = re.match(r"\s*(;|\{)", masked[close + 1 :])
        if after is None or (after.group(1) == "{") != qualified:
            continue
        end = close + 1 + after.end()
        if qualified:
            body_close = match_close(masked, end - 1)
            if body_close is None:
                continue
            end = body_close + 1
        params = tuple(p.strip() for p in split_top_level(text[m.end() : close]) if p.strip())
        head = re.search(r"^[ \t]*template\s*<[^;{}<>]*>[ \t]*\n\Z", masked[: m.start()], re.M)
        out.append(Callable(head.start() if head else m.start(), end, params, m.end() - 1))
    return out


def has_ternary_alpha(header_text: str) -> bool:
    return any(len(c.params) > 2 for c in find_callables(header_text, TERNARY, qualified=False))


def _param_name(param: str) -> str:
    m = re.search(r"(\w+)\s*(?:=.*)?$", param.strip(), re.S)
    return m.group(1) if m else ""


def _alpha_param(params: tuple[str, ...]) -> str | None:
    return next((p for p in params if _param_name(p) == "alpha"), None)


def _alpha_params(params: tuple[str, ...], used: str) -> list[str]:
    """exec_binary_kernel's parameters its alpha path reads (alpha, scalar_arg_type), in its order;
    alpha without its default, so the overload never competes with exec_ternary_kernel(iter, name)."""
    out = [p for p in params[2:] if re.search(rf"\b{_param_name(p)}\b", used)]
    return [p.split("=")[0].strip() if _param_name(p) == "alpha" else p for p in out]


def _line_end(text: str, pos: int) -> int:
    nl = text.find("\n", pos)
    return len(text) if nl < 0 else nl + 1


def add_declaration(header_text: str, path: str) -> str:
    """MetalShaderLibrary.h with the alpha overload declared after exec_ternary_kernel(iter, name)."""
    if has_ternary_alpha(header_text):
        return header_text
    ternary = find_callables(header_text, TERNARY, qualified=False)
    binary = [c for c in find_callables(header_text, BINARY, qualified=False) if _alpha_param(c.params)]
    if len(ternary) != 1 or not binary:
        raise _refuse(path, f"no declaration of {TERNARY}(iter, name) and {BINARY}(iter, name, alpha)")
    sib = ternary[0]
    decl = header_text[sib.start : sib.end]
    close = decl.rindex(")")
    new = f"{decl[:close]}, {', '.join(_alpha_params(binary[0].params, ALPHA_PATH_NAMES))}{decl[close:]}"
    at = _line_end(header_text, sib.end)
    nl = "\r\n" if header_text[at - 2 : at] == "\r\n" else "\n"
    return header_text[:at] + new.rstrip() + nl + header_text[at:]


def defines_sibling(mm_text: str) -> bool:
    return any(len(c.params) == 2 for c in find_callables(mm_text, TERNARY, qualified=True))


def defines_ternary_alpha(mm_text: str) -> bool:
    return any(len(c.params) > 2 for c in find_callables(mm_text, TERNARY, qualified=True))


def _statement(text: str, name: str) -> tuple[int, int] | None:
    """(line start, end after `;`) of `const auto <name> = ...;`."""
    masked = mask_code(text)
    m = re.search(rf"^[ \t]*const\s+auto\s+{name}\s*=", masked, re.M)
    if m is None:
        return None
    semi = masked.find(";", m.end())
    return (m.start(), semi + 1) if semi >= 0 else None


def _binary_alpha_path(mm_text: str, path: str) -> tuple[str, list[str], str]:
    """exec_binary_kernel's parameters its alpha path reads, its alpha_type/alpha_suffix statements
    (one line each) and its alpha value expression."""
    binary = [c for c in find_callables(mm_text, BINARY, qualified=True) if _alpha_param(c.params)]
    if not binary:
        raise _refuse(path, f"no definition of {BINARY}(iter, name, alpha, ...)")
    body = mm_text[binary[0].start : binary[0].end]
    statements = []
    for name in ("alpha_type", "alpha_suffix"):
        span = _statement(body, name)
        if span is None:
            raise _refuse(path, f"{BINARY} has no `const auto {name} = ...;`")
        statements.append(" ".join(body[span[0] : span[1]].split()))
    value = re.search(r"getMPSScalar\(\s*\*alpha\s*,\s*alpha_type\s*\)", body)
    params = _alpha_params(binary[0].params, " ".join(statements))
    unknown = set(re.findall(r"\b[a-z_]\w*\b", " ".join(statements))) & {_param_name(p) for p in binary[0].params[2:]}
    if value is None or unknown - {_param_name(p) for p in params}:
        raise _refuse(path, f"{BINARY}'s alpha path is not alpha_type / getMPSScalar(*alpha, alpha_type)")
    return ", ".join(params), statements, value.group(0)


def _append_suffix(stmt: str, piece: str, arg: str) -> str:
    """Each fmt::format("...", args) of the kernel_name statement gets *piece* and *arg* last."""
    masked = mask_code(stmt)
    for m in reversed(list(re.finditer(r"fmt::format\(", masked))):
        close = match_close(masked, m.end() - 1)
        literal = re.compile(r'\s*"((?:[^"\\]|\\.)*)"').match(stmt, m.end())
        if close is None or literal is None:
            raise MpsgenError(f"kernel_name is not built by fmt::format(\"...\", ...): {stmt}")
        quote = literal.end() - 1
        stmt = f"{stmt[:quote]}{piece}{stmt[quote:close]}, {arg}{stmt[close:]}"
    return stmt


class Derivation(NamedTuple):
    """How a new form differs from exec_ternary_kernel(iter, name), read from a binary sibling."""

    name: str  # exec_ternary_kernel, exec_ternary_kernel_with_params
    head: str  # a `template <typename T>` line before the definition, or ""
    params: str  # the parameters after (iter, name), as the binary sibling's definition spells them
    statements: tuple[str, ...]  # lines before kernel_name (alpha_type, alpha_suffix), one each
    suffix: str  # what the kernel name's format calls gain at their end (alpha_suffix, params_type_name)
    suffix_format: str  # ... and their format strings ("{}", "_{}")
    value: str  # what is bound right after the tensors
    prelude: str = ""  # the sibling's first statement to keep (`using namespace mps;` in a header)
    optional: str = ""  # a parameter that may be empty (alpha): then the sibling runs, as exec_binary_kernel does


def derive(sibling: str, d: Derivation, path: str) -> str:
    """exec_ternary_kernel(iter, name)'s definition -> the new form's: its parameters, the recursion on
    32-bit sub-iterators passing them on, the kernel name's suffix, and *d.value* bound right after
    the four tensors (what was bound after them one slot up); without the sibling's TODO comments.
    With *d.optional*, an empty one hands the call to the sibling first: the value bound is read only
    when there is one."""
    sibling = without_todo_comments(sibling)
    masked = mask_code(sibling)
    open_pos = masked.index("(")
    close = match_close(masked, open_pos)
    assert close is not None
    text = f"{sibling[:close]}, {d.params}{sibling[close:]}"
    text = re.sub(rf"\bMetalShaderLibrary::{TERNARY}\b", f"MetalShaderLibrary::{d.name}", text, count=1)
    passed = ", ".join(_param_name(p) for p in split_top_level(d.params))
    text, recursions = re.subn(rf"\b{TERNARY}\(\s*sub_iter\s*,\s*name\s*\)", f"{d.name}(sub_iter, name, {passed})", text)
    span = _statement(text, "kernel_name")
    bind = re.search(r"^([ \t]*)bind_iter_tensors\(\s*(\w+)\s*,\s*iter\s*\);[ \t]*$", text, re.M)
    if not recursions or span is None or bind is None:
        raise _refuse(path, f"{TERNARY}'s definition has no recursion on sub_iter, kernel_name or bind_iter_tensors")
    encoder, indent = bind.group(2), bind.group(1)
    tail = re.sub(r"mtl_setArgs<(\d+)>", lambda m: f"mtl_setArgs<{int(m.group(1)) + (int(m.group(1)) >= _TENSORS)}>",
                  text[bind.end() :])
    text = text[: bind.end()] + f"\n{indent}mtl_setArgs<{_TENSORS}>({encoder}, {d.value});" + tail
    span = _statement(text, "kernel_name")
    assert span is not None
    stmt_indent = re.match(r"[ \t]*", text[span[0] :]).group(0)  # type: ignore[union-attr]
    added = "".join(f"{stmt_indent}{s}\n" for s in d.statements)
    named = _append_suffix(text[span[0] : span[1]], d.suffix_format, d.suffix)
    text = text[: span[0]] + added + named + text[span[1] :]
    first = [d.prelude] if d.prelude else []
    if d.optional:
        first += [f"if (!{d.optional}.has_value()) {{", f"  {TERNARY}(iter, name);", "  return;", "}", ""]
    if first:
        brace = mask_code(text).index("{", match_close(mask_code(text), mask_code(text).index("(")) or 0)
        text = text[: brace + 1] + "".join(f"\n{stmt_indent}{line}".rstrip(" \t") for line in first) + text[brace + 1 :]
    return f"{d.head}{text}"


def alpha_definition(sibling: str, mm_text: str, path: str) -> str:
    """exec_ternary_kernel(iter, name)'s definition -> the alpha overload's."""
    params, statements, value = _binary_alpha_path(mm_text, path)
    return derive(sibling, Derivation(TERNARY, "", params, tuple(statements), "alpha_suffix", "{}", value,
                                      optional="alpha"), path)


def add_definition(mm_text: str, path: str) -> str:
    """*mm_text* (the file defining exec_ternary_kernel) with the alpha overload after it."""
    if defines_ternary_alpha(mm_text):
        return mm_text
    siblings = [c for c in find_callables(mm_text, TERNARY, qualified=True) if len(c.params) == 2]
    if len(siblings) != 1:
        raise _refuse(path, f"no one definition of MetalShaderLibrary::{TERNARY}(iter, name)")
    sib = siblings[0]
    new = alpha_definition(mm_text[sib.start : sib.end], mm_text, path)
    at = _line_end(mm_text, sib.end)
    return f"{mm_text[:at]}\n{new}\n{mm_text[at:]}"


# -- exec_ternary_kernel_with_params: the ternary kernel with exec_binary_kernel_with_params's params path --

TERNARY_PARAMS = "exec_ternary_kernel_with_params"
BINARY_PARAMS = "exec_binary_kernel_with_params"
HEADER_DEFINITIONS = "aten/src/ATen/native/mps/OperationUtils.h"  # where 2.13 defines the *_with_params templates


def has_ternary_params(text: str, *, qualified: bool) -> bool:
    return bool(find_callables(text, TERNARY_PARAMS, qualified=qualified))


def add_params_declaration(header_text: str, path: str) -> str:
    """MetalShaderLibrary.h with exec_ternary_kernel_with_params declared after its binary sibling
    (the same template, renamed)."""
    if has_ternary_params(header_text, qualified=False):
        return header_text
    binary = find_callables(header_text, BINARY_PARAMS, qualified=False)
    if len(binary) != 1:
        raise _refuse(path, f"no one declaration of {BINARY_PARAMS}")
    decl = header_text[binary[0].start : binary[0].end]
    new = re.sub(rf"\b{BINARY_PARAMS}\b", TERNARY_PARAMS, decl, count=1)
    at = _line_end(header_text, binary[0].end)
    nl = "\r\n" if header_text[at - 2 : at] == "\r\n" else "\n"
    return header_text[:at] + new.rstrip() + nl + header_text[at:]


def params_definition(sibling: str, binary_text: str, path: str) -> str:
    """exec_ternary_kernel(iter, name)'s definition -> exec_ternary_kernel_with_params's, with
    exec_binary_kernel_with_params's template line, parameters, leading `using namespace`, and its
    kernel names' `_<params_type_name>` ending."""
    binary = find_callables(binary_text, BINARY_PARAMS, qualified=True)
    if len(binary) != 1:
        raise _refuse(path, f"no one definition of MetalShaderLibrary::{BINARY_PARAMS}")
    body = binary_text[binary[0].start : binary[0].end]
    head = re.match(r"[ \t]*template\s*<[^>]*>[ \t]*\r?\n", body)
    names = [_param_name(p) for p in binary[0].params[2:]]
    kernel_name = _statement(body, "kernel_name")
    binds = re.search(r"mtl_setArgs?(?:<\d+>)?\(\s*\w+\s*,\s*params\b", body)
    if head is None or names != ["params", "params_type_name"] or kernel_name is None or binds is None \
            or "params_type_name" not in body[kernel_name[0] : kernel_name[1]]:
        raise _refuse(path, f"{BINARY_PARAMS} is not a template binding params and naming kernels by params_type_name")
    prelude = re.search(r"\{\s*(using\s+namespace\s+[\w:]+\s*;)", mask_code(body))
    d = Derivation(TERNARY_PARAMS, head.group(0), ", ".join(binary[0].params[2:]), (), "params_type_name", "_{}",
                   "params", prelude.group(1) if prelude else "")
    return derive(sibling, d, path)


def add_params_definition(target_text: str, target: str, sibling: str, path: str) -> str:
    """*target_text* (the file defining exec_binary_kernel_with_params) with
    exec_ternary_kernel_with_params after it, derived from *sibling* (exec_ternary_kernel's definition)."""
    if has_ternary_params(target_text, qualified=True):
        return target_text
    binary = find_callables(target_text, BINARY_PARAMS, qualified=True)
    if len(binary) != 1:
        raise _refuse(target, f"no one definition of MetalShaderLibrary::{BINARY_PARAMS}")
    new = params_definition(sibling, target_text, target)
    at = _line_end(target_text, binary[0].end)
    return f"{target_text[:at]}\n{new}\n{target_text[at:]}"


def ternary_definition(mm_text: str, path: str) -> str:
    """The text of MetalShaderLibrary::exec_ternary_kernel(iter, name)'s definition."""
    siblings = [c for c in find_callables(mm_text, TERNARY, qualified=True) if len(c.params) == 2]
    if len(siblings) != 1:
        raise _refuse(path, f"no one definition of MetalShaderLibrary::{TERNARY}(iter, name)")
    return mm_text[siblings[0].start : siblings[0].end]
