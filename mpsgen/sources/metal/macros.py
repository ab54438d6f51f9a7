"""A function-like #define's body with its parameters replaced by a call's arguments, as metal_names
reads a .metal file's local macros: `P` becomes the argument, `#P` the argument in quotes, then each
`##` is dropped with the blanks around it.

The body is cut at its parameters once, when the #define is read; each call fills the cuts in.
"""

from __future__ import annotations

import re
from bisect import bisect_left

from mpsgen.scan.anchored import finditer_at, occurrences

# A stringised parameter (#P, not ##), any identifier, or a string literal (left alone).
SUBST = re.compile(r"\"(?:\\.|[^\"\\\n])*\"|((?<!#)#(?!#)[ \t]*)?\b([A-Za-z_]\w*)\b")


class _Slot:
    """A parameter spelled in the body: `P`, or `#P` (stringised).  (The records here are plain
    classes: a NamedTuple class costs ~0.2 ms to create at import, a cold run's price.)"""

    __slots__ = ("param", "stringised", "spelled")

    def __init__(self, param: str, stringised: bool, spelled: str) -> None:
        self.param = param
        self.stringised = stringised
        self.spelled = spelled  # the text it replaces (`# P` with the space), kept when no argument is given for it


class MacroBody:
    """The physical lines of a #define body (after its parameter list, `\\` dropped) and *params*."""

    __slots__ = ("lines", "params", "_pieces", "_tail")

    def __init__(self, lines: list[str], params: tuple[str, ...]) -> None:
        self.lines = lines
        self.params = params
        # The lines joined by "\n", cut at each parameter SUBST finds (not inside a string literal, a
        # whole identifier): (text before, slot) pairs, then the text after the last.
        body = "\n".join(lines)
        pieces: list[tuple[str, _Slot]] = []
        k = 0
        for m in parameter_matches(body, params):
            pieces.append((body[k : m.start()], _Slot(m.group(2), m.group(1) is not None, m.group(0))))
            k = m.end()
        self._pieces = tuple(pieces)
        self._tail = body[k:]

    def expand(self, args: list[str]) -> list[str]:
        """Each body line with the parameters replaced by *args* (a parameter without one is kept)
        and `##` pasted: `paste(SUBST.sub(argument, line))` for each line."""
        mapping = dict(zip(self.params, args))
        if any("\n" in a for a in args):
            # An argument spanning lines stays within its body line: substitute line by line.
            return [paste(SUBST.sub(lambda m: _argument(m, mapping), line)) for line in self.lines]
        # No substitution or paste spans a line break: the lines are those of the body filled whole.
        return paste(self._fill(mapping)).split("\n")

    def _fill(self, mapping: dict[str, str]) -> str:
        out: list[str] = []
        for before, slot in self._pieces:
            out.append(before)
            arg = mapping.get(slot.param)
            out.append(slot.spelled if arg is None else f'"{arg}"' if slot.stringised else arg)
        out.append(self._tail)
        return "".join(out)


def parameter_matches(body: str, params: tuple[str, ...]) -> list[re.Match[str]]:
    """SUBST's matches in *body* that are parameters.  A match opens with `"`, `#` or an identifier,
    and none opens inside an identifier: tried at each `"`, `#` and occurrence of a parameter only
    (str.find), SUBST yields the same parameter matches (an identifier it steps over holds none of
    those starts), without a Python step per identifier of the body."""
    found = finditer_at(SUBST, body, occurrences(body, ('"', "#", *params)))
    return [m for m in found if m.group(2) is not None and m.group(2) in params]


def _argument(m: re.Match[str], mapping: dict[str, str]) -> str:
    """What SUBST's match *m* becomes: the argument of a parameter (in quotes for `#P`), else itself."""
    word = m.group(2)
    if word is None or word not in mapping:
        return m.group(0)
    return f'"{mapping[word]}"' if m.group(1) else mapping[word]


def paste(text: str) -> str:
    """`re.sub(r"[ \\t]*##[ \\t]*", "", text)`: each `##` dropped with the spaces and tabs around
    it, found with str.find (the pattern, opening with `[ \\t]*`, was tried at every offset, and
    from every space of a run: the aligned `\\` of a #define body made it quadratic)."""
    out: list[str] = []
    k = 0
    q = text.find("##")
    while q >= 0:
        start, end = q, q + 2
        while start > k and text[start - 1] in " \t":
            start -= 1
        while end < len(text) and text[end] in " \t":
            end += 1
        out.append(text[k:start])
        k = end
        q = text.find("##", k)
    out.append(text[k:])
    return "".join(out)


# -- a body read once for all its calls (sources/metal/name_scan's templates) -----------------------


class Hole:
    """A parameter in an argument of a call inside a macro body: the call's argument fills it."""

    __slots__ = ("param", "spelled", "stringised")

    def __init__(self, param: str, spelled: str, stringised: bool) -> None:
        self.param = param
        self.spelled = spelled  # kept when the call passes no argument for it (`# P` with its blank)
        self.stringised = stringised  # `#P`: the argument in quotes


# An argument of a call in a template: a text without parameters, one parameter (not stringised), or
# the pieces between them.
ArgTemplate = str | Hole | tuple[str | Hole, ...]


def arg_template(text: str, start: int, end: int, holes: list[tuple[int, int, Hole]], strip: bool) -> ArgTemplate:
    """The argument text[start:end] (*strip*ped), cut at the parameters in it."""
    if strip:
        part = text[start:end]
        start += len(part) - len(part.lstrip())
        end = start + len(part.strip())
    pieces: list[str | Hole] = []
    k = start
    # the holes in [start, end): they are in text order and none straddles an argument's end
    for s, e, hole in holes[bisect_left(holes, (start,)):]:
        if e > end:
            break
        if s > k:
            pieces.append(text[k:s])
        pieces.append(hole)
        k = e
    if not pieces:
        return text[start:end]
    if k < end:
        pieces.append(text[k:end])
    only = pieces[0]
    return only if len(pieces) == 1 and isinstance(only, Hole) and not only.stringised else tuple(pieces)


def fill(arg: ArgTemplate, mapping: dict[str, str]) -> str:
    """A template argument with the call's arguments in its parameters (MacroBody's substitution)."""
    if isinstance(arg, Hole):
        return _filled(arg, mapping)
    return "".join(p if isinstance(p, str) else _filled(p, mapping) for p in arg)


def _filled(hole: Hole, mapping: dict[str, str]) -> str:
    arg = mapping.get(hole.param)
    return hole.spelled if arg is None else f'"{arg}"' if hole.stringised else arg
