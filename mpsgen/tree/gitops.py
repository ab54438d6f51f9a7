"""Git: is the tree a repository, which paths are dirty, a branch, a commit (gitpython, lazily imported).

Paths are given and returned relative to the repository root, in posix form.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Iterable, Sequence

from mpsgen.errors import MpsgenError
from mpsgen.scan.lines import plain_lines

if TYPE_CHECKING:
    from git import Repo

# Used only when neither the repository config nor the environment names an author (CI runners).
FALLBACK_NAME = "mpsgen"
FALLBACK_EMAIL = "mpsgen@users.noreply.github.com"


def _git() -> ModuleType:
    try:
        import git
    except ImportError as err:  # gitpython also raises ImportError when the git executable is missing
        raise MpsgenError(f"git is not usable: {err}", hint="install git and gitpython, or drop --branch/--commit") \
            from None
    return git


def _repo(root: Path) -> Repo:
    git = _git()
    try:
        return git.Repo(root, search_parent_directories=False)
    except (git.InvalidGitRepositoryError, git.NoSuchPathError):
        raise MpsgenError(
            "not a git repository", path=root, hint="run `git init`, or drop --branch/--commit"
        ) from None


def _run(repo: Repo, *args: str) -> str:
    git = _git()
    try:
        return repo.git.execute(["git", *args])
    except git.GitCommandError as err:
        detail = (err.stderr or err.stdout or "").strip().replace("\n", " ")
        detail = detail.removeprefix("stderr: ").strip("'\" ")
        raise MpsgenError(f"`git {' '.join(args[:2])}` failed: {detail}", path=repo.working_tree_dir) from None


def _git_cli(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """Plain `git` for the read-only queries every editing command makes: gitpython's import alone
    costs ~0.1 s, which `migrate` cannot afford on its fast path."""
    try:
        return subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True)
    except OSError as err:
        raise MpsgenError(f"git is not usable: {err}", path=root, hint="install git, or pass --allow-dirty") from None


def work_tree_prefix(root: Path) -> str | None:
    """*root*'s path inside its git work tree ("" at the top, "sub/dir/" below it); None outside git."""
    if not Path(root).is_dir():
        return None
    done = _git_cli(root, "rev-parse", "--is-inside-work-tree", "--show-prefix")
    lines = plain_lines(done.stdout)
    if done.returncode != 0 or not lines or lines[0] != "true":
        return None
    return lines[1] if len(lines) > 1 else ""


def _prefix(root: Path) -> str | None:
    """work_tree_prefix(root), read from the layout when it is the plain one (the folder holding
    `.git` is the top of the work tree), which spares `migrate` a git process."""
    top = _plain_work_tree_top(root)
    if top is None:
        return work_tree_prefix(root)
    rel = os.path.relpath(os.path.realpath(root), top)
    return "" if rel == "." else rel + "/"


def _plain_work_tree_top(root: Path) -> str | None:
    """The folder holding `.git` above *root*, unless git could be told otherwise (GIT_DIR or
    GIT_WORK_TREE in the environment, core.worktree in the config): then None, ask git."""
    if os.environ.get("GIT_DIR") or os.environ.get("GIT_WORK_TREE"):
        return None
    folder = os.path.realpath(root)
    while not os.path.lexists(os.path.join(folder, ".git")):
        parent = os.path.dirname(folder)
        if parent == folder:
            return None
        folder = parent
    config = os.path.join(folder, ".git", "config")
    try:
        with open(config, "rb") as fh:
            if b"worktree" in fh.read():
                return None
    except NotADirectoryError:
        pass  # a `.git` file (worktree, submodule): the folder holding it is the top
    except OSError:
        return None
    return folder


