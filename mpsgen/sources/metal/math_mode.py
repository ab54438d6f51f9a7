"""Whether the checkout compiles its Metal kernels with fast math, and the line that says so.

Two compilers build PyTorch's Metal code: cmake/Metal.cmake compiles kernels/*.metal into the bundled
metallib (`xcrun metal -c ... ${METAL_CFLAGS}`), and MetalShaderLibrary::compileLibrary in
native/mps/OperationUtils.mm compiles source at run time (PYTORCH_JIT_COMPILE_SHADERS builds,
torch.mps.compile_shader) with the MTLCompileOptions it sets.  Both compilers default to fast math (the
`metal` driver's -ffast-math; MTLCompileOptions' fastMathEnabled YES), so a build that says nothing is fast.

The mode decides what an unqualified `metal::exp` is: its fast variant under fast math, its precise one
otherwise.  `fast::exp` and `precise::exp` name their variant whatever the mode (the Metal Shading
Language specification's math functions: the nested namespaces select the variant explicitly).  Where the
two compilers disagree the kernel may run either way: the mode is "fast", naming the compiler that says so.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from mpsgen.records import NamedTuple

METAL_CMAKE_REL = "cmake/Metal.cmake"
OPERATION_UTILS_REL = "aten/src/ATen/native/mps/OperationUtils.mm"
MATH_MODE_FILES = (METAL_CMAKE_REL, OPERATION_UTILS_REL)

_CFLAGS = re.compile(r"^[ \t]*(?:set|string|list)\s*\(\s*(?:APPEND\s+)?METAL_CFLAGS\b([^)]*)\)", re.M)
_METAL_CALL = re.compile(r"\bxcrun\s+metal\b")
_ENV = re.compile(r"""\b(?:std::)?(?:getenv|get_env)\s*\(\s*"(\w+)"\s*\)""")
# options.mathMode = ...;  [options setMathMode:...];  [options setFastMathEnabled:...];  options.fastMathEnabled = ...;
_SETTING = re.compile(r"(?:\.\s*(mathMode|fastMathEnabled)\s*=\s*(?P<a>[^;]+);)"
                      r"|(?:\bset(MathMode|FastMathEnabled)\s*:\s*(?P<b>[^\]]+)\])")


class MathMode(NamedTuple):
    """"fast" or "safe", where it was read (path, 1-based line; "" and 0 when nothing said) and why."""

    mode: str
    path: str
    line: int
    why: str

    @property
    def where(self) -> str:
        return f"{self.path}:{self.line}" if self.path else self.why

    def __str__(self) -> str:
        return f"{self.mode} math ({self.path}:{self.line}: {self.why})" if self.path else f"{self.mode} math ({self.why})"


def _line(text: str, pos: int) -> int:
    return text.count("\n", 0, pos) + 1


def bundled_mode(text: str, path: str = METAL_CMAKE_REL) -> MathMode | None:
    """The bundled metallib's mode: the last -ffast-math / -fno-fast-math METAL_CFLAGS gets, else the metal
    driver's default (fast); None when the file compiles no Metal."""
    found: MathMode | None = None
    for m in _CFLAGS.finditer(text):
        flags = m.group(1).split()
        for flag in flags:
            if flag in ("-fno-fast-math", "-ffast-math"):
                mode = "safe" if flag == "-fno-fast-math" else "fast"
                found = MathMode(mode, path, _line(text, m.start()), f"METAL_CFLAGS {flag}")
    if found is not None:
        return found
    call = _METAL_CALL.search(text)
    if call is None:
        return None
    return MathMode("fast", path, _line(text, call.start()), "the metal compiler's default: no -fno-fast-math")


def _chosen_by_environment(text: str, condition: str) -> str | None:
    """The environment variable *condition* (a variable's name) is read from where it is defined
    (`static auto fast_math = []() { ... getenv("PYTORCH_MPS_FAST_MATH") ... }();`), or None."""
    if not re.fullmatch(r"[A-Za-z_]\w*", condition):
        return None
    defined = re.search(rf"\b{condition}\s*=", text)
    env = _ENV.search(text, defined.end(), defined.end() + 300) if defined else None
    return env.group(1) if env else None


def runtime_mode(text: str, path: str = OPERATION_UTILS_REL) -> MathMode | None:
    """The run-time compiler's mode: the MTLCompileOptions math setting (a choice on an environment
    variable is its unset branch), else MTLCompileOptions' default (fast); None when it compiles nothing."""
    settings = list(_SETTING.finditer(text))
    for m in settings:
        value = " ".join((m.group("a") or m.group("b")).split())
        fast = re.search(r"\bMTLMathModeFast\b|\bMTLMathModeRelaxed\b|\bYES\b|\btrue\b", value)
        safe = re.search(r"\bMTLMathModeSafe\b|\bNO\b|\bfalse\b", value)
        at = _line(text, m.start())
        if "?" in value and fast and safe:  # fast_math ? MTLMathModeFast : MTLMathModeSafe
            env = _chosen_by_environment(text, value.split("?", 1)[0].strip())
            if env is None:
                continue  # a choice mpsgen cannot follow: try the next setting
            return MathMode("safe", path, at, f"{value}, fast only with {env} set")
        if fast and not safe:
            return MathMode("fast", path, at, value)
        if safe and not fast:
            return MathMode("safe", path, at, value)
    if settings:
        m = settings[0]
        return MathMode("fast", path, _line(text, m.start()), "a math setting mpsgen cannot read: assumed fast")
    options = re.search(r"\bMTLCompileOptions\b", text)
    if options is None:
        return None
    return MathMode("fast", path, _line(text, options.start()), "MTLCompileOptions' default: no math setting")


def math_mode(texts: Mapping[str, str | None]) -> MathMode:
    """The checkout's mode from cmake/Metal.cmake and OperationUtils.mm (*texts* by path; None or absent
    for a file the checkout lacks): "fast" when either compiler uses fast math, "safe" when the ones
    present do not; "safe" when neither file says (mpsgen's emulation then computes as it always did)."""
    found = []
    cmake, utils = texts.get(METAL_CMAKE_REL), texts.get(OPERATION_UTILS_REL)
    if cmake is not None:
        found.append(bundled_mode(cmake))
    if utils is not None:
        found.append(runtime_mode(utils))
    modes = [m for m in found if m is not None]
    fast = next((m for m in modes if m.mode == "fast"), None)
    if fast is not None or modes:
        return fast or modes[0]
    return MathMode("safe", "", 0, "no Metal build settings found")
