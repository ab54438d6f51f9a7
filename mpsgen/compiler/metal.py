"""Compile a whole kernels/*.metal file under the Metal emulation, as the Metal compiler would see it.

The file is compiled as C++17 by the host compiler with mpsgen's Metal emulation
(mpsgen/emulate/include) force-included and the checkout's own c10/metal headers: every REGISTER_*
macro expands to its explicit template instantiations, so every kernel is instantiated for each
registered dtype (a misspelled dtype, a functor that does not compile for one of them, a kernel
registered twice all fail here). The planned texts of headers the change edits (an *overlay*) are
written beside the file in a scratch folder searched before the checkout.

What the emulation does not model (atomics, simdgroup functions, some vector swizzles) makes a few
pristine files fail; a finding is a diagnostic the file's HEAD version does not have
(diagnostic.new_diagnostics), so those stay silent.
"""

from __future__ import annotations

import hashlib
import json
import re
import subprocess
import tempfile
from pathlib import Path
from typing import Mapping

from mpsgen.compiler.diagnostic import ERROR, Diagnostic
from mpsgen.emulate.compile import EMULATION_INCLUDE, find_compiler
from mpsgen.scan.lines import plain_lines

FLAGS = ("-std=c++17", "-fsyntax-only", "-w", "-fsigned-char", "-fmax-errors=50", "-fdiagnostics-plain-output",
         "-x", "c++")
VERSION = "3"  # bump when the flags or the diagnostic parsing change: it is part of the cache key
# g++'s "file:line:col: error: message"; notes ("required from here") carry the chain back to the file.
_LINE = re.compile(r"^(?P<path>[^:\n]+):(?P<line>\d+):(?P<col>\d+): (?P<kind>error|fatal error|note|warning): "
                   r"(?P<message>.*)$")
_CONTEXT = re.compile(r"^(?:In file included from|\s+from) (?P<path>[^:\n]+):(?P<line>\d+)")
_REQUIRED = re.compile(r"^(?P<path>[^:\n]+):(?P<line>\d+):(?P<col>\d+):\s+required (?:from|by) ")
_HEADERS = ("c10/metal",)


def compile_metal(root: Path, rel: str, text: str, *, overlay: Mapping[str, str] | None = None,
                  cache_dir: Path | None = None) -> list[Diagnostic]:
    """The errors of *text* compiled as the .metal file root/rel, against the checkout's headers with
    *overlay*'s texts (checkout-relative path -> text) in their place.  An error inside a header is
    placed at the file's line that led there (the include or the instantiation), its message naming
    the header's place."""
    overlay = dict(overlay or {})
    key = _cache_key(root, rel, text, overlay)
    cached = _read_cache(cache_dir, key)
    if cached is not None:
        return cached
    with tempfile.TemporaryDirectory(prefix="mpsgen-metal-") as tmp:
        scratch = Path(tmp)
        for path, body in {**overlay, rel: text}.items():
            target = scratch / path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(body, encoding="utf-8", newline="")
        source = scratch / rel
        # The build's include roots (the checkout and aten/src: `#include <ATen/native/mps/kernels/X.h>`),
        # the scratch folder's first so the change's headers win.
        roots = [f"-I{top / sub}" for top in (scratch, root) for sub in ("", "aten/src")]
        argv = [*find_compiler(), *FLAGS, f"-I{EMULATION_INCLUDE}", "-include", "metal_stdlib",
                f"-iquote{root / Path(rel).parent}", *roots, str(source)]
        done = subprocess.run(argv, capture_output=True, text=True, errors="replace")
        found = parse_diagnostics(done.stderr, source=str(source), rel=rel, roots=(str(scratch), str(root)))
    _write_cache(cache_dir, key, found)
    return found


def parse_diagnostics(stderr: str, *, source: str, rel: str, roots: tuple[str, ...]) -> list[Diagnostic]:
    """g++'s errors as Diagnostics in *rel*.  An error is placed at the outermost macro invocation in
    *source* its notes name (a REGISTER_* line, not the macro's definition), else where it is when in
    *source*, else at the last line of *source* its preceding context passed through (an include,
    "required from here"); an error in a header leads its message with the header's place."""
    out: list[Diagnostic] = []
    anchor: tuple[int, int] | None = None  # the last place in the file the coming error's context passed
    placing = False  # the notes right after an error are its macro expansions, innermost first
    for line in plain_lines(stderr):
        context = _CONTEXT.match(line)
        m = _LINE.match(line)
        if context:
            if context["path"] == source:
                anchor = (int(context["line"]), 1)
        elif m and m["kind"] in ("error", "fatal error"):
            where = (int(m["line"]), int(m["col"])) if m["path"] == source else anchor or (1, 1)
            message = m["message"] if m["path"] == source else \
                f"{_relative(m['path'], roots)}:{m['line']}: {m['message']}"
            out.append(Diagnostic(rel, *where, ERROR, message))
            anchor, placing = None, True
        elif m and m["message"].startswith(("in expansion of macro", "in definition of macro")):
            if placing and m["path"] == source and m["message"].startswith("in expansion"):
                out[-1] = out[-1]._replace(line=int(m["line"]), col=int(m["col"]))  # the outermost invocation wins
        elif m:
            placing = False  # "previously defined here" and its own expansions say nothing of the error's place
            if m["path"] == source:
                anchor = (int(m["line"]), int(m["col"]))  # "required from here": a header's next error came from here
        elif _REQUIRED.match(line) and line.startswith(source + ":"):
            r = _REQUIRED.match(line)
            assert r is not None
            anchor = (int(r["line"]), int(r["col"]))
    return out


def _relative(path: str, roots: tuple[str, ...]) -> str:
    for root in roots:
        if path.startswith(root.rstrip("/") + "/"):
            return path[len(root.rstrip("/")) + 1:]
    return Path(path).name


# -- cache: a file's diagnostics are a function of its text, its headers and the emulation ----------


def _cache_key(root: Path, rel: str, text: str, overlay: Mapping[str, str]) -> str:
    # By content, not by place: two checkouts (a clone, a test's copy of the sample) with the same file and
    # headers share the result, and a header rewritten under the same stamp is still seen (~0.3 MB read and
    # hashed a compile, ~1 ms beside its ~200 ms).
    h = hashlib.sha256(f"{VERSION}\0{rel}\0".encode())
    h.update(text.encode("utf-8", "surrogatepass"))
    for path, body in sorted(overlay.items()):
        h.update(f"\0{path}\0".encode() + body.encode("utf-8", "surrogatepass"))
    for n, folder in enumerate((EMULATION_INCLUDE, *(root / sub for sub in _HEADERS), root / Path(rel).parent)):
        for p in sorted(folder.glob("*.h")) + sorted(folder.glob("metal_*")):
            h.update(f"\0{n}/{p.name}\0".encode() + hashlib.sha256(p.read_bytes()).digest())
    return h.hexdigest()[:32]


def _read_cache(cache_dir: Path | None, key: str) -> list[Diagnostic] | None:
    if cache_dir is None:
        return None
    try:
        rows = json.loads((cache_dir / f"metal-{key}.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return [Diagnostic(*row) for row in rows]


def _write_cache(cache_dir: Path | None, key: str, found: list[Diagnostic]) -> None:
    if cache_dir is None:
        return
    cache_dir.mkdir(parents=True, exist_ok=True)
    tmp = cache_dir / f"metal-{key}.json.{id(found)}"
    tmp.write_text(json.dumps([list(d) for d in found]), encoding="utf-8")
    tmp.replace(cache_dir / f"metal-{key}.json")