def dirty_paths(root: Path, paths: Iterable[str | Path]) -> set[str]:
    """Those of *paths* (relative to *root*) with uncommitted changes: staged, unstaged, deleted, or
    untracked.  *root* may be the top of the work tree or a folder inside it.

    Untracked files count as dirty (they are work git does not hold yet); ignored files and
    paths that exist nowhere do not.  Used to refuse editing over a user's uncommitted work.
    """
    root = Path(root)
    wanted = [_rel(root, p) for p in paths]
    prefix = _prefix(root)
    if prefix is None:
        raise MpsgenError("not a git repository", path=root, hint="run `git init`, or pass --allow-dirty")
    if not wanted:
        return set()
    done = _git_cli(root, "status", "--porcelain=v1", "-z", "--untracked-files=all", "--", *wanted)
    if done.returncode != 0:
        raise MpsgenError(f"`git status` failed: {' '.join(done.stderr.split())}", path=root,
                          hint="pass --allow-dirty to skip the check")
    dirty: set[str] = set()
    entries = done.stdout.split("\0")
    i = 0
    while i < len(entries):
        entry = entries[i]
        i += 1
        if len(entry) < 4:
            continue
        xy, path = entry[:2], entry[3:]
        dirty.add(path.removeprefix(prefix))  # git names paths from the top of the work tree
        if "R" in xy or "C" in xy:
            dirty.add(entries[i].removeprefix(prefix))  # the source of a rename/copy follows as its own field
            i += 1
    return {p for p in dirty if p in wanted or any(p.startswith(w.rstrip("/") + "/") for w in wanted)}


def head_blob_ids(root: Path, paths: Iterable[str | Path]) -> dict[str, str | None]:
    """The git blob id of each of *paths* (relative to *root*) at HEAD; None where HEAD has no
    such file (or there is no HEAD yet)."""
    root = Path(root)
    wanted = [_rel(root, p) for p in paths]
    ids: dict[str, str | None] = dict.fromkeys(wanted)
    prefix = _prefix(root)
    if not wanted or prefix is None:
        return ids
    done = _git_cli(root, "ls-tree", "-z", "--full-name", "HEAD", "--", *wanted)
    if done.returncode != 0:
        return ids  # no commit yet: nothing is in HEAD
    for record in done.stdout.split("\0"):
        meta, _, path = record.partition("\t")
        fields = meta.split()
        rel = path.removeprefix(prefix)
        if len(fields) == 3 and fields[1] == "blob" and rel in ids:
            ids[rel] = fields[2]
    return ids


def create_branch(root: Path, name: str) -> None:
    """Create branch *name* at HEAD and switch to it; uncommitted changes come along.  Refuses an existing name."""
    repo = _repo(root)
    git = _git()
    try:
        repo.git.check_ref_format("--branch", name)
    except git.GitCommandError:
        raise MpsgenError(f"{name!r} is not a valid branch name", hint="see `git check-ref-format --help`") from None
    if name in [h.name for h in repo.heads]:
        raise MpsgenError(
            f"branch {name!r} already exists", path=root, hint="choose another --branch name or delete that branch"
        )
    _run(repo, "checkout", "-b", name)


def _identity_env(repo: Repo) -> dict[str, str]:
    """Author/committer from the environment or git config, else a fallback so CI with no identity works."""
    reader = repo.config_reader()  # repository, global and system levels
    name = reader.get_value("user", "name", default="") or ""
    email = reader.get_value("user", "email", default="") or ""
    env: dict[str, str] = {}
    for role in ("AUTHOR", "COMMITTER"):
        if not os.environ.get(f"GIT_{role}_NAME") and not name:
            env[f"GIT_{role}_NAME"] = FALLBACK_NAME
        if not os.environ.get(f"GIT_{role}_EMAIL") and not email:
            env[f"GIT_{role}_EMAIL"] = FALLBACK_EMAIL
    return env


