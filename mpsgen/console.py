"""The console script `mpsgen`: `check` and `status` in their plain forms start without click.

Importing click (and what it imports: inspect, uuid, datetime, gettext) costs ~85 M instructions,
~25 ms, before a command does anything: a tenth of a warm `check`, which CI, pre-commit and
lintrunner run on every change.  So an argument list of one of the two plain forms

    [-C DIR | --checkout DIR | --checkout=DIR] check [PATH | OPTION]...
    [-C DIR | --checkout DIR | --checkout=DIR] status [OPTION]...

with each OPTION one of PLAIN_OPTIONS', given once (--select/--ignore any number of times) and with a
value not starting with `-`, is read here; anything else (--help, --version, another command, a bad
or repeated value) goes to click (cli.py), which reads it, or says what is wrong, as before.  Both
call the same bodies (process.py).  tests/test_console.py holds this reading to click's.
"""

from __future__ import annotations

import sys
from typing import Any

from mpsgen.process import CHECK_FORMATS, STATUS_FORMATS, as_console_script, check_command, status_command

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


def run() -> None:
    """The console script `mpsgen`."""
    plain = plain_arguments(sys.argv[1:])
    if plain is None:
        from mpsgen.cli import run as run_click

        run_click()
        return
    as_console_script()
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
