"""MPS `DecorateInfo` entries inside the op's OpInfo calls (common_methods_invocations.py, definitions)."""

from __future__ import annotations

import ast
from collections.abc import Iterable, Mapping, Sequence

from mpsgen.errors import MpsgenError
from mpsgen.records import NamedTuple
from mpsgen.sources.testlists import dtypes as dt
from mpsgen.scan.brackets import match_close
from mpsgen.scan.mask import mask_python
from mpsgen.sources.testlists._source import Lines, has_lone_cr, remove_item
from mpsgen.sources.testlists.records import Change, OpInfoRef

DEFAULT_TESTS = ("test_output_match", "test_output_grad_match")
# test_output_match / test_output_grad_match live in TestConsistency, which runs only on MPS, so a
# TestConsistency DecorateInfo without device_type is an MPS decorator too.
_MPS_ONLY_CLASSES = frozenset({"TestConsistency"})


class _Target(NamedTuple):
    call: ast.Call
    container: ast.List | ast.Tuple
    index: int  # type: ignore[assignment]  # shadows tuple.index, as NamedTuple allows
    kind: str  # "delete" | "narrow"
    drop: frozenset[str]
    label: str


def plan_opinfo_decorators(
    text: str,
    refs: Sequence[OpInfoRef],
    *,
    tests: Iterable[str] | None = DEFAULT_TESTS,
    supported_dtypes: Iterable[str] | None = None,
    path: str = "common_methods_invocations.py",
    supported_for: Mapping[str, Iterable[str]] | None = None,
) -> tuple[str, list[Change]]:
    """Remove the MPS expected-failure/skip DecorateInfos of *refs* (those located in *path*).

    A DecorateInfo is removed when it targets MPS (`device_type='mps'`, or TestConsistency without
    a device_type), its decorator is `unittest.expectedFailure` or `unittest.skip(...)`, and its
    test name is in *tests* (None = any test).  With *supported_dtypes* (*supported_for* a key's own), a
    decorator limited by `dtypes=` keeps the dtypes the kernel does not support (removed when none is left).
    toleranceOverride and other decorators are kept; `active_if` is ignored (the kernel fixes the
    op on every macOS).
    """
    if has_lone_cr(text):
        raise MpsgenError("mixed or old-Mac (CR) line endings", path=path, hint="convert the file to LF or CRLF")
    wanted = None if tests is None else frozenset(tests)
    supported = dt.normalise(supported_dtypes)
    changes: list[Change] = []
    out = text
    for ref in sorted((r for r in refs if r.path == path), key=lambda r: r.offset, reverse=True):
        if not text.startswith(ref.kind + "(", ref.offset):
            raise MpsgenError(f"{ref.kind} for {ref.key!r} is not at line {ref.line} any more", path=path,
                              line=ref.line, hint="re-read the file and plan again")
        close = match_close(mask_python(text), ref.offset + len(ref.kind))
        if close is None:
            raise MpsgenError(f"{ref.kind} for {ref.key!r} does not close", path=path, line=ref.line,
                              hint="re-read the file and plan again")
        snippet = text[ref.offset : close + 1]
        own = dt.normalise(supported_for[ref.key]) if supported_for and ref.key in supported_for else supported
        new_snippet = _edit_call(snippet, ref, wanted, own, path, changes)
        if new_snippet != snippet:
            # Edits stay inside this call, so the file stays valid if the call does.
            ast.parse(new_snippet, mode="eval")
        out = out[: ref.offset] + new_snippet + out[close + 1 :]
    return out, sorted(changes, key=lambda c: c.line)


