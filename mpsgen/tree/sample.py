"""`mpsgen sample DIR`: a fresh, git-initialised copy of the sample PyTorch checkout."""

from __future__ import annotations

import shutil
from pathlib import Path

from mpsgen.errors import MpsgenError

_AUTHOR = ("mpsgen", "mpsgen@example.invalid")


def sample_source() -> Path:
    """The sample tree: the installed package data, or <repo>/fixtures/sample when run from source."""
    # pyproject installs fixtures/sample as mpsgen/sample_tree (a data folder without __init__.py,
    # so importlib.resources would see a namespace package: look for the folder directly).
    package = Path(__file__).resolve().parent.parent
    for candidate in (package / "sample_tree", package.parent / "fixtures" / "sample"):
        if (candidate / "aten").is_dir():
            return candidate
    raise MpsgenError("the sample checkout is missing from this installation", path=package / "sample_tree",
                      hint="reinstall mpsgen (pip install .)")


def write_sample(dest: Path) -> Path:
    """Copy the sample checkout to *dest* and make it a git repository with one commit; returns the root."""
    dest = Path(dest)
    if dest.exists() and (not dest.is_dir() or any(dest.iterdir())):
        raise MpsgenError("destination exists and is not an empty folder", path=dest,
                          hint="pass a new or empty folder")
    source = sample_source()
    # Build outputs in the source (if someone built there) never belong in a fresh sample.
    shutil.copytree(source, dest, symlinks=True, dirs_exist_ok=True,
                    ignore=lambda d, names: _ignored(source, Path(d), names))
    _git_init(dest)
    return dest.resolve()


def _ignored(source: Path, folder: Path, names: list[str]) -> set[str]:
    rel = folder.relative_to(source).as_posix()
    skip = {n for n in names if n == "__pycache__" or n.endswith(".pyc")}
    if rel == "build":
        skip |= {n for n in names if n.startswith(".ninja_") or n in ("obj", "lib")}
    if rel == "torch":
        skip |= {"lib"} & set(names)
    return skip


def _git_init(root: Path) -> None:
    import git  # heavy: imported only when a sample is written

    repo = git.Repo.init(root)
    with repo.config_writer() as cfg:
        cfg.set_value("user", "name", _AUTHOR[0])
        cfg.set_value("user", "email", _AUTHOR[1])
    repo.git.add(A=True)
    actor = git.Actor(*_AUTHOR)
    repo.index.commit("Sample PyTorch checkout (mpsgen sample)", author=actor, committer=actor)
