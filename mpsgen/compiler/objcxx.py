"""The no-Mac compile check of an operations/*.mm file: Objective-C++ -fsyntax-only through libclang.

The file is parsed as the build parses it (caffe2/CMakeLists.txt, cmake/Codegen.cmake): Objective-C++
in the checkout's C++ standard, USE_MPS, per-operator headers, the torch_cpu definitions, the
checkout's include folders and the headers a build generates (aten_headers.py). What needs a Mac, the
Apple frameworks, comes from mpsgen's own stand-ins in apple/: the types, constants and non-object
methods the MPS sources use, so that a C++ break (an undeclared function, a missing include, a
kernel whose signature no longer fits its stub) is an error here as it is on a Mac.

libclang is the pip wheel (libclang==18.1.1): it bundles the front end but not clang's resource
headers (stddef.h, stdarg.h, ...), which come from the host C compiler (`cc -print-file-name=include`).
The file's #include block is compiled once into a PCH kept in mpsgen's cache (preamble.py), so that a
file parsed again (its HEAD version, then each change's edited one) costs well under a second; a
caller may have the bodies of the headers' functions skipped, for speed (tu_options).
"""

from __future__ import annotations

import functools
import os
import re
import shutil
import subprocess
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping

from mpsgen.compiler.diagnostic import ERROR, Diagnostic
from mpsgen.errors import MpsgenError
from mpsgen.scan.lines import plain_lines

if TYPE_CHECKING:
    from clang import cindex

APPLE_STUBS = Path(__file__).resolve().parent / "apple"
INSTALL_HINT = "pip install libclang==18.1.1"
# Definitions the build gives every ATen source of an MPS build (CMakeLists.txt's CMAKE_OBJCXX_FLAGS,
# torch_cpu's target definitions, the fmt-header-only target it links).
DEFINES = ("USE_MPS", "AT_PER_OPERATOR_HEADERS", "CAFFE2_BUILD_MAIN_LIB", "FMT_HEADER_ONLY=1")
# A Mac's predefined macros instead of Linux's, on the host's target: the sources' Apple branches
# (c10's overloads for `long` beside int64_t, which is `long long` there: apple/bits/) are the ones
# a Mac compiles.
PLATFORM = ("-D__APPLE__=1", "-D__MACH__=1", "-U__linux__", "-U__linux", "-Ulinux", "-U__gnu_linux__")
# Flags of the Objective-C++ front end: blocks and the Apple runtime, as clang on macOS has them, and
# manual reference counting (-fno-objc-arc, as CMakeLists.txt asks).
OBJC_FLAGS = ("-x", "objective-c++", "-fblocks", "-fobjc-runtime=macosx-14.0", "-fno-objc-arc")
# The stubs leave out most of MPSGraph's operations and other object-returning methods: a send to an
# undeclared method is legal Objective-C with this warning, which is all the looseness costs (the
# other is CMakeLists.txt's own). Every error is reported, not the first 20.
QUIET = ("-Wno-objc-method-access", "-Wno-unguarded-availability-new", "-ferror-limit=0")


class CompilerUnavailable(MpsgenError):
    """libclang, the C compiler's builtin headers or the ATen headers are missing: the check cannot run."""


