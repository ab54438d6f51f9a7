"""The build: run ninja (and cmake when a new source file needs it), show progress, and pull the
compiler errors that point into the files mpsgen edited out of its output."""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path
from typing import Iterable, Sequence, TextIO

from mpsgen.errors import MpsgenError
from mpsgen.model import Location
from mpsgen.records import NamedTuple
from mpsgen.tree.checkout import BUILD_REL
from mpsgen.verify.processes import check_executable, shown_command, stream
from mpsgen.verify.progress import Progress

BUILD_LOG_NAME = "mpsgen-build.log"
ATEN_CMAKELISTS_REL = "aten/src/ATen/CMakeLists.txt"

_NINJA_PROGRESS = re.compile(r"^\[(\d+)/(\d+)\] (.*)$")
_COMPILER_ERROR = re.compile(
    r"^(?P<path>[^\s:\"'`]+):(?P<line>\d+):(?:(?P<col>\d+):)? (?:fatal )?error: (?P<msg>.*)$"
)
_MPS_GLOB = re.compile(r"file\s*\(\s*GLOB(?:_RECURSE)?\b([^)]*native/mps/[^)]*\.(?:metal|mm)[^)]*)\)", re.S)


class CompilerError(NamedTuple):
    path: str  # relative to the checkout root when inside it
    line: int
    col: int
    message: str

    @property
    def location(self) -> Location:
        return Location(self.path, self.line, self.col)

    def __str__(self) -> str:
        return f"{self.location}: error: {self.message}"


class BuildResult(NamedTuple):
    ok: bool
    returncode: int
    log_path: Path
    failed_command: tuple[str, ...] | None = None
    # Edited files' errors first, then the rest, each in output order, deduplicated.
    errors: tuple[CompilerError, ...] = ()
    edited: frozenset[str] = frozenset()
    commands: tuple[tuple[str, ...], ...] = ()

    @property
    def edited_errors(self) -> tuple[CompilerError, ...]:
        return tuple(e for e in self.errors if e.path in self.edited)

    def summary(self, limit: int = 20) -> str:
        if self.ok:
            return f"build succeeded (log: {self.log_path})"
        failed = shown_command(self.failed_command or ())
        lines = [f"build failed: `{failed}` exited {self.returncode} (log: {self.log_path})"]
        shown = self.edited_errors or self.errors
        if self.edited_errors:
            lines.append("errors in the files mpsgen edited:")
        elif self.errors:
            lines.append("no error points into the files mpsgen edited; first errors:")
        lines += [f"  {e}" for e in shown[:limit]]
        if len(shown) > limit:
            lines.append(f"  ... and {len(shown) - limit} more in the log")
        return "\n".join(lines)


def parse_compiler_errors(
    lines: Iterable[str], root: Path, cwd: Path | None = None, edited_files: Iterable[str] = ()
) -> tuple[CompilerError, ...]:
    """`file:line:col: error: msg` lines (clang, gcc, xcrun metal), paths made relative to *root*.

    Relative paths are resolved against *cwd* (the compiler's folder, build/ under ninja -C) and then
    *root*.  Errors in *edited_files* come first.
    """
    root = Path(root).resolve()
    bases = [b for b in (cwd, root) if b is not None]
    seen: set[CompilerError] = set()
    found: list[CompilerError] = []
    for raw in lines:
        m = _COMPILER_ERROR.match(raw.strip())
        if not m:
            continue
        err = CompilerError(
            _relative_to_root(m.group("path"), root, bases),
            int(m.group("line")),
            int(m.group("col") or 1),
            m.group("msg").strip(),
        )
        if err not in seen:
            seen.add(err)
            found.append(err)
    edited = {str(p) for p in edited_files}
    return tuple(sorted(found, key=lambda e: e.path not in edited))  # stable: output order kept


def _relative_to_root(path: str, root: Path, bases: list[Path]) -> str:
    p = Path(path)
    candidates = [p] if p.is_absolute() else [Path(b) / p for b in bases]
    chosen = next((c for c in candidates if c.exists()), candidates[0])
    resolved = Path(os.path.normpath(chosen.resolve() if chosen.exists() else chosen))
    try:
        return resolved.relative_to(root).as_posix()
    except ValueError:
        return str(resolved)


