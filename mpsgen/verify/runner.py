"""Run the build (ninja) and the consistency tests (test_mps.py) as child processes.

Output is streamed: a one-line progress bar on a terminal, plain lines otherwise; the full
output always goes to a log file.  Each child runs in its own process group, so Ctrl-C
(which only reaches mpsgen) stops the whole group and raises `Interrupted`.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable, Sequence, TextIO

from mpsgen.tree.checkout import BUILD_REL, TEST_MPS_REL
from mpsgen.errors import MpsgenError

Command = Sequence[str]

BUILD_LOG_NAME = "mpsgen-build.log"
TEST_LOG_NAME = "mpsgen-test.log"
ATEN_CMAKELISTS_REL = "aten/src/ATen/CMakeLists.txt"


class Interrupted(Exception):
    """Ctrl-C stopped a child process group.  The CLI adds what state the tree is in."""

    def __init__(self, phase: str, command: Sequence[str], log_path: Path) -> None:
        super().__init__(f"interrupted during the {phase}")
        self.phase = phase
        self.command = tuple(command)
        self.log_path = log_path

    def describe(self) -> str:
        return (
            f"interrupted during the {self.phase} (`{_shown(self.command)}`); the child processes were stopped; "
            f"partial log in {self.log_path}"
        )


# -- the child process ------------------------------------------------------------------------

_KILL_GRACE_S = 3.0


def _descendant_groups(pid: int) -> set[int]:
    """Process groups of *pid*'s descendants.  ninja starts every command in a group of its own,
    so killing ninja's group alone can leave a compiler running; `ps` works on macOS and Linux."""
    try:
        listing = subprocess.run(["ps", "-A", "-o", "pid=", "-o", "ppid=", "-o", "pgid="],
                                 capture_output=True, text=True, timeout=5).stdout
    except (OSError, subprocess.SubprocessError):
        return set()
    children: dict[int, list[tuple[int, int]]] = {}
    for row in listing.splitlines():
        parts = row.split()
        if len(parts) == 3 and all(p.isdigit() for p in parts):
            child, parent, group = map(int, parts)
            children.setdefault(parent, []).append((child, group))
    groups, todo = set(), [pid]
    while todo:
        for child, group in children.get(todo.pop(), []):
            groups.add(group)
            todo.append(child)
    return groups


def _signal_groups(groups: set[int], sig: int) -> None:
    for group in groups:
        try:
            os.killpg(group, sig)
        except (ProcessLookupError, PermissionError):
            pass


def _kill_group(proc: subprocess.Popen) -> None:
    """SIGINT the child's group (what a terminal Ctrl-C would do), then SIGTERM, then SIGKILL;
    then make sure no descendant's group outlives it."""
    groups = _descendant_groups(proc.pid) | {proc.pid}
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            break
        try:
            proc.wait(timeout=_KILL_GRACE_S)
            break
        except subprocess.TimeoutExpired:
            continue
    proc.wait()
    _signal_groups(groups, signal.SIGKILL)


def _stream(
    argv: Sequence[str],
    cwd: Path,
    log: TextIO,
    on_line: Callable[[str], None],
    phase: str,
    log_path: Path,
    env: dict[str, str] | None = None,
) -> int:
    """Run *argv*, feed each output line (stdout and stderr merged) to the log and *on_line*."""
    log.write(f"$ {_shown(argv)}  (in {cwd})\n")
    log.flush()
    try:
        proc = subprocess.Popen(
            list(argv),
            cwd=cwd,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # own process group: we decide when it is stopped
            env=env,
            text=True,
            encoding="utf-8",
            errors="replace",
            bufsize=1,
        )
    except FileNotFoundError:
        raise _missing_executable(argv[0], phase) from None
    try:
        assert proc.stdout is not None
        for line in proc.stdout:
            log.write(line)
            on_line(line.rstrip("\r\n"))
        return proc.wait()
    except KeyboardInterrupt:
        _kill_group(proc)
        log.write(f"\n[mpsgen] interrupted; process group {proc.pid} stopped\n")
        log.flush()
        raise Interrupted(phase, argv, log_path) from None
    finally:
        if proc.stdout is not None:
            proc.stdout.close()


def _missing_executable(name: str, phase: str) -> MpsgenError:
    hints = {
        "build": "install it (pip install ninja), set the command with --build-cmd or [tool.mpsgen] build_cmd, "
        "or pass --no-build",
        "tests": "pass --python or set [tool.mpsgen] test_cmd",
    }
    return MpsgenError(f"`{name}` not found on PATH", hint=hints.get(phase))


def _shown(argv: Sequence[str]) -> str:
    import shlex

    return " ".join(shlex.quote(a) for a in argv)


