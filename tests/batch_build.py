"""Many catalog bodies compiled in one translation unit, for the catalog's tests (CPU time, not coverage).

A functor's own build (compile.start_build) runs the compiler twice, each paying its start-up, the
precompiled headers' load and a link: most of a small body's cost.  prebuild() puts the drivers of
several bodies into one translation unit (each body's entry points renamed apart), checks their
registrations with one -fsyntax-only run, compiles once, and links each body's library from that object
with its entry points under their usual names: the library the body's own build would make, placed
where that build puts it (compile.build_plan), so check_kernel finds it and runs it as its own.

Only bodies that are one top-level struct named after the op are batched (nothing else of theirs can
meet another body), with the same headers and namespaces.  Whenever anything fails (a body that does
not compile, a linker without --defsym), nothing is placed: each body's own build then runs and
reports its own error, naming its op.  Two workers reaching one batch: one builds it (a lock file).
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import re
import subprocess
import tempfile
from pathlib import Path
from typing import Sequence

from mpsgen.emulate import compile as cc
from mpsgen.model import KernelSpec

_FUNCTOR_LINE = f'#line 1 "{cc.FUNCTOR_FILE}"\n'
_ENTRY = re.compile(r'^extern "C" void (mpsgen_try_\w+)\(', re.M)


def prebuild(items: Sequence[tuple[KernelSpec, str]], include_root: Path) -> int:
    """Build the libraries of *items* (spec, rendered functor) not yet in the cache, a translation unit per
    group of bodies sharing a driver's head; how many libraries were placed."""
    groups: dict[str, list[tuple[cc.BuildPlan, str, str]]] = {}
    argv: list[str] = []
    for spec, functor in items:
        plan = cc.build_plan(spec, functor, include_root)
        if plan.library.is_file() or not _alone(spec, functor):
            continue
        source = cc.driver_source(spec, functor, include_root, registrations_checked=False)
        checked = cc.driver_source(spec, functor, include_root)
        head = source[:source.index(_FUNCTOR_LINE)]
        if not checked.startswith(head):
            continue
        argv = argv or cc.compiler_argv(plan, include_root)
        groups.setdefault(head, []).append((plan, source[len(head):], checked[len(head):]))
    placed = 0
    for head, bodies in groups.items():
        # pytest-xdist's workers may reach the same batch at once: one builds it, the other then finds it built
        keys = hashlib.sha256(" ".join(plan.key for plan, _, _ in bodies).encode()).hexdigest()[:24]
        lock = bodies[0][0].library.parent / f"batch-{keys}.lock"
        lock.parent.mkdir(parents=True, exist_ok=True)
        with lock.open("w") as held:
            fcntl.flock(held, fcntl.LOCK_EX)
            bodies = [body for body in bodies if not body[0].library.is_file()]
            if len(bodies) > 1:
                placed += _build_group(argv, head, bodies)
    return placed


def _alone(spec: KernelSpec, functor: str) -> bool:
    """*functor* declares one thing at file scope, its own struct; its driver has no kernels of the file's."""
    tops = [line for line in functor.splitlines() if line and not line[0].isspace()
            and not line.startswith(("}", "//", "#"))]
    return (tops == [f"struct {spec.name}_functor {{"] and not spec.has_params and not spec.template_kernel
            and not spec.binary_indexing)


def _build_group(argv: list[str], head: str, bodies: list[tuple[cc.BuildPlan, str, str]]) -> int:
    renamed = [(plan, _suffixed(source, k), _suffixed(checked, k)) for k, (plan, source, checked) in enumerate(bodies)]
    folder = bodies[0][0].library.parent
    folder.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="batch-", dir=folder) as tmp:
        src, check_src, obj = Path(tmp, "batch.cpp"), Path(tmp, "batch.check.cpp"), Path(tmp, "batch.o")
        src.write_text(head + "".join(s for _, s, _ in renamed), encoding="utf-8")
        check_src.write_text(head + "".join(c for _, _, c in renamed), encoding="utf-8")
        runs = [[*argv, "-fsyntax-only", "-x", "c++", str(check_src)], [*argv, "-c", "-x", "c++", str(src), "-o", str(obj)]]
        processes = [subprocess.Popen(run, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) for run in runs]
        if any(p.wait() != 0 for p in processes):
            return 0
        links = []
        for k, (plan, source, _) in enumerate(renamed):
            aliases = [f"-Wl,--defsym={name}={name}__b{k}" for name in _ENTRY.findall(bodies[k][1])]
            out = Path(tmp, f"{k}.so")
            links.append((subprocess.Popen([*cc.find_compiler(), "-shared", str(obj), *aliases, "-o", str(out)],
                                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL), out, plan))
        done = [(out, plan) for process, out, plan in links if process.wait() == 0]
        if len(done) != len(links):
            return 0
        for out, plan in done:
            os.replace(out, plan.library)  # atomic: a concurrent build of the same body sees all or nothing
    return len(done)


def _suffixed(text: str, k: int) -> str:
    """*text* with its entry points renamed apart from the other bodies' (NAME__bK)."""
    return _ENTRY.sub(lambda m: f'extern "C" void {m.group(1)}__b{k}(', text)
