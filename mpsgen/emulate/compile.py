"""Compile a rendered functor on the host: driver source, compiler call, build cache, error mapping.

The functor text is exactly what migrate/new-op write into the .metal file; it is compiled as
C++17 against the checkout's own c10/metal headers, with mpsgen's Metal emulation
(``include/metal_stdlib``) force-included first, the way the Metal compiler provides its stdlib.
One extern "C" function per registration maps whole arrays (called through ctypes).
"""

from __future__ import annotations

import hashlib
import os
import re
import shlex
import shutil
import subprocess
from pathlib import Path
from typing import TYPE_CHECKING

from mpsgen.errors import MpsgenError
from mpsgen.model import KernelSpec
from mpsgen.records import NamedTuple
from mpsgen.scan.lines import plain_lines

if TYPE_CHECKING:
    from mpsgen.sources.metal.math_mode import MathMode

EMULATION_INCLUDE = Path(__file__).resolve().parent / "include"
# -O0: compile time dominates (a few thousand elements run in microseconds); IEEE semantics are the same.
# -fwrapv: integer arithmetic wraps on the GPU, where C++ would call signed overflow undefined.
FLAGS = ("-std=c++17", "-O0", "-fPIC", "-shared", "-fsigned-char", "-ffp-contract=off", "-fno-fast-math", "-fwrapv",
         "-Wno-attributes")
FUNCTOR_FILE = "<functor>"  # the #line name of the rendered functor in the driver
DRIVER_VERSION = "5"  # bump when driver_source or mpsgen_try_io.h's loops change shape
REGISTRATIONS_FILE = "<registrations>"  # ... and of its REGISTER_* lines
# Headers every kernels/*.metal file includes, in their order (anatomy notes, 2.1), when present.
BASE_HEADERS = ("c10/metal/indexing.h", "c10/metal/special_math.h", "c10/metal/utils.h")


def math_mode_of(include_root: str | Path) -> MathMode:
    """The math the checkout's Metal library compiles with (its Capabilities, read once per run from its
    cmake/Metal.cmake and OperationUtils.mm; an overlay root links them)."""
    from mpsgen.tree.capabilities import of_root

    return of_root(include_root).math_mode


def emulation_argv(cxx: list[str], include_root: str | Path) -> list[str]:
    """The compiler call for the emulation: its flags, the emulated stdlib force-included, the checkout's
    headers, and MPSGEN_FAST_MATH where the checkout compiles its Metal with fast math (unqualified
    functions are then the fast variants)."""
    mode = ["-DMPSGEN_FAST_MATH=1"] if math_mode_of(include_root).mode == "fast" else []
    return [*cxx, *FLAGS, *mode, "-I", str(EMULATION_INCLUDE), "-include", "metal_stdlib", "-I", str(include_root)]


class ToolMissing(MpsgenError):
    """No C++ compiler or no torch: `try` exits 2, migrate/new-op skip the check with one line."""


class Registration(NamedTuple):
    """One REGISTER_* line: Metal input type, alpha type (alpha ops), output type, opmath."""

    in_type: str
    out_type: str
    alpha_type: str | None = None
    opmath: bool = False

    @property
    def symbol(self) -> str:
        alpha = f"_{self.alpha_type}" if self.alpha_type else ""
        return f"mpsgen_try_{self.out_type}_{self.in_type}{alpha}"


class Build(NamedTuple):
    library: Path
    cached: bool
    key: str


def register_lines(spec: KernelSpec) -> list[str]:
    """render's REGISTER_* lines for *spec* in the plain style (indexing.h's macros, no file-local
    helpers such as REGISTER_FLOAT_BINARY_OP), one (in, out) pair per line."""
    from mpsgen.generate.render import render_registrations
    from mpsgen.model import MetalStyle

    plain = MetalStyle(path="<try>", local_macros=frozenset(), binary_op_args=3, binary_op_args_line=None,
                       has_unary_kernels2=False, has_unary_vec2=False, semicolon=True)
    return render_registrations(spec, plain)