def _check_executable(argv: Sequence[str], cwd: Path, phase: str) -> None:
    exe = argv[0]
    if os.sep in exe:
        if not (cwd / exe).exists():
            raise _missing_executable(exe, phase)
    elif shutil.which(exe) is None:
        raise _missing_executable(exe, phase)


def default_log_path(root: Path, name: str, build_dir: str = BUILD_REL) -> Path:
    """build/<name> when the build folder exists, else the temp folder (never the source tree)."""
    build = Path(root) / build_dir
    return build / name if build.is_dir() else Path(tempfile.gettempdir()) / name


# -- progress display ---------------------------------------------------------------------------

_NINJA_PROGRESS = re.compile(r"^\[(\d+)/(\d+)\] (.*)$")


class _Progress:
    """`[n/m]` lines become one \\r-updated bar on a terminal; plain lines otherwise."""

    def __init__(self, out: TextIO, is_tty: bool, width: int | None = None) -> None:
        self.out = out
        self.is_tty = is_tty
        self.width = width or shutil.get_terminal_size((100, 20)).columns
        self.bar_shown = False

    def bar(self, done: int, total: int, what: str) -> None:
        cells = 20
        filled = cells * done // total if total else cells
        head = f"[{'#' * filled}{'.' * (cells - filled)}] {done}/{total} "
        text = (head + what)[: max(self.width - 1, len(head))]
        self.out.write("\r" + text.ljust(self.width - 1))
        self.out.flush()
        self.bar_shown = True

    def count(self, done: int, what: str) -> None:
        """For runs whose total is unknown (tests): a counter instead of a bar."""
        text = f"[{done}] {what}"[: self.width - 1]
        self.out.write("\r" + text.ljust(self.width - 1))
        self.out.flush()
        self.bar_shown = True

    def line(self, text: str) -> None:
        self.clear()
        self.out.write(text + "\n")
        self.out.flush()

    def clear(self) -> None:
        if self.bar_shown:
            self.out.write("\r" + " " * (self.width - 1) + "\r")
            self.out.flush()
            self.bar_shown = False


# -- build ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class CompilerError:
    path: str  # relative to the checkout root when inside it
    line: int
    col: int
    message: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}:{self.col}: error: {self.message}"


@dataclass(frozen=True)
class BuildResult:
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
        failed = _shown(self.failed_command or ())
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


_COMPILER_ERROR = re.compile(
    r"^(?P<path>[^\s:\"'`]+):(?P<line>\d+):(?:(?P<col>\d+):)? (?:fatal )?error: (?P<msg>.*)$"
)


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


_MPS_GLOB = re.compile(r"file\s*\(\s*GLOB(?:_RECURSE)?\b([^)]*native/mps/[^)]*\.(?:metal|mm)[^)]*)\)", re.S)


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
    commands: Sequence[Command],
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
        _check_executable(argv, cwd, "build")
    log_path = log_path or build / BUILD_LOG_NAME
    progress = _Progress(out, is_tty)
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
                code = _stream(argv, cwd, log, on_line, "build", log_path, env)
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


# -- tests --------------------------------------------------------------------------------------

PASSED, FAILED, ERROR, SKIPPED, XFAIL, XPASS = "passed", "failed", "error", "skipped", "xfail", "xpass"
STATUSES = (PASSED, FAILED, ERROR, SKIPPED, XFAIL, XPASS)

MATCH_TEST = "test_output_match"
GRAD_TEST = "test_output_grad_match"


@dataclass(frozen=True)
class TestOutcome:
    __test__ = False  # not a pytest test class
    name: str  # test method, e.g. test_output_match_atan2_mps_float32
    test_class: str  # e.g. TestConsistencyMPS
    status: str  # one of STATUSES
    kind: str = ""  # test_output_match / test_output_grad_match, "" for other tests
    op: str = ""  # formatted op name as in the test name (dots are underscores), e.g. special_zeta
    dtype: str = ""  # e.g. float32
    detail: str = ""  # skip reason, or the last line of a failure's traceback


@dataclass(frozen=True)
class Counts:
    passed: int = 0
    failed: int = 0
    error: int = 0
    skipped: int = 0
    xfail: int = 0
    xpass: int = 0

    @classmethod
    def of(cls, outcomes: Iterable[TestOutcome]) -> "Counts":
        c = Counter(o.status for o in outcomes)
        return cls(**{s: c.get(s, 0) for s in STATUSES})

    @property
    def total(self) -> int:
        return self.passed + self.failed + self.error + self.skipped + self.xfail + self.xpass


