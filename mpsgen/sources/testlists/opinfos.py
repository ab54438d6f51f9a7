"""OpInfo calls in common_methods_invocations.py and opinfo/definitions/*.py, found as text.

The 1.4 MB file is never parsed whole: the op's quoted names are found with str.find, the enclosing
`...Info(` call is matched by brackets, and only that call is handed to `ast`.
"""

from __future__ import annotations

import ast
import functools
import re
from collections.abc import Iterator, Mapping

from mpsgen.scan.brackets import match_close
from mpsgen.scan.mask import mask_python
from mpsgen.sources.testlists.records import OpInfoRef

# ATen prefixes whose OpInfo names are dotted: special_log_ndtr -> special.log_ndtr.
_NAMESPACES = ("special_", "linalg_", "fft_", "sparse_", "nn_functional_")
_NOT_OPINFO = frozenset({"DecorateInfo"})
# Not in op_db (TestConsistency never sees them): foreach variants and Python references.
_OTHER_DBS = ("Foreach", "PythonRef")
_OPENING = re.compile(r"\b([A-Za-z_]\w*Info)\(")


def name_candidates(op: str) -> list[str]:
    """Strings an OpInfo for ATen op *op* may be named by (name, aten_name or alias)."""
    out = [op]
    for prefix in _NAMESPACES:
        if op.startswith(prefix) and len(op) > len(prefix):
            out.append(prefix[:-1].replace("_", ".") + "." + op[len(prefix) :])
    return out


def matches(ref: OpInfoRef, op: str) -> bool:
    return op in (ref.name, ref.aten_name, *ref.aliases) or ref.name.replace(".", "_") == op


def opinfo_keys(
    cmi_text: str,
    definitions: Mapping[str, str],
    op: str,
    cmi_path: str = "common_methods_invocations.py",
) -> list[OpInfoRef]:
    """The OpInfos whose name, aten_name or aliases match *op*, in file order (cmi first); for an op with
    none, those of nn.functional.<op> (threshold, softplus, mish: the OpInfos test the functional API)."""
    texts = ((cmi_path, cmi_text), *definitions.items())
    found = _opinfo_keys(texts, op)
    if not found and not op.startswith(_NAMESPACES):
        found = _opinfo_keys(texts, "nn_functional_" + op)
    return list(found)


def backward_opinfos(cmi_text: str, definitions: Mapping[str, str], op: str,
                     cmi_path: str = "common_methods_invocations.py") -> list[OpInfoRef]:
    """The OpInfos declaring `aten_backward_name='<op>'` (nn.functional.prelu: _prelu_kernel_backward),
    in file order: their gradient tests run *op*."""
    found: list[OpInfoRef] = []
    for path, text in ((cmi_path, cmi_text), *definitions.items()):
        # the literal first, its boundary behind it (a leading \b made the engine try every offset of the
        # 1.4 MB file: ~0.1 s a call), as scan/words.whole_word spells it
        for m in re.finditer(rf"aten_backward_name(?<!\waten_backward_name)\s*=\s*(['\"]){re.escape(op)}\1", text):
            ref = _enclosing_opinfo(text, m.start(), path)
            if ref is not None and not any(w in ref.kind for w in _OTHER_DBS):
                found.append(ref)
    return found


@functools.lru_cache(maxsize=8)
def _opinfo_keys(texts: tuple[tuple[str, str], ...], op: str) -> tuple[OpInfoRef, ...]:
    # Remembered per texts: a migrate asks for the same op's OpInfos for its dtypes and its test lists.
    found: list[OpInfoRef] = []
    for path, text in texts:
        refs = {}
        for cand in name_candidates(op):
            for quote in ("'", '"'):
                needle = quote + cand + quote
                pos = text.find(needle)
                while pos != -1:
                    ref = _enclosing_opinfo(text, pos, path)
                    if ref is not None and matches(ref, op) and not any(w in ref.kind for w in _OTHER_DBS):
                        refs[ref.offset] = ref
                    pos = text.find(needle, pos + 1)
        found.extend(sorted(refs.values(), key=lambda r: r.offset))
    return tuple(found)


def _enclosing_opinfo(text: str, pos: int, path: str) -> OpInfoRef | None:
    """The `XxxInfo(...)` call (not DecorateInfo) that holds offset *pos*, if any."""
    cursor = pos
    while True:
        at = text.rfind("Info(", 0, cursor)
        if at == -1:
            return None
        start = at
        while start > 0 and (text[start - 1].isalnum() or text[start - 1] == "_"):
            start -= 1
        kind = text[start : at + 4]
        if kind in _NOT_OPINFO or not kind.isidentifier():
            cursor = start
            continue
        close = match_close(mask_python(text), at + 4)
        if close is None or close < pos:
            return None
        return _read_call(text, start, close, path, kind)


def _read_call(text: str, start: int, close: int, path: str, kind: str) -> OpInfoRef | None:
    try:
        call = ast.parse(text[start : close + 1], mode="eval").body
    except SyntaxError:
        return None
    if not isinstance(call, ast.Call):
        return None
    kw = {k.arg: k.value for k in call.keywords if k.arg}
    name = _str(call.args[0]) if call.args else _str(kw.get("name"))
    if name is None:
        return None
    variant = _str(kw.get("variant_test_name")) or ""
    aten_name = _str(kw.get("aten_name")) or name
    aliases: tuple[str, ...] = ()
    node = kw.get("aliases")
    if isinstance(node, (ast.Tuple, ast.List)):
        aliases = tuple(s for s in (_str(e) for e in node.elts) if s is not None)
    line = text.count("\n", 0, start) + 1
    return OpInfoRef(
        name=name,
        variant=variant,
        key=name + variant,
        aten_name=aten_name,
        aliases=aliases,
        path=path,
        line=line,
        end_line=line + text.count("\n", start, close),
        offset=start,
        kind=kind,
    )


def _str(node: ast.expr | None) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def all_opinfos(text: str, path: str) -> Iterator[OpInfoRef]:
    """Every OpInfo-like call with a literal name in *text* (for `mpsgen check`; reads the whole file)."""
    pos = 0
    while True:
        m = _OPENING.search(text, pos)
        if m is None:
            return
        kind = m.group(1)
        if kind in _NOT_OPINFO:
            pos = m.end()
            continue
        close = match_close(mask_python(text), m.end() - 1)
        if close is None:
            pos = m.end()
            continue
        ref = _read_call(text, m.start(), close, path, kind)
        if ref is None:
            pos = m.end()  # e.g. a name built at run time; look inside for nested calls
            continue
        yield ref
        pos = close + 1
