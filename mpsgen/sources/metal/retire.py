"""Retire a bespoke Metal kernel no host calls any more: its template kernel, its
`[[host_name("name_" ...)]]` instances and the helpers only it used.

2.7 keeps MPS-only kernels in .metal files of their own (kernels/Gamma.metal's lgamma, digamma,
trigamma and polygamma; RenormKernel.metal's renorm), each a template kernel whose instances a
macro (or the top level) names `name_<type>...`, run by a host file's own code.  When migrate deletes
that host code, the kernel is dead, and its host names would clash with the shared kernel of the same
name the change adds: it goes, as upstream deleted such kernels when it moved their ops onto the
shared iterator.  A macro left without instances goes with its calls (and an `#if` left empty around
them); a file-local function nothing names any more goes too.
"""

from __future__ import annotations

import re

from mpsgen.errors import MpsgenError
from mpsgen.scan.lines import above_comments, split_lines
from mpsgen.scan.mask import mask_code
from mpsgen.sources.index import identifier_counts

_DEFINE = re.compile(r"^[ \t]*#[ \t]*define[ \t]+(\w+)")
_IF = re.compile(r"^[ \t]*#[ \t]*if")
_ENDIF = re.compile(r"^[ \t]*#[ \t]*endif\b")
_FUNCTION = re.compile(r"^(?:inline\s+|static\s+)*[A-Za-z_][\w:<>]*\s+([A-Za-z_]\w*)\s*\([^;]*$")


def _content(line: str) -> str:
    return re.sub(r"\s*\\$", "", line.rstrip("\r\n"))


def _define_spans(lines: list[str]) -> list[tuple[str, int, int]]:
    """(name, first, last) 0-based of each #define with its continuation lines."""
    spans = []
    i = 0
    while i < len(lines):
        m = _DEFINE.match(lines[i])
        if m:
            j = i
            while lines[j].rstrip("\r\n").endswith("\\") and j + 1 < len(lines):
                j += 1
            spans.append((m.group(1), i, j))
            i = j
        i += 1
    return spans


def _instances(lines: list[str], masked: list[str], name: str, path: str) -> list[tuple[int, int]]:
    """0-based (first, last) line spans of every `template [[host_name("name_"...)]] ...;` instance."""
    head = re.compile(rf'\[\[\s*host_name\s*\(\s*"{re.escape(name)}_')
    spans = []
    for i, line in enumerate(lines):
        m = head.search(line)
        if m is None or "host_name" not in masked[i][m.start(): m.end()]:
            continue  # in a comment
        if "template" in masked[i][: m.start()]:
            first = i
        elif i > 0 and _content(masked[i - 1]).strip() == "template":
            first = i - 1  # `template` on a line of its own
        else:
            raise MpsgenError(f"a `[[host_name(\"{name}_...\")]]` instance that mpsgen cannot read", path=path,
                              line=i + 1, hint=f"delete the {name} kernel by hand")
        last = next((k for k in range(i, len(lines)) if _content(masked[k]).rstrip().endswith(";")), None)
        if last is None:
            raise MpsgenError(f"the `{name}` instance does not end", path=path, line=i + 1,
                              hint=f"delete the {name} kernel by hand")
        spans.append((first, last))
    return spans


def _kernel_definition(masked: list[str], name: str) -> tuple[int, int] | None:
    """0-based (first, last) lines of `template <...> kernel void name(...) {...}`, None if absent."""
    code = "".join(masked)
    m = re.search(rf"\btemplate\s*<[^>]*>\s*kernel\s+void\s+{re.escape(name)}\s*\(", code)
    if m is None:
        return None
    return _span_of_body(code, m.start(), m.end())


def _span_of_body(code: str, start: int, after: int) -> tuple[int, int] | None:
    brace = code.find("{", after)
    if brace < 0:
        return None
    depth = 0
    for k in range(brace, len(code)):
        depth += {"{": 1, "}": -1}.get(code[k], 0)
        if depth == 0:
            return code.count("\n", 0, start), code.count("\n", 0, k)
    return None


