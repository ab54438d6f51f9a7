"""The headers a PyTorch build generates before it compiles ATen, made for a checkout that was never built.

Two kinds: the ATen headers torchgen writes from native_functions.yaml (ATen/ops/*.h, Functions.h,
NativeFunctions.h, core/TensorBody.h, ...), run with the checkout's own torchgen exactly as
cmake/Codegen.cmake runs it for an MPS build (``--per-operator-headers --mps``, headers only); and
the configure-time headers (c10/macros/cmake_macros.h, ATen/Config.h, caffe2/core/macros.h),
substituted from the checkout's *.h.in templates with the values of a macOS build with MPS.

Generation takes ~15 s and ~40 MB, so a set is kept under mpsgen's cache folder (beside the fact
cache, never in the checkout), keyed by what it is made from: the yaml text, tags.yaml, the torchgen
package and the templates. A set is written into a temporary folder and renamed into place, so
concurrent callers each see either no set or a whole one; only the few most recently used are kept.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from mpsgen.errors import MpsgenError
from mpsgen.scan.lines import plain_lines
from mpsgen.tree.factcache import cache_root

FORMAT = "2"  # bump when what this module writes into a set changes
KEEP = 6  # header sets kept in the cache (a migrate run makes one per yaml it checks), ~40 MB each
IDLE = 900  # seconds a set beyond KEEP stays after its last use
YAML_REL = "aten/src/ATen/native/native_functions.yaml"
TAGS_REL = "aten/src/ATen/native/tags.yaml"
ATEN_REL = "aten/src/ATen"
_COMPLETE = ".complete"  # written last into a set: a folder without it is not used

# The configure-time headers: template in the checkout -> where the build writes the result.
CONFIGURED = {
    "c10/macros/cmake_macros.h.in": "c10/macros/cmake_macros.h",
    "aten/src/ATen/Config.h.in": "ATen/Config.h",
    "caffe2/core/macros.h.in": "caffe2/core/macros.h",
}
# The cmake settings of a macOS arm64 build with USE_MPS (no CUDA, no MKL, no OpenMP: PyTorch's own
# native thread pool, pocketfft, Accelerate's BLAS/LAPACK); a variable not named here is off / 0.
CMAKE_ON = frozenset({"C10_BUILD_SHARED_LIBS", "CAFFE2_BUILD_SHARED_LIBS", "CAFFE2_USE_EXCEPTION_PTR",
                      "CAFFE2_USE_ACCELERATE", "USE_MPS"})
CMAKE_VALUES = {"AT_POCKETFFT_ENABLED": "1", "AT_BUILD_WITH_BLAS": "1", "AT_BUILD_WITH_LAPACK": "1",
                "AT_PARALLEL_NATIVE": "1", "AT_BLAS_USE_CBLAS_DOT": "1"}


class GenerationFailed(MpsgenError):
    """torchgen could not make the ATen headers of this checkout (objcxx turns it into CompilerUnavailable)."""


def configure(template: str) -> str:
    """cmake's configure_file for *template* with the settings above."""

    def cmakedefine(m: re.Match[str]) -> str:
        kind, name = m.group(1), m.group(2)
        on = _setting(name) not in ("0", "")
        if kind == "01":
            return f"#define {name} {int(on)}"
        return f"#define {name}{m.group(3)}" if on else f"/* #undef {name} */"

    text = re.sub(r"#cmakedefine(01)?[ \t]+(\w+)([^\n]*)", cmakedefine, template)
    return re.sub(r"@(\w+)@|\$\{(\w+)\}", lambda m: _setting(m.group(1) or m.group(2)), text)


def _setting(name: str) -> str:
    return "ON" if name in CMAKE_ON else CMAKE_VALUES.get(name, "0")


def _fingerprint(root: Path, yaml_text: str) -> str:
    """A digest of everything a header set is made from."""
    h = hashlib.sha256(f"{FORMAT}\0{sys.version_info[:2]}\0".encode())
    h.update(yaml_text.encode("utf-8", "surrogatepass"))
    sources = [root / TAGS_REL] + [root / t for t in CONFIGURED]
    for folder in (root / "torchgen", root / ATEN_REL / "templates"):
        sources += sorted(p for p in folder.rglob("*") if p.is_file() and "__pycache__" not in p.parts)
    for path in sources:
        h.update(f"\0{path.relative_to(root)}\0".encode())
        try:
            h.update(path.read_bytes())
        except OSError:
            h.update(b"<absent>")
    return h.hexdigest()[:24]


