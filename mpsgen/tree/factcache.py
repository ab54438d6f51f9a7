"""Facts computed from the checkout's files, kept on disk between runs (as ruff and mypy keep theirs).

`check` and `status` index ~250 sources (a 4.7 MB native/*.cpp, 105 operations/*.mm, the
.metal files, the 600 KB yaml); indexing them takes over a second, re-using yesterday's index
takes a few milliseconds.  A fact is re-used only while its file has the size and modification
time it had when the fact was computed, and while mpsgen's own code is unchanged.  A file written
less than two seconds before its fact was computed could change again within the clock's
granularity without changing its stamp (git's "racily clean" problem): such a fact also records
a digest of the text, which is compared before re-use.

The store is one folder per checkout under ``$MPSGEN_CACHE_DIR/facts`` (default
``~/.cache/mpsgen/facts``), one pickle per kind of fact; nothing is written into the checkout.  A
missing, stale, corrupt or unwritable store only costs time: every fact is then computed again.
"""

from __future__ import annotations

import os
import pickle
import sys
import time
import zlib
from pathlib import Path
from typing import Any, Callable, TypeVar, cast

from mpsgen.tree.checkout import RACY_NS

T = TypeVar("T")
Stamp = tuple[int, int]  # (size, mtime_ns)

_FORMAT = 1  # bump when the store's own layout changes


def stamp_of(path: Path) -> Stamp | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_size, st.st_mtime_ns


def is_racy(stamp: Stamp) -> bool:
    """True when the file was written too recently for its stamp to vouch for its text."""
    return time.time_ns() - stamp[1] < RACY_NS


def digest(text: str) -> int:
    """64 bits of checksum (zlib's crc32 and adler32: hashlib's import alone costs ~5 ms)."""
    data = text.encode("utf-8", "surrogatepass")
    return zlib.crc32(data) << 32 | zlib.adler32(data)


def cache_root() -> Path:
    if os.environ.get("MPSGEN_CACHE_DIR"):
        return Path(os.environ["MPSGEN_CACHE_DIR"])
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "mpsgen"


def code_fingerprint() -> str:
    """mpsgen's version, Python's, and the size and mtime of every module of the package: a fact
    computed by other code is never re-used."""
    package = Path(__file__).resolve().parent.parent
    parts = [f"{_FORMAT}", sys.version]
    _module_stamps(str(package), "", parts)
    return f"{digest(chr(10).join(parts)):016x}"


def _module_stamps(folder: str, rel: str, parts: list[str]) -> None:
    """`path:size:mtime` of each .py file under *folder* (shown as *rel*, relative to the package), a
    folder's files before its subfolders, each by name (os.walk's order, sorted), __pycache__ left out."""
    with os.scandir(folder) as entries:
        listed = sorted(entries, key=lambda e: e.name)
    for e in listed:
        if e.name.endswith(".py") and not e.is_dir():
            st = e.stat()
            parts.append(f"{rel}{e.name}:{st.st_size}:{st.st_mtime_ns}")
    for e in listed:
        if e.is_dir(follow_symlinks=False) and e.name != "__pycache__":
            _module_stamps(e.path, f"{rel}{e.name}/", parts)