def _edit_call(
    src: str,
    ref: OpInfoRef,
    wanted: frozenset[str] | None,
    supported: frozenset[str] | None,
    path: str,
    changes: list[Change],
) -> str:
    """Edit one OpInfo call's text, last decorator first, re-reading positions after each edit."""
    for _ in range(10_000):
        tree = ast.parse(src, mode="eval")
        targets = _targets(tree, ref, wanted, supported, path)
        if not targets:
            return src
        target = targets[-1]
        lines = Lines(src)
        line = ref.line + target.call.lineno - 1
        if target.kind == "delete":
            spans = [lines.span(e) for e in target.container.elts]
            close = lines.span(target.container)[1] - 1
            src = remove_item(src, spans, target.index, close, is_tuple=isinstance(target.container, ast.Tuple))
            changes.append(Change(path, line, f"removed {target.label} from OpInfo {ref.key!r}"))
        else:
            node = next(k.value for k in target.call.keywords if k.arg == "dtypes")
            assert isinstance(node, (ast.List, ast.Tuple))
            hits = [i for i, e in enumerate(node.elts) if dt.dtype_of(e) in target.drop]
            spans = [lines.span(e) for e in node.elts]
            close = lines.span(node)[1] - 1
            src = remove_item(src, spans, hits[-1], close, is_tuple=isinstance(node, ast.Tuple))
            if len(hits) == 1:  # the last dtype to drop: record the edit once
                kept = [dt.dtype_of(e) for e in node.elts if dt.dtype_of(e) not in target.drop]
                changes.append(Change(path, line, f"narrowed {target.label} in OpInfo {ref.key!r} to dtypes "
                                      + ", ".join(f"torch.{d}" for d in kept)))
    raise AssertionError("decorator edit did not converge")


def _targets(
    tree: ast.Expression,
    ref: OpInfoRef,
    wanted: frozenset[str] | None,
    supported: frozenset[str] | None,
    path: str,
) -> list[_Target]:
    parents: dict[int, ast.AST] = {}
    for node in ast.walk(tree):
        for child in ast.iter_child_nodes(node):
            parents[id(child)] = node
    found = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and _func_name(node.func) == "DecorateInfo"):
            continue
        label = _mps_failure(node, wanted)
        if label is None:
            continue
        line = ref.line + node.lineno - 1
        container = parents.get(id(node))
        if not isinstance(container, (ast.List, ast.Tuple)):
            raise MpsgenError(f"MPS {label} of {ref.key!r} is not an item of a list or tuple", path=path,
                              line=line, hint="remove it by hand")
        kind, drop = "delete", frozenset[str]()
        dtypes_node = next((k.value for k in node.keywords if k.arg == "dtypes"), None)
        if supported is not None and dtypes_node is not None:
            if not isinstance(dtypes_node, (ast.List, ast.Tuple)) or any(dt.dtype_of(e) is None for e in dtypes_node.elts):
                raise MpsgenError(f"MPS {label} of {ref.key!r}: cannot read its dtypes={ast.unparse(dtypes_node)}",
                                  path=path, line=line, hint="remove it by hand or run without a dtype list")
            names = {dt.dtype_of(e) for e in dtypes_node.elts}
            drop = frozenset(n for n in names if n is not None and n in supported)
            if not drop:
                continue
            if drop != names:
                kind = "narrow"
        found.append(_Target(node, container, container.elts.index(node), kind, drop, label))
    found.sort(key=lambda t: (t.call.lineno, t.call.col_offset))
    return found


def _mps_failure(call: ast.Call, wanted: frozenset[str] | None) -> str | None:
    """A short label when *call* is an MPS expectedFailure/skip DecorateInfo for a wanted test."""
    args = list(call.args)
    kw = {k.arg: k.value for k in call.keywords if k.arg}
    decorator = args[0] if args else kw.get("decorators")
    cls_name = _const(args[1] if len(args) > 1 else kw.get("cls_name"))
    test_name = _const(args[2] if len(args) > 2 else kw.get("test_name"))
    device = kw.get("device_type")
    if device is not None:
        if _const(device) != "mps":
            return None
    elif cls_name not in _MPS_ONLY_CLASSES:
        return None
    if wanted is not None and test_name not in wanted:
        return None
    what = _failure_kind(decorator)
    if what is None:
        return None
    return f"DecorateInfo({what}, {cls_name!r}, {test_name!r}, mps)"


def _failure_kind(node: ast.expr | None) -> str | None:
    if node is None:
        return None
    if isinstance(node, ast.Call):
        node = node.func
        return "skip" if _func_name(node) == "skip" else None
    name = _func_name(node)
    if name == "expectedFailure":
        return "expectedFailure"
    return "skip" if name == "skip" else None


def _func_name(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


def _const(node: ast.expr | None) -> object:
    return node.value if isinstance(node, ast.Constant) else None
