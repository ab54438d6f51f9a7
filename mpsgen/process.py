"""How a command runs in the mpsgen process, whichever reader took its arguments (console.py's for the
plain forms of check and status, click's in cli.py for the rest): as the console script, check and status
run with the cycle collector off and leave without the interpreter's teardown; an MpsgenError is one line
and exit code 2; the bodies of check and status."""

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

# Set by as_console_script(): then the process ends with the command.
_console_script = False


def as_console_script() -> None:
    """This process is the console script `mpsgen`: it ends with the command."""
    global _console_script
    _console_script = True


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
