"""Running the installed `mpsgen` entry point, shared by the CLI, golden and new-op tests."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

MPSGEN = shutil.which("mpsgen")


def mpsgen(*args: str, cwd: Path | None = None, env: dict | None = None,
           timeout: float = 180) -> subprocess.CompletedProcess[str]:
    assert MPSGEN, "the mpsgen entry point is not installed (pip install -e .)"
    return subprocess.run([MPSGEN, *args], cwd=cwd, capture_output=True, text=True, timeout=timeout, env=env)


def tracked_bytes(root: Path) -> dict[str, bytes]:
    """The tracked sources (git ls-files): what mpsgen may edit; build outputs and logs excluded."""
    files = subprocess.run(["git", "ls-files", "-z"], cwd=root, capture_output=True, check=True).stdout
    return {rel: (root / rel).read_bytes() for rel in files.decode().split("\0") if rel}
