"""The scan behind sources/metal/names.py: what a kernels/*.metal text registers, each name with the
line that spells it.  The text is read with its comments blanked and its preprocessor lines emptied;
each call of a local macro is read from the macro's body, filled in with the call's arguments: from
the body's template (read once per file: its events with the parameters left in) when the arguments
are plain words, else from the body expanded (`#PARAM` stringised, `A##B` pasted) and scanned.
"""

from __future__ import annotations

import re
from typing import Sequence

from mpsgen.scan.anchored import finditer_at, occurrences
from mpsgen.scan.brackets import match_close, split_bounds, split_top_level
from mpsgen.scan.mask import blank_comments
from mpsgen.sources.metal.macros import Hole, MacroBody, arg_template, fill, parameter_matches
from mpsgen.sources.metal.symbols import LineCounter

# Registration macros of c10/metal/indexing.h (kept in step with metal.BUILTIN_REGISTER_MACROS);
# any other REGISTER_* the file does not define is taken to come from a header too.
_HEADER_PREFIX = "REGISTER_"
_STRING = re.compile(r"\"(?:\\.|[^\"\\\n])*\"")
_DEFINE = re.compile(r"[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)(\(([^)]*)\))?")
# `\b([A-Z_][A-Z0-9_]*)\s*\(` with the word-start test after the first character (a pattern that opens
# with a character class lets the regex engine skip to the next candidate in C).
_MACRO_CALL = re.compile(r"([A-Z_](?<!\w[A-Z_])[A-Z0-9_]*)\s*\(")
# Literal first, the word boundary tested behind it (the engine skips to the literal in C).
_HOST_NAME = re.compile(r"host_name(?<!\whost_name)\s*\(")
_PLAIN_KERNEL = re.compile(r"(?:kernel(?<!\wkernel)\s+void|void(?<!\wvoid)\s+kernel)\s+([A-Za-z_]\w*)\s*[(<]")
_PLAIN_KERNEL_WORDS = ("kernel", "void")  # every match opens with one of these
_IDENT = re.compile(r"[A-Za-z_]\w*")
_MAX_DEPTH = 8


# The private records below are plain classes with __slots__: a NamedTuple class costs ~0.2 ms to
# create when the module is imported, a cold run's price for each.


class _Define:
    __slots__ = ("name", "params", "body", "_expansion", "_frames", "_template", "_templated")

    def __init__(self, name: str, params: tuple[str, ...] | None, body: tuple[tuple[int, str], ...]) -> None:
        self.name = name
        self.params = params
        self.body = body  # (line, text) of each physical line after the parameter list
        self._expansion: MacroBody | None = None
        self._frames: tuple[_Frame, ...] | None = None
        self._template: list[tuple] | None = None
        self._templated = False

    def frames(self) -> tuple[_Frame, ...]:
        """The frame of each body line (made when the body is first asked for one)."""
        if self._frames is None:
            self._frames = tuple(_Frame(line, raw, self.name) for line, raw in self.body)
        return self._frames

    def expand(self, args: list[str]) -> list[str]:
        """The body's lines with the parameters replaced by *args* (a function-like macro's; the body
        is cut at its parameters when first called: many macros a file defines it never calls)."""
        assert self.params is not None  # only function-like macros are expanded
        if self._expansion is None:
            self._expansion = MacroBody([t for _, t in self.body], self.params)
        return self._expansion.expand(args)

    def template(self, file: _File) -> list[tuple] | None:
        """What the body registers with its parameters left in (read once per file), or None when
        that cannot stand for a call's expansion (see _template)."""
        if not self._templated:
            self._template, self._templated = _template(self, file), True
        return self._template


class _Frame:
    __slots__ = ("line", "raw", "macro")

    def __init__(self, line: int, raw: str, macro: str) -> None:
        self.line = line
        self.raw = raw  # the line as written (before substitution)
        self.macro = macro  # the macro whose body holds this line, or the macro invoked on it


# -- scanning --------------------------------------------------------------------------------

# What a scan of a text finds, in the order it is acted on (a macro call's expansion is scanned and
# acted on where the call is): (kind, line index, ...).
_EXPAND, _REGISTER, _HOST_NAME_CALL, _KERNEL = range(4)