@dataclass(frozen=True)
class TestResult:
    __test__ = False  # not a pytest test class
    returncode: int
    outcomes: tuple[TestOutcome, ...]
    log_path: Path | None = None
    command: tuple[str, ...] = ()
    ran: int | None = None  # unittest's "Ran N tests"

    @property
    def ok(self) -> bool:
        """Every matched test passed, was skipped or failed as expected (and at least one ran)."""
        c = self.totals
        return self.returncode == 0 and c.failed == 0 and c.error == 0 and c.xpass == 0 and c.total > 0

    @property
    def totals(self) -> Counts:
        return Counts.of(self.outcomes)

    def counts_by_dtype(self, kind: str | None = None) -> dict[str, Counts]:
        """Counts per dtype ("" for tests whose name has no dtype), optionally for one test kind."""
        chosen = [o for o in self.outcomes if kind is None or o.kind == kind]
        dtypes = sorted({o.dtype for o in chosen})
        return {d: Counts.of(o for o in chosen if o.dtype == d) for d in dtypes}

    @property
    def unexpected_successes(self) -> tuple[TestOutcome, ...]:
        """xfails that now pass: their common_mps.py / OpInfo entries can be removed."""
        return tuple(o for o in self.outcomes if o.status == XPASS)

    @property
    def failures(self) -> tuple[TestOutcome, ...]:
        return tuple(o for o in self.outcomes if o.status in (FAILED, ERROR))

    def summary(self) -> str:
        lines = []
        for kind in (MATCH_TEST, GRAD_TEST, ""):
            per = self.counts_by_dtype(kind)
            for dtype, c in per.items():
                label = f"{kind or 'other'} {dtype or '-'}"
                lines.append(
                    f"  {label:<40} {c.passed} passed, {c.failed} failed, {c.error} errors, "
                    f"{c.skipped} skipped, {c.xfail} expected failures, {c.xpass} unexpected successes"
                )
        t = self.totals
        head = (
            f"tests: {t.passed} passed, {t.failed} failed, {t.error} errors, {t.skipped} skipped, "
            f"{t.xfail} expected failures, {t.xpass} unexpected successes"
        )
        if t.total == 0:
            head = "tests: no test matched (check the op name)"
        lines.insert(0, head)
        for o in self.failures:
            lines.append(f"  {o.status.upper()}: {o.name}" + (f": {o.detail}" if o.detail else ""))
        for o in self.unexpected_successes:
            lines.append(f"  UNEXPECTED SUCCESS: {o.name} (the {o.dtype} xfail for {o.op} can be removed)")
        if self.log_path:
            lines.append(f"  log: {self.log_path}")
        return "\n".join(lines)


# unittest -v: "name (module.Class.name) ... result" (3.11+) or "name (module.Class) ... result".
_TEST_LINE = re.compile(r"^(?P<name>test\w*) \((?P<where>[\w.]+)\)(?: \.\.\. ?(?P<rest>.*))?$")
_RESULT = re.compile(r"^(?P<r>ok|FAIL|ERROR|expected failure|unexpected success|skipped(?: (?P<reason>.*))?)$")
_BLOCK_HEAD = re.compile(r"^(?P<kind>FAIL|ERROR|UNEXPECTED SUCCESS): (?P<name>test\w*) \(")
_RAN = re.compile(r"^Ran (\d+) tests? in ")
_NAME_PARTS = re.compile(rf"^(?P<kind>{GRAD_TEST}|{MATCH_TEST})_(?P<op>.+)_(?:mps|cpu)_(?P<dtype>[a-z0-9_]+)$")

_STATUS_OF = {
    "ok": PASSED,
    "FAIL": FAILED,
    "ERROR": ERROR,
    "expected failure": XFAIL,
    "unexpected success": XPASS,
}


def _split_name(name: str) -> tuple[str, str, str]:
    m = _NAME_PARTS.match(name)
    return (m.group("kind"), m.group("op"), m.group("dtype")) if m else ("", "", "")


def _strip_quotes(reason: str | None) -> str:
    r = (reason or "").strip()
    return r[1:-1] if len(r) >= 2 and r[0] == r[-1] and r[0] in "'\"" else r


