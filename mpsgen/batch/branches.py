"""One family's change as a commit on its own branch, made with git's plumbing and a private index:
the work tree, HEAD, the user's index and branch are never touched, so an interrupted run (Ctrl-C,
SIGKILL) leaves them as they were, and the branch ref appears only once its commit is complete."""

from __future__ import annotations

import os
import subprocess
import tempfile
from pathlib import Path
from typing import Mapping, Sequence

from mpsgen.batch.outcome import DONE_EARLIER, FAILED, FamilyOutcome
from mpsgen.errors import MpsgenError
from mpsgen.tree.gitops import FALLBACK_EMAIL, FALLBACK_NAME, MPSGEN_TRAILER, work_tree_prefix
from mpsgen.scan.lines import plain_lines

NEW_FILE_MODE = "100644"
TEMP_PREFIX = "mpsgen-batch-"  # .git/mpsgen-batch-*: a private index while one commit is made


def remove_stale_indexes(root: Path) -> None:
    """The private index folders a killed run left behind (SIGKILL skips their cleanup)."""
    import shutil

    git_dir = Path(_git(root, "rev-parse", "--absolute-git-dir").strip())
    for stale in git_dir.glob(TEMP_PREFIX + "*"):
        shutil.rmtree(stale, ignore_errors=True)


def _git(root: Path, *args: str, env: Mapping[str, str] | None = None, stdin: str | None = None) -> str:
    done = subprocess.run(["git", "-C", str(root), *args], capture_output=True, encoding="utf-8", input=stdin,
                          env={**os.environ, **env} if env else None)
    if done.returncode != 0:
        detail = plain_lines((done.stderr or done.stdout).strip())
        raise MpsgenError(f"`git {' '.join(args[:2])}` failed: {detail[-1] if detail else done.returncode}",
                          path=root)
    return done.stdout


def head_commit(root: Path) -> str:
    return _git(root, "rev-parse", "--verify", "HEAD^{commit}").strip()


def require_clean(root: Path) -> None:
    """Branches start from HEAD while the plans read the work tree: they must agree."""
    changed = plain_lines(_git(root, "status", "--porcelain", "--untracked-files=no", "--", "."))
    if changed:
        first = changed[0][3:]
        raise MpsgenError(f"{len(changed)} tracked file(s) differ from HEAD, e.g. {first}", path=root,
                          hint="commit or stash them first: each branch starts from HEAD")


def existing_branches(root: Path, prefix: str) -> dict[str, str]:
    """branch name -> the commit it was made on (its parent), for the branches under *prefix*."""
    out = _git(root, "for-each-ref", "--format=%(refname:strip=2) %(parent)", f"refs/heads/{prefix}")
    pairs = (line.split(" ", 1) for line in plain_lines(out) if line.strip())
    return {name: parent.split(" ")[0] for name, parent in pairs}


def earlier_runs(units: Sequence[tuple[str, ...]], made: Mapping[str, str], base: str,
                 prefix: str, rebuilt: Sequence[str] = ()) -> tuple[list[FamilyOutcome], list[tuple[str, ...]]]:
    """What earlier runs on this HEAD left: (an outcome per branch found, the units still to plan).

    A unit is done when its branch (named after its first family) exists; an earlier run that planned
    its families one by one (refused together) left a branch per family, so each family with a branch
    of its own is done and the rest of the unit is planned again.  A branch on another commit than
    HEAD is planned again when it is one of *rebuilt* (it holds only mpsgen's commit: stale_branches),
    else refused: it was made from another tree and holds someone's work."""
    made = {name: parent for name, parent in made.items() if name not in rebuilt}
    done: list[FamilyOutcome] = []
    todo: list[tuple[str, ...]] = []
    for unit in units:
        own = [unit[0]] if prefix + unit[0] in made else [f for f in unit if prefix + f in made]
        for family in own:
            name = prefix + family
            members = list(unit) if family == unit[0] else [family]
            done.append(FamilyOutcome(family, DONE_EARLIER, branch=name, families=members) if made[name] == base else
                        FamilyOutcome(family, FAILED, families=members, reason=f"branch {name} exists and does not "
                                      "start from HEAD and holds commits mpsgen did not make: land or delete it"))
        rest = () if unit[0] in own else tuple(f for f in unit if f not in own)
        if rest:
            todo.append(rest)
    return done, todo