class _File:
    """What every scan of one .metal text shares."""

    __slots__ = ("defines", "found", "registrations", "call_words", "call_words_at_limit", "unsafe")

    def __init__(self, defines: dict[str, _Define], found: dict[tuple[str, int], tuple[str, bool]],
                 registrations: list[tuple[str, ...]] | None) -> None:
        self.defines = defines
        self.found = found  # (macro, suffixed) of the names registered, by (name, line)
        self.registrations = registrations  # (macro, arguments...) of each REGISTER_* call, when asked
        # The words every _MACRO_CALL match a scan acts on starts with: REGISTER_ (a header's macro)
        # and, below the depth limit, each function-like local macro (other calls are stepped over;
        # a local REGISTER_* macro is found where REGISTER_ is).
        macros = [name for name, d in defines.items() if d.params is not None and not name.startswith(_HEADER_PREFIX)]
        self.call_words = (_HEADER_PREFIX, *macros)
        self.call_words_at_limit = (_HEADER_PREFIX,)
        # What an argument or parameter must not hold for a macro body's scan to stand for its calls':
        # a word a match the scan acts on starts with.
        self.unsafe = (*self.call_words, "host_name")


def scan_text(text: str, found: dict[tuple[str, int], tuple[str, bool]],
              registrations: list[tuple[str, ...]] | None = None) -> None:
    """Scan a whole .metal text: comments blanked, preprocessor lines emptied (#define bodies are
    scanned where they are called): *found* gets (macro, suffixed) of each (name, line) registered,
    *registrations* (macro, arguments...) of each REGISTER_* call."""
    lines = blank_comments(text).split("\n")
    defines, directive = _defines(lines)
    texts = list(lines)
    for number in directive:
        texts[number - 1] = ""
    file = _File(defines, found, registrations)
    _act(_events(texts, file, below_limit=True, top=True)[0], None, (), None, file, 0, texts)


def _events(texts: list[str], file: _File, below_limit: bool, top: bool) -> tuple[list[tuple], str, list[tuple[int, int]]]:
    """What *texts* (lines) register, in the order it is acted on: local macro calls to expand (below
    the depth limit) and header REGISTER_* calls, then host_name instances, then (at the top level)
    plain kernels; the joined text and the (after its '(', its ')') offsets of each call's arguments
    (the events' but the kernels')."""
    defines = file.defines
    text = "\n".join(texts)
    plain = _STRING.sub(_blank_string, text) if '"' in text else text
    events: list[tuple] = []
    spans: list[tuple[int, int]] = []
    pos = 0
    words = file.call_words if below_limit else file.call_words_at_limit
    # Each loop asks for the lines of ascending offsets: counted on from the one before (str.count).
    line_of = LineCounter(text).line
    for m in finditer_at(_MACRO_CALL, plain, occurrences(plain, words)):
        if m.start() < pos:
            continue  # inside the arguments of a call already handled
        macro = m.group(1)
        d = defines.get(macro)
        expands = d is not None and d.params is not None and below_limit
        if not expands and (d is not None or not macro.startswith(_HEADER_PREFIX)):
            continue  # neither a file-local macro to expand nor a REGISTER_* of the headers
        close = _close(plain, m.end() - 1)
        if close is None:
            continue
        args = split_top_level(text[m.end():close])  # (each stripped)
        if expands:
            events.append((_EXPAND, line_of(m.start()) - 1, macro, args))
        elif d is None and macro.startswith(_HEADER_PREFIX) and args and is_identifier(args[0]):
            events.append((_REGISTER, line_of(m.start()) - 1, macro, args))
        else:
            continue
        spans.append((m.end(), close))
        pos = close
    line_of = LineCounter(text).line
    for m in finditer_at(_HOST_NAME, plain, occurrences(plain, ("host_name",))):  # _HOST_NAME.finditer(plain)
        close = _close(plain, m.end() - 1)
        if close is None:
            continue
        events.append((_HOST_NAME_CALL, line_of(m.start()) - 1, text[m.end():close]))
        spans.append((m.end(), close))
    if top:
        line_of = LineCounter(text).line
        for m in finditer_at(_PLAIN_KERNEL, plain, occurrences(plain, _PLAIN_KERNEL_WORDS)):
            if m.group(0).endswith("<") or _is_template(plain, m.start()):
                continue  # a template: only its host_name instantiations are in the library
            events.append((_KERNEL, line_of(m.start()) - 1, m.group(1)))
    return events, text, spans


