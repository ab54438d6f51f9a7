"""Shared fixtures: the real files from the torch 2.13.0 wheel and the sample checkout; the session's
hermetic environment and hypothesis profile."""

from __future__ import annotations

import importlib.util
import os
import shutil
import signal
import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import settings

REPO = Path(__file__).resolve().parent.parent
SAMPLE = REPO / "fixtures" / "sample"

# Everything the tests and their subprocesses write goes under one temporary folder per session (shared by
# the xdist workers, which inherit it; removed by the process that made it): mpsgen's caches (try's builds,
# the fact store), pip's, pre-commit's and lintrunner's homes and virtualenv's seed wheels, never the user's
# ~/.cache or ~/.local.  git reads a configuration of the session's own, with an identity: the tests commit in
# their sample trees also where git has no identity configured (a CI runner), and a user's settings
# (commit signing, hooks) do not reach them.
_SESSION_ENV = "MPSGEN_TESTS_SESSION_DIR"
_OWN_SESSION_DIR = _SESSION_ENV not in os.environ
SESSION_DIR = Path(os.environ.get(_SESSION_ENV) or tempfile.mkdtemp(prefix="mpsgen-tests-"))
_GIT_CONFIG = SESSION_DIR / "gitconfig"
if _OWN_SESSION_DIR:
    _GIT_CONFIG.write_text("[user]\n\tname = mpsgen tests\n\temail = tests@mpsgen.invalid\n"
                           "[init]\n\tdefaultBranch = main\n")
os.environ.update({
    _SESSION_ENV: str(SESSION_DIR),
    "MPSGEN_CACHE_DIR": str(SESSION_DIR / "mpsgen-cache"),
    "XDG_CACHE_HOME": str(SESSION_DIR / "xdg-cache"),
    "XDG_DATA_HOME": str(SESSION_DIR / "xdg-data"),
    "XDG_CONFIG_HOME": str(SESSION_DIR / "xdg-config"),
    "PRE_COMMIT_HOME": str(SESSION_DIR / "pre-commit"),
    "VIRTUALENV_OVERRIDE_APP_DATA": str(SESSION_DIR / "virtualenv"),
    "VIRTUALENV_NO_PERIODIC_UPDATE": "1",  # virtualenv would look for newer seed wheels online
    "GIT_CONFIG_GLOBAL": str(_GIT_CONFIG),
    "GIT_CONFIG_NOSYSTEM": "1",
    "HYPOTHESIS_STORAGE_DIRECTORY": str(SESSION_DIR / "hypothesis"),  # else .hypothesis/ in the working folder
})
# The Python processes the tests start keep their bytecode where Python keeps it: the repository's ignored
# __pycache__ folders and the installed packages' own, which pip compiled at install.  With
# PYTHONDONTWRITEBYTECODE set, each compiled every module it imported from source again (~0.25 s of CPU per
# mpsgen run); a session-wide PYTHONPYCACHEPREFIX made each worker compile torch's ~1000 modules (~4 s).
os.environ.pop("PYTHONPYCACHEPREFIX", None)
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
for _var in ("GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL"):
    os.environ.pop(_var, None)
# The tools the test extra installs (ninja for the sample's build, pre-commit, lintrunner) are found as in the
# activated venv, also when pytest runs as .venv/bin/python -m pytest.  mpsgen itself never comes from PATH
# (cli_support.MPSGEN runs it through this interpreter).
os.environ["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])
# Ctrl-C as a terminal delivers it: a shell starting pytest in the background (`pytest &` in a script) leaves
# SIGINT ignored, which every process the tests start would inherit; the Ctrl-C tests (test_runner,
# test_cli_migrate, test_migrate_all) then waited out their sleeping builds instead.
signal.signal(signal.SIGINT, signal.default_int_handler)

# Property tests: 100 examples each by default, MPSGEN_HYPOTHESIS_PROFILE=thorough for 20x that;
# derandomized (the examples follow from the test alone) and without an example database, so a run is
# repeatable and writes nothing.
settings.register_profile("default", max_examples=100, derandomize=True, database=None, deadline=None)
settings.register_profile("thorough", max_examples=2000, derandomize=True, database=None, deadline=None)
settings.load_profile(os.environ.get("MPSGEN_HYPOTHESIS_PROFILE", "default"))


# Files whose tests run longest (a single test of a minute or more on a loaded worker, mypy among them):
# collected first.  pytest-xdist hands the tests out in collection order (xdist_groups first), so these
# start early instead of one of them ending the run on one worker while the other has nothing left.
_LONG_FIRST = ("test_typecheck.py", "test_replay_214.py", "test_nativefunctions_real.py",
               "test_precommit_lintrunner.py", "test_migrate_all.py", "test_workflow.py", "test_binary_alpha_27.py")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    rank = {name: k for k, name in enumerate(_LONG_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(rank)))  # stable: each file's order kept


def pytest_unconfigure(config: pytest.Config) -> None:
    if _OWN_SESSION_DIR:
        shutil.rmtree(SESSION_DIR, ignore_errors=True)


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


@pytest.fixture(scope="session")
def pristine_scalar_tree(tmp_path_factory: pytest.TempPathFactory, real_yaml_path: Path, real_testing_dir: Path,
                         wheel_include: Path) -> Path:
    """The scalar-ops tree (tests/scalar_ops_tree.py), committed in git, laid once per session."""
    from scalar_ops_tree import commit_all, lay_scalar_ops
    from test_checks import build_real_tree

    dest = tmp_path_factory.mktemp("pristine-scalar") / "pytorch"
    shutil.copytree(SAMPLE, dest, symlinks=True)
    root = lay_scalar_ops(build_real_tree(dest, real_yaml_path, real_testing_dir), wheel_include)
    commit_all(root)
    return root


@pytest.fixture()
def scalar_tree(pristine_scalar_tree: Path, tmp_path: Path) -> Path:
    """A fresh copy of the scalar-ops tree (git history included)."""
    dest = tmp_path / "pytorch"
    shutil.copytree(pristine_scalar_tree, dest, symlinks=True)
    return dest
