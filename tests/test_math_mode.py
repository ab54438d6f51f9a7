"""`try` computes with the math the checkout's Metal library compiles with (issue 39, item 5).

The reader (sources/metal/math_mode.py) on build settings written for these tests in the shapes of
PyTorch's cmake/Metal.cmake (`set(METAL_CFLAGS -Wall -Wextra -fno-fast-math)`) and OperationUtils.mm's
MetalShaderLibrary::compileLibrary (`options.mathMode = fast_math ? MTLMathModeFast : MTLMathModeSafe;`);
then bodies checked against torch on include roots with the sample's c10/metal and such a Metal.cmake:
`fast::` functions carry Metal's fast-math error under either mode, `precise::` none, and the unqualified
name is the one the mode picks."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from try_support import SAMPLE_HEADERS, failing, table

from mpsgen.emulate.numerics import check_kernel
from mpsgen.emulate.compare import TryResult
from mpsgen.generate import catalog, render
from mpsgen.sources.metal.math_mode import METAL_CMAKE_REL, OPERATION_UTILS_REL, bundled_mode, math_mode, runtime_mode

CMAKE = """if(NOT APPLE)
    return()
endif()

set(METAL_CFLAGS -Wall -Wextra{flag})
if(WERROR)
    string(APPEND METAL_CFLAGS -Werror)
endif()

function(metal_to_air SRC TARGET FLAGS)
    add_custom_command(COMMAND xcrun metal -c ${{SRC}} -I ${{CMAKE_SOURCE_DIR}} -o ${{TARGET}} ${{FLAGS}} ${{METAL_CFLAGS}})
endfunction()
"""
UTILS = """id<MTLLibrary> MetalShaderLibrary::compileLibrary(const std::string& src) {
  static auto fast_math = []() {
    auto val = std::getenv("PYTORCH_MPS_FAST_MATH");
    return val && std::stoi(val) != 0;
  }();
  NSError* error = nil;
  MTLCompileOptions* options = compile_options;
  if (!options) {
    options = [[MTLCompileOptions new] autorelease];
    if (is_macos_13_or_newer(MacOSVersion::MACOS_VER_15_0_PLUS)) {
      options.mathMode = fast_math ? MTLMathModeFast : MTLMathModeSafe;
    } else {
      [options setFastMathEnabled:fast_math ? YES : NO];
    }
  }
  return [device newLibraryWithSource:str options:options error:&error];
}
"""


# -- the reader -------------------------------------------------------------------------------------


def test_the_bundled_library_follows_metal_cflags():
    safe = bundled_mode(CMAKE.format(flag=" -fno-fast-math"))
    assert safe is not None and (safe.mode, safe.path, safe.line) == ("safe", METAL_CMAKE_REL, 5)
    assert safe.why == "METAL_CFLAGS -fno-fast-math"
    fast = bundled_mode(CMAKE.format(flag=" -ffast-math"))
    assert fast is not None and (fast.mode, fast.line) == ("fast", 5)
    # no flag: the metal driver's default, fast math
    default = bundled_mode(CMAKE.format(flag=""))
    assert default is not None and default.mode == "fast" and "default" in default.why
    appended = CMAKE.format(flag=" -fno-fast-math").replace("-Werror)", "-ffast-math)")  # the last one wins
    last = bundled_mode(appended)
    assert last is not None and (last.mode, last.line) == ("fast", 7)
    assert bundled_mode("set(OTHER_FLAGS -O2)\n") is None  # compiles no Metal


def test_the_runtime_library_follows_its_compile_options():
    found = runtime_mode(UTILS)
    assert found is not None and (found.mode, found.path, found.line) == ("safe", OPERATION_UTILS_REL, 11)
    assert found.why.endswith("fast only with PYTORCH_MPS_FAST_MATH set")
    always = UTILS.replace("fast_math ? MTLMathModeFast : MTLMathModeSafe", "MTLMathModeFast")
    assert runtime_mode(always) == ("fast", OPERATION_UTILS_REL, 11, "MTLMathModeFast")
    older = "options = [[MTLCompileOptions new] autorelease];\n[options setFastMathEnabled:NO];\n"
    assert runtime_mode(older) == ("safe", OPERATION_UTILS_REL, 2, "NO")
    unset = "  MTLCompileOptions* options = [[MTLCompileOptions new] autorelease];\n"
    default = runtime_mode(unset)
    assert default is not None and (default.mode, default.line) == ("fast", 1)
    assert runtime_mode("static void nothing() {}\n") is None


def test_either_compiler_with_fast_math_makes_the_checkout_fast():
    safe_cmake, fast_cmake = CMAKE.format(flag=" -fno-fast-math"), CMAKE.format(flag="")
    assert math_mode({METAL_CMAKE_REL: safe_cmake, OPERATION_UTILS_REL: UTILS})[:3] == ("safe", METAL_CMAKE_REL, 5)
    fast_runtime = UTILS.replace("fast_math ? MTLMathModeFast : MTLMathModeSafe", "MTLMathModeFast")
    assert math_mode({METAL_CMAKE_REL: safe_cmake, OPERATION_UTILS_REL: fast_runtime})[:3] == \
        ("fast", OPERATION_UTILS_REL, 11)
    assert math_mode({METAL_CMAKE_REL: fast_cmake, OPERATION_UTILS_REL: None}).mode == "fast"
    nothing = math_mode({})
    assert (nothing.mode, nothing.where) == ("safe", "no Metal build settings found")


# -- the emulation ----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def roots(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Include roots: the sample's c10/metal, and a Metal.cmake with and without -fno-fast-math."""
    made = {}
    for name, flag in (("safe", " -fno-fast-math"), ("fast", "")):
        root = tmp_path_factory.mktemp(name)
        shutil.copytree(SAMPLE_HEADERS / "c10", root / "c10")
        (root / "cmake").mkdir()
        (root / METAL_CMAKE_REL).write_text(CMAKE.format(flag=flag))
        made[name] = root
    return made