def registrations(spec: KernelSpec) -> tuple[Registration, ...]:
    """The (in, out) pairs the REGISTER_* lines of *spec* instantiate, from render's own lines."""
    out: list[Registration] = []
    for line in register_lines(spec):
        m = re.fullmatch(r"(\w+)\((.*)\);", line.strip())
        assert m, line
        macro, args = m.group(1), [a.strip() for a in m.group(2).split(",")][1:]
        if "ALPHA" in macro:
            out.append(Registration(args[0], args[2], alpha_type=args[1]))
        else:
            out.append(Registration(args[0], args[1], opmath="OPMATH" in macro))
    return tuple(dict.fromkeys(out))


# -- compiler ----------------------------------------------------------------------------------


def find_compiler() -> list[str]:
    """argv of the C++ compiler: $CXX, else g++, clang++ or c++ on PATH."""
    env = os.environ.get("CXX", "").strip()
    if env:
        argv = shlex.split(env)
        if shutil.which(argv[0]) is None:
            raise ToolMissing(f"the C++ compiler CXX={env} was not found",
                              hint="install g++ or clang++ (apt-get install g++; on macOS xcode-select --install), "
                              "or set CXX to one")
        return argv
    for name in ("g++", "clang++", "c++"):
        if shutil.which(name):
            return [name]
    raise ToolMissing("no C++ compiler found (g++, clang++ or c++ on PATH) for the numeric check",
                      hint="install g++ or clang++ (apt-get install g++; on macOS xcode-select --install), or set CXX")


def _compiler_id(argv: list[str]) -> str:
    """The compiler's identity for the cache key: its resolved file's path, size and mtime (cheaper
    than running --version on every re-run; an upgrade replaces the file)."""
    path = shutil.which(argv[0]) or argv[0]
    real = os.path.realpath(path)
    st = os.stat(real)
    return f"{' '.join(argv)}|{real}|{st.st_size}|{st.st_mtime_ns}"


def cache_dir() -> Path:
    if os.environ.get("MPSGEN_CACHE_DIR"):
        return Path(os.environ["MPSGEN_CACHE_DIR"])
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "mpsgen" / "try"


# -- driver ------------------------------------------------------------------------------------


def _cxx_type(metal: str) -> str:
    return {"char": "char", "float2": "metal::float2", "half2": "metal::half2", "half": "metal::half",
            "bfloat": "metal::bfloat", "uchar": "metal::uchar"}.get(metal, metal)


def _call(spec: KernelSpec, r: Registration) -> str:
    f, ti, to = f"{spec.name}_functor", _cxx_type(r.in_type), _cxx_type(r.out_type)
    omt = f"::c10::metal::opmath_t<{ti}>" if r.opmath else ti
    if spec.arity == "unary":
        kind = "unary_cast" if spec.template_kernel else "unary"
        return f"mpsgen_try::{kind}<{f}, {ti}, {to}>(a, out, n);"
    if spec.arity == "binary":
        return f"mpsgen_try::binary<{f}, {ti}, {to}, {omt}>(a, b, out, n);"
    if spec.arity == "unary_alpha":
        return f"mpsgen_try::unary_alpha<{f}, {ti}, {_cxx_type(str(r.alpha_type))}, {to}>(a, alpha, out, n);"
    if spec.arity == "binary_alpha":
        return f"mpsgen_try::binary_alpha<{f}, {ti}, {_cxx_type(str(r.alpha_type))}, {to}>(a, b, alpha, out, n);"
    if spec.arity == "ternary_alpha":
        return f"mpsgen_try::ternary_alpha<{f}, {ti}, {_cxx_type(str(r.alpha_type))}, {to}>(a, b, c, alpha, out, n);"
    if spec.has_params:  # the struct built from its fields, passed as one value (alpha: the fields' bytes)
        from mpsgen.generate.render import scalar_type_for

        field = _cxx_type(scalar_type_for(spec, r.in_type))
        value = f"{r.alpha_type}{{" + ", ".join(f"mpsgen_try::io<{field}>::load(alpha, {k})"
                                               for k in range(len(spec.scalars))) + "}"
        inputs = {"unary_params": "a", "binary_params": "a, b"}.get(spec.arity, "a, b, c")
        kind = spec.arity.split("_")[0]
        return f"mpsgen_try::{kind}_alpha_value<{f}, {ti}, {r.alpha_type}, {to}>({inputs}, {value}, out, n);"
    return f"mpsgen_try::ternary<{f}, {ti}, {to}, {omt}>(a, b, c, out, n);"


