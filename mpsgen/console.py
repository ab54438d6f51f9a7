"""The console script `mpsgen`: `check` and `status` in their plain forms start without click.

Importing click (and what it imports: inspect, uuid, datetime, gettext) costs ~85 M instructions,
~25 ms, before a command does anything: a tenth of a warm `check`, which CI, pre-commit and
lintrunner run on every change.  So an argument list of one of the two plain forms

    [-C DIR | --checkout DIR | --checkout=DIR] check [PATH | OPTION]...
    [-C DIR | --checkout DIR | --checkout=DIR] status [OPTION]...

with each OPTION one of PLAIN_OPTIONS', given once (--select/--ignore any number of times) and with a
value not starting with `-`, is read here; anything else (--help, --version, another command, a bad
or repeated value) goes to click (cli.py), which reads it, or says what is wrong, as before.  The
command bodies live here, called by both.  tests/test_console.py holds this reading to click's.
"""

from __future__ import annotations

import functools
import gc
import os
import sys
from typing import TYPE_CHECKING, Any, Callable, NoReturn

from mpsgen.errors import EXIT_USAGE, MpsgenError

if TYPE_CHECKING:
    from mpsgen.tree.checkout import Checkout

CHECK_FORMATS = ("text", "json", "github", "lintrunner")
STATUS_FORMATS = ("table", "json", "markdown")

# command -> {option: (keyword, "flag" | "value" | "many", choices or None)}; the keywords and defaults
# are those of cli.py's click options (test_console.py compares the two).
PLAIN_OPTIONS: dict[str, dict[str, tuple[str, str, tuple[str, ...] | None]]] = {
    "check": {"--format": ("fmt", "value", CHECK_FORMATS), "--no-cache": ("no_cache", "flag", None),
              "--select": ("select", "many", None), "--ignore": ("ignore", "many", None),
              "--baseline": ("baseline", "value", None), "--write-baseline": ("write_baseline", "value", None),
              "--compile": ("compile_", "flag", None)},
    "status": {"--format": ("fmt", "value", STATUS_FORMATS), "--op": ("op", "value", None),
               "--no-cache": ("no_cache", "flag", None)},
}
_DEFAULT_FORMAT = {"check": "text", "status": "table"}

# Set by run(): then the process ends with the command.
_console_script = False


def run() -> None:
    """The console script `mpsgen`."""
    global _console_script
    _console_script = True
    plain = plain_arguments(sys.argv[1:])
    if plain is None:
        from mpsgen.cli import main

        main()
        return
    command, checkout_dir, options = plain
    (check_command if command == "check" else status_command)(checkout_dir, **options)


def plain_arguments(args: list[str]) -> tuple[str, str | None, dict[str, Any]] | None:
    """(command, the -C folder or None, the command's keyword arguments) of a plain check or status
    argument list (the module's docstring), else None: click's to read."""
    checkout_dir, k = None, 0
    if args[:1] in (["-C"], ["--checkout"]):
        if len(args) < 2 or args[1].startswith("-"):
            return None
        checkout_dir, k = args[1], 2
    elif args and args[0].startswith("--checkout="):
        checkout_dir, k = args[0].removeprefix("--checkout="), 1
    if k >= len(args) or args[k] not in PLAIN_OPTIONS:
        return None
    command, rest = args[k], args[k + 1:]
    known = PLAIN_OPTIONS[command]
    values: dict[str, Any] = {keyword: () if kind == "many" else False if kind == "flag" else None
                              for keyword, kind, _ in known.values()}
    values["fmt"] = _DEFAULT_FORMAT[command]
    paths: list[str] = []
    given: set[str] = set()
    i = 0
    while i < len(rest):
        arg = rest[i]
        i += 1
        if not arg.startswith("-"):
            if command != "check":
                return None
            paths.append(arg)
            continue
        name, eq, value = arg.partition("=")
        if name not in known:
            return None
        keyword, kind, choices = known[name]
        if kind != "many" and keyword in given:
            return None
        given.add(keyword)
        if kind == "flag":
            if eq:
                return None
            values[keyword] = True
            continue
        if not eq:
            if i == len(rest) or rest[i].startswith("-"):
                return None
            value = rest[i]
            i += 1
        if choices is not None and value not in choices:
            return None
        values[keyword] = (*values[keyword], value) if kind == "many" else value
    if command == "check":
        values["paths"] = tuple(paths)
    return command, checkout_dir, values


def reading_run() -> None:
    """Start check or status.  As the console script the cycle collector stays off: such a run
    allocates ~1M objects and frees by reference counting what it drops, so the collector's passes
    find nothing and cost ~8 ms."""
    if _console_script:
        gc.disable()


def exit_with(code: int) -> NoReturn:
    """Exit with *code*.  As the console script, check and status leave without the interpreter's
    teardown: freeing the texts and indexes of a whole tree took ~20 ms, and nothing is left to close
    (the fact store is written and closed by then; stdout and stderr are flushed here)."""
    if _console_script:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        except BrokenPipeError:  # a reader that went away (`mpsgen status | head`)
            pass
        except OSError:  # a full disk, say: the interpreter's own exit reports it (status 120)
            sys.exit(code)
        os._exit(code)
    sys.exit(code)


def reports_errors(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Turn an MpsgenError into one line on stderr and exit code 2 (never a traceback)."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except MpsgenError as err:
            sys.stderr.write(f"mpsgen: error: {err.render()}\n")
            sys.exit(EXIT_USAGE)

    return wrapper


def locate(checkout_dir: str | None) -> Checkout:
    """The checkout -C names (None: found from the current folder)."""
    from mpsgen.tree.checkout import Checkout

    return Checkout.locate(checkout_dir)


@reports_errors
def check_command(checkout_dir: str | None, paths: tuple[str, ...], fmt: str, no_cache: bool,
                  select: tuple[str, ...], ignore: tuple[str, ...], baseline: str | None,
                  write_baseline: str | None, compile_: bool) -> None:
    """`mpsgen check` (cli.py holds its help)."""
    reading_run()
    from mpsgen.commands.check import run_check

    exit_with(run_check(locate(checkout_dir), paths=paths, fmt=fmt, cache=not no_cache, select=select,
                        ignore=ignore, baseline=baseline, write_baseline=write_baseline, compile_files=compile_))


@reports_errors
def status_command(checkout_dir: str | None, fmt: str, op: str | None, no_cache: bool) -> None:
    """`mpsgen status` (cli.py holds its help)."""
    reading_run()
    from mpsgen.commands.status import run_status

    exit_with(run_status(locate(checkout_dir), fmt=fmt, op=op, cache=not no_cache))
