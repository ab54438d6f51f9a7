"""A warm `python -m mpsgen` for the tests: a process of a test worker imports mpsgen and the libraries its
commands load (click, ruamel.yaml, jinja2, gitpython; torch for the numeric check with --torch), then forks
once per command.  Each command still runs in a process of its own (its cwd, environment, exit code, stdout and stderr,
nothing left over from the command before), as `python -m mpsgen` does; only the interpreter's start-up and
the imports are paid once instead of ~1000 times in a session.

Protocol (cli_support.mpsgen is the other end), one JSON line each way on stdin/stdout:
request ``{"args", "cwd", "env", "out", "err"}`` (out/err: files the command's stdout/stderr go to), then
the reply ``{"pid": N}`` at once and ``{"code": N}`` when the command has ended.
"""

from __future__ import annotations

import json
import os
import runpy
import sys

# Imported before the first fork; each command then finds them loaded: every module of mpsgen (its
# commands import most of them lazily, inside functions: ~0.15-0.3 s of CPU per command when each forked
# command imported them again) and the libraries its commands load.  No mpsgen module reads the
# environment, the working folder or a file when imported, so what a command does is unchanged, only
# where the import time is paid.
WARM = ("ruamel.yaml", "jinja2", "git", "libcst")
# Not imported: the package's `python -m` entry (runpy runs it per command, and warns when it is already
# loaded) and the numeric check's child script (run as a program of its own, never imported).
NOT_PRELOADED = ("mpsgen.__main__", "mpsgen.emulate.child")


def _warm(with_torch: bool) -> None:
    import importlib
    import pkgutil

    import mpsgen

    package = [m.name for m in pkgutil.walk_packages(mpsgen.__path__, "mpsgen.") if m.name not in NOT_PRELOADED]
    for name in [*package, *WARM]:
        try:
            importlib.import_module(name)
        except ImportError:
            pass  # a command needing it fails as it would in a fresh interpreter
    from mpsgen.generate.catalog import load_catalog

    # The packaged catalog (templates/catalog.yaml, which the suite never writes), parsed once per process
    # as mpsgen parses it (~50 ms a command that plans or renders a kernel).
    load_catalog()
    if with_torch:
        from mpsgen.emulate.reference import import_torch

        import_torch()  # as the numeric check imports it (the installed torch, its warnings silenced)


def _run_command(request: dict, channel: int) -> int:
    """In the forked child: become `python -m mpsgen ARGS` in the request's cwd and environment."""
    os.close(channel)
    os.chdir(request["cwd"])
    sys.path[0] = request["cwd"]  # `python -m` puts the working folder first
    os.environ.clear()
    os.environ.update(request["env"])
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    for fd, path in ((1, request["out"]), (2, request["err"])):
        os.dup2(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), fd)
    sys.argv = ["mpsgen", *request["args"]]
    code: int = 0
    try:
        runpy.run_module("mpsgen", run_name="__main__", alter_sys=True)
    except SystemExit as stop:
        if isinstance(stop.code, int) or stop.code is None:
            code = stop.code or 0
        else:
            print(stop.code, file=sys.stderr)
            code = 1
    except BaseException:  # an uncaught exception: the traceback and exit 1, as the interpreter does
        import traceback

        traceback.print_exc()
        code = 1
    import atexit

    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    return code


def serve(with_torch: bool) -> None:
    _warm(with_torch)
    channel_in, channel_out = sys.stdin.buffer, os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)  # a stray print of the server's own goes to stderr, not into the channel
    for line in channel_in:
        request = json.loads(line)
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:
            os._exit(_run_command(request, channel_out.fileno()))
        channel_out.write(json.dumps({"pid": pid}) + "\n")
        _, status = os.waitpid(pid, 0)
        code = os.waitstatus_to_exitcode(status)
        channel_out.write(json.dumps({"code": code}) + "\n")


if __name__ == "__main__":
    serve(with_torch=sys.argv[1:] == ["--torch"])