def compile_mm(root: Path, rel: str, text: str, *, overlay: Mapping[str, str] = {},
               yaml_text: str | None = None, cache_dir: Path | None = None,
               skip_header_bodies: bool = False) -> list[Diagnostic]:
    """Objective-C++ -fsyntax-only of *text* as if it were the file root/rel (see the module doc).

    *overlay* maps checkout-relative paths to the texts of headers the change edits; *yaml_text* is
    the native_functions.yaml the ATen headers are generated from (None: the checkout's). Returns
    the errors located in *rel*; an error inside a header is reported at the #include line of *rel*
    that leads to it, with the header's path:line in the message. *skip_header_bodies* trades
    fidelity for speed (tu_options): the caller passes False when the headers it overlays are ones
    whose bodies it wants checked."""
    from mpsgen.compiler.aten_headers import GenerationFailed, generated_include_dir
    from mpsgen.compiler.derived_headers import removed_kernels_only, without_kernels
    from mpsgen.compiler.memo import key_of, remembered
    from mpsgen.compiler.preamble import KEEP_ERRORS, preamble_for

    root = root.resolve()
    index = _index()
    disk_yaml = _read(root / YAML_REL)
    removed = [] if yaml_text is None or yaml_text == disk_yaml else \
        None if disk_yaml is None else removed_kernels_only(disk_yaml, yaml_text)
    try:  # a yaml that only names fewer kernels: the checkout's header set, those declarations taken out
        generated = generated_include_dir(root, yaml_text if removed is None else None,
                                          None if cache_dir is None else cache_dir / "aten-headers")
    except GenerationFailed as e:
        raise CompilerUnavailable(e.message, path=e.path, hint=e.hint) from None
    derived = without_kernels(generated, removed or [])
    args = compile_args(root, generated)
    path = str(root / rel)
    overlaid = [(str(root / p), t) for p, t in overlay.items() if p != rel]
    unsaved = [(path, text), *overlaid, *derived.items()]
    skip = skip_header_bodies
    options = tu_options(skip_header_bodies=skip)

    def compile_now() -> tuple[list[Diagnostic], list[str]]:
        block = None if cache_dir is None else \
            preamble_for(index, root, rel, text, args, SKIP_FUNCTION_BODIES if skip else 0, cache_dir,
                         overlay=overlaid, derived=list(derived.items()))
        if block is None:
            tu = _parse(index, path, args, unsaved, options)
            chains: dict[str, tuple[str, int]] = {}
        else:  # the file behind its #include block's PCH: the block's headers are not parsed again
            tu = _parse_once(index, path, [*args, *KEEP_ERRORS, "-include-pch", block.path], unsaved)
            chains = {h: (path if src == block.header else src, line) for h, (src, line) in block.included_from.items()}
            # the block's errors sit in its header, which stands for the file (same line numbers)
            block = block._replace(errors=tuple((path if f == block.header else f, line, col, message)
                                                for f, line, col, message in block.errors))
        read = [str(inc.include.name) for inc in tu.get_includes() if inc.include is not None]
        read += block.deps if block is not None else ()
        errors = [(str(d.location.file.name) if d.location.file is not None else None, d.location.line,
                   d.location.column, d.spelling) for d in tu.diagnostics if d.severity >= ERROR_SEVERITY]
        errors = [*(block.errors if block is not None else ()), *errors]  # the block's own, then the file's
        return _placed(errors, root, rel, generated, {**chains, **_include_chains(tu)}), \
            [p for p in read if p not in derived]

    key = key_of(rel, text, repr(sorted(overlay.items())), repr(sorted(derived.items())), " ".join(args), str(options))
    return remembered(cache_dir, key, compile_now)


YAML_REL = "aten/src/ATen/native/native_functions.yaml"


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except OSError:
        return None


def compile_args(root: Path, generated: Path) -> list[str]:
    """The compiler arguments of an operations/*.mm file of *root* (no file name)."""
    includes = [root / "aten/src", generated, root, root / "torch/csrc/api/include", root / "torch/csrc",
                _fmt_include(root), APPLE_STUBS]
    return [*OBJC_FLAGS, f"-std={cxx_standard(root)}", *(f"-D{d}" for d in DEFINES), *PLATFORM,
            *objcxx_flags(root), *(f"-I{p}" for p in includes), "-isystem", _builtin_include_dir(), *QUIET]


def cxx_standard(root: Path) -> str:
    """The C++ standard the checkout's CMakeLists.txt sets (Objective-C++ follows CMAKE_CXX_STANDARD)."""
    m = re.search(r"set\(\s*CMAKE_CXX_STANDARD\s+(\d+)", _cmakelists(root))
    return f"c++{m.group(1) if m else '17'}"