def driver_source(spec: KernelSpec, functor: str, include_root: Path, *, registrations_checked: bool = True) -> str:
    """The C++ translation unit: headers, the functor verbatim (under #line), one entry per dtype; with
    *registrations_checked*, also the registration lines (or the kernels the change adds) that only the
    compiler's checks need (start_build compiles them with -fsyntax-only, the entries into the library)."""
    headers = [h for h in BASE_HEADERS if (include_root / h).is_file()]
    headers += [h for h in spec.includes if h not in headers]
    lines = ["// generated by mpsgen try", *(f"#include <{h}>" for h in headers), "#include <mpsgen_try_io.h>",
             "using namespace metal;"]
    if spec.is_unary_family:  # UnaryKernel.metal also has this; BinaryKernel.metal does not
        lines.append("using namespace c10::metal;")
    if spec.has_params:  # the header's struct and the .metal's typedefs, around the functor as written
        from mpsgen.generate.render import params_typedefs, render_params_struct

        lines.append(render_params_struct(spec))
    lines += [f'#line 1 "{FUNCTOR_FILE}"', functor]
    if spec.has_params:
        lines += params_typedefs(spec)
    if not registrations_checked:
        pass
    elif spec.template_kernel:
        # An early-2025 file: the template kernels as written, instantiated for every registration.
        from mpsgen.generate.template_kernel import explicit_instantiations, kernels

        lines += [f'#line 1 "{REGISTRATIONS_FILE}"', *kernels(spec), *explicit_instantiations(spec)]
    elif spec.binary_indexing and (spec.scalars or spec.arity.startswith("ternary")):
        # 2.7 with scalars or three inputs: the kernels and macro the change adds to BinaryKernel.metal, as
        # written, instantiated by the op's own registration lines.
        from mpsgen.sources.metal.binary_indexing import registrations as indexing_registrations

        lines += [f'#line 1 "{REGISTRATIONS_FILE}"', indexing_block(include_root, spec), *indexing_registrations(spec)]
    elif spec.binary_indexing:
        pass  # 2.7's own macro instantiates binary_dense<T, F>, whose result is the functor's (the loop's assert)
    elif (include_root / "c10/metal/indexing.h").is_file():
        # The registrations themselves, through the checkout's own macros: their static_assert on
        # the functor's result type and the real kernel templates instantiated for it.
        lines += [f'#line 1 "{REGISTRATIONS_FILE}"', *register_lines(spec)]
    lines.append('#line 1 "<driver>"')
    for r in registrations(spec):
        lines.append(f'extern "C" void {r.symbol}(const void* a, const void* b, const void* c, const void* alpha, '
                     f"void* out, long n) {{ (void)b; (void)c; (void)alpha; {_call(spec, r)} }}")
    return "\n".join(lines) + "\n"


BINARY_METAL = "aten/src/ATen/native/mps/kernels/BinaryKernel.metal"


def indexing_block(include_root: Path, spec: KernelSpec) -> str:
    """2.7: the alpha kernels and REGISTER_BINARY_ALPHA_INDEXING_OP of BinaryKernel.metal (or the ternary
    kernels and REGISTER_TERNARY_(ALPHA_)INDEXING_OP for a ternary *spec*), as the checkout has them or as
    the change adds them (derived from the same file's siblings); "" for a 2.7 binary kernel without
    scalars, which the file's own macro instantiates."""
    from mpsgen.backfill import binary_alpha_metal
    from mpsgen.backfill import ternary_metal

    path = include_root / BINARY_METAL
    if not spec.binary_indexing or not path.is_file():
        return ""
    text = path.read_text(encoding="utf-8")
    if spec.arity == "ternary" and spec.bool_inputs:  # where's (backfill/ternary_cond)
        from mpsgen.backfill import ternary_cond

        return ternary_cond.block_in(text, BINARY_METAL)
    if spec.arity.startswith("ternary"):
        return ternary_metal.block_in(text, BINARY_METAL, alpha=bool(spec.scalars))
    return binary_alpha_metal.block_in(text, BINARY_METAL) if spec.scalars else ""