def stale_branches(root: Path, made: Mapping[str, str], head: str) -> dict[str, str]:
    """branch -> its commit, for the branches of *made* (name -> the commit it was made on) that start
    from another commit than *head* and hold nothing but one commit of mpsgen's: safe to make again
    from HEAD (an earlier run's, before part of the work landed)."""
    stale: dict[str, str] = {}
    for name, parent in made.items():
        if parent == head:
            continue
        tip = branch_tip(root, name)
        own = commits_between(root, parent, tip)
        if len(own) == 1 and own[0][1].rstrip().endswith(MPSGEN_TRAILER):
            stale[name] = tip
    return stale


def branch_tip(root: Path, name: str) -> str:
    """The commit refs/heads/*name* points at; "" when there is no such branch."""
    done = subprocess.run(["git", "-C", str(root), "rev-parse", "--verify", "-q", f"refs/heads/{name}^{{commit}}"],
                          capture_output=True, text=True)
    return done.stdout.strip() if done.returncode == 0 else ""


def commits_between(root: Path, base: str, tip: str) -> list[tuple[str, str]]:
    """(commit, message) of each commit reachable from *tip* and not from *base*, newest first."""
    out = _git(root, "log", "-z", "--format=%H%n%B", f"{base}..{tip}")
    return [(entry.split("\n", 1)[0], entry.split("\n", 1)[1] if "\n" in entry else "")
            for entry in out.split("\0") if entry.strip()]


def branch_base(root: Path, name: str) -> str | None:
    """The commit branch *name* was made on (its parent); None when there is no such branch."""
    return existing_branches(root, name).get(name)


def check_branch_name(root: Path, name: str) -> None:
    if subprocess.run(["git", "check-ref-format", "--branch", name], capture_output=True).returncode != 0:
        raise MpsgenError(f"{name!r} is not a valid branch name", hint="choose another --branch-prefix")


def _identity(root: Path) -> dict[str, str]:
    """Author and committer from git's config or the environment, else mpsgen's fallback (CI)."""
    env: dict[str, str] = {}
    for key, fallback in (("name", FALLBACK_NAME), ("email", FALLBACK_EMAIL)):
        configured = subprocess.run(["git", "-C", str(root), "config", f"user.{key}"], capture_output=True, text=True)
        for role in ("AUTHOR", "COMMITTER"):
            if not configured.stdout.strip() and not os.environ.get(f"GIT_{role}_{key.upper()}"):
                env[f"GIT_{role}_{key.upper()}"] = fallback
    return env


def commit_on_branch(root: Path, base: str, branch: str, files: Mapping[str, str], message: str,
                     replacing: str = "") -> str:
    """Commit *files* (checkout-relative path -> text) on top of *base* as refs/heads/*branch*, which
    must not exist yet (or point at *replacing*); returns the commit.  Only git objects and that one ref
    are written."""
    commit = commit_files(root, base, files, message)
    move_branch(root, branch, commit, replacing)  # "": it must not exist
    return commit


def move_branch(root: Path, branch: str, commit: str, old: str) -> None:
    """Point refs/heads/*branch* at *commit*, if it still points at *old* ("": if it does not exist)."""
    _git(root, "update-ref", "-m", "mpsgen migrate --all", f"refs/heads/{branch}", commit, old)


def commit_files(root: Path, base: str, files: Mapping[str, str], message: str) -> str:
    """A commit of *files* (checkout-relative path -> text) on top of *base*, through a private index;
    only git objects are written."""
    prefix = work_tree_prefix(root) or ""
    paths = {prefix + rel: text for rel, text in files.items()}
    listed = _git(root, "ls-tree", "--full-tree", base, "--", *paths) if paths else ""
    modes = {line.split("\t", 1)[1]: line.split(" ", 1)[0] for line in plain_lines(listed)}
    git_dir = Path(_git(root, "rev-parse", "--absolute-git-dir").strip())
    with tempfile.TemporaryDirectory(prefix=TEMP_PREFIX, dir=git_dir) as tmp:
        index = {"GIT_INDEX_FILE": str(Path(tmp) / "index")}
        _git(root, "read-tree", base, env=index)
        entries = []
        for path, text in paths.items():
            blob = _git(root, "hash-object", "-w", "--stdin", "--path", path, stdin=text).strip()
            entries.append(f"{modes.get(path, NEW_FILE_MODE)} {blob}\t{path}\n")
        _git(root, "update-index", "--index-info", env=index, stdin="".join(entries))
        tree = _git(root, "write-tree", env=index).strip()
    return _git(root, "commit-tree", tree, "-p", base, "-F", "-", env=_identity(root), stdin=message).strip()