def objcxx_flags(root: Path) -> list[str]:
    """The definitions, warnings and -f flags CMakeLists.txt appends to CMAKE_OBJCXX_FLAGS (2.7: -DUSE_MPS
    -fno-objc-arc -Wno-unguarded-availability-new); a flag made of cmake variables is left out."""
    flags: list[str] = []
    text = _cmakelists(root)
    for m in re.finditer(r'string\(\s*APPEND\s+CMAKE_OBJCXX_FLAGS\s+"([^"]*)"\s*\)'
                         r'|append_cxx_flag_if_supported\(\s*"([^"]*)"\s+CMAKE_OBJCXX_FLAGS\s*\)', text):
        for flag in (m.group(1) or m.group(2)).split():
            if flag[:2] in ("-D", "-W", "-f") and "$" not in flag and flag not in flags:
                flags.append(flag)
    return flags


def _cmakelists(root: Path) -> str:
    try:
        return (root / "CMakeLists.txt").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""


def _fmt_include(root: Path) -> Path:
    """fmt's headers: the checkout's submodule, or (a checkout without submodules) the copy torch installs."""
    own = root / "third_party/fmt/include"
    if (own / "fmt").is_dir():
        return own
    import importlib.util

    spec = importlib.util.find_spec("torch")
    if spec and spec.origin:
        installed = Path(spec.origin).parent / "include"
        if (installed / "fmt").is_dir():
            return installed
    raise CompilerUnavailable("fmt's headers are missing: the checkout has no third_party/fmt/include",
                              path=root, hint="git submodule update --init third_party/fmt")


@functools.lru_cache(maxsize=1)
def _builtin_include_dir() -> str:
    """The C compiler's builtin headers (stddef.h, stdarg.h, ...): the libclang wheel has none."""
    for cc in ("cc", "gcc", "clang"):
        exe = shutil.which(cc)
        if exe is None:
            continue
        try:
            out = subprocess.run([exe, "-print-file-name=include"], capture_output=True, text=True, timeout=30)
        except (OSError, subprocess.TimeoutExpired):
            continue
        folder = out.stdout.strip()
        if out.returncode == 0 and os.path.isfile(os.path.join(folder, "stddef.h")):
            return folder
    raise CompilerUnavailable("no C compiler's builtin headers (stddef.h) for libclang",
                              hint="install a C compiler (gcc or clang)")


@functools.lru_cache(maxsize=1)
def _index() -> "cindex.Index":
    try:
        from clang import cindex
    except ImportError:
        raise CompilerUnavailable("libclang is not installed", hint=INSTALL_HINT) from None
    try:
        return cindex.Index.create()
    except Exception as e:  # the bindings without their shared library: LibclangError, OSError
        raise CompilerUnavailable(f"libclang cannot be loaded ({(plain_lines(str(e)) or [''])[0]})", hint=INSTALL_HINT) from None


# libclang's translation-unit options (CXTranslationUnit_*; the Python bindings name only some).
PRECOMPILED_PREAMBLE = 0x04  # the #include block is compiled once and reused by a reparse
CREATE_PREAMBLE_ON_FIRST_PARSE = 0x100  # ... already by the first parse, not the first reparse
SKIP_FUNCTION_BODIES = 0x40  # with the next one: bodies of functions in the #include block's headers
LIMIT_SKIP_FUNCTION_BODIES_TO_PREAMBLE = 0x800  # are skipped (clangd does the same); the file's are not


def tu_options(*, skip_header_bodies: bool) -> int:
    """The parse options. Skipping the bodies of the headers' functions makes a cold parse of a 2.7
    .mm file ~6 s of CPU instead of ~12 s, and a warm one 0.3 s instead of ~3 s, but a skipped body
    is never checked nor instantiated: an error inside a header's inline function or template body
    that the file causes (a template instantiated with a type it cannot take) goes unseen. A call
    that fits no declaration is an error either way."""
    options = PRECOMPILED_PREAMBLE | CREATE_PREAMBLE_ON_FIRST_PARSE
    return options | SKIP_FUNCTION_BODIES | LIMIT_SKIP_FUNCTION_BODIES_TO_PREAMBLE if skip_header_bodies else options


