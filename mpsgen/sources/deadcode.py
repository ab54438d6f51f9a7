"""Dead code goes with the implementation it served.

When migrate deletes an MPSGraph implementation, the file-local code only it used (static helper
functions, function-like #defines) is dead: left behind it is an unused-function warning at best.
Here it is found from the names the deleted code referenced and removed too, repeatedly (a dead
helper may be the last user of another); anything still named elsewhere in the file stays.
"""

from __future__ import annotations

import re

from mpsgen.scan.lines import split_lines
from mpsgen.scan.mask import mask_code
from mpsgen.sources import host
from mpsgen.sources.index import index_of

_IDENT = re.compile(r"[A-Za-z_]\w*")


def referenced_names(code: str) -> set[str]:
    """Identifiers used by a piece of code (comments and literals excluded)."""
    return set(_IDENT.findall(mask_code(code)))


def _own_uses(masked: str, name: str, start: int, end: int) -> int:
    return len(re.findall(rf"\b{re.escape(name)}\b", masked[start:end]))


def _drop_lines(text: str, first: int, last: int) -> str:
    """*text* without 1-based lines first..last, and without a blank line doubled by the removal."""
    lines = split_lines(text)
    kept = lines[: first - 1] + lines[last:]
    k = first - 1
    if 0 < k < len(kept) and not kept[k - 1].strip() and not kept[k].strip():
        del kept[k]
    return "".join(kept)


def _dead(text: str, path: str, pending: set[str]) -> list[tuple[str, str, int, int]]:
    """(kind, name, first line, last line) of each static function or macro among *pending* that
    nothing left in the file names (its own definition aside)."""
    ix = index_of(path, text)
    counts = ix.identifier_counts
    found: list[tuple[str, str, int, int]] = []
    defs = host.definitions(path, text)
    for d in defs:
        impl = d.impl
        if not d.static or impl.form != "function" or d.name not in pending or impl.backend == "metal":
            continue
        same = [x.impl for x in defs if x.name == d.name and x.impl.form == "function"]
        own = sum(_own_uses(ix.masked, d.name, ix.lines.start_of(i.line), ix.lines.start_of(i.end_line + 1)) for i in same)
        if counts.get(d.name, 0) == own:
            found.append(("static", d.name, impl.line, impl.end_line))
    for m in ix.macro_defs.values():
        if m.name in pending:
            own = _own_uses(ix.masked, m.name, ix.lines.start_of(m.line), ix.lines.start_of(m.end_line + 1))
            if counts.get(m.name, 0) == own:
                found.append(("#define", m.name, m.line, m.end_line))
    return found


def _remove(text: str, path: str, kind: str, name: str, first: int, last: int) -> str:
    if kind == "#define":
        return _drop_lines(text, first, last)
    impl = next(d.impl for d in host.definitions(path, text) if d.name == name and d.impl.line == first)
    return host.remove_implementation(text, impl, allow_unknown=True)


def remove_unused_helpers(
    text: str, path: str, referenced: set[str], owner: str
) -> tuple[str, list[tuple[int, str]], list[tuple[int, str]]]:
    """*text* without the static functions and macros among *referenced* (names the deleted code
    used) that nothing left in the file names and whose name contains *owner* (the op family:
    `logit_mps_impl` served logit alone).  Returns (text, removed, left): [(line, "static name")]
    removed, and the dead helpers with another name, left in place (shared infrastructure such as
    binaryOpTensor: the caller reports them)."""
    removed: list[tuple[int, str]] = []
    pending = set(referenced)
    key = owner.lower()
    while True:
        dead = _dead(text, path, pending)
        mine = [d for d in dead if key in d[1].lower()]
        if not mine:
            return text, removed, [(first, f"{kind} {name}") for kind, name, first, _ in dead]
        kind, name, first, last = mine[0]
        code = "".join(split_lines(text)[first - 1 : last])
        text = _remove(text, path, kind, name, first, last)
        pending |= referenced_names(code)
        pending.discard(name)
        removed.append((first, f"{kind} {name}"))
