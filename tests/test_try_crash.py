"""mpsgen try with bodies that crash the host: the kernel runs in a child process, so a trap becomes
a failed dtype naming the signal and the first inputs that crash it, never a dead mpsgen."""

from __future__ import annotations

import json
import platform
from pathlib import Path

import pytest
from cli_support import mpsgen, tracked_bytes
from try_support import SAMPLE_HEADERS, failing, run, table

from mpsgen.emulate import compare, isolate
from mpsgen.emulate import compile as cc
from mpsgen.errors import MpsgenError
from mpsgen.generate import catalog, render

# x86 traps on integer division by zero; arm64's sdiv gives 0 (as the GPU gives some value).
X86 = platform.machine().lower() in ("x86_64", "amd64", "i386", "i686")
needs_x86 = pytest.mark.skipif(not X86, reason="integer division by zero traps on x86 hosts only")
# Divides by zero where b == 7 only: the first crashing row is not the first row.
DIVIDE_BY_ZERO_AT_7 = "precise::atan2(float(a), float(b)) + float(b == 7 ? a / (b - 7) : 0)"
NULL_READ_ABOVE_100 = "float(x) - ::metal::trunc(float(x)) + (float(x) > 100.0f ? float(*(volatile int*)nullptr) : 0.0f)"


@needs_x86
def test_integer_division_by_zero_fails_the_dtypes_it_crashes_naming_sigfpe_and_the_inputs() -> None:
    result = run("atan2", "binary", int_expr=DIVIDE_BY_ZERO_AT_7)
    # bool's b is never 7; the float branch has no integer division.
    assert failing(result) == {"int64", "int32", "int16", "int8", "uint8"}, table(result)
    assert next(r for r in result.rows if r.dtype == "bool").ok
    int32 = next(r for r in result.rows if r.dtype == "int32")
    assert (int32.crash, int32.crash_inputs, int32.mismatches) == ("SIGFPE", ("0", "7"), 0)
    assert "integer division by zero" in int32.crash_reason
    text = table(result).splitlines()
    assert "  CRASH int32: atan2(0, 7) killed the kernel with SIGFPE" in text
    assert text[-1] == ("the kernel crashed in int64 (SIGFPE), int32 (SIGFPE), int16 (SIGFPE), int8 (SIGFPE), "
                        "uint8 (SIGFPE)")


def test_a_null_dereference_fails_with_sigsegv_at_the_first_input_that_reads_it() -> None:
    result = run("frac", "unary", expr=NULL_READ_ABOVE_100)
    assert failing(result) == {"float32", "float16", "bfloat16"}, table(result)
    f32 = next(r for r in result.rows if r.dtype == "float32")
    assert f32.crash == "SIGSEGV" and f32.crash_reason == "invalid memory access"
    assert len(f32.crash_inputs) == 1 and float(f32.crash_inputs[0]) > 100  # edge values <= 100 come first
    assert float(f32.crash_inputs[0]) == 3.4028234663852886e38  # float32's largest finite value
    line = compare.crash_message("frac", f32)
    assert line == f"CRASH float32: frac({f32.crash_inputs[0]}) killed the kernel with SIGSEGV (invalid memory access)"


@needs_x86
def test_the_crashing_inputs_include_the_alpha_that_crashes() -> None:
    # alpha arrives as long -1 for the last of ALPHAS (0, 1e-3, 0.25, -1): a / 0 there only.
    result = run("add", "binary_alpha", expr="float(a) + float(alpha) * float(b)",
                 int_expr="a + alpha * b + (alpha < 0 ? a / (alpha + 1) : 0)", dtypes="float,integer")
    assert failing(result) == {"int64", "int32", "int16", "int8"}, table(result)  # uint8's alpha is never < 0
    int64 = next(r for r in result.rows if r.dtype == "int64")
    assert (int64.crash, int64.crash_inputs) == ("SIGFPE", ("0", "0", "-1.0"))
    assert "CRASH int64: add(0, 0, -1.0) killed the kernel with SIGFPE" in table(result)