def generated_include_dir(root: Path, yaml_text: str | None = None, cache_dir: Path | None = None) -> Path:
    """The folder to put on the include path (it holds ATen/..., c10/macros/..., caffe2/core/...), made
    from *yaml_text* (None: the checkout's yaml on disk) or taken from the cache."""
    if yaml_text is None:
        try:
            yaml_text = (root / YAML_REL).read_text(encoding="utf-8")
        except OSError as e:
            raise GenerationFailed(f"cannot read {YAML_REL}: {e.strerror}", path=root / YAML_REL) from None
    store = cache_dir if cache_dir is not None else cache_root() / "aten-headers"
    final = store / _fingerprint(root, yaml_text)
    try:
        os.utime(final / _COMPLETE)  # most recently used: kept by the pruning below
        return final
    except OSError:  # not made yet (or pruned just now)
        pass
    store.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=".making-", dir=store))
    try:
        _generate(root, yaml_text, work)
        (work / _COMPLETE).write_text("")
        try:
            os.rename(work, final)
        except OSError:  # another process renamed its set first: the same content, use it
            if not (final / _COMPLETE).exists():
                raise
    finally:
        shutil.rmtree(work, ignore_errors=True)
    _prune(store, keep=final)
    return final


def _generate(root: Path, yaml_text: str, out: Path) -> None:
    missing = [rel for rel in (TAGS_REL, f"{ATEN_REL}/templates") if not (root / rel).exists()]
    if missing:  # a partial checkout (the sample): torchgen has nothing to generate from
        raise GenerationFailed(f"the checkout has no {' and no '.join(missing)} to generate the ATen headers from",
                               path=root, hint="run the compile check on a full PyTorch checkout")
    source = root / ATEN_REL
    if yaml_text != _read_or_none(root / YAML_REL):
        source = _source_with_yaml(root, yaml_text, out / ".source")
    errors = []
    # The checkout's torchgen first (the headers it writes match the checkout's own headers); a tree
    # whose yaml is newer than its torchgen (the 2026-shaped tree has a 2.13 yaml beside 2.7's
    # torchgen) falls back on the torchgen installed with torch, run on the same templates.
    for pythonpath in ([str(root)] if (root / "torchgen").is_dir() else []) + [None]:
        err = _run_torchgen(source, out / "ATen", pythonpath, cwd=out)
        if err is None:
            shutil.rmtree(out / ".source", ignore_errors=True)
            shutil.rmtree(out / ".aoti", ignore_errors=True)
            _configure_headers(root, out)
            return
        errors.append(f"{'the checkout' if pythonpath else 'the installed'} torchgen: {err}")
    raise GenerationFailed("cannot generate the ATen headers: " + "; ".join(errors),
                           hint="the checkout's torchgen and the torch installed with mpsgen both failed on this yaml")


def _configure_headers(root: Path, out: Path) -> None:
    for template, target in CONFIGURED.items():
        if (root / template).is_file():
            (out / target).parent.mkdir(parents=True, exist_ok=True)
            (out / target).write_text(configure((root / template).read_text(encoding="utf-8")), encoding="utf-8")


def _run_torchgen(source: Path, install: Path, pythonpath: str | None, *, cwd: Path) -> str | None:
    """None, or the last line torchgen printed when it failed."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    if pythonpath:
        env["PYTHONPATH"] = pythonpath
    shutil.rmtree(install, ignore_errors=True)
    argv = [sys.executable, "-m", "torchgen.gen", "--source-path", str(source), "--install_dir", str(install),
            "--aoti_install_dir", str(cwd / ".aoti"), "--per-operator-headers", "--mps", "--generate", "headers"]
    try:
        done = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=600)
    except (OSError, subprocess.TimeoutExpired) as e:
        return str(e)
    if done.returncode == 0 and (install / "ops").is_dir():
        return None
    lines = [ln for ln in plain_lines(done.stderr or done.stdout) if ln.strip()]
    return lines[-1].strip() if lines else f"exit status {done.returncode}"


def _source_with_yaml(root: Path, yaml_text: str, folder: Path) -> Path:
    """A --source-path that is the checkout's aten/src/ATen with *yaml_text* as its yaml: torchgen
    reads native/native_functions.yaml, native/tags.yaml and templates/ from it."""
    (folder / "native").mkdir(parents=True)
    (folder / "native" / "native_functions.yaml").write_text(yaml_text, encoding="utf-8")
    shutil.copyfile(root / TAGS_REL, folder / "native" / "tags.yaml")
    os.symlink(root / ATEN_REL / "templates", folder / "templates")
    return folder


def _read_or_none(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except OSError:
        return None


def _prune(store: Path, *, keep: Path) -> None:
    """Remove the sets beyond the KEEP most recently used that no one used for IDLE seconds (another
    process may be compiling against one), and folders of runs that died half-way."""
    sets = []
    for folder in store.iterdir():
        marker = folder / _COMPLETE
        if marker.exists():
            sets.append((marker.stat().st_mtime, folder))
        elif folder.name.startswith(".making-") and _older_than(folder, IDLE):
            shutil.rmtree(folder, ignore_errors=True)
    sets.sort(reverse=True)
    for _, folder in sets[KEEP:]:
        if folder != keep and _older_than(folder / _COMPLETE, IDLE):
            shutil.rmtree(folder, ignore_errors=True)


def _older_than(path: Path, seconds: float) -> bool:
    try:
        return time.time() - path.stat().st_mtime > seconds
    except OSError:
        return False