def _header_digest(include_root: Path) -> str:
    h = hashlib.sha256()
    for folder in (EMULATION_INCLUDE, include_root / "c10" / "metal"):
        for p in sorted(folder.glob("*")):
            if p.is_file():
                h.update(p.name.encode() + b"\0" + p.read_bytes())
    return h.hexdigest()


class PendingBuild:
    """A compile running in the background (torch imports meanwhile); wait() gives the Build.

    Two compiler runs at once: the whole source with -fsyntax-only (the functor and the registrations,
    whose static_asserts and kernel templates only need checking), and the source without the
    registrations into the library (the registrations' code generation was ~60% of a build)."""

    def __init__(self, build: Build, processes: tuple[subprocess.Popen[str], ...] = (),
                 files: tuple[Path, ...] = (), tmp: Path | None = None, functor: str = "",
                 expressions: dict[str, str] | None = None) -> None:
        self.build, self._processes, self._files, self._tmp = build, processes, files, tmp
        self._functor, self._expressions = functor, expressions or {}

    def wait(self) -> Build:
        if not self._processes:
            return self.build
        try:
            # the check's errors first: they hold the functor's own and the registrations'
            for process in self._processes:
                _, stderr = process.communicate()
                if process.returncode != 0:
                    raise compile_error(stderr, self._functor, self._expressions)
            assert self._tmp is not None
            os.replace(str(self._tmp), self.build.library)  # atomic: concurrent runs see all or nothing
        finally:
            for process in self._processes:
                if process.poll() is None:
                    process.kill()
                    process.wait()
            self._processes = ()
            for p in (*self._files, self._tmp):
                if p is not None:
                    p.unlink(missing_ok=True)
        return self.build


class BuildPlan(NamedTuple):
    """Where a functor's library goes (its cache key: content, not paths) and the compiler call making it."""

    key: str
    library: Path
    argv: list[str]  # the compiler and flags, without the precompiled preamble (compiler_argv adds it)
    preamble_key: str  # the flags, headers and compiler: what the preamble's precompiled header depends on


def build_plan(spec: KernelSpec, functor: str, include_root: str | Path) -> BuildPlan:
    """The cache key and compiler call of *functor*'s library (nothing compiled)."""
    root = Path(include_root)
    cxx = find_compiler()
    # Content, not paths: the same headers in another checkout reuse the build.  The spec and the
    # functor determine the driver source (rendered only on a miss: it needs the .metal style code).
    written = indexing_block(root, spec)
    argv = emulation_argv(cxx, root)
    # the math mode (and where it was read, which the cached result's backend names) is part of the key
    flags = " ".join(a for a in argv if a.startswith("-") and not a.startswith("-I")) + f" {math_mode_of(root)}"
    headers = _header_digest(root)
    key = hashlib.sha256("\0".join([DRIVER_VERSION, repr(sorted(spec._asdict().items())), functor, flags,
                                    headers, _compiler_id(cxx), written]).encode()).hexdigest()[:32]
    return BuildPlan(key, cache_dir() / f"{key}.so", argv, "\0".join([flags, headers, _compiler_id(cxx)]))


def compiler_argv(plan: BuildPlan, include_root: str | Path) -> list[str]:
    """*plan*'s compiler call with the emulation's headers precompiled (preamble.py; built on first use)."""
    from mpsgen.emulate.preamble import with_preamble

    root = Path(include_root)
    return with_preamble(plan.argv, [h for h in BASE_HEADERS if (root / h).is_file()], plan.preamble_key,
                         cache_dir())


