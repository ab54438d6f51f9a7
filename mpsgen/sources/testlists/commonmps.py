"""The MPS test lists, edited and read per op: the op's keys in the xfail/skip tables (found by
testlists/tables.py, in common_mps.py or 2.7's test/test_mps.py), and SUPPORTED_COMPLEX_OPS.

`SUPPORTED_*` sets list what works; every other table lists what fails or is skipped.  The file is never
imported (most of it exists only on macOS).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable
from typing import Literal

from mpsgen.scan.lines import split_lines
from mpsgen.tree.checkout import newline_of
from mpsgen.errors import MpsgenError, Refusal
from mpsgen.records import NamedTuple
from mpsgen.sources.testlists import dtypes as dt
from mpsgen.sources.testlists._source import Lines, insert_after_item, remove_item
from mpsgen.sources.testlists.records import Change
from mpsgen.sources.testlists.tables import Table, entries, tables as read_tables  # noqa: F401 (entries: re-exported)

ComplexAction = Literal["keep", "add", "drop", "refuse-if-listed"]
COMPLEX_SET = "SUPPORTED_COMPLEX_OPS"
_WIDTH = 88  # black's line length, used by the real file


# -- planning -------------------------------------------------------------------------------------


class _Action(NamedTuple):
    index: int  # type: ignore[assignment]  # entry index in the table literal (shadows tuple.index)
    key: str
    kind: str  # "delete" | "narrow" | "replace"
    dtypes: tuple[str, ...] = ()  # narrow: dtypes to drop; replace: the new list


def plan_common_mps(
    text: str,
    keys: Iterable[str],
    *,
    supported_dtypes: Iterable[str] | None = None,
    complex_action: ComplexAction = "refuse-if-listed",
    path: str = "common_mps.py",
    declared: Iterable[str] | None = None,
) -> tuple[str, list[Change]]:
    """Remove or narrow the op's *keys* in every xfail/skip table; handle SUPPORTED_COMPLEX_OPS.

    *declared*: the dtypes the keys' OpInfos test (None = unknown): a None value narrows to those only
    (gcd's OpInfo tests integers: its xfail goes, rather than becoming one of float dtypes never run).

    *supported_dtypes*: dtype names the new kernel supports (None = all).  A list value keeps only
    the dtypes the kernel does not support; a None value (every dtype fails) becomes the explicit
    list of tested dtypes the kernel does not support.  An entry left empty is deleted.
    Complex: "add" = the kernel has a complex branch (complex64 counts as supported; keys are added
    to SUPPORTED_COMPLEX_OPS); "drop" = no complex branch, keys are removed from that set;
    "refuse-if-listed" = no complex branch, MpsgenError when a key is in the set; "keep" = the set
    is not touched and complex64 support is whatever *supported_dtypes* says.
    """
    keys = list(dict.fromkeys(keys))
    if complex_action not in ("keep", "add", "drop", "refuse-if-listed"):
        raise ValueError(f"complex_action={complex_action!r}")
    tables = read_tables(text, path)
    complex_tables = [t for t in tables if t.name == COMPLEX_SET]
    listed = {k for t in complex_tables for k in t.keys}
    every_complex_set = [t for t in tables if t.name.endswith(COMPLEX_SET)]  # 2.7: AFTER_MACOS_14_0_... too
    listed_keys = [k for k in keys if any(k in t.keys for t in every_complex_set)]

    if complex_action == "refuse-if-listed" and listed_keys:
        key = listed_keys[0]
        t = next(t for t in every_complex_set if key in t.keys)
        raise MpsgenError(
            f'"{key}" is in {t.name}: MPSGraph served complex inputs, and the new kernel has no '
            "complex branch, so migrating would silently break complex64 on MPS",
            path=path,
            line=t.key_lines[t.keys.index(key)],
            hint="give --complex-expr to add a complex branch, or --drop-complex to accept the loss "
            f"(removes it from {COMPLEX_SET})",
            kind=Refusal.LOSES_COMPLEX,
        )
    if complex_action == "add" and not complex_tables:
        raise MpsgenError(f"no {COMPLEX_SET} set found", path=path,
                          hint="is this common_mps.py? the op cannot be marked complex-supported")

    supported = dt.normalise(supported_dtypes)
    supported = frozenset(dt.KNOWN) if supported is None else supported
    tests_only = dt.normalise(declared)
    if complex_action == "add":
        supported |= {"complex64", "complex32"}
    elif complex_action in ("drop", "refuse-if-listed"):
        supported -= dt.COMPLEX
    complex_listed_after = {
        k: (complex_action == "add") or (complex_action == "keep" and k in listed) for k in keys
    }
    complex_functions = {t.function for t in complex_tables}

    edits: list[tuple[Table, list[_Action]]] = []
    changes: list[Change] = []
    wanted = set(keys)
    lines = split_lines(text)
    for t in tables:
        if t.name.startswith("SUPPORTED_") or wanted.isdisjoint(t.keys):
            continue
        node = _literal(text[t.start : t.end])
        actions = []
        for i, key in enumerate(t.keys):
            if key not in wanted:
                continue
            line = t.key_lines[i]
            where = f"{t.name} ({t.function})"
            if _another_ops_failure(lines[line - 1], key):  # index_fill's grad: `# missing `aten::_unique``
                continue
            if _MPS_TENSOR_LIMIT.search(_block_heading(lines, line)):  # the samples fail before the kernel runs
                continue
            if t.kind == "set":
                actions.append(_Action(i, key, "delete"))
                changes.append(Change(path, line, f'removed "{key}" from {where}'))
                continue
            value = node.values[i]  # type: ignore[union-attr]
            tested = dt.MPS_GRAD_DTYPES if "grad" in t.function else dt.MPS_DTYPES
            if isinstance(value, ast.Constant) and value.value is None:
                failing = [d for d in tested if d not in supported and (tests_only is None or d in tests_only)]
                if t.function in complex_functions and not complex_listed_after[key]:
                    # The complex64 xfail comes from SUPPORTED_COMPLEX_OPS already.
                    failing = [d for d in failing if d not in dt.COMPLEX]
                if failing:
                    actions.append(_Action(i, key, "replace", tuple(failing)))
                    shown = ", ".join(f"torch.{d}" for d in failing)
                    changes.append(Change(path, line, f'narrowed "{key}" in {where} from None to [{shown}]'))
                else:
                    actions.append(_Action(i, key, "delete"))
                    changes.append(Change(path, line, f'removed "{key}" from {where}'))
                continue
            if not isinstance(value, (ast.List, ast.Tuple)):
                raise MpsgenError(
                    f'"{key}" in {t.name}: value is neither None nor a list of dtypes',
                    path=path, line=line, hint="edit this entry by hand",
                )
            names = []
            for elt in value.elts:
                name = dt.dtype_of(elt)
                if name is None:
                    raise MpsgenError(
                        f'"{key}" in {t.name}: {ast.unparse(elt)} is not a torch dtype',
                        path=path, line=line + elt.lineno - 1, hint="edit this entry by hand",
                    )
                names.append(name)
            drop = tuple(d for d in dict.fromkeys(names) if d in supported)
            if not drop:
                continue
            if len(drop) == len(set(names)):
                actions.append(_Action(i, key, "delete"))
                changes.append(Change(path, line, f'removed "{key}" from {where}'))
            else:
                actions.append(_Action(i, key, "narrow", drop))
                kept = ", ".join(f"torch.{d}" for d in names if d not in drop)
                changes.append(Change(path, line, f'narrowed "{key}" in {where} to [{kept}]'))
        if actions:
            edits.append((t, actions))

    if complex_action in ("add", "drop"):
        for t in complex_tables:
            if complex_action == "drop":
                acts = [_Action(i, k, "delete") for i, k in enumerate(t.keys) if k in wanted]
                for a in acts:
                    changes.append(Change(path, t.key_lines[a.index], f'removed "{a.key}" from {COMPLEX_SET}'))
            else:
                acts = [_Action(-1, k, "add") for k in keys if k not in listed]
                for a in acts:
                    changes.append(Change(path, t.line, f'added "{a.key}" to {COMPLEX_SET}'))
            if acts:
                edits.append((t, acts))
            if complex_action == "add":
                break  # one set is enough when adding

    out = text
    for t, actions in sorted(edits, key=lambda e: e[0].start, reverse=True):
        # Each edit stays inside one bracketed literal, so the file stays valid if the literal does.
        new_literal = _edit_table(out[t.start : t.end], actions)
        _literal(new_literal)
        out = out[: t.start] + new_literal + out[t.end :]
    return out, sorted(changes, key=lambda c: c.line)


def _literal(src: str) -> ast.Dict | ast.Set:
    node = ast.parse(src, mode="eval").body
    assert isinstance(node, (ast.Dict, ast.Set))
    return node


def _item_spans(node: ast.Dict | ast.Set, lines: Lines) -> list[tuple[int, int]]:
    if isinstance(node, ast.Set):
        return [lines.span(e) for e in node.elts]
    return [(lines.span(k)[0], lines.span(v)[1]) for k, v in zip(node.keys, node.values)]  # type: ignore[arg-type]


def _edit_table(src: str, actions: list[_Action]) -> str:
    """Apply *actions* to one table literal, last entry first, re-reading positions after each."""
    for act in sorted((a for a in actions if a.kind != "add"), key=lambda a: a.index, reverse=True):
        node = _literal(src)
        lines = Lines(src)
        spans = _item_spans(node, lines)
        if act.kind == "delete":
            src = remove_item(src, spans, act.index, len(src) - 1)
            continue
        value = node.values[act.index]  # type: ignore[union-attr]
        vstart, vend = lines.span(value)
        if act.kind == "narrow":
            new_value = _narrow(src[vstart:vend], set(act.dtypes))
        else:
            line_start = src.rfind("\n", 0, spans[act.index][0]) + 1
            indent = src[line_start : spans[act.index][0]]
            new_value = _format_dtypes(act.dtypes, indent, src, prefix_width=vstart - line_start)
        src = src[:vstart] + new_value + src[vend:]
    for act in (a for a in actions if a.kind == "add"):
        node = _literal(src)
        spans = _item_spans(node, Lines(src))
        keys = [e.value for e in node.elts]  # type: ignore[union-attr]
        lower = [i for i, k in enumerate(keys) if k < act.key]
        anchor = max(lower, key=lambda i: keys[i]) if lower else -1
        quote = src[spans[max(anchor, 0)][0]]
        src = insert_after_item(src, spans, anchor, len(src) - 1, f"{quote}{act.key}{quote}")
    return src


def _narrow(src: str, drop: set[str]) -> str:
    """Remove the dtypes in *drop* from a list/tuple literal's text."""
    while True:
        node = ast.parse(src, mode="eval").body
        assert isinstance(node, (ast.List, ast.Tuple))
        hits = [i for i, e in enumerate(node.elts) if dt.dtype_of(e) in drop]
        if not hits:
            return src
        lines = Lines(src)
        spans = [lines.span(e) for e in node.elts]
        src = remove_item(src, spans, hits[-1], len(src) - 1, is_tuple=isinstance(node, ast.Tuple))


def _format_dtypes(names: tuple[str, ...], indent: str, src: str, *, prefix_width: int) -> str:
    """`[torch.a, torch.b]`, or one dtype a line (black style) when that would pass the line width."""
    one_line = "[" + ", ".join(f"torch.{n}" for n in names) + "]"
    if prefix_width + len(one_line) + 1 <= _WIDTH or indent.strip():
        return one_line
    nl = newline_of(src)
    inner = indent + "    "
    return "[" + nl + "".join(f"{inner}torch.{n},{nl}" for n in names) + indent + "]"


# -- reading what the tables say about one op's dtypes (for plan/dtypes.py) -----------------------

# Tables of the test_output_match modifier that do not mean "fails on every Mac" (old macOS only, or sets
# of what works).
_NOT_FAILURES = ("SUPPORTED_", "AFTER_", "MACOS_BEFORE_")


class ListedDtypes(NamedTuple):
    """Per dtype, the first xfail/skip table of mps_ops_modifier that lists one of the op's keys."""

    failing: dict[str, str]  # dtype -> table name
    complex_supported: bool  # a key is in SUPPORTED_COMPLEX_OPS (else complex64 is xfailed by default)
    complex_after: str = ""  # the era's other complex set listing a key (2.7: AFTER_MACOS_14_0_SUPPORTED_COMPLEX_OPS)


def listed_dtypes(text: str, keys: Iterable[str], *, path: str = "common_mps.py") -> ListedDtypes:
    wanted = set(keys)
    failing: dict[str, str] = {}
    complex_ok, complex_after = False, ""
    for t in read_tables(text, path):
        if t.function != "mps_ops_modifier" or wanted.isdisjoint(t.keys):
            continue
        if t.name == COMPLEX_SET:
            complex_ok = True
            continue
        if t.name.endswith(COMPLEX_SET):  # supported from a macOS version on
            complex_after = complex_after or t.name
            continue
        if t.name.startswith(_NOT_FAILURES) or t.kind != "dict":
            continue
        node = _literal(text[t.start : t.end])
        for i, key in enumerate(t.keys):
            if key not in wanted:
                continue
            value = node.values[i]  # type: ignore[union-attr]
            if isinstance(value, ast.Constant) and value.value is None:
                names: list[str] = list(dt.MPS_DTYPES)
            elif isinstance(value, (ast.List, ast.Tuple)):
                names = [n for n in (dt.dtype_of(e) for e in value.elts) if n]
            else:
                continue
            for name in names:
                failing.setdefault(name, t.name)
    return ListedDtypes(failing, complex_ok, complex_after)


def add_unimplemented(text: str, key: str, dtypes: Iterable[str], *, path: str = "common_mps.py",
                      table: str = "UNIMPLEMENTED_XFAILLIST") -> tuple[str, list[Change]]:
    """Append `"key": [torch.a, ...],` to *table* (dtypes a kernel deliberately drops must stay xfailed)."""
    names = tuple(dict.fromkeys(dt.canonical(d) or d for d in dtypes))
    found = [t for t in read_tables(text, path) if t.name == table and t.function == "mps_ops_modifier" and t.kind == "dict"]
    if not found:
        raise MpsgenError(f"no {table} dict found", path=path,
                          hint="is this common_mps.py? add the dropped dtypes to an xfail list by hand")
    t = found[0]
    src = text[t.start : t.end]
    node = _literal(src)
    spans = _item_spans(node, Lines(src))
    line_start = src.rfind("\n", 0, spans[-1][0]) + 1
    indent = src[line_start : spans[-1][0]]
    value = _format_dtypes(names, indent, src, prefix_width=len(indent) + len(key) + 4)
    quote = src[spans[-1][0]]
    new_src = insert_after_item(src, spans, len(spans) - 1, len(src) - 1, f"{quote}{key}{quote}: {value}")
    _literal(new_src)
    shown = ", ".join(f"torch.{n}" for n in names)
    return text[: t.start] + new_src + text[t.end :], [Change(path, t.line, f'added "{key}": [{shown}] to {table}')]


_MISSING_OP = re.compile(r"#.*\bmissing\s+`?aten::(\w+)")


def _another_ops_failure(line: str, key: str) -> bool:
    """Whether an entry's line says its tests fail for another op's want (`# missing `aten::_unique``): the new
    kernel does not fix them, so the entry stays."""
    m = _MISSING_OP.search(line)
    return m is not None and m.group(1).strip("_") != key.split(".")[-1].strip("_")


# A limit of MPS tensors themselves: amax's error inputs build a 65-dim tensor, which MPS refuses to create.
_MPS_TENSOR_LIMIT = re.compile(r"\bMPS does not support tensor dimensions\b")


def _block_heading(lines: list[str], line: int) -> str:
    """The comment heading the block of entries that holds 1-based *line* (the nearest comment-only line
    above it, with no blank line between), or ""."""
    for above in range(line - 2, -1, -1):
        text = lines[above].strip()
        if not text:
            return ""
        if text.startswith("#"):
            return text
    return ""
