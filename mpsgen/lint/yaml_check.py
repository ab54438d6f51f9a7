"""Refuse a native_functions.yaml that does not parse, cheaply: `check` and `status` read it with
literal-prefix scans, not a YAML parser, so a broken line would otherwise pass unseen.

A full ruamel parse of the 600 KB file takes seconds; instead the lines a YAML parser could
reject (a flow collection or a quoted scalar that does not close on its line, a tab in the
indentation) are found with one regex pass (a few ms), and only the entries holding one are
parsed with ruamel to confirm it and to give the parser's own reason.  This runs only when the
yaml's facts are computed afresh (the fact store keeps them while the file is unchanged).
"""

from __future__ import annotations

import re

from mpsgen.errors import MpsgenError

# A value opening a flow collection or a quoted scalar, after a key or a `- ` item.
_OPENING = re.compile(r"^[ \t]*(?:-[ \t]+)?(?:[^\s#:][^#:\n]*:[ \t]+)?([\[{\"'])([^\n]*)$", re.M)
_TAB_INDENT = re.compile(r"^ *\t", re.M)
_ENTRY_START = re.compile(r"^- ", re.M)


def check_yaml_syntax(text: str, path: str) -> None:
    """Raise MpsgenError (file:line and the parser's reason) when *text* is not valid YAML."""
    for line in _suspect_lines(text):
        _confirm(text, path, line)


def _suspect_lines(text: str) -> list[int]:
    """1-based lines a YAML parser may reject, in order."""
    found: set[int] = set()
    # _OPENING matches within one line, from its start, and only where an opener follows the line's
    # indent, `- ` or `key: `: a space, a tab or the line's start (not `int[]` of a func line).
    for start in _lines_holding(text, "[{\"'", after=" \t\n"):
        end = text.find("\n", start)
        hit = _OPENING.match(text, start, len(text) if end < 0 else end)
        if hit is not None and not _closes(hit.group(1), hit.group(2)):
            found.add(text.count("\n", 0, start) + 1)
    for start in _lines_holding(text, "\t"):
        if _TAB_INDENT.match(text, start):
            found.add(text.count("\n", 0, start) + 1)
    return sorted(found)


def _lines_holding(text: str, chars: str, after: str | None = None) -> set[int]:
    """The offsets of the lines holding one of *chars* (with *after*: one that follows one of those
    characters or starts the text).  Each character found with str.find: a regex opening with a class
    of them is tried at every offset of the 600 KB text, 10x slower."""
    starts = set()
    for ch in chars:
        k = text.find(ch)
        while k >= 0:
            if after is None or k == 0 or text[k - 1] in after:
                starts.add(text.rfind("\n", 0, k) + 1)
            k = text.find(ch, k + 1)
    return starts


def _closes(opener: str, rest: str) -> bool:
    """Whether a value opening with *opener* ends on its line (before a trailing comment)."""
    if opener in "\"'":
        k = 0
        while True:
            k = rest.find(opener, k)
            if k < 0:
                return False
            if opener == "'" and rest.startswith("''", k):
                k += 2
                continue
            if opener == '"' and k and rest[k - 1] == "\\":
                k += 1
                continue
            return True
    depth = 1
    quote = ""
    for ch in rest:
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "\"'":
            quote = ch
        elif ch in "[{":
            depth += 1
        elif ch in "]}":
            depth -= 1
            if depth == 0:
                return True
        elif ch == "#":
            break
    return False


def _confirm(text: str, path: str, line: int) -> None:
    """Parse the entry holding *line* with ruamel; raise with its reason when it fails."""
    starts = [0] + [m.start() for m in _ENTRY_START.finditer(text)]
    offset = _offset_of_line(text, line)
    start = max(s for s in starts if s <= offset)
    later = [s for s in starts if s > offset]
    end = later[0] if later else len(text)
    first_line = text.count("\n", 0, start) + 1
    from ruamel.yaml import YAML
    from ruamel.yaml.error import MarkedYAMLError, YAMLError

    try:
        YAML(typ="safe", pure=True).load(text[start:end])
    except MarkedYAMLError as e:
        mark = e.context_mark or e.problem_mark  # where the construct opened ("while parsing a flow sequence")
        at = first_line + mark.line if mark is not None else line
        reason = " ".join(str(x) for x in (e.context, e.problem) if x)
        raise MpsgenError(f"does not parse as YAML: {reason}", path=path, line=at,
                          hint="fix the line (a flow list needs its closing ']', a quote its closing quote)") from None
    except YAMLError as e:
        raise MpsgenError(f"does not parse as YAML: {e}", path=path, line=line) from None


def _offset_of_line(text: str, line: int) -> int:
    k = 0
    for _ in range(line - 1):
        k = text.index("\n", k) + 1
    return k