def test_the_runner_reports_a_child_that_fails_without_a_signal_and_starts_afresh() -> None:
    spec = catalog.spec_for("frac", "unary")
    library = cc.build(spec, render.render_functor(spec), SAMPLE_HEADERS, expressions={}).library
    value = bytes.fromhex("0000e03f")  # float32 1.75, little-endian
    with isolate.KernelRunner(library) as runner:
        with pytest.raises(MpsgenError) as err:
            runner.run(isolate.Call("mpsgen_try_nosuch", 1, (value,), None, 4))
        text = err.value.render()
        assert text.startswith(f"{isolate.CHILD}: the kernel runner failed: AttributeError: ")
        assert "mpsgen_try_nosuch" in text and len(text.splitlines()) == 1
        frac = runner.run(isolate.Call("mpsgen_try_float_float", 1, (value,), None, 4))
    assert frac == bytes.fromhex("0000403f")  # 0.75: a fresh child served the next call


def test_a_body_that_never_returns_is_stopped_after_the_timeout(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(isolate, "TIMEOUT_S", 1.0)
    endless = "float(x) + [] { volatile int on = 1; while (on) {} return 0.0f; }()"
    result = run("frac", "unary", expr=endless)
    assert failing(result) == {"float32", "float16", "bfloat16"}
    row = result.rows[0]
    assert (row.crash, row.crash_inputs) == ("timeout", ())  # not replayed element by element
    assert compare.crash_message("frac", row) == ("CRASH float32: frac (the crashing input was not found) never "
                                                  "returned (no result within 1 s: an endless loop?)")


def test_a_crash_result_is_cached_like_any_other() -> None:
    first = run("frac", "unary", expr=NULL_READ_ABOVE_100)
    again = run("frac", "unary", expr=NULL_READ_ABOVE_100)
    assert again.cached and again.rows == first.rows and again.rows[0].crash == "SIGSEGV"


# -- through the entry point --------------------------------------------------------------------------


@needs_x86
def test_try_a_dividing_body_exits_1_with_one_line_per_crashed_dtype(tree: Path) -> None:
    result = mpsgen("-C", str(tree), "try", "atan2", "--expr", "a / b")
    assert result.returncode == 1 and result.stderr == ""
    lines = result.stdout.splitlines()
    assert "  CRASH int64: atan2(0, 0) killed the kernel with SIGFPE (arithmetic trap: integer division by zero " \
        "or MIN / -1; on the GPU it gives an unspecified value instead, so guard the divisor)" in lines
    assert "  CRASH bool: atan2(False, False) killed the kernel with SIGFPE" in lines
    assert [line.split()[0] for line in lines if "crash (SIGFPE)" in line] == [
        "int64->float32", "int32->float32", "int16->float32", "int8->float32", "uint8->float32", "bool->float32"]
    assert lines[-1].startswith("mismatches in float32, float16, bfloat16; the kernel crashed in int64 (SIGFPE)")
    data = json.loads(mpsgen("-C", str(tree), "try", "atan2", "--expr", "a / b", "--format", "json").stdout)
    int64 = next(d for d in data["dtypes"] if d["dtype"] == "int64")
    assert data["ok"] is False and int64["ok"] is False
    assert (int64["crash"], int64["crash_inputs"]) == ("SIGFPE", ["0", "0"])


def test_try_a_null_dereference_exits_1_naming_sigsegv(tree: Path) -> None:
    result = mpsgen("-C", str(tree), "try", "frac", "--expr", NULL_READ_ABOVE_100)
    assert result.returncode == 1 and result.stderr == "", result.stderr
    crash = [line for line in result.stdout.splitlines() if line.startswith("  CRASH float32: frac(")]
    assert crash == ["  CRASH float32: frac(3.4028234663852886e+38) killed the kernel with SIGSEGV "
                     "(invalid memory access)"]


@needs_x86
def test_migrate_writes_nothing_when_the_body_crashes(tree: Path) -> None:
    before = tracked_bytes(tree)
    result = mpsgen("-C", str(tree), "migrate", "atan2", "--expr", "a / b", "--no-build", "--no-test")
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert result.stdout.splitlines()[-1] == (
        "the atan2 kernel crashes on int64 (SIGFPE), int32 (SIGFPE), int16 (SIGFPE), int8 (SIGFPE), uint8 (SIGFPE), "
        "bool (SIGFPE): nothing written (--no-try skips this check)")
    assert tracked_bytes(tree) == before
