"""gitops.py on throw-away repositories, with no git identity configured (as on a CI runner)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from mpsgen.tree import gitops
from mpsgen.errors import MpsgenError

MM = "aten/src/ATen/native/mps/operations/BinaryKernel.mm"
METAL = "aten/src/ATen/native/mps/kernels/BinaryKernel.metal"


@pytest.fixture(autouse=True)
def no_identity(tmp_path: Path, monkeypatch):
    """Hide the machine's git config so the fallback identity is exercised."""
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(tmp_path / "no-global-config"))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    for var in ("GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL"):
        monkeypatch.delenv(var, raising=False)


def git(root: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=root, check=True, capture_output=True, text=True,
                          env=None).stdout


@pytest.fixture()
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "pytorch"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    for rel, text in ((MM, "// host\n"), (METAL, "// metal\n"), ("README.md", "readme\n")):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    git(root, "add", "-A")
    git(root, "-c", "user.name=Seed", "-c", "user.email=seed@example.com", "commit", "-q", "-m", "initial")
    return root


def test_work_tree_prefix(repo: Path, tmp_path: Path):
    assert gitops.work_tree_prefix(repo) == ""
    assert gitops.work_tree_prefix(tmp_path) is None  # a plain folder
    assert gitops.work_tree_prefix(repo / "aten") == "aten/"  # inside, not the top
    assert gitops.work_tree_prefix(tmp_path / "missing") is None


def test_dirty_paths_staged_unstaged_untracked_deleted(repo: Path):
    assert gitops.dirty_paths(repo, [MM, METAL, "README.md"]) == set()
    (repo / MM).write_text("// host\n// changed\n")
    (repo / "README.md").write_text("staged\n")
    git(repo, "add", "README.md")
    new = "aten/src/ATen/native/mps/kernels/New.metal"
    (repo / new).write_text("// new\n")
    (repo / METAL).unlink()
    assert gitops.dirty_paths(repo, [MM, METAL, "README.md", new]) == {MM, METAL, "README.md", new}
    # only the asked-for paths are reported; absolute paths are accepted
    assert gitops.dirty_paths(repo, [repo / MM]) == {MM}
    assert gitops.dirty_paths(repo, ["does/not/exist.mm"]) == set()


def test_dirty_paths_ignores_ignored_files(repo: Path):
    (repo / ".gitignore").write_text("*.log\n")
    (repo / "build.log").write_text("x\n")
    assert gitops.dirty_paths(repo, ["build.log"]) == set()


def test_dirty_paths_not_a_repo(tmp_path: Path):
    with pytest.raises(MpsgenError, match="not a git repository"):
        gitops.dirty_paths(tmp_path, ["x"])


def test_dirty_paths_below_the_top_in_every_layout(repo: Path, tmp_path: Path):
    # The checkout's place in the work tree is read from where `.git` is (no git process) for a plain
    # repository and a linked worktree, and asked of git when core.worktree could move the top.
    sub = "aten/src"
    rel = MM.removeprefix(sub + "/")
    (repo / MM).write_text("// changed\n")
    assert gitops.dirty_paths(repo / sub, [rel, "ATen/native/mps/kernels/BinaryKernel.metal"]) == {rel}

    linked = tmp_path / "linked"
    git(repo, "worktree", "add", "-q", str(linked))
    assert (linked / ".git").is_file()
    (linked / METAL).write_text("// changed in the worktree\n")
    assert gitops.dirty_paths(linked / sub, [rel, "ATen/native/mps/kernels/BinaryKernel.metal"]) == {
        "ATen/native/mps/kernels/BinaryKernel.metal"}

    # core.worktree moves the work tree away from `.git`'s folder: git is asked, and says this
    # folder is not in a work tree (the layout alone would have taken it for the top).
    git(repo, "config", "core.worktree", str(tmp_path / "elsewhere"))
    with pytest.raises(MpsgenError, match="not a git repository"):
        gitops.dirty_paths(repo, [MM])


