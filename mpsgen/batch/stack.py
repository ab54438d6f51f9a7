"""`migrate --all --stack` (and `new-op --all --stack`): the families as one branch of commits, each
on the previous one, each family planned on its parent commit's tree, so the series lands in order
without a conflict (PyTorch lands such series as a stack: one commit per PR, each on the previous).
A host API the checkout lacks is a commit of its own below the first family that uses it
(batch/api_commit.py); the families after find it in their parent's tree and add nothing.

The branch is rebuilt from HEAD on every run: families HEAD already has plan to nothing and are
skipped, so after landing part of the stack (fast-forwarding to one of its commits) a rerun makes
the rest again. Only a branch holding commits mpsgen did not make is refused. The ref moves after
each commit, so an interrupted run keeps the stack so far; the work tree, index and HEAD are never
touched (batch/branches.py's plumbing).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Callable, Sequence

import click

from mpsgen.batch import branches
from mpsgen.batch.outcome import BRANCHED, PLANNED, FamilyOutcome
from mpsgen.errors import MpsgenError
from mpsgen.tree.gitops import MPSGEN_TRAILER

DEFAULT_BRANCH = "mps-metal/stack"


def existing_tip(root: Path, branch: str, head: str) -> str:
    """The stack branch's commit ("" when there is none); refused when a commit on it past the
    merge base with HEAD is not mpsgen's (someone built on the stack: rebuilding would drop it)."""
    branches.check_branch_name(root, branch)
    tip = branches.branch_tip(root, branch)
    if not tip:
        return ""
    for commit, message in branches.commits_between(root, head, tip):
        if not message.rstrip().endswith(MPSGEN_TRAILER):
            raise MpsgenError(f"branch {branch} holds commit {commit[:12]}, which mpsgen did not make; rebuilding "
                              "the stack from HEAD would drop it", path=root,
                              hint=f"land or move that commit, or choose another --branch than {branch}")
    return tip


def build_stack(root: Path, units: Sequence[tuple[str, ...]], *, branch: str, no_try: bool, no_compile: bool,
                command: str, finished: Callable[[FamilyOutcome], None]) -> None:
    """Plan each unit in order on the tree the commits before it left, commit it on the previous one
    and move *branch* to it; *finished* gets every outcome."""
    from mpsgen.batch.plan_one import plan_unit

    head = branches.head_commit(root)
    old = existing_tip(root, branch, head)
    parent = head
    texts: dict[str, str] = {}  # the stack's files so far, as its last commit holds them
    moved = False
    with click.progressbar(length=len(units), label=f"{command} --all --stack", file=sys.stderr,
                           item_show_func=lambda name: name) as bar:
        for unit in units:
            for outcome in plan_unit(str(root), unit, no_try, command, no_compile, base_texts=texts, stack=True):
                if outcome.state == PLANNED:
                    if outcome.api_files:  # the host API it adds first, alone: later families find it there
                        outcome.api_commit = parent = _commit(root, branch, parent, old if not moved else parent,
                                                              outcome.api_files, outcome.api_message)
                        moved = True
                        texts.update(outcome.api_files)
                    commit = _commit(root, branch, parent, old if not moved else parent, outcome.files,
                                     outcome.message)
                    parent, moved = commit, True
                    texts.update(outcome.files)
                    outcome.branch, outcome.commit, outcome.state = branch, commit, BRANCHED
                finished(outcome)
            bar.update(1, unit[0])


def _commit(root: Path, branch: str, parent: str, was: str, files: dict[str, str], message: str) -> str:
    """A commit of *files* on *parent*, *branch* moved to it from *was*."""
    commit = branches.commit_files(root, parent, files, message)
    branches.move_branch(root, branch, commit, was)
    return commit
