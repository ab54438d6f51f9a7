"""Find the PyTorch root, name its files, read each file once."""

from __future__ import annotations

import os
import time
from fnmatch import fnmatchcase
from pathlib import Path, PurePosixPath

from mpsgen.errors import MpsgenError

YAML_REL = "aten/src/ATen/native/native_functions.yaml"
NATIVE_REL = "aten/src/ATen/native"
KERNELS_REL = "aten/src/ATen/native/mps/kernels"
OPERATIONS_REL = "aten/src/ATen/native/mps/operations"
COMMON_MPS_REL = "torch/testing/_internal/common_mps.py"
CMI_REL = "torch/testing/_internal/common_methods_invocations.py"
OPINFO_DEFS_REL = "torch/testing/_internal/opinfo/definitions"
TEST_MPS_REL = "test/test_mps.py"
BUILD_REL = "build"
MPS_REL = "aten/src/ATen/native/mps"

# The folder listings planners and lint read: (folder, pattern) pairs under the root, and the names left
# out.  One table, so a plan can tell which listing a file the disk lacks belongs to (a file a stacked
# commit or the plan itself creates: plan/texts.folder_files).
LISTINGS: dict[str, tuple[tuple[str, str], ...]] = {
    "metal_files": ((KERNELS_REL, "*.metal"),),
    "kernel_headers": ((KERNELS_REL, "*.h"),),
    "mm_files": ((OPERATIONS_REL, "*.mm"),),
    # native/mps/*.mm, *.cpp and operations/*.cpp: MPS code outside operations/*.mm
    "other_mps_sources": ((MPS_REL, "*.mm"), (MPS_REL, "*.cpp"), (OPERATIONS_REL, "*.cpp")),
    # native/mps/*.h and operations/*.h: the declarations MPS host code shares between files
    "mps_headers": ((MPS_REL, "*.h"), (OPERATIONS_REL, "*.h")),
    "c10_metal_headers": (("c10/metal", "*.h"),),
    "native_headers": ((NATIVE_REL, "*.h"),),
    "native_sources": ((NATIVE_REL, "*.cpp"),),
    "opinfo_definition_files": ((OPINFO_DEFS_REL, "*.py"),),
}
_LEFT_OUT = {"opinfo_definition_files": "__init__.py"}


def listed_in(listing: str, rel: str) -> bool:
    """Whether the checkout path *rel* belongs to *listing* (a name of LISTINGS), as its glob would list it."""
    p = PurePosixPath(rel)
    folder = str(p.parent)
    return p.name != _LEFT_OUT.get(listing) and any(folder == f and fnmatchcase(p.name, pattern)
                                                    for f, pattern in LISTINGS[listing])


def find_root(start: Path) -> Path | None:
    """Walk up from *start* to the folder that holds native_functions.yaml."""
    start = start.resolve()
    for candidate in (start, *start.parents):
        if (candidate / YAML_REL).is_file():
            return candidate
    return None


