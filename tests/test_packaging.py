"""`pip install .` (not editable) must give a working mpsgen with its templates and sample tree."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
# One worker builds the wheel for all of them: two `pip wheel` runs in the same source folder race on its build/.
pytestmark = pytest.mark.xdist_group("wheel")


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(out), str(REPO)],
        check=True,
        capture_output=True,
    )
    (whl,) = out.glob("mpsgen-*.whl")
    return whl


def test_wheel_ships_every_module_template_and_sample_file(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    modules = {f"mpsgen/{p.relative_to(REPO / 'mpsgen').as_posix()}" for p in (REPO / "mpsgen").rglob("*.py")}
    templates = {f"mpsgen/templates/{p.relative_to(REPO / 'templates').as_posix()}" for p in (REPO / "templates").rglob("*")
                 if p.suffix in {".j2", ".yaml", ".metal"}}
    assert any(t.startswith("mpsgen/templates/c10_shims/") for t in templates)  # the stand-ins' Metal
    sample = REPO / "fixtures" / "sample"
    tracked = subprocess.run(["git", "ls-files", "fixtures/sample"], cwd=REPO, capture_output=True, text=True).stdout
    sample_files = {f"mpsgen/sample_tree/{Path(f).relative_to('fixtures/sample').as_posix()}" for f in tracked.split()}
    assert modules - names == set()
    assert templates and templates - names == set()
    assert (sample / "build" / "build.ninja").is_file() and sample_files - names == set()


def test_installed_wheel_writes_sample_and_renders_from_its_templates(wheel: Path, tmp_path: Path) -> None:
    # Install only mpsgen from the wheel into its own folder, put it first on the path; the
    # dependencies come from the running environment.
    site = tmp_path / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(site), str(wheel)],
                   check=True, capture_output=True)
    env = {**os.environ, "PYTHONPATH": str(site)}
    code = "import sys; from mpsgen.cli import main; sys.argv = ['mpsgen'] + sys.argv[1:]; main()"

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, cwd=tmp_path,
                              env=env)

    made = run("sample", str(tmp_path / "pt"))
    assert made.returncode == 0, made.stderr
    assert (tmp_path / "pt" / "aten/src/ATen/native/native_functions.yaml").is_file()
    printed = run("-C", str(tmp_path / "pt"), "migrate", "atan2", "--print")
    assert printed.returncode == 0, printed.stderr
    assert "struct atan2_functor {" in printed.stdout
    assert 'lib.exec_binary_kernel(iter, "atan2");' in printed.stdout
    # The installed copy, not the source tree, provided the templates and the sample.
    where = subprocess.run([sys.executable, "-c", "import mpsgen.generate.render as r, mpsgen.tree.sample as s; "
                            "print(r.default_templates_dir()); print(s.sample_source())"],
                           capture_output=True, text=True, cwd=tmp_path, env=env).stdout.split()
    assert all(w.startswith(str(site)) for w in where) and len(where) == 2


def test_wheel_ships_the_metal_emulation_headers_of_try(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    headers = {f"mpsgen/emulate/include/{p.name}" for p in (REPO / "mpsgen" / "emulate" / "include").iterdir()}
    assert "mpsgen/emulate/include/metal_stdlib" in headers and "mpsgen/emulate/include/mpsgen_try_io.h" in headers
    assert headers - names == set()


def test_wheel_ships_the_apple_framework_stubs_of_the_mm_check(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    stubs = REPO / "mpsgen" / "compiler" / "apple"
    headers = {f"mpsgen/compiler/apple/{p.relative_to(stubs).as_posix()}" for p in stubs.rglob("*.h")}
    assert "mpsgen/compiler/apple/Foundation/Foundation.h" in headers and "mpsgen/compiler/apple/bits/stdint-intn.h" in headers
    assert headers - names == set()
