"""mypy over the package, as configured in pyproject.toml ([tool.mypy]): CI runs it through this test,
so a type error fails the README's test command like any other test."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def test_mypy_finds_no_error_in_the_package():
    done = subprocess.run([sys.executable, "-m", "mypy"], cwd=REPO, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.startswith("Success: no issues found"), done.stdout


def test_every_function_of_the_package_is_typed():
    """disallow_untyped_defs holds for the whole package (issue 40), not only for a list of modules, and no
    override turns it off again; the mypy run above then vouches that every parameter and result is typed."""
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib
    config = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["mypy"]
    assert config.get("disallow_untyped_defs") is True
    assert [o["module"] for o in config.get("overrides", []) if "disallow_untyped_defs" in o] == []
