"""Dead code goes with the implementation it served.

When migrate deletes an MPSGraph implementation, the file-local code only it used is dead: left
behind, it is an unused-function warning at best.  Here it is found from the names the deleted
code referenced and removed too, to a fixed point (a dead helper may be the last user of another).

Conservative on purpose: only code no other translation unit can see is a candidate (`static`
functions, functions in an anonymous namespace, `#define`s of this file), and a candidate goes
only when nothing left in the file names it, its own definition aside.  A name a macro could still
build by token pasting (`binaryOp##other_type` builds binaryOpTensor) is kept and reported.
"""

from __future__ import annotations

import re
from typing import Iterable

from mpsgen.records import NamedTuple
from mpsgen.scan.lines import split_lines
from mpsgen.scan.mask import mask_code
from mpsgen.sources.host import mm as host
from mpsgen.sources.index import index_of

_IDENT = re.compile(r"[A-Za-z_]\w*")
_DEFINE_NAME = re.compile(r"[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)")
_ANONYMOUS_NAMESPACE = re.compile(r"\bnamespace\s*\{")
_PASTE = re.compile(r"(\w*)\s*##\s*(\w*)")
_INCLUDE = re.compile(r"^[ \t]*#[ \t]*(?:include|import)\b", re.M)


def referenced_names(code: str) -> set[str]:
    """Identifiers used by a piece of code (comments and literals excluded)."""
    return set(_IDENT.findall(mask_code(code)))


class _Candidate(NamedTuple):
    kind: str  # "static", "anonymous-namespace" (file-local functions) or "#define"
    name: str
    line: int
    end_line: int
    own_uses: int  # occurrences of the name inside its own definition(s)

    @property
    def what(self) -> str:
        return f"{self.kind} {self.name}"


def _uses_in(masked: str, name: str, start: int, end: int) -> int:
    return len(re.findall(rf"\b{re.escape(name)}\b", masked[start:end]))


def _anonymous_spans(masked: str, brace_pairs: dict[int, int]) -> list[tuple[int, int]]:
    spans = []
    for m in _ANONYMOUS_NAMESPACE.finditer(masked):
        close = brace_pairs.get(m.end() - 1)
        if close is not None:
            spans.append((m.end() - 1, close))
    return spans


def _candidates(text: str, path: str, pending: set[str]) -> list[_Candidate]:
    """The file-local functions and macros among *pending*, each with the uses it makes of itself."""
    ix = index_of(path, text)
    masked, lines = ix.masked, ix.lines
    found: list[_Candidate] = []
    defs = [d for d in host.definitions(path, text) if d.impl.form == "function" and d.name in pending]
    anonymous = _anonymous_spans(masked, ix.brace_pairs) if defs else []
    for d in defs:
        impl = d.impl
        start = lines.start_of(impl.line)
        kind = "static" if d.static else "anonymous-namespace" if any(a < start < b for a, b in anonymous) else None
        if kind is None:  # a file-local function nothing names any more is dead, whatever it runs
            continue
        own = sum(_uses_in(masked, x.name, lines.start_of(x.impl.line), lines.start_of(x.impl.end_line + 1))
                  for x in defs if x.name == d.name)  # overloads name each other's name too
        found.append(_Candidate(kind, d.name, impl.line, impl.end_line, own))
    last_include = max((m.start() for m in _INCLUDE.finditer(masked)), default=-1)
    for start, end in ix.directives.spans:
        m = ix.macro_defs.get(name) if (name := _define_name(masked, start, end)) else None
        if name is None or name not in pending:
            continue
        if m is None and start < last_include:
            continue  # an object-like macro above an #include may configure that header
        line, end_line = ix.line(start), ix.line(end)
        own = _uses_in(masked, name, lines.start_of(line), lines.start_of(end_line + 1))
        found.append(_Candidate("#define", name, line, end_line, own))
    return found


def _define_name(masked: str, start: int, end: int) -> str | None:
    m = _DEFINE_NAME.match(masked, start, end)
    return m.group(1) if m else None


def _pasted(masked: str, name: str) -> bool:
    """Whether some `A ## B` in the file could build *name* (A a prefix of it, or B a suffix)."""
    for m in _PASTE.finditer(masked):
        head, tail = m.group(1), m.group(2)
        if (head and name.startswith(head) and name != head) or (tail and name.endswith(tail) and name != tail):
            return True
    return False


def _dead(text: str, path: str, pending: set[str]) -> tuple[list[_Candidate], list[_Candidate]]:
    """(dead candidates, candidates kept only because a macro could paste their name)."""
    ix = index_of(path, text)
    counts = ix.identifier_counts
    dead: list[_Candidate] = []
    pasted: list[_Candidate] = []
    for c in _candidates(text, path, pending):
        if counts.get(c.name, 0) != c.own_uses:
            continue
        (pasted if "##" in ix.masked and _pasted(ix.masked, c.name) else dead).append(c)
    return dead, pasted


