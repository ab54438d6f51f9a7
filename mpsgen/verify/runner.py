"""The verify stage as the commands use it: build with ninja, run test_mps.py, stop on Ctrl-C.

The work is done in one module per job: `processes` (child processes, process groups, Ctrl-C),
`progress` (the live view), `build` (ninja and its compiler errors), `mps_tests` (test_mps.py)
and `unittest_log` (its results).  This module gathers their public names in one place.
"""

from __future__ import annotations

from mpsgen.verify.build import (
    ATEN_CMAKELISTS_REL,
    BUILD_LOG_NAME,
    BuildResult,
    CompilerError,
    needs_reconfigure,
    parse_compiler_errors,
    run_build,
)
from mpsgen.verify.mps_tests import TEST_LOG_NAME, k_patterns, run_tests
from mpsgen.verify.processes import Interrupted, check_executable, default_log_path
from mpsgen.verify.unittest_log import (
    ERROR,
    FAILED,
    GRAD_TEST,
    MATCH_TEST,
    PASSED,
    SKIPPED,
    STATUSES,
    XFAIL,
    XPASS,
    Counts,
    TestOutcome,
    TestResult,
    TestStatus,
    parse_unittest_output,
)

__all__ = [
    "ATEN_CMAKELISTS_REL", "BUILD_LOG_NAME", "BuildResult", "CompilerError", "needs_reconfigure",
    "parse_compiler_errors", "run_build", "TEST_LOG_NAME", "k_patterns", "run_tests", "Interrupted",
    "check_executable", "default_log_path", "ERROR", "FAILED", "GRAD_TEST", "MATCH_TEST", "PASSED", "SKIPPED",
    "STATUSES", "XFAIL", "XPASS", "Counts", "TestOutcome", "TestResult", "TestStatus", "parse_unittest_output",
]