# One parsed translation unit per (file, arguments, options), parsed again with the new texts:
# libclang then reuses the precompiled preamble as long as the #include block and its files are
# unchanged (compiling a file's HEAD version, then its edited one, costs one cold parse).
_UNITS: dict[tuple[str, tuple[str, ...], int], Any] = {}
_UNITS_KEPT = 2
_LOCK = threading.Lock()


def _parse(index: "cindex.Index", path: str, args: list[str], unsaved: list[tuple[str, str]],
           options: int) -> "cindex.TranslationUnit":
    from clang import cindex

    key = (path, tuple(args), options)
    with _LOCK:
        tu = _UNITS.pop(key, None)
        if tu is not None:
            tu.reparse(unsaved_files=unsaved)
        else:
            try:
                tu = index.parse(path, args=args, unsaved_files=unsaved, options=options)
            except cindex.TranslationUnitLoadError as e:
                raise CompilerUnavailable(f"libclang could not parse {path}: {e}", hint=INSTALL_HINT) from None
        _UNITS[key] = tu
        while len(_UNITS) > _UNITS_KEPT:
            _UNITS.pop(next(iter(_UNITS)))
        return tu


def _parse_once(index: "cindex.Index", path: str, args: list[str],
                unsaved: list[tuple[str, str]]) -> "cindex.TranslationUnit":
    """A parse behind a PCH: cheap enough that nothing is kept for a reparse."""
    from clang import cindex

    try:
        return index.parse(path, args=args, unsaved_files=unsaved, options=0)
    except cindex.TranslationUnitLoadError as e:
        raise CompilerUnavailable(f"libclang could not parse {path}: {e}", hint=INSTALL_HINT) from None


ERROR_SEVERITY = 3  # cindex.Diagnostic.Error


def _include_chains(tu: "cindex.TranslationUnit") -> dict[str, tuple[str, int]]:
    """header -> (the file including it, the #include's line), for every header *tu* read."""
    return {str(inc.include.name): (str(inc.source.name), inc.location.line)
            for inc in tu.get_includes() if inc.include is not None and inc.source is not None}


def _placed(errors: list[tuple[str | None, int, int, str]], root: Path, rel: str, generated: Path,
            included_from: dict[str, tuple[str, int]]) -> list[Diagnostic]:
    """Errors (file, line, column, message) as diagnostics of *rel*: one in a header at the #include of
    *rel* that leads there, the header's path:line in the message."""
    path = str(root / rel)
    out: list[Diagnostic] = []
    for where, line, column, message in errors:
        if where == path:
            out.append(Diagnostic(rel, line, column, ERROR, message))
            continue
        place = f"{_shown(where, root, generated)}:{line}: " if where else ""
        out.append(Diagnostic(rel, _include_line(where, path, included_from), 1, ERROR, f"{place}{message}"))
    return out


def _include_line(header: str | None, path: str, included_from: dict[str, tuple[str, int]]) -> int:
    """The line of *path*'s #include that leads to *header* (1 when there is none)."""
    seen = set()
    while header is not None and header not in seen:
        seen.add(header)
        source, line = included_from.get(header, (None, 0))
        if source == path:
            return line
        header = source
    return 1


def _shown(file: str, root: Path, generated: Path) -> str:
    """A header's path as a message shows it: relative to the checkout, the generated headers or mpsgen's
    stubs (the same words whichever yaml the headers were generated from, so that HEAD's and the
    change's diagnostics match)."""
    for base, prefix in ((generated, "<generated>/"), (root, ""), (APPLE_STUBS, "<mpsgen apple stubs>/")):
        try:
            return prefix + Path(file).relative_to(base).as_posix()
        except ValueError:
            pass
    return file
