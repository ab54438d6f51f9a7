"""The journal: what a file transaction replaced, so it can be recovered or undone.

Two files live in the journal folder (``<git dir>/mpsgen/`` in a git checkout, so the
work tree stays clean; ``<root>/.mpsgen/`` otherwise):

* ``pending.json`` exists only while a transaction (an apply or an undo) is running.  It is
  written *before* any target is replaced and holds every target's old bytes, so a run that
  died half-way can be rolled back by the next mpsgen command (``recover_if_interrupted``).
* ``last.json`` is the last applied change, the top of the undo stack.  A successful apply
  moves the previous ``last.json`` to ``stack/NNNN.json`` and turns its pending journal into
  ``last.json``; a successful undo deletes it and moves the newest ``stack/`` entry back.
  The stack keeps the last ``STACK_LIMIT`` changes.

Both are JSON written atomically (temp file + fsync + rename).
"""

from __future__ import annotations

import base64
import binascii
import functools
import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path

from mpsgen.errors import MpsgenError
from mpsgen.records import NamedTuple
from mpsgen.scan.lines import plain_lines

FORMAT_VERSION = 1
PENDING_NAME = "pending.json"
LAST_NAME = "last.json"
STACK_NAME = "stack"  # older applied changes, oldest first: stack/0001.json, stack/0002.json, ...
STACK_LIMIT = 20
IN_PROGRESS = "in-progress"
APPLIED = "applied"  # the transaction finished; only book-keeping may remain
KIND_APPLY = "apply"
KIND_UNDO = "undo"


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@dataclass(frozen=True)
class JournalFile:
    """One target of a transaction: what it held before and what was written."""

    rel: str  # checkout-relative, posix
    old: bytes | None  # None: the file did not exist before
    old_mode: int | None  # stat.S_IMODE of the old file
    old_owner: tuple[int, int] | None  # (uid, gid) of the old file
    new_sha256: str | None  # None: the transaction deletes the file
    new_mode: int | None = None  # mode the new file gets (None: umask default)

    def to_json(self) -> dict:
        return dict(self._json)

    @functools.cached_property
    def json_text(self) -> str:
        """to_json() encoded, once per file: a transaction saves its journal twice (pending, then
        applied), and the old bytes of native_functions.yaml alone are ~1 MB of base64, which needs
        no JSON escaping (json.dumps would scan it at ~200 MB/s)."""
        rest = {key: value for key, value in self._json.items() if key != "old"}
        old = "null" if self.old is None else '"' + self._json["old"] + '"'
        return '{"old": ' + old + ", " + json.dumps(rest)[1:]

    @functools.cached_property
    def _json(self) -> dict:
        return {
            "path": self.rel,
            "old": None if self.old is None else base64.b64encode(self.old).decode("ascii"),
            "old_sha256": None if self.old is None else sha256(self.old),
            "old_mode": self.old_mode,
            "old_owner": list(self.old_owner) if self.old_owner else None,
            "new_sha256": self.new_sha256,
            "new_mode": self.new_mode,
        }

    @classmethod
    def from_json(cls, raw: dict) -> "JournalFile":
        rel = _inside(raw["path"])
        old = None if raw["old"] is None else base64.b64decode(raw["old"], validate=True)
        if old is not None and sha256(old) != raw["old_sha256"]:
            raise ValueError(f"saved copy of {raw['path']} is corrupt")
        owner = raw.get("old_owner")
        if owner is not None and not (isinstance(owner, list) and len(owner) == 2):
            raise ValueError(f"owner of {rel} is {owner!r}")
        new_sha = raw["new_sha256"]
        if new_sha is not None and not (isinstance(new_sha, str) and len(new_sha) == 64):
            raise ValueError(f"hash of {rel} is {new_sha!r}")
        return cls(
            rel=rel,
            old=old,
            old_mode=_mode(raw["old_mode"], rel),
            old_owner=(int(owner[0]), int(owner[1])) if owner else None,
            new_sha256=new_sha,
            new_mode=_mode(raw.get("new_mode"), rel),
        )


def _mode(value: object, rel: str) -> int | None:
    if value is None or (isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= 0o7777):
        return value
    raise ValueError(f"mode of {rel} is {value!r}")