def start_build(spec: KernelSpec, functor: str, include_root: str | Path, *,
                expressions: dict[str, str]) -> PendingBuild:
    """Start compiling *functor* (or find it in the cache).

    *expressions* maps a flag name (``--expr``) to the expression text, for error messages.
    """
    root = Path(include_root)
    plan = build_plan(spec, functor, root)
    key, lib, folder = plan.key, plan.library, plan.library.parent
    if lib.is_file():
        return PendingBuild(Build(lib, True, key))
    argv = compiler_argv(plan, root)
    checked = driver_source(spec, functor, root)
    source = driver_source(spec, functor, root, registrations_checked=False)
    folder.mkdir(parents=True, exist_ok=True)
    src = folder / f"{key}.{os.getpid()}.cpp"
    tmp = folder / f"{key}.{os.getpid()}.so"
    src.write_text(source, encoding="utf-8")
    runs = []
    files = [src]
    if checked != source:
        check_src = folder / f"{key}.{os.getpid()}.check.cpp"
        check_src.write_text(checked, encoding="utf-8")
        files.append(check_src)
        runs.append([*argv, "-fsyntax-only", "-x", "c++", str(check_src)])
    runs.append([*argv, "-x", "c++", str(src), "-o", str(tmp)])
    processes = tuple(subprocess.Popen(run, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
                      for run in runs)
    return PendingBuild(Build(lib, False, key), processes, tuple(files), tmp, functor, expressions)


def build(spec: KernelSpec, functor: str, include_root: str | Path, *, expressions: dict[str, str]) -> Build:
    """Compile (or reuse from the cache) the shared library for *functor*."""
    return start_build(spec, functor, include_root, expressions=expressions).wait()


# -- errors ------------------------------------------------------------------------------------

_DIAG = re.compile(r"^(?P<file>[^:\n]+):(?P<line>\d+):(?P<col>\d+): (?:fatal )?error: (?P<msg>.*)$", re.M)


class CompileError(MpsgenError):
    """The functor does not compile (the first compiler error, one line)."""


def compile_error(stderr: str, functor: str, expressions: dict[str, str]) -> CompileError:
    """The first compiler error, mapped onto the user's expression when it points into one."""
    diags = list(_DIAG.finditer(stderr))
    if not diags:
        tail = " ".join(plain_lines(stderr.strip())[-3:]) or "no message"
        return CompileError(f"the generated functor does not compile: {tail}")
    inside = ([d for d in diags if d.group("file") == FUNCTOR_FILE]
              or [d for d in diags if d.group("file") == REGISTRATIONS_FILE] or diags)
    d = inside[0]
    msg = d.group("msg").replace("‘", "'").replace("’", "'")
    from_registrations = f"{REGISTRATIONS_FILE}:" in stderr and "static assertion failed" in msg
    if d.group("file") == REGISTRATIONS_FILE or (d.group("file") != FUNCTOR_FILE and from_registrations):
        return CompileError(f"the functor does not fit its registration: {msg}",
                           hint="each branch must return the registered output type (T for float types, "
                           "float for int2float, bool for bool results)")
    if d.group("file") == FUNCTOR_FILE:
        text = plain_lines(functor)[int(d.group("line")) - 1]
        col = int(d.group("col")) - 1  # 0-based in the line
        for flag, expr in expressions.items():
            start = text.find(expr)
            if expr and start >= 0 and start <= col <= start + len(expr):
                return CompileError(f"{flag}:1:{col - start + 1}: error: {msg}",
                                   hint=f"in `{expr}` (column {col - start + 1}); the functor is compiled against "
                                   "the checkout's c10/metal headers")
        return CompileError(f"functor line {d.group('line')}:{d.group('col')}: error: {msg}",
                           hint=f"the line is `{text.strip()}`")
    where = Path(d.group("file")).name
    return CompileError(f"the functor does not compile ({where}:{d.group('line')}: error: {msg})",
                       hint="check the expression's types against c10/metal (e.g. float(x) for math functions)")