def _act(events: list[tuple], d: _Define | None, calls: tuple[_Frame, ...], mapping: dict[str, str] | None,
         file: _File, depth: int, top_lines: Sequence[str] = ()) -> None:
    """Record what *events* register: at the top level (*d* None, the lines *top_lines*) on their own
    lines, in the body of *d* called from *calls* where a frame spells the name; with *mapping*, the
    events are *d*'s template and their arguments are filled in with the call's."""
    found, registrations = file.found, file.registrations
    body = d.frames() if d is not None else ()

    def add(name: str, k: int, macro: str, suffixed: bool, word: str, quoted: str | None = None,
            here: bool | None = None) -> None:
        if d is None:
            line = k + 1
        else:
            # The innermost frame spelling the name (`"quoted` or the word *word*), else the outermost
            # (*here*: whether the body line spells it, when the template knows).
            chosen = calls[-1]
            frame = body[k]
            if here if here is not None else _spells(frame.raw, word, quoted):
                chosen = frame
            elif len(calls) > 1:
                for f in calls:
                    if _spells(f.raw, word, quoted):
                        chosen = f
                        break
            line, macro = chosen.line, chosen.macro
        if (name, line) not in found:  # the first registration on a line is kept
            found[name, line] = (macro, suffixed)

    for event in events:
        kind = event[0]
        if kind == _REGISTER or kind == _EXPAND:
            k, macro, args = event[1], event[2], event[3]
            if mapping is not None:
                args = [a if a.__class__ is str else mapping.get(a.param, a.spelled) if a.__class__ is Hole
                        else fill(a, mapping) for a in args]
            if kind == _REGISTER:
                add(args[0], k, macro, True, args[0], None, event[4] if mapping is not None else None)
                if registrations is not None:
                    registrations.append((macro, *args))
                continue
            inner = file.defines[macro]
            if registrations is not None and macro.startswith(_HEADER_PREFIX) and _instantiates(inner):
                # A file's own REGISTER_*(NAME, DTYPE) writing host_name instances (2.7's
                # REGISTER_BINARY_INDEXING_OP) registers NAME for DTYPE like a header's macro.
                registrations.append((macro, *args))
            here = (_Frame(k + 1, top_lines[k], macro),) if d is None else (body[k], *calls)
            _expand_call(inner, args, here, file, depth + 1)
        elif kind == _HOST_NAME_CALL:
            arg = event[2] if mapping is None or event[2].__class__ is str else fill(event[2], mapping)
            name, complete, piece = _concatenate(arg)
            if name.rstrip("_") and piece:
                add(name if complete else name.rstrip("_"), event[1], "host_name", not complete, piece.rstrip("_"), piece)
        else:
            add(event[2], event[1], "kernel", False, event[2])


def _expand_call(d: _Define, args: list[str], calls: tuple[_Frame, ...], file: _File, depth: int) -> None:
    """Record what a call of *d* with *args* from *calls* registers, its body scanned at *depth*:
    from the body's template when the arguments are plain words (most calls: REGISTER_FLOAT_BINARY_OP(hypot)),
    else from the body expanded."""
    below_limit = depth < _MAX_DEPTH
    if below_limit and all(_plain_argument(a, file.unsafe) for a in args):
        template = d.template(file)
        if template is not None:
            _act(template, d, calls, dict(zip(d.params or (), args)), file, depth)
            return
    _act(_events(d.expand(args), file, below_limit, top=False)[0], d, calls, None, file, depth)


def _plain_argument(arg: str, unsafe: tuple[str, ...]) -> bool:
    """An argument a body's template is filled in with: an ASCII identifier holding no word a scan acts on."""
    return arg.isascii() and arg.isidentifier() and not any(w in arg for w in unsafe)


def _defines(lines: list[str]) -> tuple[dict[str, _Define], set[int]]:
    """Function-like and object-like #defines with continuation lines joined; the directive line numbers."""
    defines: dict[str, _Define] = {}
    directive: set[int] = set()
    k = 0
    # Only a line holding a '#' can start a directive: the others are stepped over.
    for start in [j for j, ln in enumerate(lines) if "#" in ln]:
        if start < k:
            continue  # a continuation line of the previous directive
        k = start
        if not lines[k].lstrip().startswith("#"):
            continue
        first = k
        while lines[k].rstrip().endswith("\\") and k + 1 < len(lines):
            k += 1
        directive.update(range(first + 1, k + 2))
        m = _DEFINE.match(lines[first])
        if m:
            params = tuple(p.strip() for p in m.group(3).split(",") if p.strip()) if m.group(2) else None
            body = [(first + 1, lines[first][m.end():])]
            body += [(j + 1, lines[j]) for j in range(first + 1, k + 1)]
            body = [(ln, t.rstrip().removesuffix("\\")) for ln, t in body]
            defines[m.group(1)] = _Define(m.group(1), params, tuple(body))
        k += 1
    return defines, directive


def is_identifier(text: str) -> bool:
    """`_IDENT.fullmatch(text)`: an ASCII text's by str.isidentifier (there the same test, without a
    regex call: a few thousand instructions a registration)."""
    return text.isidentifier() if text.isascii() else _IDENT.fullmatch(text) is not None


