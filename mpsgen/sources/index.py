"""One index per C++/ObjC++ source, built in one pass and cached: what check, status, migrate
and new-op ask of native/*.cpp and operations/*.mm.

The text is masked once; then its function definitions (plain and TORCH_IMPL_FUNC), macro
definitions and macro invocations (with their split arguments) are found once, and questions
("where is kernel X defined", "which REGISTER_DISPATCH lines are there") are dictionary lookups.
"""

from __future__ import annotations

import functools
import re
from bisect import bisect_left
from functools import cached_property
from typing import Iterable, Iterator

from mpsgen.records import NamedTuple
from mpsgen.scan.brackets import match_close, split_top_level
from mpsgen.scan.definitions import (
    CONTROL_WORDS,
    FunctionSpan,
    definition_body,
    function_definitions,
    brace_pairs,
    is_word_char,
    looks_like_definition_name,
    word_start,
)
from mpsgen.scan.lines import LineTable
from mpsgen.scan.mask import Directives, Masked, ScanProblem, line_continues, code_only, directives, mask
from mpsgen.scan.regions import GROW, code_line_before, definition_candidates, definition_in_region, growing_regions
from mpsgen.scan.words import (
    IDENTIFIER_FIRST,
    identifier_counts,
    identifiers_containing,
    identifiers_of,
    spelled_in,
    words_holding,
)

IMPL_FUNC = "TORCH_IMPL_FUNC"
_DEFINE = re.compile(r"[ \t]*#[ \t]*define[ \t]+(\w+)\(([^)]*)\)")
_OPEN_PAREN = re.compile(r"\s*\(")
_IMPL_ARG = re.compile(r"\(\s*(\w+)\s*\)\s*\(")
# `\bnamespace` as a lookbehind after the literal (the engine skips to it in C); a name never holds a
# `namespace` that opens another match, so finditer's skipping past each match loses none.
_NAMESPACE = re.compile(r"namespace(?<!\wnamespace)\s+([\w:]+)\s*\{")


class MacroDef(NamedTuple):
    """`#define NAME(params) body` with continuations joined (body masked)."""

    name: str
    params: tuple[str, ...]
    body: str
    line: int
    end_line: int


class MacroCall(NamedTuple):
    """An UPPER_CASE macro invoked outside preprocessor lines, with its masked arguments."""

    name: str
    args: tuple[str, ...]
    start: int
    close: int  # offset of the closing parenthesis
    line: int
    end_line: int