def _drop(lines: list[str], spans: list[tuple[int, int]]) -> list[str]:
    """*lines* without the 0-based inclusive *spans*, and without a blank line each removal doubled."""
    out = list(lines)
    for first, last in sorted(set(spans), reverse=True):
        del out[first : last + 1]
        if 0 < first < len(out) and not out[first - 1].strip() and not out[first].strip():
            del out[first]
        elif first == 0 and out and not out[0].strip():
            del out[0]
    while out and not out[-1].strip():
        out.pop()  # the file's end: no blank line left hanging
    return out


def _end_macro(lines: list[str], last: int) -> None:
    """Line *last* (0-based) becomes its macro's last line: its continuation backslash goes."""
    body = lines[last].rstrip("\r\n")
    lines[last] = re.sub(r"\s*\\$", "", body) + lines[last][len(body):]


def _macro_calls(masked: list[str], macro: str) -> list[tuple[int, int]]:
    call = re.compile(rf"^\s*{re.escape(macro)}\s*\(.*\)\s*;?\s*$")
    return [(i, i) for i, line in enumerate(masked) if call.match(line.rstrip("\r\n"))]


def _empty_conditionals(lines: list[str]) -> list[tuple[int, int]]:
    """`#if ...` directly followed by its `#endif`: nothing left to guard."""
    return [(i, i + 1) for i in range(len(lines) - 1) if _IF.match(lines[i]) and _ENDIF.match(lines[i + 1])]


def retire_kernel(text: str, path: str, name: str) -> tuple[str, list[tuple[int, str]]]:
    """*text* without the bespoke kernel *name* (see the module docstring); unchanged when it has none.

    Returns (text, removed): [(line, what)] with the lines as they were in *text*."""
    lines = split_lines(text)
    masked = split_lines(mask_code(text))
    instances = _instances(lines, masked, name, path)
    if not instances:
        return text, []
    removed: list[tuple[int, str]] = []
    drop: list[tuple[int, int]] = []
    ends: list[int] = []
    for macro, first, last in _define_spans(lines):
        inside = [s for s in instances if first < s[0] <= last]
        if not inside:
            continue
        others = [k for k in range(first + 1, last + 1) if not any(a <= k <= b for a, b in inside)
                  and _content(lines[k]).strip()]
        if not others:  # nothing else in the macro: it goes with every call of it
            drop.append((first, last))
            drop.extend(_macro_calls(masked, macro))
            removed.append((first + 1, f"#define {macro} and its calls (instances of {name} only, which no host "
                                       "runs any more)"))
            continue
        drop.extend(inside)
        if inside[-1][1] == last:  # the macro's new last line ends it
            ends.append(max(k for k in others))
        removed.append((inside[0][0] + 1, f"{name}'s instances in {macro} (no host runs {name} any more)"))
    top = [s for s in instances if not any(a < s[0] <= b for _, a, b in _define_spans(lines))]
    drop.extend(top)
    removed.extend((a + 1, f"an instance of {name} (no host runs it any more)") for a, _ in top)
    definition = _kernel_definition(masked, name)
    if definition is not None:
        drop.append((above_comments(lines, definition[0] + 1) - 1, definition[1]))
        removed.append((definition[0] + 1, f"template kernel {name} (no host runs it any more)"))
    for k in ends:
        _end_macro(lines, k)
    before = identifier_counts(mask_code(text))
    out = _drop(lines, drop)
    out = _drop(out, _empty_conditionals(out))
    return _drop_dead_helpers("".join(out), before, removed)


def _drop_dead_helpers(text: str, before: dict[str, int], removed: list[tuple[int, str]]
                       ) -> tuple[str, list[tuple[int, str]]]:
    """*text* without top-level non-kernel functions the retired code was the last to name."""
    while True:
        masked = split_lines(mask_code(text))
        counts = identifier_counts("".join(masked))
        dead = None
        for i, line in enumerate(masked):
            m = _FUNCTION.match(line)
            if m and not line.startswith((" ", "\t")) and "kernel" not in line.split() \
                    and counts.get(m.group(1), 0) == 1 and before.get(m.group(1), 0) > 1:
                span = _span_of_body("".join(masked), sum(len(x) for x in masked[:i]), m.end(1))
                if span is not None:
                    dead = (m.group(1), span)
                    break
        if dead is None:
            return text, removed
        lines = split_lines(text)
        first, last = dead[1]
        removed.append((first + 1, f"{dead[0]} (used only by the retired kernels)"))
        text = "".join(_drop(lines, [(above_comments(lines, first + 1) - 1, last)]))
