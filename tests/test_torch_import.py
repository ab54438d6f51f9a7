"""The numeric check's torch is the installed one, also when mpsgen runs as `python -m mpsgen` from a
PyTorch checkout's root, whose own torch/ (sources, no built extension) would otherwise shadow it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def test_a_source_checkouts_torch_does_not_shadow_the_installed_one(tmp_path: Path) -> None:
    source = tmp_path / "torch"
    (source / "_C").mkdir(parents=True)  # the checkout's type stubs folder, not the built extension
    (source / "__init__.py").write_text("raise ImportError('a source checkout: torch._C is not built')\n")
    probe = ("import sys; sys.path.insert(0, '')\n"
             "from mpsgen.emulate.reference import import_torch, torch_version\n"
             "print(import_torch().__file__); print(torch_version())\n")
    done = subprocess.run([sys.executable, "-c", probe], cwd=tmp_path, capture_output=True, text=True,
                          env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"})
    assert done.returncode == 0, done.stderr
    where, version = done.stdout.splitlines()
    assert not where.startswith(str(tmp_path)) and where.endswith("torch/__init__.py")
    assert version[0].isdigit()