def _check(op: str, expr: str, root: Path) -> TryResult:
    spec = catalog.spec_for(op, "unary", expr=expr, dtypes="float")
    return check_kernel(spec, render.render_functor(spec), op=op, include_root=root)


def test_fast_functions_carry_metal_fast_math_error_where_the_library_is_safe(roots: dict[str, Path]):
    # exp: <= 3 + floor(fabs(2 * x)) ulp; at x = 10 that is 23 ulp, beyond torch.testing's float32 tolerance
    fast = _check("exp", "fast::exp(float(x))", roots["safe"])
    assert failing(fast) == {"float32"}, table(fast)  # half and bfloat round the error away
    f32 = next(r for r in fast.rows if r.dtype == "float32")
    assert any(m.inputs == ("10.0",) for m in f32.first_mismatches) or f32.worst_input == "10.0", table(fast)
    assert fast.backend.endswith(f", safe math: {METAL_CMAKE_REL}:5)")
    assert _check("exp", "precise::exp(float(x))", roots["safe"]).ok
    assert _check("exp", "exp(float(x))", roots["safe"]).ok  # unqualified: precise under -fno-fast-math
    # tanh: (t - 1) / (t + 1) with t = exp(2x), NaN once t overflows (Metal's fast::tanh does: pytorch#186286)
    tanh = _check("tanh", "fast::tanh(float(x))", roots["safe"])
    assert not tanh.ok
    f32 = next(r for r in tanh.rows if r.dtype == "float32")
    assert ("100.0",) in [m.inputs for m in f32.first_mismatches], table(tanh)
    assert all(m.got == "nan" and m.expected == "1.0" for m in f32.first_mismatches), table(tanh)
    assert _check("tanh", "precise::tanh(float(x))", roots["safe"]).ok


def test_unqualified_functions_follow_the_checkouts_math_mode(roots: dict[str, Path]):
    unqualified = _check("exp", "exp(float(x))", roots["fast"])
    assert failing(unqualified) == {"float32"}, table(unqualified)
    assert unqualified.backend.endswith(f", fast math: {METAL_CMAKE_REL}:11)")  # the xcrun metal call
    assert _check("exp", "precise::exp(float(x))", roots["fast"]).ok
    assert not _check("tanh", "tanh(float(x))", roots["fast"]).ok


PI_FUNCTIONS = r"""#include <metal_stdlib>
#include <cstdio>
int main() {
  using namespace metal::precise;
  std::printf("%g %g %g %g %g %.9g\n", sinpi(-1.0f), sinpi(3.0f), sinpi(16777216.0f), cospi(2.5f), tanpi(-2.0f),
              sinpi(0.25f));
}
"""


def test_pi_functions_reduce_their_argument_exactly(tmp_path: Path):
    # Metal's sinpi is an exact zero at integers (cospi at half-integers); sin(M_PI_F * x) is not, and upstream's
    # lgamma reflection (log(pi / |x sinpi(x)|)) then gave 17.4 at -1 instead of inf in the emulation.
    import subprocess

    from mpsgen.emulate.compile import EMULATION_INCLUDE

    src = tmp_path / "pi.cpp"
    src.write_text(PI_FUNCTIONS)
    exe = tmp_path / "pi"
    subprocess.run(["g++", "-std=c++17", "-I", str(EMULATION_INCLUDE), str(src), "-o", str(exe)], check=True)
    out = subprocess.run([str(exe)], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["-0", "0", "0", "0", "-0", "0.707106769"]
