"""The names an edit of a C/C++/Metal header declares or takes away, when all it does is insert or
remove whole declarations.

A header edit can break a file that includes it. When the edit only inserts or removes declarations
of new names at namespace or class scope (a function, a member template, a params struct, a macro, a
DECLARE_DISPATCH line), a file that names none of them compiles as before: it cannot call, redefine
or clash with what it never names. (A macro's one-word argument counts as a name it declares; since
a macro can paste it into longer names, callers look for each name inside words.) Any other edit gets
None, and every includer is compiled: an inserted declaration of a name the header already had (an
overload, a specialization: a file can reach it through a macro or a template without naming it), a
line changed in place, lines inside an existing body, an #include, #undef or other directive, a
namespace-scope `using namespace`, an operator.
"""

from __future__ import annotations

import difflib
import re

from mpsgen.scan.brackets import match_close, split_top_level
from mpsgen.scan.mask import code_only, directives, mask

_DIRECTIVE = re.compile(r"#[ \t]*(\w*)(?:[ \t]+(\w+))?")
_SCOPE_HEAD = re.compile(r"\b(?:namespace|struct|class|union|enum)\b|\bextern\s*$")
_TAG = re.compile(r"\b(?:struct|class|union|enum|typedef|using|namespace|concept)\s+(?:class\s+|struct\s+)?(\w+)")
_IDENT = re.compile(r"[A-Za-z_]\w*")
_UNSCOPED_ENUM = re.compile(r"\benum\b(?!\s+(?:class|struct)\b)")
_MACRO_CALL = re.compile(r"\b[A-Z][A-Z0-9_]*\s*\(")  # DECLARE_DISPATCH(fn, foo_stub): its arguments declare
_POINTER_DECLARATOR = re.compile(r"\(\s*[*&^]\s*(\w+)\s*\)")  # void (*fp)(int)
_TEMPLATE_HEAD = re.compile(r"\btemplate\s*<")
_NAME_FOLLOWERS = frozenset("(;={[,<:}")
_KEYWORDS = frozenset("""alignas const constexpr consteval constinit decltype explicit extern friend inline
    mutable noexcept override final static template thread_local typename virtual volatile void auto
    bool char short int long float double signed unsigned return public private protected""".split())


def changed_declarations(old: str, new: str) -> frozenset[str] | None:
    """The names the lines *new* inserts into *old*, and those it removes, declare at namespace or
    class scope, when the edit is only that; None otherwise (see the module doc)."""
    old_lines, new_lines = old.splitlines(keepends=True), new.splitlines(keepends=True)
    inserted: list[tuple[int, int]] = []  # line ranges: of new's lines, then of old's
    removed: list[tuple[int, int]] = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, old_lines, new_lines, autojunk=False).get_opcodes():
        if tag == "insert":
            inserted.append((j1, j2))
        elif tag == "delete":
            removed.append((i1, i2))
        elif tag != "equal":
            return None
    names: set[str] = set()
    for text, lines, runs in ((new, new_lines, inserted), (old, old_lines, removed)):
        if not runs:
            continue
        found = _declared(text, lines, runs)
        if found is None:
            return None
        names |= found
    if inserted and names & set(_IDENT.findall(mask(old).masked)):
        return None  # an overload, redeclaration or specialization of a name the header had: it can
        # change what a call reaching it through a macro or a template resolves to, so every includer
    return frozenset(names)


def _declared(text: str, lines: list[str], runs: list[tuple[int, int]]) -> set[str] | None:
    """The names declared by *text*'s line ranges *runs*; None when one of them does more than declare."""
    masked = mask(text)
    if masked.problem is not None:
        return None
    code = code_only(masked.masked)  # directives blanked: a macro's text is not a declaration
    levels = _scope_levels(code)
    if levels is None:
        return None
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))
    names: set[str] = set()
    for j1, j2 in runs:
        found = _declared_in(masked.masked, code, starts[j1], starts[j2], levels)
        if found is None:
            return None
        names |= found
    return names


def _scope_levels(code: str) -> list[int] | None:
    """For each offset of masked *code*: how many namespace or class braces enclose it, or -1 inside a
    function body, an initializer or a parenthesis; None when the brackets do not balance."""
    levels = [0] * (len(code) + 1)
    # "s" a scope's brace, "e" an unscoped enum's (its enumerators are the enclosing scope's names),
    # "b" a body's brace, "(" a parenthesis or bracket
    stack: list[str] = []
    head = 0  # where the current declaration's text began
    level = 0
    for i, ch in enumerate(code):
        if ch in "({[":
            declaration = code[head:i]
            if ch == "{" and level >= 0 and _SCOPE_HEAD.search(declaration) and "(" not in declaration:
                stack.append("e" if _UNSCOPED_ENUM.search(declaration) else "s")
            else:
                stack.append("b" if ch == "{" else "(")
        elif ch in ")}]":
            if not stack:
                return None
            stack.pop()
        if ch in "({[)}]":
            level = stack.count("s") if all(kind in "se" for kind in stack) else -1
        levels[i + 1] = level
        if ch in ";{}" and level >= 0:
            head = i + 1
    return levels if not stack else None


def _declared_in(masked: str, code: str, start: int, end: int, levels: list[int]) -> set[str] | None:
    """The names declared by the text [start, end) (*masked*: comments and literals blanked; *code*:
    directives blanked too); None when it does more than declare."""
    level = levels[start]
    if level < 0 or levels[end] != level:
        return None  # inside a body or a parenthesis: it changes what is there
    if any(0 <= inner < level for inner in levels[start:end]):
        return None  # it closes a scope it sits in (and opens another): what follows moves
    names: set[str] = set()
    for s, _ in directives(masked).spans:
        if start <= s < end:
            m = _DIRECTIVE.match(masked, s)
            kind, name = (m.group(1), m.group(2)) if m else ("", None)
            if (kind, name) == ("pragma", "once"):
                continue
            if kind != "define" or not name:
                return None
            names.add(name)
    part = code[start:end]
    # the text at the run's own level: bodies, parentheses and the members of a class it adds blanked
    own = _without_template_heads("".join(ch if levels[start + k] == level else " " for k, ch in enumerate(part)))
    if re.search(r"\busing\s+namespace\b|\boperator\b", own):
        return None
    names.update(m.group(1) for m in _TAG.finditer(own))
    names.update(m.group(1) for m in _POINTER_DECLARATOR.finditer(part) if levels[start + m.start()] == level)
    heads: set[int] = set()  # where a scope-level macro call's name starts: the call declares its arguments
    for m in _MACRO_CALL.finditer(own):  # ... those that are one word
        close = match_close(part, m.end() - 1)
        if close is None:
            return None
        heads.add(m.start())
        names.update(arg.strip() for arg in split_top_level(part[m.end():close]) if _IDENT.fullmatch(arg.strip()))
    for m in _IDENT.finditer(own):
        following = own[m.end():m.end() + 40].lstrip()
        if following[:1] in _NAME_FOLLOWERS and not following.startswith("::") and m.start() not in heads:
            names.add(m.group(0))
    return names - _KEYWORDS


def _without_template_heads(code: str) -> str:
    """*code* with each `template <...>` parameter list blanked (its names are not the declaration's)."""
    out = list(code)
    for m in _TEMPLATE_HEAD.finditer(code):
        depth = 0
        for k in range(m.end() - 1, len(code)):
            depth += {"<": 1, ">": -1}.get(code[k], 0)
            out[k] = "\n" if code[k] == "\n" else " "
            if depth == 0:
                break
    return "".join(out)