def parse_unittest_output(lines: Iterable[str]) -> tuple[tuple[TestOutcome, ...], int | None]:
    """Outcomes from unittest's verbose output, with the last traceback line of each failure."""
    results: list[tuple[str, str, str, str]] = []  # name, class, status, reason
    pending: tuple[str, str] | None = None
    details: dict[str, str] = {}
    block: str | None = None
    block_lines: list[str] = []
    ran = None
    in_blocks = False
    in_header = False

    def close_block() -> None:
        nonlocal block, block_lines
        if block is not None:
            text = [b for b in block_lines if b.strip()]
            if text:
                details[block] = text[-1].strip()
        block, block_lines = None, []

    for raw in lines:
        line = raw.rstrip("\r\n")
        m = _RAN.match(line)
        if m:
            close_block()
            ran = int(m.group(1))
            continue
        if line.startswith("=" * 20):
            close_block()
            in_blocks = True
            continue
        m = _BLOCK_HEAD.match(line)
        if in_blocks and m:
            block, in_header = m.group("name"), True
            continue
        if line.startswith("-" * 20):
            if block is not None and in_header:
                in_header = False  # the header (name, docstring) ends; the traceback starts
            else:
                close_block()  # the dashes before "Ran N tests"
            continue
        if block is not None:
            if not in_header:
                block_lines.append(line)
            continue
        m = _TEST_LINE.match(line)
        if m:
            where = m.group("where").split(".")
            cls = where[-2] if len(where) >= 2 and where[-1] == m.group("name") else where[-1]
            pending = (m.group("name"), cls)
            rest = (m.group("rest") or "").strip()
            r = _RESULT.match(rest)
            if r:
                results.append((*pending, _status(r), _strip_quotes(r.group("reason"))))
                pending = None
            continue
        if pending is not None:
            # The result follows output the test printed, or a docstring line "... result".
            text = line.strip()
            if " ... " in text:
                text = text.rsplit(" ... ", 1)[1]
            r = _RESULT.match(text)
            if r:
                results.append((*pending, _status(r), _strip_quotes(r.group("reason"))))
                pending = None
    close_block()
    outcomes = []
    for name, cls, status, reason in results:
        kind, op, dtype = _split_name(name)
        detail = reason if status == SKIPPED else details.get(name, "")
        outcomes.append(TestOutcome(name, cls, status, kind, op, dtype, detail))
    return tuple(outcomes), ran


def _status(m: re.Match) -> str:
    r = m.group("r")
    return SKIPPED if r.startswith("skipped") else _STATUS_OF[r]


def k_patterns(op_test_names: Iterable[str], grad: bool = False) -> list[str]:
    """`-k` patterns: test_output_match_<name> (and the grad test).  unittest's -k is a substring
    match, so `atan2` also selects variants such as `atan2_foo`; that is intended."""
    kinds = (MATCH_TEST, GRAD_TEST) if grad else (MATCH_TEST,)
    names = [n.replace(".", "_") for n in op_test_names]
    return [f"{k}_{n}" for n in names for k in kinds]


def run_tests(
    root: Path,
    op_test_names: Sequence[str],
    *,
    grad: bool = False,
    python: str = sys.executable,
    test_cmd: Sequence[str] | None = None,
    log_path: Path | None = None,
    out: TextIO | None = None,
    is_tty: bool | None = None,
    build_dir: str = BUILD_REL,
) -> TestResult:
    """Run `python test/test_mps.py -v -k test_output_match_<name> ...` from *root* and parse it.

    *op_test_names* are OpInfo names (dots allowed, e.g. special.zeta).  *test_cmd* replaces
    `[python, test/test_mps.py]`.  Raises `Interrupted` on Ctrl-C after stopping the children.
    """
    root = Path(root).resolve()
    if not op_test_names:
        raise MpsgenError("no op to test", hint="name the op whose tests to run")
    out = out if out is not None else sys.stderr
    is_tty = out.isatty() if is_tty is None else is_tty
    if test_cmd is None:
        if not (root / TEST_MPS_REL).is_file():
            raise MpsgenError("file not found", path=TEST_MPS_REL, hint="is this a complete PyTorch checkout? "
                              "or pass --no-test")
        test_cmd = (python, TEST_MPS_REL)
    argv = [*test_cmd, "-v"]
    for pattern in k_patterns(op_test_names, grad):
        argv += ["-k", pattern]
    _check_executable(argv, root, "tests")
    log_path = log_path or default_log_path(root, TEST_LOG_NAME, build_dir)
    progress = _Progress(out, is_tty)
    captured: list[str] = []
    done = Counter()

    def on_line(text: str) -> None:
        captured.append(text)
        m = _TEST_LINE.match(text)
        if is_tty:
            if m:
                done["n"] += 1
                progress.count(done["n"], m.group("name"))
        else:
            progress.line(text)

    env = dict(os.environ, PYTHONUNBUFFERED="1")
    with open(log_path, "w", encoding="utf-8") as log:
        try:
            code = _stream(argv, root, log, on_line, "tests", log_path, env)
        finally:
            progress.clear()
    outcomes, ran = parse_unittest_output(captured)
    return TestResult(code, outcomes, log_path, tuple(argv), ran)