def _drop_lines(text: str, first: int, last: int) -> str:
    """*text* without 1-based lines first..last, and without a blank line doubled by the removal."""
    lines = split_lines(text)
    kept = lines[: first - 1] + lines[last:]
    k = first - 1
    if 0 < k < len(kept) and not kept[k - 1].strip() and not kept[k].strip():
        del kept[k]
    return "".join(kept)


def _remove(text: str, path: str, c: _Candidate) -> str:
    if c.kind == "#define":
        return _drop_lines(text, c.line, c.end_line)
    impl = next(d.impl for d in host.definitions(path, text) if d.name == c.name and d.impl.line == c.line)
    new = host.remove_implementation(text, impl, allow_unknown=True, allow_metal=True)
    first = _doc_comment_start(split_lines(text), c.line)
    return _drop_lines(new, first, c.line - 1) if first < c.line else new


def _doc_comment_start(lines: list[str], line: int) -> int:
    """The 1-based first line of the `//` comment block right above 1-based *line* (no blank line between)
    that starts a paragraph (a blank line or a scope's `{` above it): the function's own comment
    (`// returns false if tensor cannot be filled with fillBuffer()`), which goes with it; *line* if none."""
    k = line - 1  # 1-based line above
    while k >= 1 and _comment_name(lines[k - 1]) is not None:
        k -= 1
    if k == line - 1:
        return line
    above = lines[k - 1].rstrip() if k >= 1 else ""
    return k + 1 if not above.strip() or above.endswith("{") else line


def remove_unused_helpers(
    text: str, path: str, referenced: set[str]
) -> tuple[str, list[tuple[int, str]], list[tuple[int, str]]]:
    """*text* without the file-local functions and #defines among *referenced* (names the deleted
    code used) that nothing left in the file names, repeated until none is left.

    Returns (text, removed, kept): [(line, "static name" / "#define NAME" / ...)] removed (lines as
    they were when each went), and the otherwise unused ones kept because a macro could still
    paste their name (the caller reports them)."""
    removed: list[tuple[int, str]] = []
    pending = set(referenced)
    while True:
        dead, pasted = _dead(text, path, pending)
        if not dead:
            return text, removed, [(c.line, c.what) for c in pasted]
        c = dead[0]
        code = "".join(split_lines(text)[c.line - 1 : c.end_line])
        new = _remove(text, path, c)
        text = drop_orphaned_comments(new, first_changed_line(text, new), {c.name})  # and a section left empty
        pending |= referenced_names(code)  # its name stays: an overload of it may be dead too
        removed.append((c.line, c.what))


_COMMENT = re.compile(r"^[ \t]*//(.*)$")
_RULE = re.compile(r"^[-=*/_ \t]*$")  # a comment that is only a rule: `// ---------`


def _comment_name(line: str) -> str | None:
    """`// Hardtanh backward` -> "hardtanh_backward"; None for a line that is no `//` comment."""
    m = _COMMENT.match(line.rstrip("\r\n"))
    if m is None:
        return None
    return "_".join(re.findall(r"[a-z0-9]+", m.group(1).lower()))


def _name_forms(names: set[str]) -> set[str]:
    """hardtanh_backward_out_mps -> itself, hardtanh_backward_out, hardtanh_backward (what a section says)."""
    forms = set()
    for name in names:
        stem = name.removesuffix("_mps")
        forms |= {name, stem, stem.removesuffix("_out")}
    return forms


def first_changed_line(before: str, after: str) -> int:
    """The 1-based line where *after* starts to differ from *before*: where code was deleted (the blank
    line the deletion made redundant may have gone too, which impl.line does not know)."""
    old, new = split_lines(before), split_lines(after)
    return next((k + 1 for k, (a, b) in enumerate(zip(old, new)) if a != b), min(len(old), len(new)) + 1)


def drop_orphaned_comments(text: str, at_line: int, names: set[str]) -> str:
    """*text* without the section comments naming code deleted at 1-based *at_line* (`// Hardtanh backward`
    over hardtanh_backward_out_mps) once no code they could name follows them, with the `// ---` rule
    right above such a comment; only in the run of blank and comment lines around *at_line*."""
    lines = split_lines(text)
    forms = _name_forms(names)
    first = last = min(max(at_line - 1, 0), len(lines))  # the run: lines[first:last]
    while first > 0 and (not lines[first - 1].strip() or _comment_name(lines[first - 1]) is not None):
        first -= 1
    while last < len(lines) and (not lines[last].strip() or _comment_name(lines[last]) is not None):
        last += 1
    following = "_".join(re.findall(r"[a-z0-9]+", (lines[last] if last < len(lines) else "").lower()))
    said = {k: _comment_name(lines[k]) or "" for k in range(first, last)}
    drop = {k for k, name in said.items() if name in forms and name not in following}
    if last == len(lines) or lines[last].lstrip().startswith("}"):  # the scope ends: a header there heads nothing
        drop |= _headers_of_nothing(lines, first, last)
    drop |= {k - 1 for k in drop if k - 1 >= first and _comment_name(lines[k - 1]) is not None
             and _RULE.match(_COMMENT.match(lines[k - 1].rstrip("\r\n")).group(1))}  # type: ignore[union-attr]
    if not drop:
        return text
    kept = [ln for k, ln in enumerate(lines) if k not in drop]
    # No blank line doubled where the comments were.
    out: list[str] = []
    for k, ln in enumerate(kept):
        if not ln.strip() and out and not out[-1].strip() and first <= k <= last:
            continue
        out.append(ln)
    return "".join(out)