class FactCache:
    """Facts kept in one folder per checkout, one file ("shelf") per kind of fact, each read on
    first use and written back only when it changed: per-file facts keyed by the file's path, and
    named facts that span files (their owners validate those themselves).  One FactCache serves one
    reading of the checkout (a `check`, a `status`, the candidates of `migrate --all`), as its Checkout
    holds each text once: a file is stamped on its first fact, and a run that wrote files would make a
    new one (a stale stamp would match the facts of the text before the write)."""

    def __init__(self, folder: Path | None, owner: str = "") -> None:
        self._folder = folder
        # The checkout is part of the key: two checkouts never share a shelf, even if their names' checksums collide.
        self._fingerprint = f"{code_fingerprint()}|{owner}" if folder is not None else ""
        self._root = Path(owner) if owner else None
        self._shelves: dict[str, dict[str, object]] = {}
        self._dirty: set[str] = set()
        self._put: dict[str, set[str]] = {}  # per shelf, the files whose facts this run stored (they exist)
        self._stamps: dict[str, Stamp | None] = {}  # each file's stamp, taken once a run

    @classmethod
    def disabled(cls) -> "FactCache":
        return cls(None)

    @classmethod
    def for_root(cls, root: Path, *, enabled: bool = True) -> "FactCache":
        if not enabled or os.environ.get("MPSGEN_NO_CACHE"):
            return cls.disabled()
        owner = str(root.resolve())
        return cls(cache_root() / "facts" / f"{digest(owner):016x}", owner)

    @property
    def enabled(self) -> bool:
        return self._folder is not None

    # -- per-file facts ---------------------------------------------------------------------
    def per_file(self, kind: str, path: Path, rel: str, read: Callable[[Path], str], compute: Callable[[str], T]) -> T:
        """compute(text of *path*), or the value computed from the same text on an earlier run."""
        stamp = self.stamp(rel, path) if self.enabled else None
        if stamp is not None:
            held = cast("tuple[Stamp, str | None, T] | None", self._shelf(kind).get(rel))
            if held is not None and held[0] == stamp:
                if held[1] is None:
                    return held[2]
                if held[1] == digest(read(path)):
                    if not is_racy(stamp):  # past the clock tick: from now on the stamp vouches for the text
                        self._store(kind, rel, (stamp, None, held[2]))
                    return held[2]
        text = read(path)
        value = compute(text)
        if stamp is not None:
            self._store(kind, rel, (stamp, digest(text) if is_racy(stamp) else None, value))
        return value

    def stamp(self, rel: str, path: Path) -> Stamp | None:
        """The stamp of *path* (checkout path *rel*), taken on its first fact of the run (a file has
        facts of up to ~7 kinds): the checkout reads each text once, so the first stamp vouches for
        that text as well as a later one would, and an earlier stamp never outlives a change a later
        one would have caught."""
        try:
            return self._stamps[rel]
        except KeyError:
            stamp = self._stamps[rel] = stamp_of(path)
            return stamp

    def _store(self, kind: str, rel: str, held: tuple) -> None:
        self._shelf(kind)[rel] = held
        self._put.setdefault(kind, set()).add(rel)
        self._dirty.add(kind)

    # -- facts that span files ----------------------------------------------------------------
    def over_files(self, kind: str, files: dict[str, Path], read: Callable[[Path], str],
                   compute: Callable[[dict[str, str]], T]) -> T:
        """compute({rel: text}) over *files*, re-used while every file keeps its stamp (a racy
        file is stored without one, so the next run computes the value again)."""
        stamps = {rel: self.stamp(rel, p) for rel, p in files.items()} if self.enabled else {}
        held = self.named(kind)
        if held is not None and held[0] == stamps and None not in stamps.values():  # type: ignore[index]
            return held[1]  # type: ignore[index]
        value = compute({rel: read(p) for rel, p in files.items()})
        kept = {rel: None if s is None or is_racy(s) else s for rel, s in stamps.items()}
        self.put_named(kind, (kept, value))
        return value

    def named(self, key: str) -> object | None:
        return self._shelf(key).get("") if self.enabled else None

    def put_named(self, key: str, value: object) -> None:
        if self.enabled:
            self._shelf(key)[""] = value
            self._dirty.add(key)

    # -- the shelves ----------------------------------------------------------------------------
    def _shelf(self, kind: str) -> dict[str, object]:
        shelf = self._shelves.get(kind)
        if shelf is None:
            shelf = self._shelves[kind] = self._load(kind)
        return shelf

    def _load(self, kind: str) -> dict[str, object]:
        assert self._folder is not None
        try:
            with open(self._folder / f"{kind}.pickle", "rb") as f:
                fingerprint, shelf = pickle.load(f)
        except Exception:  # absent, truncated, written by another version: start empty
            return {}
        return shelf if fingerprint == self._fingerprint and isinstance(shelf, dict) else {}

    def save(self) -> None:
        """Write each changed shelf atomically (a failure only loses the cache)."""
        if self._folder is None:
            return
        root = f"{self._root}{os.sep}" if self._root is not None else None
        for kind in sorted(self._dirty):
            shelf = self._shelves[kind]
            if root is not None and "" not in shelf:  # facts of deleted files go (renamed files would pile up)
                put = self._put.get(kind, set())  # just read: no need to ask the file system
                shelf = {rel: v for rel, v in shelf.items() if rel in put or os.path.exists(root + rel)}
            _write_atomically(self._folder / f"{kind}.pickle", (self._fingerprint, shelf))
        self._dirty.clear()


def _write_atomically(path: Path, data: object) -> None:
    # A temporary name of this process's own (no tempfile import: ~5 ms with shutil and random); a
    # file left under it by a killed process of the same id is simply overwritten.
    tmp = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = str(path.parent / f".facts-{os.getpid()}-{path.stem}")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "wb") as f:
            _Pickler(f, protocol=pickle.HIGHEST_PROTOCOL).dump(data)
        os.replace(tmp, path)
    except OSError:
        if tmp is not None and os.path.exists(tmp):
            os.unlink(tmp)


class _Pickler(pickle.Pickler):
    """A pickler writing a plain named tuple as its class called on its fields, which loads it exactly as
    the default reduction does (its __new__ with the same fields; a tuple has no __init__ or state),
    without pickle's generic __reduce_ex__/__getnewargs__ round per record: ~half the cost of a cold
    run's save, whose facts are mostly readers' NamedTuple records."""

    def reducer_override(self, obj: Any) -> Any:
        cls = type(obj)
        plain = _PLAIN_NAMEDTUPLE.get(cls)
        if plain is None:
            plain = _PLAIN_NAMEDTUPLE[cls] = _is_plain_namedtuple(cls)
        return (cls, tuple(obj)) if plain else NotImplemented


_PLAIN_NAMEDTUPLE: dict[type, bool] = {}


def _is_plain_namedtuple(cls: type) -> bool:
    """A namedtuple class of its own (no subclass of one) that pickle reduces by default: its fields
    passed to __new__, no state."""
    own = vars(cls)
    return (issubclass(cls, tuple) and "_fields" in own and "__getnewargs__" in own and own.get("__slots__") == ()
            and all(getattr(cls, m) is getattr(object, m) for m in ("__reduce_ex__", "__reduce__", "__getstate__")))
