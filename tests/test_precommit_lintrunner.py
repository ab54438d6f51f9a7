"""The shipped pre-commit hook (installed from its repository) and the lintrunner adapter, with the real tools.

pre-commit installs mpsgen from a git repository into its own virtualenv, so the hook is installed from a
committed snapshot of this working tree (the repository itself would miss files that are not committed yet),
named with its revision in the checkout's .pre-commit-config.yaml as a user names it.  Nothing is downloaded:
pip in that virtualenv has no index, and finds mpsgen's dependencies and setuptools already installed in the
venv running the tests (on PYTHONPATH); virtualenv seeds it from its bundled wheels.  pre-commit's and
virtualenv's homes are in the session's temporary folder (conftest.py).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from mpsgen.tree.checkout import COMMON_MPS_REL, YAML_REL

from test_checks import edit

REPO = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent


def git(cwd: Path, *args: str) -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com"}
    return subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True, text=True).stdout


def git_tree(root: Path) -> Path:
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "sample")
    return root


@pytest.fixture(scope="module")
def hook_repo(tmp_path_factory) -> Path:
    """A committed snapshot of this repository's working tree (tracked and new files)."""
    dest = tmp_path_factory.mktemp("mpsgen-repo")
    files = git(REPO, "ls-files", "--cached", "--others", "--exclude-standard", "-z").split("\0")
    for rel in filter(None, files):
        src = REPO / rel
        if src.is_file():
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / rel)
    return git_tree(dest)


@pytest.fixture()
def broken_git_sample(sample_tree: Path) -> Path:
    git_tree(sample_tree)
    edit(sample_tree, COMMON_MPS_REL, '"heaviside": None,', '"heavyside": None,')  # MPS010, a warning
    edit(sample_tree, "aten/src/ATen/native/mps/operations/UnaryOps.mm",
         "CREATE_MPS_STRUCTURED_UNARY_TORCH_IMPL_FUNC(asinh_out_mps, asinh)\n", "")  # MPS003 in the yaml
    return sample_tree


def test_hook_definition_is_the_shipped_one():
    text = (REPO / ".pre-commit-hooks.yaml").read_text()
    assert "- id: mpsgen-check" in text and "entry: mpsgen check" in text and "language: python" in text


def offline_pip_env(home: Path) -> dict[str, str]:
    """The environment for a pre-commit that installs a `language: python` hook without a network: pip
    reads no configuration file and has no index, mpsgen's dependencies and setuptools are this venv's."""
    here = [*dict.fromkeys(sysconfig.get_paths()[key] for key in ("purelib", "platlib")), os.environ.get("PYTHONPATH")]
    return {**{k: v for k, v in os.environ.items() if not k.startswith("PIP_")}, "PRE_COMMIT_HOME": str(home),
            "PIP_CONFIG_FILE": os.devnull, "PIP_NO_INDEX": "1",
            "PIP_NO_BUILD_ISOLATION": "0",  # sic: pip reads this variable as build isolation off
            "PYTHONPATH": os.pathsep.join(filter(None, here))}


def test_the_shipped_hook_installed_from_its_repository(hook_repo: Path, broken_git_sample: Path, tmp_path_factory):
    # What `pre-commit try-repo` writes, but kept: try-repo installs the hook's virtualenv afresh on every
    # call, a config naming the repository and revision installs it once and runs it three times.
    env = offline_pip_env(tmp_path_factory.mktemp("pre-commit-home"))
    rev = git(hook_repo, "rev-parse", "HEAD").strip()
    (broken_git_sample / ".pre-commit-config.yaml").write_text(
        f"repos:\n  - repo: {hook_repo}\n    rev: {rev}\n    hooks:\n      - id: mpsgen-check\n")
    git(broken_git_sample, "add", ".pre-commit-config.yaml")
    git(broken_git_sample, "commit", "-qm", "hook")  # the broken edits stay uncommitted

    def run_hook(*files: str) -> subprocess.CompletedProcess:
        return subprocess.run([str(BIN / "pre-commit"), "run", "mpsgen-check", "--files", *files],
                              cwd=broken_git_sample, env=env, capture_output=True, text=True, timeout=600)

    both = run_hook(YAML_REL, COMMON_MPS_REL)
    out = both.stdout + both.stderr
    assert both.returncode == 1, out
    assert f"{YAML_REL}:" in out and " MPS003 " in out and " MPS010 " in out and "Traceback" not in out
    # Only the warning's file: the hook passes (warnings alone exit 0) but still prints it.
    warn = run_hook(COMMON_MPS_REL)
    assert warn.returncode == 0, warn.stdout + warn.stderr
    assert "Passed" in warn.stdout
    # A file no finding rests on passes (the MPS003 rests on every MPS source: any could define the kernel).
    clean = run_hook("aten/src/ATen/native/mps/kernels/BinaryKernel.metal")
    assert clean.returncode == 0 and "Passed" in clean.stdout, clean.stdout + clean.stderr