def _instantiates(d: _Define) -> bool:
    """Whether the body of macro *d* writes host_name instantiations itself."""
    return any("host_name" in t for _, t in d.body)


def _close(plain: str, open_pos: int) -> int | None:
    """match_close(plain, open_pos) for a '(': the first ')' when no '(' comes before it (most
    arguments), found with str.find."""
    close = plain.find(")", open_pos)
    if close >= 0 and plain.find("(", open_pos + 1, close) < 0:
        return close
    return match_close(plain, open_pos)


def _blank_string(m: re.Match[str]) -> str:
    return " " * len(m.group(0))


def _spells(raw: str, word: str, quoted: str | None) -> bool:
    """`re.search('"' + re.escape(quoted) + r"|\b" + re.escape(word) + r"\b", raw)` (no `"quoted` part
    when None), with str.find instead of compiling a pattern per name."""
    if quoted is not None and '"' + quoted in raw:
        return True
    k = raw.find(word)
    if k < 0:
        return False  # (most frames: every match holds the word)
    if not word.replace("_", "a").isalnum():  # not `\w+` (\w: an alphanumeric or '_', as str.isalnum says)
        return re.search(r"\b" + re.escape(word) + r"\b", raw) is not None
    n = len(word)
    while k >= 0:
        before = raw[k - 1] if k else " "
        after = raw[k + n] if k + n < len(raw) else " "
        if not (before.isalnum() or before == "_") and not (after.isalnum() or after == "_"):
            return True
        k = raw.find(word, k + 1)
    return False


def _concatenate(args: str) -> tuple[str, bool, str]:
    """The string a host_name(...) argument spells, whether every piece was a literal, and the
    first piece ("" when the argument opens with no literal)."""
    if "\\" not in args and "\n" not in args:  # no escapes: a literal is a pair of quotes (~4x faster)
        parts = args.strip().split('"')  # what precedes each literal, its text, ..., what follows the last
        if len(parts) % 2 == 1 and not "".join(parts[0::2]).strip():  # literals and blanks only
            pieces = parts[1::2]
            return "".join(pieces), True, pieces[0] if pieces else ""
    out: list[str] = []
    rest = args.strip()
    while rest:
        m = _STRING.match(rest)
        if m is None:
            return "".join(out), False, out[0] if out else ""
        out.append(m.group(0)[1:-1])
        rest = rest[m.end():].lstrip()
    return "".join(out), True, out[0] if out else ""


def _is_template(plain: str, pos: int) -> bool:
    """True when the declaration ending at *pos* starts with `template` (since the last ; { or })."""
    start = max(plain.rfind(c, 0, pos) for c in ";{}")
    # Searched between the offsets rather than in a slice: \b sees the same (a ; { } or an end).
    return _TEMPLATE.search(plain, start + 1, pos) is not None


_TEMPLATE = re.compile(r"\btemplate\b")



def _template(d: _Define, file: _File) -> list[tuple] | None:
    """The events of *d*'s body scanned with its parameters left in, each call's arguments cut at
    them.  A call whose arguments are plain words (_plain_argument) expands to the body with each
    parameter, a whole identifier outside a literal, replaced by one identifier: the lines, the
    literals, the brackets and commas, and where a scanned word starts are those of the body, so its
    scan finds the same events with the parameters replaced in their arguments (a stringised one
    becomes a literal of no quote or backslash, blanked like the body's).  That holds when nothing is
    pasted (no `##` in the body: a pasted word may be a call) and no parameter holds a word the scan
    acts on; else None."""
    assert d.params is not None
    lines = [t for _, t in d.body]
    body = "\n".join(lines)
    if "##" in body or any(w in p for p in d.params for w in file.unsafe):
        return None
    events, text, spans = _events(lines, file, below_limit=True, top=False)
    holes = [(m.start(), m.end(), Hole(m.group(2), m.group(0), m.group(1) is not None))
             for m in parameter_matches(text, d.params)]
    calls = iter(spans)
    out: list[tuple] = []
    for event in events:
        if event[0] == _EXPAND or event[0] == _REGISTER:
            start, close = next(calls)
            # split_top_level's parts, as spans of the text (each stripped)
            args = [arg_template(text, start + a, start + b, holes, strip=True)
                    for a, b in split_bounds(text[start:close])]
            # Whether the body line spells the name, when the name is no parameter (the same for every call)
            here = _spells(lines[event[1]], args[0], None) if event[0] == _REGISTER and isinstance(args[0], str) else None
            event = (*event[:3], args, here)
        elif event[0] == _HOST_NAME_CALL:
            start, close = next(calls)
            event = (*event[:2], arg_template(text, start, close, holes, strip=False))
        out.append(event)
    return out
