"""The lines mpsgen inserted into a kernels/*.metal file, laid out by clang-format with the checkout's
own .clang-format, as PyTorch's lintrunner (CLANGFORMAT covers mps/**/*.metal) would lay them out.

Only the inserted lines are formatted (`--lines`), and the result is kept only when every line that
was there before is still there, unchanged; else, and when the checkout has no .clang-format or the
machine no clang-format, the text stays as rendered and a note says what to run.
"""

from __future__ import annotations

import difflib
import shutil
import subprocess
from pathlib import Path


def format_inserted(before: str, after: str, path: Path, root: Path) -> tuple[str, str]:
    """(*after* with its inserted lines formatted, a note when they were not)."""
    if not (root / ".clang-format").is_file():
        return after, ""  # no PyTorch style to follow (a sample checkout)
    exe = shutil.which("clang-format")
    if exe is None:
        return after, f"clang-format not found: the lines added to {path.relative_to(root)} are not laid out by it"
    old, new = before.splitlines(keepends=True), after.splitlines(keepends=True)
    ranges = [(j1 + 1, j2) for tag, _, _, j1, j2 in difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes()
              if tag != "equal" and j2 > j1]
    if not ranges:
        return after, ""
    argv = [exe, "--style=file", f"--assume-filename={path}", *(f"--lines={a}:{b}" for a, b in ranges)]
    done = subprocess.run(argv, input=after, capture_output=True, text=True, encoding="utf-8")
    if done.returncode != 0:
        return after, f"clang-format failed on {path.relative_to(root)}: {done.stderr.strip()[:200]}"
    formatted = done.stdout.splitlines(keepends=True)
    ours = {n for a, b in ranges for n in range(a, b + 1)}  # 1-based lines mpsgen wrote (a macro it re-aligned too)
    if not _changes_only(new, formatted, ours):  # it touched lines that were there: not ours to change
        return after, f"clang-format would change other lines of {path.relative_to(root)}: the added lines are left as rendered"
    return done.stdout, ""


def _changes_only(new: list[str], formatted: list[str], ours: set[int]) -> bool:
    """Whether *formatted* differs from *new* only in lines *ours* (1-based) or right next to them."""
    for tag, i1, i2, _, _ in difflib.SequenceMatcher(None, new, formatted, autojunk=False).get_opcodes():
        if tag == "equal":
            continue
        if i2 > i1 and not set(range(i1 + 1, i2 + 1)) <= ours:
            return False
        if i2 == i1 and not {i1, i1 + 1} & ours:  # an insertion between lines i1 and i1 + 1
            return False
    return True