def test_create_branch_switches_and_keeps_changes(repo: Path):
    (repo / MM).write_text("// edited by mpsgen\n")
    gitops.create_branch(repo, "mps/atan2-metal")
    assert git(repo, "branch", "--show-current").strip() == "mps/atan2-metal"
    assert (repo / MM).read_text() == "// edited by mpsgen\n"


def test_create_branch_refuses_existing_and_invalid_names(repo: Path):
    with pytest.raises(MpsgenError, match="branch 'main' already exists"):
        gitops.create_branch(repo, "main")
    with pytest.raises(MpsgenError, match="not a valid branch name"):
        gitops.create_branch(repo, "bad..name")
    assert git(repo, "branch", "--show-current").strip() == "main"


def test_commit_only_the_given_paths_with_fallback_identity(repo: Path):
    (repo / MM).write_text("// host\n// atan2 kernel\n")
    new = "aten/src/ATen/native/mps/kernels/New.metal"
    (repo / new).write_text("// new kernel\n")
    (repo / "README.md").write_text("user's own staged work\n")
    git(repo, "add", "README.md")
    message = gitops.commit_message("atan2", ["atan2", "atan2.out"])
    sha = gitops.commit(repo, [MM, new, METAL], message)
    assert git(repo, "rev-parse", "HEAD").strip() == sha
    files = git(repo, "show", "--name-only", "--format=", sha).split()
    assert sorted(files) == sorted([MM, new])  # METAL was unchanged; README stays out
    assert git(repo, "log", "-1", "--format=%an <%ae>").strip() == "mpsgen <mpsgen@users.noreply.github.com>"
    assert git(repo, "log", "-1", "--format=%B").startswith(
        "[MPS] Migrate atan2 from MPSGraph to a native Metal kernel\n\nOverloads moved to the Metal kernel:\n"
        "- atan2\n- atan2.out\n")
    # the user's staged change is still staged, not committed
    assert git(repo, "diff", "--cached", "--name-only").split() == ["README.md"]


def test_commit_uses_the_repository_identity_when_set(repo: Path):
    git(repo, "config", "user.name", "Ada Lovelace")
    git(repo, "config", "user.email", "ada@example.com")
    (repo / MM).write_text("// changed\n")
    gitops.commit(repo, [MM], "msg\n")
    assert git(repo, "log", "-1", "--format=%an <%ae>|%cn").strip() == "Ada Lovelace <ada@example.com>|Ada Lovelace"


def test_commit_a_deletion(repo: Path):
    (repo / METAL).unlink()
    sha = gitops.commit(repo, [METAL], "remove")
    assert git(repo, "show", "--name-status", "--format=", sha).split() == ["D", METAL]


def test_commit_with_nothing_changed_is_a_user_error(repo: Path):
    with pytest.raises(MpsgenError, match="nothing to commit"):
        gitops.commit(repo, [MM], "msg")


def test_commit_in_a_repo_without_commits(tmp_path: Path):
    root = tmp_path / "fresh"
    root.mkdir()
    git(root, "init", "-q")
    (root / "a.mm").write_text("x\n")
    sha = gitops.commit(root, ["a.mm"], "first")
    assert git(root, "show", "--name-only", "--format=%s", sha).split() == ["first", "a.mm"]


def test_commit_message_for_a_new_op():
    msg = gitops.commit_message("heaviside", ["heaviside.out"], action="new")
    assert msg.splitlines()[0] == "[MPS] Add a native Metal kernel for heaviside"
    assert "- heaviside.out" in msg.splitlines()


def test_commit_refused_by_a_hook_is_a_user_error_with_a_next_step(repo: Path):
    hook = repo / ".git" / "hooks" / "pre-commit"
    hook.write_text("#!/bin/sh\necho 'lint failed in BinaryKernel.mm' >&2\nexit 1\n")
    hook.chmod(0o755)
    (repo / MM).write_text("// changed\n")
    with pytest.raises(MpsgenError) as info:
        gitops.commit(repo, [MM], "msg")
    rendered = info.value.render()
    assert "lint failed in BinaryKernel.mm" in rendered and "git commit" in info.value.hint
    assert "\n" not in rendered
    assert (repo / MM).read_text() == "// changed\n"
