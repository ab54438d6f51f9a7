"""The formatter process a plan runs: the pinned clang-format of the `clang-format` wheel (generate/
clang_format.py decides which lines to lay out and whether to keep the result)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path


def clang_format_executable() -> str | None:
    """The pinned clang-format of the `clang-format` wheel (None when the wheel is not installed)."""
    try:
        import clang_format
    except ImportError:
        return None
    exe = Path(clang_format.__file__).parent / "data" / "bin" / ("clang-format.exe" if sys.platform == "win32"
                                                                   else "clang-format")
    return str(exe) if exe.is_file() else None


def run_clang_format(exe: str, text: str, *, style: str, assume_filename: Path,
                     lines: list[tuple[int, int]]) -> tuple[str | None, str]:
    """(*text* with *lines* (1-based, inclusive) laid out, "") or (None, the start of clang-format's error)."""
    argv = [exe, style, f"--assume-filename={assume_filename}", *(f"--lines={a}:{b}" for a, b in lines)]
    # Bytes, not text mode: text mode would turn a CRLF file's line ends into LF.
    done = subprocess.run(argv, input=text.encode("utf-8"), capture_output=True)
    if done.returncode != 0:
        return None, done.stderr.decode(errors="replace").strip()[:200]
    return done.stdout.decode("utf-8"), ""
