"""Running mpsgen as a command, shared by the CLI, golden and new-op tests.

The command is `python -m mpsgen` through the interpreter running the tests, never an `mpsgen` found on
PATH: PATH may hold another installation (or none, when pytest runs as .venv/bin/python -m pytest without
activating the venv).  test_packaging.py checks the installed console script itself."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

MPSGEN = [sys.executable, "-m", "mpsgen"]


def mpsgen(*args: str, cwd: Path | None = None, env: dict | None = None,
           timeout: float = 180) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*MPSGEN, *args], cwd=cwd, capture_output=True, text=True, timeout=timeout, env=env)


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