class Journal(NamedTuple):
    """A transaction as recorded on disk (``path`` is None for an empty change)."""

    path: Path | None
    kind: str
    state: str
    created: str  # ISO time, for messages
    files: tuple[JournalFile, ...]
    created_dirs: tuple[str, ...] = ()  # folders the transaction made, outermost first
    id: str = ""  # unique per transaction, so book-keeping can be finished twice safely
    undoes: str = ""  # an undo: the id of the change it undoes
    label: str = ""  # what the change was, for messages (`migrate atan2 frac`)

    @property
    def paths(self) -> list[str]:
        return [f.rel for f in self.files]

    def file(self, rel: str) -> JournalFile | None:
        return next((f for f in self.files if f.rel == rel), None)

    def with_state(self, state: str, path: Path | None = None) -> "Journal":
        return self._replace(path=path or self.path, state=state)

    def to_json(self) -> dict:
        return {
            "mpsgen_journal": FORMAT_VERSION,
            "kind": self.kind,
            "state": self.state,
            "created": self.created,
            "id": self.id,
            "undoes": self.undoes,
            "label": self.label,
            "files": [f.to_json() for f in self.files],
            "created_dirs": list(self.created_dirs),
        }


def new_id() -> str:
    return os.urandom(16).hex()  # 32 random hex digits, as uuid4().hex, without uuid's import of platform


def find_git_dir(root: Path) -> Path | None:
    """The git dir of the repository holding *root* (handles worktrees' ``.git`` files)."""
    for folder in (root, *root.parents):
        dot_git = folder / ".git"
        if dot_git.is_dir():
            return dot_git
        if dot_git.is_file():
            try:
                first = plain_lines(dot_git.read_text(encoding="utf-8"))[0]
            except (OSError, UnicodeDecodeError, IndexError):
                return None
            if first.startswith("gitdir:"):
                target = Path(first[len("gitdir:") :].strip())
                return target if target.is_absolute() else (folder / target).resolve()
            return None
    return None


def journal_dir(root: Path) -> Path:
    git_dir = find_git_dir(root)
    return git_dir / "mpsgen" if git_dir is not None else root / ".mpsgen"


def pending_path(root: Path) -> Path:
    return journal_dir(root) / PENDING_NAME


def last_path(root: Path) -> Path:
    return journal_dir(root) / LAST_NAME


def stack_dir(root: Path) -> Path:
    return journal_dir(root) / STACK_NAME


def save(journal: Journal, path: Path) -> Journal:
    """Write *journal* atomically to *path*; returns it with ``path`` set."""
    data = _encode(journal).encode("utf-8")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.name + ".tmp")
        with open(tmp, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)  # never the patchable changeset._replace: the journal must land
    except OSError as err:
        raise MpsgenError(
            f"cannot write the mpsgen journal ({err.strerror}); no file was changed",
            path=path,
            hint="make that folder writable, then run the command again",
        ) from None
    return journal.with_state(journal.state, path)


def _encode(journal: Journal) -> str:
    """json.dumps(journal.to_json()), each file's part encoded once (JournalFile.json_text)."""
    head = journal.to_json()
    del head["files"]
    fields = [f"{json.dumps(key)}: {json.dumps(value)}" for key, value in head.items()]
    fields.append('"files": [' + ", ".join(f.json_text for f in journal.files) + "]")
    return "{" + ", ".join(fields) + "}"


def load(path: Path) -> Journal | None:
    """The journal at *path*, or None if there is none.  A damaged journal is refused."""
    try:
        raw = json.loads(path.read_bytes())
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as err:
        raise MpsgenError(
            f"cannot read the mpsgen journal ({err})",
            path=path,
            hint="restore the files with git if needed, then delete this journal file",
        ) from None
    try:
        if raw.get("mpsgen_journal") != FORMAT_VERSION:
            raise ValueError(f"unknown journal format {raw.get('mpsgen_journal')!r}")
        if raw["kind"] not in (KIND_APPLY, KIND_UNDO) or raw["state"] not in (IN_PROGRESS, APPLIED):
            raise ValueError(f"unknown kind or state {raw['kind']!r}/{raw['state']!r}")
        return Journal(
            path=path,
            kind=raw["kind"],
            state=raw["state"],
            created=raw["created"],
            files=tuple(JournalFile.from_json(f) for f in raw["files"]),
            created_dirs=tuple(_inside(d) for d in raw.get("created_dirs", ())),
            id=str(raw.get("id", "")),
            undoes=str(raw.get("undoes", "")),
            label=str(raw.get("label", "")),
        )
    except (KeyError, TypeError, ValueError, IndexError, AttributeError, binascii.Error) as err:
        raise MpsgenError(
            f"the mpsgen journal is damaged ({err})",
            path=path,
            hint="restore the files with git if needed, then delete this journal file",
        ) from None


def _inside(rel: object) -> str:
    if not isinstance(rel, str) or not rel or rel.startswith("/") or ".." in rel.split("/"):
        raise ValueError(f"path {rel!r} is not inside the checkout")
    return rel


def remove(path: Path) -> None:
    """Delete a journal file, and its folder once empty (a rolled-back run leaves no trace)."""
    try:
        path.unlink()
    except FileNotFoundError:
        pass
    try:
        path.parent.rmdir()
    except OSError:
        pass  # not empty (the other journal is there) or already gone
