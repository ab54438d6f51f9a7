"""The tests' warm `python -m mpsgen` (warm_mpsgen.py) behaves as a fresh interpreter would: the same
stdout, stderr and exit code, the caller's working folder and environment, nothing kept between commands."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from cli_support import MPSGEN, mpsgen, runs_numeric_check, warm_server


def _fresh(*args: str, cwd: Path, env: dict | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*MPSGEN, *args], cwd=cwd, capture_output=True, text=True, env=env)


def test_output_and_exit_code_are_a_fresh_interpreters(tmp_path: Path) -> None:
    for args in (("--help",), ("-C", str(tmp_path / "nowhere"), "status"), ("migrate", "--no-such-option")):
        warm, fresh = mpsgen(*args, cwd=tmp_path), _fresh(*args, cwd=tmp_path)
        assert (warm.returncode, warm.stdout, warm.stderr) == (fresh.returncode, fresh.stdout, fresh.stderr), args
    assert warm.returncode == 2 and "no-such-option" in warm.stderr



def test_commands_on_a_checkout_print_what_a_fresh_interpreter_prints(tree: Path) -> None:
    """The warm interpreters hold every mpsgen module imported; the commands' output is a fresh one's."""
    for args in (("check", "--format", "json"), ("status",), ("migrate", "atan2", "--dry-run"),
                 ("migrate", "frac", "--print"), ("migrate", "--all", "--no-build", "--no-test", "--no-try", "--no-compile", "--format", "json")):
        warm, fresh = mpsgen(*args, cwd=tree), _fresh(*args, cwd=tree)
        assert (warm.returncode, warm.stdout, warm.stderr) == (fresh.returncode, fresh.stdout, fresh.stderr), args
        assert warm.stdout, args

def test_each_command_gets_the_callers_folder_and_environment(tmp_path: Path) -> None:
    made = mpsgen("sample", "here", cwd=tmp_path)  # a relative path: the caller's working folder
    assert made.returncode == 0, made.stderr
    assert (tmp_path / "here" / "aten/src/ATen/native/native_functions.yaml").is_file()
    # XDG_CACHE_HOME is read when the command runs: the status cache goes where this command's environment says
    cache = tmp_path / "cache"
    env = {k: v for k, v in os.environ.items() if k != "MPSGEN_CACHE_DIR"} | {"XDG_CACHE_HOME": str(cache)}
    done = mpsgen("-C", str(tmp_path / "here"), "status", env=env)
    assert done.returncode == 0 and "atan2" in done.stdout, done.stderr
    assert (cache / "mpsgen").is_dir()
    again = mpsgen("-C", str(tmp_path / "here"), "status")  # the next command: the session's cache again
    assert again.stdout == done.stdout and sorted(p.name for p in cache.iterdir()) == ["mpsgen"]


@pytest.mark.parametrize("args, numeric", [
    (("try", "frac"), True), (("-C", "try", "try", "frac"), True), (("--checkout", "x", "migrate", "frac"), True),
    (("new-op", "frac"), True), (("migrate", "frac", "--no-try"), False), (("migrate", "--dry-run", "frac"), False),
    (("migrate", "frac", "--print"), False), (("-C", "migrate", "status"), False), (("check",), False),
    (("undo",), False), (("--help",), False), ((), False),
])
def test_the_commands_that_run_the_numeric_check_go_to_the_interpreter_holding_torch(args, numeric) -> None:
    assert runs_numeric_check(args) is numeric


def test_either_warm_interpreter_runs_the_numeric_check_as_a_fresh_one_does(tree: Path, tmp_path: Path) -> None:
    """The light interpreter (no torch imported) imports it when a command needs it: the same result.
    Each run has a cache of its own, so each compiles and compares (none says `[cached]`)."""
    def env(name: str) -> dict:
        return {**os.environ, "MPSGEN_CACHE_DIR": str(tmp_path / name)}

    args = ["try", "frac"]
    fresh = _fresh(*args, cwd=tree, env=env("fresh"))
    assert fresh.returncode == 0 and "all dtypes agree" in fresh.stdout, fresh.stdout + fresh.stderr
    assert "[cached]" not in fresh.stdout
    for with_torch in (True, False):
        warm = warm_server(with_torch).run(args, tree, env(f"warm-{with_torch}"), 180)
        assert (warm.returncode, warm.stdout, warm.stderr) == (fresh.returncode, fresh.stdout, fresh.stderr)
