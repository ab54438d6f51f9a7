"""Running mpsgen as a command, shared by the CLI, golden and new-op tests.

The command is `python -m mpsgen` through the interpreter running the tests, never an `mpsgen` found on
PATH: PATH may hold another installation (or none, when pytest runs as .venv/bin/python -m pytest without
activating the venv).  test_packaging.py checks the installed console script itself."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

MPSGEN = [sys.executable, "-m", "mpsgen"]


def mpsgen(*args: str, cwd: Path | None = None, env: dict | None = None,
           timeout: float = 180) -> subprocess.CompletedProcess[str]:
    """`python -m mpsgen ARGS`, in a process of its own: forked from one of the worker's warm interpreters
    (warm_mpsgen.py), or a fresh one where *env* changes how the interpreter starts."""
    environment = dict(os.environ if env is None else env)
    server = warm_server(with_torch=runs_numeric_check(args))
    if any(environment.get(k) != server.started_with.get(k) for k in _INTERPRETER_VARS):
        return subprocess.run([*MPSGEN, *args], cwd=cwd, capture_output=True, text=True, timeout=timeout, env=env)
    return server.run(list(args), Path(cwd or os.getcwd()), environment, timeout)


# Two warm interpreters per worker: one with torch imported, for the commands that run the numeric check,
# and one without, for the rest.  A fork of an interpreter holding torch (~0.5 GB mapped) costs ~40 ms of
# CPU in the kernel (its page tables copied, then torn down at exit) against ~5 ms without, and most
# commands never import torch.  Which one serves a command changes only where time goes: a command the
# guess sends to the light one imports torch itself, as a fresh `python -m mpsgen` would.
_GLOBAL_WITH_VALUE = ("-C", "--checkout")
_SKIPS_NUMERIC_CHECK = ("--no-try", "--dry-run", "--print", "--help", "-h")


def runs_numeric_check(args: tuple[str, ...] | list[str]) -> bool:
    """Whether `mpsgen ARGS` is likely to run the numeric check (try; migrate and new-op unless told not to)."""
    at = 0
    while at < len(args) and args[at].startswith("-"):
        at += 2 if args[at] in _GLOBAL_WITH_VALUE else 1
    command = args[at] if at < len(args) else ""
    if command == "try":
        return True
    return command in ("migrate", "new-op") and not any(a in _SKIPS_NUMERIC_CHECK for a in args)


# What the warm interpreter fixed when it started: a command whose environment differs in one of them
# runs in a fresh interpreter.
_INTERPRETER_VARS = ("PYTHONPATH", "PYTHONHOME", "PYTHONSAFEPATH", "PYTHONNOUSERSITE", "PYTHONUSERBASE",
                     "MPSGEN_WT", "VIRTUAL_ENV")


class _WarmServer:
    def __init__(self, with_torch: bool) -> None:
        self.started_with = dict(os.environ)
        command = [sys.executable, str(Path(__file__).with_name("warm_mpsgen.py")), *(["--torch"] if with_torch else [])]
        self.process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)

    def run(self, args: list[str], cwd: Path, env: dict, timeout: float) -> subprocess.CompletedProcess[str]:
        import json
        import select
        import tempfile

        assert self.process.stdin is not None and self.process.stdout is not None
        with tempfile.TemporaryDirectory(prefix="mpsgen-run-") as folder:
            out, err = Path(folder, "out"), Path(folder, "err")
            request = {"args": args, "cwd": str(cwd), "env": env, "out": str(out), "err": str(err)}
            self.process.stdin.write(json.dumps(request) + "\n")
            pid = json.loads(self.process.stdout.readline())["pid"]
            ready, _, _ = select.select([self.process.stdout], [], [], timeout)
            if not ready:
                os.kill(pid, 9)
                self.process.stdout.readline()
                raise subprocess.TimeoutExpired([*MPSGEN, *args], timeout)
            code = json.loads(self.process.stdout.readline())["code"]
            return subprocess.CompletedProcess([*MPSGEN, *args], code, out.read_text(), err.read_text())


_SERVERS: dict[bool, _WarmServer] = {}  # with torch or not -> its server


def warm_server(with_torch: bool) -> _WarmServer:
    """The worker's warm interpreter with torch imported or without, started on first use."""
    server = _SERVERS.get(with_torch)
    if server is None or server.process.poll() is not None:
        if not _SERVERS:
            import atexit

            atexit.register(_stop_servers)
        server = _SERVERS[with_torch] = _WarmServer(with_torch)
    return server


def _stop_servers() -> None:
    """At the worker's exit: each server's input closed, it ends, it is waited for (no process left behind)."""
    for server in _SERVERS.values():
        assert server.process.stdin is not None
        server.process.stdin.close()
    for server in _SERVERS.values():
        server.process.wait(timeout=30)


def tracked_bytes(root: Path) -> dict[str, bytes]:
    """The tracked sources (git ls-files): what mpsgen may edit; build outputs and logs excluded."""
    files = subprocess.run(["git", "ls-files", "-z"], cwd=root, capture_output=True, check=True).stdout
    return {rel: (root / rel).read_bytes() for rel in files.decode().split("\0") if rel}


EMULATED_METAL = Path(__file__).resolve().parents[1] / "mpsgen" / "emulate" / "include"


def emulated_compile_errors(path: Path, root: Path) -> list[str]:
    """The errors of g++ -fsyntax-only on a .metal under mpsgen's Metal emulation (every template instance
    included), without their file:line:col, sorted: compare a file before and after an edit."""
    done = subprocess.run(["g++", "-std=c++17", "-fsyntax-only", "-w", f"-I{EMULATED_METAL}", f"-I{root}", "-include",
                           "metal_stdlib", "-x", "c++", str(path)], capture_output=True, text=True)
    return sorted(re.sub(r"^.*?:\d+:\d+: ", "", ln) for ln in done.stderr.splitlines() if ": error:" in ln)


def only_insertions(before: str, after: str) -> bool:
    """Whether *after* is *before* with lines inserted (every old line kept, in order)."""
    import difflib

    ops = difflib.SequenceMatcher(None, before.splitlines(), after.splitlines(), autojunk=False).get_opcodes()
    return {tag for tag, *_ in ops} <= {"equal", "insert"}