class Checkout:
    """A PyTorch source tree.  Texts are read once, strictly as UTF-8, newlines kept."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root).resolve()
        self._files: dict[str, tuple[str, bytes]] = {}  # (text, the bytes it was decoded from) by file_key()
        self._spelled: dict[str, tuple[str, bytes]] = {}  # the same by the spelling of the path asked for
        self._dirs: dict[str, str] = {}
        self._root_str = str(self.root)
        self._root_prefix = self._root_str.rstrip("/") + "/"
        self.capabilities_memo: object = None  # tree/capabilities.of_checkout's record, kept with the checkout

    @classmethod
    def locate(cls, explicit: str | Path | None = None, cwd: Path | None = None) -> "Checkout":
        if explicit is not None:
            given = Path(explicit)
            if not (given / YAML_REL).is_file():
                raise MpsgenError(
                    f"not a PyTorch checkout: {YAML_REL} not found",
                    path=given,
                    hint="pass -C with the folder that holds aten/, or make one with `mpsgen sample DIR`",
                )
            return cls(given)
        here = cwd or Path.cwd()
        root = find_root(here)
        if root is None:
            raise MpsgenError(
                f"not inside a PyTorch checkout: no {YAML_REL} here or above",
                path=here,
                hint="run mpsgen from a PyTorch checkout or pass -C DIR",
            )
        return cls(root)

    # -- names of the files mpsgen reads and edits --------------------------------------
    def path(self, rel: str | Path) -> Path:
        return self.root / rel

    def rel(self, path: str | Path) -> str:
        """*path* relative to the root, as `Path.resolve().relative_to(root)` would give it (else
        *path* unchanged).  Each folder is resolved once per checkout: a tree has thousands of files
        in a few dozen folders, and resolve() costs one lstat per path component."""
        s = os.fspath(path)
        folder, _, name = s.rpartition("/")
        if name in ("", ".", "..") or not s.startswith("/") or os.path.islink(s):
            return self._relative(os.path.realpath(s), path)
        return self._relative(self._real_folder(folder) + "/" + name, path)

    def _real_folder(self, folder: str) -> str:
        """The resolved *folder* (an absolute path), without a trailing "/"."""
        real = self._dirs.get(folder)
        if real is None:
            real = self._dirs[folder] = os.path.realpath(folder or "/").rstrip("/")
        return real

    def _relative(self, resolved: str, path: str | Path) -> str:
        if resolved == self._root_str:
            return "."
        if resolved.startswith(self._root_prefix):
            return resolved[len(self._root_prefix):]
        return str(Path(path))

    @property
    def yaml_path(self) -> Path:
        return self.root / YAML_REL

    @property
    def native_dir(self) -> Path:
        return self.root / NATIVE_REL

    @property
    def kernels_dir(self) -> Path:
        return self.root / KERNELS_REL

    @property
    def operations_dir(self) -> Path:
        return self.root / OPERATIONS_REL

    @property
    def common_mps_path(self) -> Path:
        return self.root / COMMON_MPS_REL

    @property
    def cmi_path(self) -> Path:
        return self.root / CMI_REL

    @property
    def opinfo_definitions_dir(self) -> Path:
        return self.root / OPINFO_DEFS_REL

    @property
    def test_mps_path(self) -> Path:
        return self.root / TEST_MPS_REL

    @property
    def build_dir(self) -> Path:
        return self.root / BUILD_REL

    def listing(self, name: str) -> list[Path]:
        """The files of LISTINGS[*name*] on the disk, sorted."""
        left_out = _LEFT_OUT.get(name)
        return sorted(p for folder, pattern in LISTINGS[name] for p in (self.root / folder).glob(pattern)
                      if p.name != left_out)

    def listed(self, name: str) -> dict[str, Path]:
        """{rel(p): p for p in listing(*name*)}, each folder read with os.scandir and a file's rel made
        from its folder's (a symbolic link's resolved): globbing, sorting the Paths and a rel() a file
        cost ~60k instructions a file (8 M for native/*.cpp)."""
        left_out = _LEFT_OUT.get(name)
        found: list[tuple[tuple[str, ...], str, Path]] = []
        for folder, pattern in LISTINGS[name]:
            base = self.root / folder
            try:  # Path.glob lists nothing from a folder that is missing, a file or unreadable
                with os.scandir(base) as entries:
                    matched = [e for e in entries if e.name != left_out and fnmatchcase(e.name, pattern)]
            except OSError:
                continue
            parts, real = tuple(folder.split("/")), self._real_folder(str(base))
            for e in matched:
                path = base / e.name
                rel = self.rel(path) if e.is_symlink() else self._relative(f"{real}/{e.name}", path)
                found.append((parts + (e.name,), rel, path))  # sorted as Paths sort: by their parts
        return {rel: path for _, rel, path in sorted(found, key=lambda f: f[0])}

    def metal_files(self) -> list[Path]:
        return self.listing("metal_files")

    def kernel_headers(self) -> list[Path]:
        return self.listing("kernel_headers")

    def mm_files(self) -> list[Path]:
        return self.listing("mm_files")

    def other_mps_sources(self) -> list[Path]:
        return self.listing("other_mps_sources")

    def mps_headers(self) -> list[Path]:
        return self.listing("mps_headers")

    def c10_metal_headers(self) -> list[Path]:
        return self.listing("c10_metal_headers")

    def native_headers(self) -> list[Path]:
        return self.listing("native_headers")

    def native_sources(self) -> list[Path]:
        return self.listing("native_sources")

    def opinfo_definition_files(self) -> list[Path]:
        return self.listing("opinfo_definition_files")

    # -- reading ------------------------------------------------------------------------
    def read_text(self, path: str | Path) -> str:
        """The file's text, decoded strictly as UTF-8 with line endings untouched."""
        return self._read_once(path)[0]

    def utf8(self, path: str | Path) -> bytes:
        """The bytes read_text(path) decoded: its text's UTF-8 without an encoding pass (a strict
        decoding gives them back exactly)."""
        return self._read_once(path)[1]

    def _read_once(self, path: str | Path) -> tuple[str, bytes]:
        # Found again by the spelling asked: a check asks ~500 times for ~150 files, and making
        # and hashing a Path each time cost more than reading them.
        spelled = os.fspath(path)
        found = self._spelled.get(spelled)
        if found is None:
            key = self._file_key(spelled)
            found = self._files.get(key)
            if found is None:
                found = self._files[key] = self._read(key)
            self._spelled[spelled] = found
        return found

    def _file_key(self, spelled: str) -> str:
        """The absolute path *spelled* names, as str(Path) writes it (so two spellings Path takes for one
        file share a key): an absolute spelling already in that form is its own key, with no Path made
        (~20k instructions a file)."""
        if _is_plain_absolute(spelled):
            return spelled
        p = Path(spelled)
        return str(p if p.is_absolute() else self.root / p)

    def _read(self, key: str) -> tuple[str, bytes]:
        try:
            return read_text_and_bytes(key)
        except MpsgenError as err:  # named by its checkout path (resolved only then: ~15k instructions a file)
            err.path = self.rel(key)
            raise

    def sources_naming(self, folder: Path, word: str, suffixes: tuple[str, ...]) -> dict[str, str]:
        """{checkout path: text} of the files under *folder* (recursively) with one of *suffixes* whose
        bytes contain *word*; decoded leniently and not cached: a whole-folder search (a backend's .cu
        file need not be UTF-8), not files mpsgen edits."""
        needle = word.encode()
        found = {}
        for p in sorted(folder.rglob("*")):
            if p.suffix in suffixes and p.is_file() and needle in (data := p.read_bytes()):
                found[self.rel(p)] = data.decode("utf-8", errors="replace")
        return found

    def forget(self, path: str | Path) -> None:
        """Drop a cached text (after the file was written)."""
        self._files.pop(self._file_key(os.fspath(path)), None)
        self._spelled.clear()  # any spelling may name it


def _is_plain_absolute(spelled: str) -> bool:
    """Whether str(Path(spelled)) is *spelled* itself: absolute, no empty or `.` component, no trailing
    `/` (Path keeps `..`, and a leading `//` is POSIX's own root: both left to Path)."""
    return (spelled[:1] == "/" and spelled[1:2] != "/" and "//" not in spelled and "/./" not in spelled
            and spelled[-1:] != "/" and spelled[-2:] != "/.")


def read_text_file(path: Path, shown: str | None = None) -> str:
    return read_text_and_bytes(path, shown)[0]


# A file written less than this before it was read may be rewritten within the same timestamp
# tick (git's "racily clean" files; 2 s covers the coarsest clocks), so its stamp cannot vouch for it.
RACY_NS = 2_000_000_000


def read_text_and_stamp(path: str | Path, shown: str | None = None) -> tuple[str, tuple[int, ...] | None]:
    """The file's text (strictly UTF-8) and its stamp as it was read: (size, mtime, ctime, inode), which
    changes whenever the file is rewritten, or None when the file was written too recently to tell."""
    st, data = _read_or_error(path, shown)
    stamp: tuple[int, ...] | None = file_stamp(st)
    if time.time_ns() - st.st_mtime_ns < RACY_NS:  # any later write moves mtime; ctime catches a reset mtime
        stamp = None
    return _decoded(data, shown or str(path)), stamp


def read_text_and_bytes(path: str | Path, shown: str | None = None) -> tuple[str, bytes]:
    """The file's text (strictly UTF-8) and the bytes it was decoded from."""
    data = _read_or_error(path, shown)[1]
    return _decoded(data, shown or str(path)), data


def _read_or_error(path: str | Path, shown: str | None) -> tuple[os.stat_result, bytes]:
    try:
        return _read_bytes_and_stat(path)
    except FileNotFoundError:
        raise MpsgenError("file not found", path=shown or str(path), hint="is this a complete PyTorch checkout?") from None
    except IsADirectoryError:
        raise MpsgenError("expected a file, found a folder", path=shown or str(path)) from None
    except PermissionError:
        raise MpsgenError("file is not readable", path=shown or str(path), hint="check its permissions") from None


def _decoded(data: bytes, shown: str) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        line = data[: err.start].count(b"\n") + 1
        raise MpsgenError(
            f"not valid UTF-8 (byte 0x{data[err.start]:02x})",
            path=shown,
            line=line,
            hint="save the file as UTF-8",
        ) from None


def _read_bytes_and_stat(path: str | Path) -> tuple[os.stat_result, bytes]:
    """The file's bytes and its stat as opened, by plain system calls: a plan reads ~400 files, and
    open()'s buffered file object costs about as much as the reading itself."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
    try:
        st = os.fstat(fd)
        chunks = [os.read(fd, st.st_size + 1)]  # a directory raises IsADirectoryError here
        while chunks[-1]:  # until end of file: it may have grown since fstat
            chunks.append(os.read(fd, 1 << 20))
    finally:
        os.close(fd)
    # Mostly [the bytes, b""]: those bytes themselves, not a copy joined from them (~1 instruction a byte).
    return st, chunks[0] if len(chunks) <= 2 else b"".join(chunks)


def file_stamp(st: os.stat_result) -> tuple[int, ...]:
    return st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino


def newline_of(text: str) -> str:
    """The file's newline style, so inserted lines match it."""
    crlf = text.count("\r\n")
    return "\r\n" if crlf and crlf * 2 >= text.count("\n") else "\n"
