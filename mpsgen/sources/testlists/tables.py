"""The MPS test lists' tables, read: every dict or set literal of string keys assigned to an UPPERCASE
name inside mps_ops_modifier, mps_ops_grad_modifier or mps_ops_error_inputs_modifier, in common_mps.py
or, in PyTorch 2.7 and before, test/test_mps.py (`Checkout.test_lists_rel` says which file); anywhere in
a text that has none of those functions.  test_mps.py's module-level *_LOW_PRECISION_LIST sets are
tolerances, not test lists.
"""

from __future__ import annotations

import ast
import functools
import re

from mpsgen.errors import MpsgenError
from mpsgen.records import NamedTuple
from mpsgen.scan.brackets import match_close
from mpsgen.sources.testlists._source import Lines, has_lone_cr
from mpsgen.sources.testlists.records import TableEntry

_UPPER = re.compile(r"^[A-Z][A-Z0-9_]*$")


class Table(NamedTuple):
    name: str
    function: str
    kind: str  # "dict" | "set"
    start: int  # offset of "{" in the file
    end: int  # offset past "}"
    line: int
    keys: tuple[str, ...]
    key_lines: tuple[int, ...]


def parse_file(text: str, path: str) -> ast.Module:
    if has_lone_cr(text):
        raise MpsgenError("mixed or old-Mac (CR) line endings", path=path, hint="convert the file to LF or CRLF")
    tree = _parse_or_error(text)
    if isinstance(tree, SyntaxError):
        raise MpsgenError(f"not valid Python: {tree.msg}", path=path, line=tree.lineno,
                          hint="fix the syntax error first")
    return tree


@functools.lru_cache(maxsize=2)
def _parse_or_error(source: str) -> ast.Module | SyntaxError:
    """ast.parse(source), or the SyntaxError it raised: remembered until the tables are read, as
    `check`'s syntax check of the test lists (compile_error) and this reader parse the same text."""
    try:
        return ast.parse(source)
    except SyntaxError as err:
        return err.with_traceback(None)


def compile_error(source: str, path: str) -> SyntaxError | None:
    """The SyntaxError compiling *source* raises (None: it compiles), compiled from its syntax tree (a
    tree compiles as its text does; the tables are then read from the same tree)."""
    tree = _parse_or_error(source)
    if isinstance(tree, SyntaxError):
        return tree
    try:
        compile(tree, path, "exec", dont_inherit=True)
    except SyntaxError as err:
        return err
    return None


def tables(text: str, path: str) -> list[Table]:
    return list(_parsed_tables(text, path))


# The functions that hold the test lists, in common_mps.py and in 2.7's test_mps.py.
_MODIFIER = re.compile(r"^mps_ops\w*_modifier$")
_MODIFIER_DEF = re.compile(r"def mps_ops\w*_modifier\(")  # opening a line: _modifier_defs
_MODIFIER_DEF_PREFIX = "def mps_ops"  # the pattern's literal opening


def _modifier_defs(text: str) -> list[tuple[int, int, str]]:
    """(start of its line, end, indentation) of each `def mps_ops..._modifier(` that opens a line after
    spaces and tabs: `_MODIFIER_DEF.finditer(text)`, tried only where str.find finds its literal opening
    (the engine seeks that prefix ~5x slower: ~3 M instructions over 2.7's test_mps.py).  Anchored at each
    line's start, the pattern was tried at every offset."""
    found = []
    k = text.find(_MODIFIER_DEF_PREFIX)
    while k >= 0:
        m = _MODIFIER_DEF.match(text, k)
        if m is None:
            k = text.find(_MODIFIER_DEF_PREFIX, k + 1)
            continue
        start = text.rfind("\n", 0, k) + 1
        indent = text[start:k]
        if not indent.strip(" \t"):
            found.append((start, m.end(), indent))
        k = text.find(_MODIFIER_DEF_PREFIX, m.end())  # past the match, as finditer goes on
    return found