class SourceIndex:
    """The facts of one source text; every property is computed at most once."""

    def __init__(self, path: str, text: str) -> None:
        self.path = path
        self.text = text
        self._calls: dict[str, list[MacroCall]] = {}
        self._calls_of: dict[tuple[str, ...], list[MacroCall]] = {}
        self._regions: list[tuple[int, str]] = []  # (offset, masked text) of regions masked alone
        self._containing: dict[str, dict[str, int]] = {}
        self._words: dict[str, dict[str, list[int]]] = {}

    @cached_property
    def _masked(self) -> Masked:
        return mask(self.text)

    @property
    def masked(self) -> str:
        """The whole text masked (computed on first use; a lookup of one definition masks only its region)."""
        return self._masked.masked

    @property
    def problem(self) -> ScanProblem | None:
        return self._masked.problem

    def masked_slice(self, a: int, b: int) -> str:
        """masked[a:b], from a region masked alone when one covers it (no whole-file mask)."""
        if "_masked" not in self.__dict__:
            for start, region in self._regions:
                if start <= a and b <= start + len(region):
                    return region[a - start : b - start]
        return self.masked[a:b]

    def _impl_func_in_region(self, name: str) -> FunctionSpan | None | bool:
        """`TORCH_IMPL_FUNC(name)` found by masking only the lines from its head to its body's end.
        False when the raw text is ambiguous (a comment or literal may hold the head): the caller
        then masks the whole file."""
        raw = self.text
        head = self._raw_impl_heads.get(name)
        if head is None:
            return None
        k, after = head  # after: the offset just past the parameter list's '('
        start = raw.rfind("\n", 0, k) + 1
        if raw.rfind("/*", 0, k) > raw.rfind("*/", 0, k) or "//" in raw[start:k] or '"' in raw[start:k]:
            return False
        for region, whole in growing_regions(raw, start, k):
            body = definition_body(region, after - 1 - start)
            if body is not None:
                self._regions.append((start, region))
                return FunctionSpan(name, k, start + body[0], start + body[1], macro=IMPL_FUNC)
        return False

    def _plain_function_in_regions(self, name: str) -> FunctionSpan | None | bool:
        """plain_function(name) found by masking, for each occurrence definition_candidates keeps, only the lines
        from the word before it to its body's end (a region from a line start outside every comment,
        literal and continued line masks as the whole file does there).  False when the raw text
        cannot vouch for such a line start: the caller then masks the whole file."""
        raw = self.text
        for k in definition_candidates(raw, name):
            start = code_line_before(raw, k, self._first_raw_string)
            if start is None:
                return False
            for region, whole in growing_regions(raw, start, k):
                verdict = definition_in_region(region, k - start, name, whole)
                if verdict is not GROW:
                    break
            assert verdict is not GROW  # the last region is the whole file's, which always tells
            if verdict is False:
                return False
            if verdict is not None:
                self._regions.append((start, region))
                return FunctionSpan(name, k, start + verdict[0], start + verdict[1])
        return None

    @cached_property
    def _first_raw_string(self) -> int:
        """`text.find('R"')`: where the first raw string may open (a region's mask vouches for the lines before it)."""
        return self.text.find('R"')

    @cached_property
    def _raw_impl_heads(self) -> dict[str, tuple[int, int]]:
        """{name: (offset, end of the match)} of the first `TORCH_IMPL_FUNC(name)(` of each name in the raw text
        (one pass over the file for every name asked about)."""
        raw, heads = self.text, dict[str, tuple[int, int]]()
        k = raw.find(IMPL_FUNC)
        while k >= 0:
            m = _IMPL_ARG.match(raw, k + len(IMPL_FUNC))
            if m and (k == 0 or not is_word_char(raw[k - 1])):
                heads.setdefault(m.group(1), (k, m.end()))
            k = raw.find(IMPL_FUNC, k + len(IMPL_FUNC))
        return heads

    @cached_property
    def lines(self) -> LineTable:
        return LineTable(self.text)

    @cached_property
    def directives(self) -> Directives:
        return directives(self.masked)

    def line(self, pos: int) -> int:
        return self.lines.line(pos)

    def col(self, pos: int) -> int:
        return self.lines.col(pos)

    # -- definitions ------------------------------------------------------------------------
    @cached_property
    def functions(self) -> list[FunctionSpan]:
        """Function definitions outside preprocessor lines (TORCH_IMPL_FUNC ones included), in order."""
        return function_definitions(self.masked, (IMPL_FUNC,), self.brace_pairs)

    @cached_property
    def functions_by_name(self) -> dict[str, list[FunctionSpan]]:
        result: dict[str, list[FunctionSpan]] = {}
        for f in self.functions:
            result.setdefault(f.name, []).append(f)
        return result

    def _word_calls(self, word: str) -> Iterator[tuple[int, int]]:
        """(offset of *word*, offset of its '(') for each `word (` outside preprocessor lines,
        found with str.find (C speed) rather than a regex tried at every offset."""
        masked, find, n = self.masked, self.masked.find, len(word)
        k = find(word)
        while k >= 0:
            end = k + n
            if (k == 0 or not is_word_char(masked[k - 1])) and (end >= len(masked) or not is_word_char(masked[end])):
                m = _OPEN_PAREN.match(masked, end)
                if m and k not in self.directives:
                    yield k, m.end() - 1
            k = find(word, end)

    def impl_func(self, name: str) -> FunctionSpan | None:
        """`TORCH_IMPL_FUNC(name)(...) {...}`: one targeted search unless every function is indexed."""
        if "functions" in self.__dict__:
            return next((f for f in self.functions_by_name.get(name, ()) if f.macro == IMPL_FUNC), None)
        if "_masked" not in self.__dict__:
            found = self._impl_func_in_region(name)  # (a name the raw heads lack: None, no scan of the text)
            if found is not False:
                return found  # type: ignore[return-value]
        if name not in self.text:
            return None
        for k, params in self._masked_impl_heads.get(name, ()):
            body = definition_body(self.masked, params)
            if body is not None:
                return FunctionSpan(name, k, *body, macro=IMPL_FUNC)
        return None

    @cached_property
    def _masked_impl_heads(self) -> dict[str, list[tuple[int, int]]]:
        """{name: [(offset, its parameters' '(')]} of each `TORCH_IMPL_FUNC(name)(` in code, in order (one pass)."""
        heads: dict[str, list[tuple[int, int]]] = {}
        for k, paren in self._word_calls(IMPL_FUNC):
            m = _IMPL_ARG.match(self.masked, paren)
            if m:
                heads.setdefault(m.group(1), []).append((k, m.end() - 1))
        return heads

    def plain_function(self, name: str) -> FunctionSpan | None:
        """`T name(...) {...}`: one targeted search unless every function is indexed.  A control word
        (`if (...) {`) names none, as in `functions` (a body's calls are looked up by callers)."""
        if name in CONTROL_WORDS:
            return None
        if "functions" in self.__dict__:
            return next((f for f in self.functions_by_name.get(name, ()) if f.macro is None), None)
        if "_masked" not in self.__dict__:
            found = self._plain_function_in_regions(name)  # (a name the text lacks: no candidate, None)
            if found is not False:
                return found  # type: ignore[return-value]
        if name not in self.text:
            return None
        for k, paren in self._word_calls(name):
            if looks_like_definition_name(self.masked, k):
                body = definition_body(self.masked, paren)
                if body is not None:
                    return FunctionSpan(name, k, *body)
        return None

    def enclosing_function(self, pos: int) -> str | None:
        """The function whose body holds *pos*: the bodies are disjoint and in order, so only the last
        one opening before *pos* can (a bisection rather than a test of every function)."""
        k = bisect_left(self._body_opens, pos) - 1
        return self.functions[k].name if k >= 0 and pos < self.functions[k].body_close else None

    @cached_property
    def _body_opens(self) -> list[int]:
        return [f.body_open for f in self.functions]

    @cached_property
    def brace_pairs(self) -> dict[int, int]:
        return brace_pairs(code_only(self.masked))

    def namespaces(self, positions: Iterable[int]) -> dict[int, str]:
        """The enclosing namespace ("at::native", "" at file scope) of each position."""
        pairs = self.brace_pairs
        spans = []
        for m in _NAMESPACE.finditer(self.masked):
            close = pairs.get(m.end() - 1)
            if close is not None:
                spans.append((m.end() - 1, close, m.group(1)))
        return {pos: "::".join(name for a, b, name in spans if a < pos < b) for pos in positions}

    # -- macros -----------------------------------------------------------------------------
    @cached_property
    def impl_macro_defs(self) -> dict[str, MacroDef]:
        """The `#define`s whose body writes a TORCH_IMPL_FUNC (or another *_IMPL_FUNC); the whole
        file is masked only when its raw text has such a #define."""
        raw = self.text
        k = raw.find("_IMPL_FUNC")
        while k >= 0:
            if enclosing_define(raw, k):
                return {n: d for n, d in self.macro_defs.items() if "_IMPL_FUNC" in d.body}
            k = raw.find("_IMPL_FUNC", k + 10)
        return {}

    @cached_property
    def macro_defs(self) -> dict[str, MacroDef]:
        """Function-like `#define`s, by name (the first definition wins)."""
        defs: dict[str, MacroDef] = {}
        for start, end in self.directives.spans:
            m = _DEFINE.match(self.masked, start, end)
            if not m or m.group(1) in defs:
                continue
            body = self.masked[m.end() : end].replace("\\\r\n", " ").replace("\\\n", " ")
            params = tuple(p.strip() for p in m.group(2).split(",") if p.strip())
            defs[m.group(1)] = MacroDef(m.group(1), params, body, self.line(start), self.line(end))
        return defs

    def calls_matching(self, names_regex: str) -> list[MacroCall]:
        """Calls of the macros whose whole name matches *names_regex*, outside preprocessor lines
        (cached per regex: asking for REGISTER_DISPATCH scans only for that word)."""
        found = self._calls.get(names_regex)
        if found is not None:
            return found
        found = []
        # No leading \b: the pattern then opens with the names' literals, which the engine skips to
        # in C; a match inside a word is dropped here (the names are words, so none hides a real one).
        pattern = re.compile(r"(" + names_regex + r")\s*\(")
        skip, masked = self.directives, self.masked
        for m in pattern.finditer(masked):
            if m.start() in skip or (m.start() and is_word_char(masked[m.start() - 1])):
                continue
            close = match_close(self.masked, m.end() - 1)
            if close is None:
                continue
            args = tuple(split_top_level(self.masked[m.end() : close]))
            found.append(MacroCall(m.group(1), args, m.start(), close, self.line(m.start()), self.line(close)))
        self._calls[names_regex] = found
        return found

    def calls_of(self, *names: str) -> list[MacroCall]:
        """Calls of the named macros outside preprocessor lines, in file order (remembered per
        *names*: a shared kernel's search asks each file about the same few macros)."""
        found = self._calls_of.get(names)
        if found is None:
            in_text = spelled_in(self.text, names)  # (the text is masked only when it spells one)
            present = spelled_in(self.masked, in_text) if in_text else []
            found = self._calls_of[names] = (
                self.calls_matching("|".join(map(re.escape, sorted(present)))) if present else [])
        return found

    @cached_property
    def spells_create_impl(self) -> bool:
        """`CREATE_` outside comments and literals, and `IMPL` in the text (a CREATE_*IMPL*FUNC call may be there)."""
        return "CREATE_" in self.text and "IMPL" in self.text and "CREATE_" in self.masked

    # -- words ------------------------------------------------------------------------------
    def _words_with(self, part: str) -> dict[str, list[int]]:
        """words_holding(self.masked, *part*), computed once per part."""
        if part not in self._words:
            self._words[part] = words_holding(self.masked, part)
        return self._words[part]

    def identifiers_with(self, part: str) -> dict[str, int]:
        """identifiers_containing(self.masked, *part*), computed once per part (check asks for "mps" twice)."""
        if part not in self._containing:
            masked = self.masked
            self._containing[part] = (identifiers_of(self._words_with(part)) if masked.isascii()
                                      else identifiers_containing(masked, part))
        return self._containing[part]

    def identifier_starts(self, part: str) -> dict[str, list[int]]:
        """{identifier containing *part*: the offsets where it stands as a whole word in the masked text},
        from the same walk as identifiers_with (a word opening with a digit or a non-ASCII letter is none)."""
        return {word: starts for word, starts in self._words_with(part).items() if word[0] in IDENTIFIER_FIRST}

    @cached_property
    def identifiers(self) -> frozenset[str]:
        return frozenset(self.identifier_counts)

    @cached_property
    def identifier_counts(self) -> dict[str, int]:
        """How often each identifier (`[A-Za-z_]\\w*`) occurs in the masked text."""
        return identifier_counts(self.masked)


def require_scannable(path: str, text: str) -> None:
    """Refuse (MpsgenError, with file:line) to edit a text mpsgen cannot scan."""
    from mpsgen.errors import MpsgenError
    from mpsgen.scan.validate import scan_problem

    problem = scan_problem(text)
    if problem is not None:
        raise MpsgenError(
            f"cannot scan this file: {problem.message}",
            path=path, line=index_of(path, text).line(problem.pos), hint=problem.hint,
        )


_DEFINE_NAME = re.compile(r"[ \t]*#[ \t]*define[ \t]+(\w+)\(")


def enclosing_define(text: str, pos: int) -> str | None:
    """Name of the function-like #define whose (continued) lines hold *pos* in a raw text, if any."""
    start = text.rfind("\n", 0, pos) + 1
    while True:
        m = _DEFINE_NAME.match(text, start)
        if m:
            return m.group(1)
        if start == 0 or not line_continues(text, start - 1):
            return None
        start = text.rfind("\n", 0, start - 1) + 1


@functools.lru_cache(maxsize=1024)
def index_of(path: str, text: str) -> SourceIndex:
    """The (cached) index of one source text."""
    return SourceIndex(path, text)
