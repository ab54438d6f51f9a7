"""`migrate --all --stack` on a checkout lacking the host API its ternary ops need: the API is a commit
of its own below the first family that uses it, the families after add nothing of it, and a rerun after
landing part of the stack still makes the rest.  With --branch-per-op the API stays in each branch's
commit, and its PR text says so.

The tree: the scalar-ops tree with the torch wheel's c10/metal (no ternary alpha kernels) and the
hand-written OperationUtils.mm of tests/data/host_api (exec_ternary_kernel(iter, name) and
exec_binary_kernel's alpha path to model on), committed.  addcdiv and addcmul both need the form.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import NamedTuple

import pytest
from cli_support import mpsgen

from mpsgen.tree.gitops import MPSGEN_TRAILER

from scalar_ops_tree import LIBRARY_H
from test_exec_ternary_backfill import MM_REL, api_tree, lay_api_tree  # noqa: F401  (api_tree: a fixture)
from test_stack import STACK, chain, git

INDEXING = "c10/metal/indexing.h"
API_FILES = sorted([LIBRARY_H, MM_REL, INDEXING])


def touched(root: Path, commit: str) -> list[str]:
    return sorted(git(root, "diff-tree", "--no-commit-id", "--name-only", "-r", commit).split())


def message(root: Path, commit: str) -> str:
    return git(root, "log", "-1", "--format=%B", commit)


def stack(root: Path) -> dict[str, dict]:
    done = mpsgen(*STACK, "--format", "json", cwd=root)
    assert done.returncode == 0, done.stderr
    return {f["family"]: f for f in json.loads(done.stdout)["families"]}


class FirstStack(NamedTuple):
    root: Path  # the api tree after one `--all --stack` run (shared: a test that changes it copies it)
    head: str  # its HEAD, before and after the run
    rows: dict[str, dict]  # the run's report, by family


@pytest.fixture(scope="module")
def first_stack(pristine_scalar_tree: Path, wheel_include: Path, tmp_path_factory: pytest.TempPathFactory) -> FirstStack:
    """The first `--all --stack` run on a fresh api tree, which the two tests below both start from (one
    reads what it made, the other lands part of it on a copy): the same command on the same tree, run once."""
    root = tmp_path_factory.mktemp("first-stack") / "pytorch"
    shutil.copytree(pristine_scalar_tree, root, symlinks=True)
    lay_api_tree(root, wheel_include)
    head = git(root, "rev-parse", "HEAD").strip()
    return FirstStack(root, head, stack(root))


@pytest.mark.xdist_group("first_stack")
def test_the_api_is_its_own_commit_below_the_first_family_using_it(first_stack: FirstStack) -> None:
    api_tree, head, rows = first_stack
    assert rows["addcdiv"]["state"] == rows["addcmul"]["state"] == "branch"
    commits = chain(api_tree)[::-1]  # oldest first
    for (commit, parents, _), parent in zip(commits, [head] + [c for c, _, _ in commits]):
        assert parents == [parent]  # one parent each: the commit before it
    api = rows["addcdiv"]["api_commit"]
    assert [f for f, row in rows.items() if row["api_commit"]] == ["addcdiv"]  # once, for the first user
    order = [c for c, _, _ in commits]
    assert order.index(api) + 1 == order.index(rows["addcdiv"]["commit"])  # right below it
    # the API commit holds the API's files and nothing else; no later commit touches them
    assert touched(api_tree, api) == API_FILES == rows["addcdiv"]["api_files"]
    for commit in order[order.index(api) + 1 :]:
        assert not set(touched(api_tree, commit)) & set(API_FILES), commit
    assert set(touched(api_tree, rows["addcmul"]["commit"])) == set(rows["addcmul"]["files"])
    # its content: the alpha form, declared and defined once, its Metal kernels and macro
    mm = git(api_tree, "show", f"{api}:{MM_REL}")
    assert mm.count("void MetalShaderLibrary::exec_ternary_kernel(") == 2
    assert "if (!alpha.has_value()) {" in mm and "TODO" not in mm.split("exec_ternary_kernel(TensorIteratorBase& iter,")[-1]
    assert "#define REGISTER_TERNARY_ALPHA_OP(" in git(api_tree, "show", f"{api}:{INDEXING}")
    assert git(api_tree, "show", f"{api}:{MM_REL}") == git(api_tree, "show", f"mps-metal/stack:{MM_REL}")
    # what the commits say
    said = message(api_tree, api)
    assert said.startswith("[MPS] Add exec_ternary_kernel(iter, name, alpha) and REGISTER_TERNARY_ALPHA_OP, for addcdiv\n")
    assert "Modeled on:\n- exec_ternary_kernel(iter, name, alpha)" in said and "exec_binary_kernel's alpha path" in said
    assert said.rstrip().endswith(MPSGEN_TRAILER) and "Nothing calls it yet: the next commit" in said
    user = message(api_tree, rows["addcdiv"]["commit"])
    assert "Host API used (this checkout lacked it; the commit below adds it alone):" in user
    assert "Host API" not in message(api_tree, rows["addcmul"]["commit"])


@pytest.mark.xdist_group("first_stack")
def test_after_landing_the_api_and_its_first_user_a_rerun_makes_the_rest(first_stack: FirstStack,
                                                                         tmp_path: Path) -> None:
    api_tree = tmp_path / "pytorch"  # a copy of the tree after the first run: this test lands part of it
    shutil.copytree(first_stack.root, api_tree, symlinks=True)
    rows = first_stack.rows
    api = rows["addcdiv"]["api_commit"]
    before = [s for c, _, s in chain(api_tree) if c != api]
    git(api_tree, "merge", "-q", "--ff-only", api)  # only the API lands
    again = stack(api_tree)
    assert not any(row["api_commit"] for row in again.values())  # HEAD has it: nothing to add
    rebuilt = chain(api_tree)
    assert rebuilt[-1][1] == [api]
    assert not any(set(touched(api_tree, c)) & set(API_FILES) for c, _, _ in rebuilt)
    assert [s for _, _, s in rebuilt] == before  # every family again, the API no more
    git(api_tree, "merge", "-q", "--ff-only", again["addcdiv"]["commit"])  # its first user lands too
    rest = stack(api_tree)
    assert "addcdiv" not in rest and rest["addcmul"]["state"] == "branch" and not rest["addcmul"]["api_commit"]
    assert chain(api_tree)[-1][1] == [again["addcdiv"]["commit"]]


def test_per_family_branches_keep_the_api_in_their_commit_and_say_so(api_tree: Path) -> None:
    head = git(api_tree, "rev-parse", "HEAD").strip()
    done = mpsgen("migrate", "--all", "--branch-per-op", "--no-build", "--no-test", "--no-try", "--no-compile",
                  cwd=api_tree)
    assert done.returncode == 0, done.stderr
    for family in ("addcdiv", "addcmul"):  # each needs the API and starts from HEAD: each carries it
        branch = f"mps-metal/{family}"
        assert git(api_tree, "rev-parse", f"{branch}^").strip() == head
        assert set(API_FILES) <= set(touched(api_tree, branch))
        said = message(api_tree, branch)
        assert "Host API added (this checkout lacked it; modeled on its siblings here):" in said
        assert "The host API is in this commit so that the branch lands alone" in said