def needs_reconfigure(root: Path, added_files: Iterable[str | Path]) -> bool:
    """True when a new .metal/.mm was added and ATen's CMakeLists globs them without CONFIGURE_DEPENDS.

    Without CONFIGURE_DEPENDS, ninja does not re-check the glob, so the new file is not compiled
    until CMake runs again (anatomy §5).  No CMakeLists (e.g. a custom build) means no reconfigure.
    """
    added = [Path(f) for f in added_files if Path(f).suffix in (".metal", ".mm")]
    if not added:
        return False
    cmakelists = Path(root) / ATEN_CMAKELISTS_REL
    if not cmakelists.is_file():
        return False
    text = cmakelists.read_text(encoding="utf-8", errors="replace")
    globs = _MPS_GLOB.findall(text)
    return any("CONFIGURE_DEPENDS" not in g for g in globs)


def run_build(
    root: Path,
    commands: Sequence[Sequence[str]],
    *,
    build_dir: str = BUILD_REL,
    log_path: Path | None = None,
    edited_files: Iterable[str] = (),
    added_files: Iterable[str] = (),
    out: TextIO | None = None,
    is_tty: bool | None = None,
) -> BuildResult:
    """Run *commands* in order from *root* (stop at the first failure), streaming progress to *out*.

    `cmake .` runs first in the build folder when `needs_reconfigure(root, added_files)`.
    Raises MpsgenError before running anything if the build folder or an executable is missing,
    and `Interrupted` on Ctrl-C (after stopping the children).
    """
    root = Path(root).resolve()
    out = out if out is not None else sys.stderr
    is_tty = out.isatty() if is_tty is None else is_tty
    build = root / build_dir
    if not build.is_dir():
        raise MpsgenError(
            "build folder not found",
            path=build,
            hint="configure PyTorch once (python setup.py develop, or cmake -G Ninja), or pass --no-build",
        )
    edited = frozenset(str(p) for p in edited_files)
    steps: list[tuple[tuple[str, ...], Path]] = [(tuple(c), root) for c in commands]
    if needs_reconfigure(root, added_files):
        steps.insert(0, (("cmake", "."), build))
    for argv, cwd in steps:
        if not argv:
            raise MpsgenError("an empty build command", hint="check --build-cmd / [tool.mpsgen] build_cmd")
        check_executable(argv, cwd, "build")
    log_path = log_path or build / BUILD_LOG_NAME
    progress = Progress(out, is_tty)
    env = dict(os.environ, NINJA_STATUS="[%f/%t] ")  # the [n/m] prefix we parse, whatever the user's setting

    with open(log_path, "w", encoding="utf-8") as log:
        for argv, cwd in steps:
            captured: list[str] = []

            def on_line(text: str) -> None:
                captured.append(text)
                m = _NINJA_PROGRESS.match(text)
                if is_tty and m:
                    progress.bar(int(m.group(1)), int(m.group(2)), m.group(3))
                elif is_tty and not _is_error_line(text):
                    pass  # compiler chatter stays in the log; errors are summarised at the end
                else:
                    progress.line(text)

            try:
                code = stream(argv, cwd, log, on_line, "build", log_path, env)
            finally:
                progress.clear()
            if code != 0:
                errors = parse_compiler_errors(captured, root, _compiler_cwd(argv, cwd), edited)
                return BuildResult(False, code, log_path, argv, errors, edited, tuple(s for s, _ in steps))
    return BuildResult(True, 0, log_path, None, (), edited, tuple(s for s, _ in steps))


def _is_error_line(text: str) -> bool:
    return text.startswith(("FAILED:", "ninja: error", "ninja: build stopped")) or " error: " in text


def _compiler_cwd(argv: Sequence[str], cwd: Path) -> Path:
    """ninja -C DIR runs the compilers in DIR, so relative paths in errors start there."""
    argv = list(argv)
    for i, a in enumerate(argv[:-1]):
        if a == "-C":
            return (cwd / argv[i + 1]).resolve()
    return cwd