@functools.lru_cache(maxsize=4)
def modifiers_source(text: str) -> str | None:
    """The lines that hold the modifier functions, at their own line numbers and columns, as a text
    to parse alone (test_mps.py is 13,000 lines, and its lists are in the first thousand: a parse of
    the whole file costs ~0.3 s); None when *text* has no modifier function."""
    defs = _modifier_defs(text)
    if not defs:
        return None
    indent = defs[0][2]
    first = text.count("\n", 0, defs[0][0])  # 0-based line of the first def
    # The region ends at the first line after the last def that is code and not indented under it.
    outdented = re.compile(r"^(?![ \t]*(?:#|$))(?!" + re.escape(indent) + r"[ \t])", re.M)
    # The last def's body begins after its signature, which may span lines (2.13's `mps_ops_modifier(` ...
    # `) -> Sequence[OpInfo]:` at the def's own indentation).  Its parenthesis is matched in the raw text:
    # one inside a default's string may misplace the close, and a region cut too early then fails to parse
    # (the whole file is read, as without a region) while one cut too late only holds more lines.
    close = match_close(text, defs[-1][1] - 1)
    after = text.find("\n", defs[-1][1] if close is None else close)
    m = outdented.search(text, after + 1) if after >= 0 else None
    end = m.start() if m else len(text)
    region = text[defs[0][0]:end]
    # An indented region (functions inside `if ...:` or a class) parses under an `if 1:` in the line before.
    head = "\n" * (first - 1) + "if 1:\n" if indent and first > 0 else "\n" * first
    return head + region


def _modifiers_tree(text: str, path: str) -> ast.Module:
    """The tree of modifiers_source(); the whole file when there is none or it does not parse on its own."""
    source = modifiers_source(text)
    tree = None if source is None else _parse_or_error(source)
    return parse_file(text, path) if tree is None or isinstance(tree, SyntaxError) else tree


@functools.lru_cache(maxsize=4)
def _parsed_tables(text: str, path: str) -> tuple[Table, ...]:
    # Remembered per text: migrate reads the same file for its dtype facts and its test lists.
    if has_lone_cr(text):
        parse_file(text, path)  # the one-line refusal
    tree = _modifiers_tree(text, path)
    # A file with modifier functions keeps its lists in them; a snippet without any, anywhere.
    anywhere = modifiers_source(text) is None
    lines = Lines(text, upto=tree.body[-1].end_lineno if tree.body else 0)  # no node is past the last statement
    found: list[Table] = []

    def visit(body: list[ast.stmt], function: str) -> None:
        # Statements only: a table is an assignment statement, so expressions need no walk.
        for stmt in body:
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
                visit(stmt.body, stmt.name)
                continue
            table = _as_table(stmt, function, lines) if anywhere or _MODIFIER.match(function) else None
            if table is not None:
                found.append(table)
            for field in ("body", "orelse", "finalbody", "handlers", "cases"):
                inner = getattr(stmt, field, None)
                if isinstance(inner, list):
                    visit(inner, function)

    visit(tree.body, "<module>")
    _parse_or_error.cache_clear()  # the tables are read: kept, the trees' objects would be walked by every GC pass
    return tuple(found)


def _as_table(node: ast.AST, function: str, lines: Lines) -> Table | None:
    if isinstance(node, ast.Assign) and len(node.targets) == 1:
        target, value = node.targets[0], node.value
    elif isinstance(node, ast.AnnAssign) and node.value is not None:
        target, value = node.target, node.value
    else:
        return None
    if not (isinstance(target, ast.Name) and _UPPER.match(target.id)):
        return None
    keys: list[ast.expr | None] | list[ast.expr]
    if isinstance(value, ast.Dict):
        keys, kind = value.keys, "dict"
    elif isinstance(value, ast.Set):
        keys, kind = value.elts, "set"
    else:
        return None
    if not keys or not all(isinstance(k, ast.Constant) and isinstance(k.value, str) for k in keys):
        return None
    start, end = lines.span(value)
    return Table(
        name=target.id,
        function=function,
        kind=kind,
        start=start,
        end=end,
        line=value.lineno,
        keys=tuple(k.value for k in keys),  # type: ignore[union-attr]
        key_lines=tuple(k.lineno for k in keys),  # type: ignore[union-attr]
    )


def entries(text: str, *, path: str = "common_mps.py") -> list[TableEntry]:
    """Every key of every table (xfail/skip tables and SUPPORTED_* sets), in file order."""
    out = []
    for t in tables(text, path):
        for key, line in zip(t.keys, t.key_lines):
            out.append(TableEntry(key=key, table=t.name, function=t.function, line=line, end_line=line))
    return out