def commit(root: Path, paths: Sequence[str | Path], message: str) -> str:
    """Commit exactly *paths* (added, changed or deleted) with *message*; other staged work is left staged.

    Returns the new commit's hex sha.
    """
    root = Path(root)
    wanted = sorted({_rel(root, p) for p in paths})
    if not wanted:
        raise MpsgenError("nothing to commit: no files were named")
    if not message.strip():
        raise MpsgenError("empty commit message")
    repo = _repo(root)
    changed = dirty_paths(root, wanted)
    if not changed:
        raise MpsgenError("nothing to commit: the files are unchanged since HEAD", path=root,
                          hint="was the change already committed?")
    changed_list = sorted(changed)
    _run(repo, "add", "-A", "--", *changed_list)
    # --only: commit these paths as they are, whatever else the user has staged.
    env = _identity_env(repo)
    try:
        with repo.git.custom_environment(**env):
            _run(repo, "commit", "--quiet", "-m", message, "--only", "--", *changed_list)
    except MpsgenError as err:
        err.hint = err.hint or "the edits stay in place and are staged; fix the cause and run `git commit` yourself"
        raise
    return repo.head.commit.hexsha


MPSGEN_TRAILER = "Generated with mpsgen."  # the last line of every commit message mpsgen writes


def commit_message(op: str | Sequence[str], overloads: Sequence[str], *, action: str = "migrate",
                   earlier: Sequence[str] = ()) -> str:
    """`[MPS] Migrate atan2 to a native Metal kernel` + the overloads moved, one per line.

    *op* may name several ops (or overloads) moved in one change: `atan2 and frac`.  *earlier*
    names the uncommitted mpsgen runs before this one whose edits the commit takes along."""
    names = [op] if isinstance(op, str) else list(op)
    several = len(names) > 1
    shown = names[0] if not several else ", ".join(names[:-1]) + " and " + names[-1]
    if action == "migrate":
        title = f"[MPS] Migrate {shown} from MPSGraph to " + ("native Metal kernels" if several else "a native Metal kernel")
        moved = "Overloads moved to the Metal kernel" + ("s:" if several else ":")
    elif action == "new":
        title = "[MPS] Add " + ("native Metal kernels" if several else "a native Metal kernel") + f" for {shown}"
        moved = "Overloads now dispatched to MPS:"
    else:
        raise ValueError(f"unknown action {action!r}")
    body = f"{moved}\n" + "".join(f"- {o}\n" for o in overloads) + "\n" if overloads else ""
    if earlier:
        body += "Also in this commit, the earlier uncommitted runs:\n" + "".join(f"- {e}\n" for e in earlier) + "\n"
    return f"{title}\n\n{body}{MPSGEN_TRAILER}\n"


def _rel(root: Path, path: str | Path) -> str:
    p = Path(path)
    if p.is_absolute():
        try:
            p = p.resolve().relative_to(Path(root).resolve())
        except ValueError:
            raise MpsgenError("path is outside the repository", path=path) from None
    return p.as_posix()


def head_texts(root: Path, paths: Iterable[str]) -> dict[str, str | None]:
    """Each of *paths* (relative to *root*) as HEAD holds it (UTF-8, line endings kept); None where HEAD
    has no such file.  One `git cat-file --batch` for all of them."""
    root = Path(root)
    ids = head_blob_ids(root, paths)
    blobs = [b for b in ids.values() if b]
    if not blobs:
        return dict(ids)
    done = subprocess.run(["git", "-C", str(root), "cat-file", "--batch"], input="\n".join(blobs).encode() + b"\n",
                          capture_output=True)
    out, pos, texts = done.stdout, 0, {}
    for blob in blobs:
        header_end = out.index(b"\n", pos)
        size = int(out[pos:header_end].split()[2])
        texts[blob] = out[header_end + 1:header_end + 1 + size].decode("utf-8", "surrogateescape")
        pos = header_end + 1 + size + 1
    return {rel: texts[b] if b else None for rel, b in ids.items()}


def changed_since_head(root: Path) -> list[str]:
    """The paths (relative to *root*) with uncommitted changes, untracked files included, deleted excluded."""
    done = _git_cli(Path(root), "status", "--porcelain=v1", "-z", "--untracked-files=all", "--no-renames", ".")
    prefix = _prefix(Path(root)) or ""
    return [entry[3:].removeprefix(prefix) for entry in done.stdout.split("\0")
            if len(entry) > 3 and "D" not in entry[:2]]