def _headers_of_nothing(lines: list[str], first: int, last: int) -> set[int]:
    """The comment blocks of lines[first:last] (blank and comment lines before a scope's end) that start
    after a blank line or the scope's `{`: section headers (`// APIs exposed to at::native scope`) whose
    code is gone.  A block right under code is that code's trailing remark, and stays."""
    out: set[int] = set()
    for k in range(first, last):
        above = lines[k - 1].rstrip() if k > 0 else "x"
        if lines[k].strip() and (not above.strip() or k == first and above.endswith("{")):  # a block's start
            end = k
            while end < last and lines[end].strip():
                end += 1
            out |= set(range(k, end))
    return out


def _namespaces(text: str, path: str) -> list[tuple[tuple[str, ...], int, int, int, bool]]:
    """(key, start, `{`, `}` offsets, empty) of each namespace block; the key is the names of the blocks
    around it, its own, and its ordinal among blocks so named (stable across edits elsewhere)."""
    ix = index_of(path, text)
    found = [(m.group(1).strip() or "{anonymous}", m.start(), m.end() - 1, ix.brace_pairs[m.end() - 1])
             for m in re.finditer(r"\bnamespace\b([\w: \t]*)\{", ix.masked) if m.end() - 1 in ix.brace_pairs]
    seen: dict[tuple[str, ...], int] = {}
    out = []
    for name, start, open_, close in found:
        chain = tuple(n for n, _, o, c in found if o < open_ and close <= c) + (name,)
        seen[chain] = seen.get(chain, -1) + 1
        out.append(((*chain, str(seen[chain])), start, open_, close, not ix.masked[open_ + 1 : close].strip()))
    return out


def drop_emptied_namespaces(before: str, text: str, path: str) -> str:
    """*text* without the namespace blocks nested in another that the change emptied (non-empty in
    *before*, only blank lines left), each with the comment right above it (`// scope the MPS's internal
    methods ...` over PointwiseOps.mm's `namespace mps {`).  A file's outermost namespace stays: a file
    without code is for its author to delete."""
    had = {key for key, *_, empty in _namespaces(before, path) if not empty}
    while True:
        ix = index_of(path, text)
        lines = split_lines(text)
        emptied = [(start, close) for key, start, _, close, empty in _namespaces(text, path)
                   if empty and key in had and len(key) > 2
                   and not ix.masked[ix.lines.start_of(ix.line(start)) : start].strip()
                   and not ix.masked[close + 1 : ix.lines.start_of(ix.line(close) + 1)].strip()]  # own lines
        if not emptied:
            return text
        start, close = emptied[-1]
        first, last = ix.line(start), ix.line(close)
        while first > 1 and _comment_name(lines[first - 2]) is not None:
            first -= 1
        text = _drop_lines(text, first, last)


_SCOPE_ONLY = re.compile(r"\bnamespace\b[\w: \t]*\{|\}")


def holds_no_code(text: str, path: str) -> bool:
    """Whether *text* is down to preprocessor lines, comments and empty namespaces (PointwiseOps.mm once
    addcmul and addcdiv left it)."""
    ix = index_of(path, text)
    code = "".join(ix.masked[a:b] for a, b in _outside(ix.directives.spans, len(ix.masked)))
    return not _SCOPE_ONLY.sub("", code).strip()


def _outside(spans: Iterable[tuple[int, int]], length: int) -> list[tuple[int, int]]:
    out, at = [], 0
    for start, end in sorted(spans):
        out.append((at, start))
        at = max(at, end)
    return [*out, (at, length)]


_INCLUDE_LINE = re.compile(r"^[ \t]*#[ \t]*(?:include|import)\b.*$", re.M)
_OP_HEADER = re.compile(r"^[ \t]*#[ \t]*include[ \t]*<ATen/ops/(\w+)\.h>[ \t]*\r?\n", re.M)


def remove_unused_op_headers(text: str, used: set[str]) -> tuple[str, list[str]]:
    """*text* without the `#include <ATen/ops/<op>.h>` lines (the at:: functions' headers, not `_native.h`) of
    an op the deleted code named (*used*) that no code left in the file names at all, as a whole word
    (2.7's ConstantOps.mm: view_as_real.h once fill_scalar_mps is gone); with the headers dropped."""
    code = _INCLUDE_LINE.sub("", mask_code(text))
    dropped = [m for m in _OP_HEADER.finditer(text) if not m.group(1).endswith("_native") and m.group(1) in used
               and re.search(rf"\b{re.escape(m.group(1))}\b", code) is None]
    for m in reversed(dropped):
        text = text[: m.start()] + text[m.end():]
    return text, [f"ATen/ops/{m.group(1)}.h" for m in dropped]
