"""Shared fixtures: the real files from the torch 2.13.0 wheel and the sample checkout."""

from __future__ import annotations

import importlib.util
import os
import shutil
import tempfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
SAMPLE = REPO / "fixtures" / "sample"

# mpsgen try (also run by migrate/new-op before writing) caches builds and results; keep them out
# of the user's ~/.cache, shared by this session's subprocesses.
os.environ["MPSGEN_CACHE_DIR"] = tempfile.mkdtemp(prefix="mpsgen-try-cache-")


def _package_dir(name: str) -> Path:
    spec = importlib.util.find_spec(name)
    if spec is None or spec.origin is None:
        # Real-data tests must not be skipped in CI: a missing wheel is a setup error.
        raise RuntimeError(f"{name} is not installed: pip install torch==2.13.0")
    return Path(spec.origin).parent


@pytest.fixture(scope="session")
def real_yaml_path() -> Path:
    return _package_dir("torchgen") / "packaged" / "ATen" / "native" / "native_functions.yaml"


@pytest.fixture(scope="session")
def real_testing_dir() -> Path:
    """torch/testing/_internal from the wheel (found without importing torch)."""
    return _package_dir("torch") / "testing" / "_internal"


@pytest.fixture(scope="session")
def real_common_mps_path(real_testing_dir: Path) -> Path:
    return real_testing_dir / "common_mps.py"


@pytest.fixture(scope="session")
def real_cmi_path(real_testing_dir: Path) -> Path:
    return real_testing_dir / "common_methods_invocations.py"


@pytest.fixture()
def sample_tree(tmp_path: Path) -> Path:
    """A fresh, writable copy of the sample checkout (never build in fixtures/ itself)."""
    dest = tmp_path / "pytorch"
    shutil.copytree(SAMPLE, dest, symlinks=True)
    return dest


@pytest.fixture(scope="session")
def pristine_sample(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One `mpsgen sample` (git-initialised) per session, through the installed entry point."""
    from cli_support import mpsgen

    dest = tmp_path_factory.mktemp("pristine") / "pytorch"
    result = mpsgen("sample", str(dest))
    assert result.returncode == 0, result.stderr
    return dest


@pytest.fixture()
def tree(pristine_sample: Path, tmp_path: Path) -> Path:
    """A fresh copy of the git-initialised sample (git history included)."""
    dest = tmp_path / "pytorch"
    shutil.copytree(pristine_sample, dest, symlinks=True)
    return dest


@pytest.fixture(scope="session")
def wheel_include(real_testing_dir: Path) -> Path:
    """torch/include from the wheel: c10/metal headers, MetalShaderLibrary.h."""
    return real_testing_dir.parent.parent / "include"


@pytest.fixture()
def scalar_tree(sample_tree: Path, real_yaml_path: Path, real_testing_dir: Path, wheel_include: Path) -> Path:
    """The scalar-ops tree (tests/scalar_ops_tree.py), committed in git."""
    from scalar_ops_tree import commit_all, lay_scalar_ops
    from test_checks import build_real_tree

    root = lay_scalar_ops(build_real_tree(sample_tree, real_yaml_path, real_testing_dir), wheel_include)
    commit_all(root)
    return root
