"""The tests: run `test/test_mps.py -v -k test_output_match_<op>` as a child process and parse it."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Iterable, Sequence, TextIO

from mpsgen.errors import MpsgenError
from mpsgen.tree.checkout import BUILD_REL, TEST_MPS_REL
from mpsgen.verify.processes import check_executable, default_log_path, stream
from mpsgen.verify.progress import Progress
from mpsgen.verify.unittest_log import GRAD_TEST, MATCH_TEST, TestResult, parse_unittest_output, started_test

TEST_LOG_NAME = "mpsgen-test.log"


def k_patterns(op_test_names: Iterable[str], grad: bool = False) -> list[str]:
    """`-k` patterns: test_output_match_<name> (and the grad test).  unittest's -k is a substring
    match, so `atan2` also selects variants such as `atan2_foo`; that is intended."""
    kinds = (MATCH_TEST, GRAD_TEST) if grad else (MATCH_TEST,)
    names = [n.replace(".", "_") for n in op_test_names]
    return [f"{k}_{n}" for n in names for k in kinds]


def grad_patterns(op_test_names: Iterable[str]) -> list[str]:
    """`-k test_output_grad_match_<name>` patterns only (a backward op tested through its forward's OpInfo)."""
    return [f"{GRAD_TEST}_{n.replace('.', '_')}" for n in op_test_names]


def run_tests(
    root: Path,
    op_test_names: Sequence[str],
    *,
    grad: bool = False,
    grad_names: Sequence[str] = (),
    python: str = sys.executable,
    test_cmd: Sequence[str] | None = None,
    log_path: Path | None = None,
    out: TextIO | None = None,
    is_tty: bool | None = None,
    build_dir: str = BUILD_REL,
) -> TestResult:
    """Run `python test/test_mps.py -v -k test_output_match_<name> ...` from *root* and parse it.

    *op_test_names* are OpInfo names (dots allowed, e.g. special.zeta); *grad_names* OpInfos whose
    gradient test only is run (a backward op's forward: nn.functional.hardtanh).  *test_cmd* replaces
    `[python, test/test_mps.py]`.  Raises `Interrupted` on Ctrl-C after stopping the children.
    """
    root = Path(root).resolve()
    if not op_test_names and not grad_names:
        raise MpsgenError("no op to test", hint="name the op whose tests to run")
    out = out if out is not None else sys.stderr
    is_tty = out.isatty() if is_tty is None else is_tty
    if test_cmd is None:
        if not (root / TEST_MPS_REL).is_file():
            raise MpsgenError("file not found", path=TEST_MPS_REL, hint="is this a complete PyTorch checkout? "
                              "or pass --no-test")
        test_cmd = (python, TEST_MPS_REL)
    argv = [*test_cmd, "-v"]
    for pattern in k_patterns(op_test_names, grad) + grad_patterns(grad_names):
        argv += ["-k", pattern]
    check_executable(argv, root, "tests")
    log_path = log_path or default_log_path(root, TEST_LOG_NAME, build_dir)
    progress = Progress(out, is_tty)
    captured: list[str] = []
    started = 0

    def on_line(text: str) -> None:
        nonlocal started
        captured.append(text)
        if not is_tty:
            progress.line(text)
        elif (name := started_test(text)) is not None:
            started += 1
            progress.count(started, name)

    env = dict(os.environ, PYTHONUNBUFFERED="1")
    with open(log_path, "w", encoding="utf-8") as log:
        try:
            code = stream(argv, root, log, on_line, "tests", log_path, env)
        finally:
            progress.clear()
    outcomes, ran = parse_unittest_output(captured)
    return TestResult(code, outcomes, log_path, tuple(argv), ran)
