"""One index per C++/ObjC++ source, built in one pass and cached: what check, status, migrate
and new-op ask of native/*.cpp and operations/*.mm.

The text is masked once; then its function definitions (plain and TORCH_IMPL_FUNC), macro
definitions and macro invocations (with their split arguments) are found once, and questions
("where is kernel X defined", "which REGISTER_DISPATCH lines are there") are dictionary lookups.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from functools import cached_property

from mpsgen.scan.brackets import match_close, split_top_level
from mpsgen.scan.definitions import FunctionSpan, function_definitions, namespaces_at
from mpsgen.scan.lines import LineTable
from mpsgen.scan.mask import Directives, directives, mask

IMPL_FUNC = "TORCH_IMPL_FUNC"
_DEFINE = re.compile(r"[ \t]*#[ \t]*define[ \t]+(\w+)\(([^)]*)\)")
_IDENT = re.compile(r"[A-Za-z_]\w*")


@dataclass(frozen=True)
class MacroDef:
    """`#define NAME(params) body` with continuations joined (body masked)."""

    name: str
    params: tuple[str, ...]
    body: str
    line: int
    end_line: int


@dataclass(frozen=True)
class MacroCall:
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
        m = mask(text)
        self.masked = m.masked
        self.problem = m.problem
        self._calls: dict[str, list[MacroCall]] = {}

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
        return function_definitions(self.masked, (IMPL_FUNC,))

    @cached_property
    def functions_by_name(self) -> dict[str, list[FunctionSpan]]:
        result: dict[str, list[FunctionSpan]] = {}
        for f in self.functions:
            result.setdefault(f.name, []).append(f)
        return result

    def impl_func(self, name: str) -> FunctionSpan | None:
        return next((f for f in self.functions_by_name.get(name, ()) if f.macro == IMPL_FUNC), None)

    def plain_function(self, name: str) -> FunctionSpan | None:
        return next((f for f in self.functions_by_name.get(name, ()) if f.macro is None), None)

    def enclosing_function(self, pos: int) -> str | None:
        outer = [s for s in self.functions if s.body_open < pos < s.body_close]
        return min(outer, key=lambda s: s.body_open).name if outer else None

    def namespaces(self, positions) -> dict[int, str]:
        return namespaces_at(self.masked, positions)

    # -- macros -----------------------------------------------------------------------------
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
        pattern = re.compile(r"\b(" + names_regex + r")\s*\(")
        skip = self.directives
        for m in pattern.finditer(self.masked):
            if m.start() in skip:
                continue
            close = match_close(self.masked, m.end() - 1)
            if close is None:
                continue
            args = tuple(split_top_level(self.masked[m.end() : close]))
            found.append(MacroCall(m.group(1), args, m.start(), close, self.line(m.start()), self.line(close)))
        self._calls[names_regex] = found
        return found

    def calls_of(self, *names: str) -> list[MacroCall]:
        """Calls of the named macros outside preprocessor lines, in file order."""
        present = [n for n in names if n in self.masked]
        return self.calls_matching("|".join(map(re.escape, sorted(present)))) if present else []

    # -- words ------------------------------------------------------------------------------
    @cached_property
    def identifiers(self) -> frozenset[str]:
        return frozenset(_IDENT.findall(self.masked))

    @cached_property
    def identifier_counts(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for name in _IDENT.findall(self.masked):
            counts[name] = counts.get(name, 0) + 1
        return counts


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


@functools.lru_cache(maxsize=1024)
def index_of(path: str, text: str) -> SourceIndex:
    """The (cached) index of one source text."""
    return SourceIndex(path, text)
