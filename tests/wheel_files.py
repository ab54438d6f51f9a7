"""Files of a torch wheel other than the installed one (torch 2.14.1's native_functions.yaml, ...),
read from the wheel itself: `pip download` it once (no install, no dependencies) into a cache, then
extract only the files asked for.  PyTorch's sources never enter this repository.

The cache is $MPSGEN_WHEEL_CACHE, else ~/.cache/mpsgen-test-wheels.  A wheel that cannot be had is a
test failure with the reason, never a skip: .ci/run fetches the wheels these tests name.
"""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest


def _cache() -> Path:
    return Path(os.environ.get("MPSGEN_WHEEL_CACHE") or Path.home() / ".cache" / "mpsgen-test-wheels")


def _wheel(version: str) -> Path:
    folder = _cache() / f"torch-{version}"
    found = sorted(folder.glob(f"torch-{version}-*.whl"))
    if found:
        return found[0]
    folder.mkdir(parents=True, exist_ok=True)
    done = subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--only-binary=:all:",
                           "-d", str(folder), f"torch=={version}"], capture_output=True, text=True)
    found = sorted(folder.glob(f"torch-{version}-*.whl"))
    if done.returncode != 0 or not found:
        pytest.fail(f"cannot download the torch {version} wheel: {(done.stderr or done.stdout).strip()[-500:]}")
    return found[0]


def wheel_file(version: str, member: str) -> Path:
    """The wheel's *member* (e.g. torch/testing/_internal/common_mps.py), extracted once into the cache."""
    target = _cache() / f"torch-{version}-files" / member
    if not target.is_file():
        with zipfile.ZipFile(_wheel(version)) as wheel:
            data = wheel.read(member)
        target.parent.mkdir(parents=True, exist_ok=True)
        partial = target.with_suffix(target.suffix + ".partial")
        partial.write_bytes(data)
        partial.replace(target)
    return target