LINTRUNNER_TOML = """\
[[linter]]
code = 'MPSGEN'
include_patterns = [
    'aten/src/ATen/native/native_functions.yaml',
    'aten/src/ATen/native/*.h',
    'aten/src/ATen/native/*.cpp',
    'aten/src/ATen/native/mps/**/*.mm',
    'aten/src/ATen/native/mps/**/*.metal',
    'torch/testing/_internal/common_mps.py',
]
command = [
    '{mpsgen}',
    'check',
    '--format=lintrunner',
    '@{{{{PATHSFILE}}}}',
]
"""


def test_lintrunner(broken_git_sample: Path, tmp_path: Path):
    root = broken_git_sample
    (root / ".lintrunner.toml").write_text(LINTRUNNER_TOML.format(mpsgen=BIN / "mpsgen"))
    git(root, "add", ".lintrunner.toml")
    git(root, "commit", "-qm", "lintrunner")
    r = subprocess.run([str(BIN / "lintrunner"), "--all-files", "--output=json", f"--data-path={tmp_path / 'lr'}"],
                       cwd=root, capture_output=True, text=True, timeout=300)
    msgs = [json.loads(ln) for ln in r.stdout.splitlines() if ln.startswith("{")]
    assert r.returncode == 1, r.stdout + r.stderr  # lintrunner fails on error-severity messages
    by_name = {m["name"]: m for m in msgs}
    assert set(by_name) == {"MPS003", "MPS010"}, r.stdout + r.stderr
    assert by_name["MPS003"]["code"] == "MPSGEN" and by_name["MPS003"]["severity"] == "error"
    assert by_name["MPS003"]["path"].endswith(YAML_REL) and by_name["MPS003"]["line"] > 1
    assert by_name["MPS010"]["severity"] == "warning" and "heavyside" in by_name["MPS010"]["description"]


def readme_precommit_config() -> str:
    """The `.pre-commit-config.yaml` block README.md tells users to write."""
    readme = (REPO / "README.md").read_text()
    start = readme.index("```yaml\nrepos:\n  - repo: local")
    return readme[start + len("```yaml\n"): readme.index("```", start + 7)]


@pytest.fixture()
def clean_git_sample(sample_tree: Path) -> Path:
    return git_tree(sample_tree)


def test_readme_precommit_hook_fails_a_commit_that_deletes_a_registration(clean_git_sample: Path, tmp_path: Path):
    # The snippet as written: a local hook running `mpsgen check` from PATH on the staged files.
    root = clean_git_sample
    (root / ".pre-commit-config.yaml").write_text(readme_precommit_config())
    git(root, "add", ".pre-commit-config.yaml")
    git(root, "commit", "-qm", "hook")
    env = {**os.environ, "PRE_COMMIT_HOME": str(tmp_path / "home"), "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}"}

    def hook() -> subprocess.CompletedProcess:
        return subprocess.run([str(BIN / "pre-commit"), "run"], cwd=root, env=env, capture_output=True, text=True,
                              timeout=600)

    mm = "aten/src/ATen/native/mps/operations/BinaryKernel.mm"
    edit(root, mm, "REGISTER_DISPATCH(hypot_stub, &hypot_mps_kernel)\n", "")
    git(root, "add", mm)
    failed = hook()
    out = failed.stdout + failed.stderr
    assert failed.returncode == 1 and "Failed" in out and " MPS005 " in out and f"[rests on {mm}]" in out, out
    # The same file, unbroken, passes.
    git(root, "checkout", "HEAD", "--", mm)
    edit(root, mm, "REGISTER_DISPATCH(hypot_stub, &hypot_mps_kernel)\n",
         "REGISTER_DISPATCH(hypot_stub, &hypot_mps_kernel) // registered\n")
    git(root, "add", mm)
    passed = hook()
    assert passed.returncode == 0 and "Passed" in passed.stdout, passed.stdout + passed.stderr


def test_lintrunner_shows_a_finding_resting_on_the_changed_file(clean_git_sample: Path, tmp_path: Path):
    root = clean_git_sample
    (root / ".lintrunner.toml").write_text(LINTRUNNER_TOML.format(mpsgen=BIN / "mpsgen"))
    git(root, "add", ".lintrunner.toml")
    git(root, "commit", "-qm", "lintrunner")
    mm = "aten/src/ATen/native/mps/operations/BinaryKernel.mm"
    edit(root, mm, "REGISTER_DISPATCH(hypot_stub, &hypot_mps_kernel)\n", "")
    r = subprocess.run([str(BIN / "lintrunner"), "--output=json", f"--data-path={tmp_path / 'lr'}"],
                       cwd=root, capture_output=True, text=True, timeout=300)
    msgs = [json.loads(ln) for ln in r.stdout.splitlines() if ln.startswith("{")]
    assert r.returncode == 1, r.stdout + r.stderr
    (m,) = msgs
    assert m["name"] == "MPS005" and m["path"].endswith(mm) and m["description"].startswith(f"{YAML_REL}:")
