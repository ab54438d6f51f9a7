"""Every line mpsgen writes to a .metal, .mm or .h file, laid out by clang-format as PyTorch's lintrunner
(CLANGFORMAT covers mps/**/*.metal, *.mm and *.h) would lay it out.

The binary is the `clang-format` wheel, a runtime dependency pinned to the version PyTorch's lintrunner
downloads (`tools/linter/adapters/s3_init_config.json`), so the layout does not depend on what else the
machine has installed.  The style is the checkout's own `.clang-format`; a checkout without one gets
PyTorch's settings (`pytorch_style.clang-format`, bundled).

Only the lines a plan added or changed are formatted (`--lines`, with the rest of a `#define` it wrote
into, which clang-format lays out with them; then the lines around each deletion), and the result is kept
only when every other line is still there, unchanged; else the text stays as rendered and a note says why
(a deletion's neighbours are simply left).
"""

from __future__ import annotations

import difflib
from pathlib import Path
from typing import TYPE_CHECKING, Sequence

from mpsgen.scan.lines import split_lines
from mpsgen.tree.formatter import clang_format_executable, run_clang_format

if TYPE_CHECKING:
    from mpsgen.tree.changeset import Changeset

FORMATTED_SUFFIXES = (".metal", ".mm", ".h")
BUNDLED_STYLE = Path(__file__).with_name("pytorch_style.clang-format")


def style_option(root: Path) -> str:
    """`--style=file` (the checkout's .clang-format, found from the file's path as lintrunner finds it),
    or PyTorch's settings from the bundled file when the checkout has none (its Capabilities say)."""
    from mpsgen.tree.capabilities import of_root

    return "--style=file" if of_root(root).own_clang_format else f"--style=file:{BUNDLED_STYLE}"


def changed_ranges(before: str, after: str) -> list[tuple[int, int]]:
    """1-based inclusive line ranges of *after* that are not lines of *before* (inserted or replaced),
    each grown to the whole `#define` it is part of."""
    old, new = split_lines(before), split_lines(after)
    return [_whole_macro(new, j1 + 1, j2) for tag, _, _, j1, j2 in _opcodes(old, new) if tag != "equal" and j2 > j1]


def gap_ranges(before: str, after: str) -> list[tuple[tuple[int, int], tuple[int, int]]]:
    """The lines of *after* around each run *before* lost, with the lines of *before* around and in that
    run: what they enclose may now be empty (`namespace mps {` and its closing line once the last function
    inside went), which clang-format joins as lintrunner would."""
    old, new = split_lines(before), split_lines(after)
    return [(_around(new, j1), (_around(old, i1)[0], _around(old, i2)[1]))
            for tag, i1, i2, j1, _ in _opcodes(old, new) if tag == "delete" and new]


def _opcodes(old: list[str], new: list[str]) -> Sequence[tuple[str, int, int, int, int]]:
    return difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes()


def _whole_macro(lines: list[str], first: int, last: int) -> tuple[int, int]:
    """*first*..*last* (1-based) grown to the whole `#define` their lines continue: clang-format lays a
    macro out as one line, so an entry added to it can move its last, unchanged line too."""
    while first > 1 and lines[first - 2].rstrip().endswith("\\"):
        first -= 1
    while last < len(lines) and lines[last - 1].rstrip().endswith("\\"):
        last += 1
    return first, last


def _around(lines: list[str], gap: int) -> tuple[int, int]:
    """The 1-based lines next to the gap before 0-based line *gap*, reaching over blank lines to the
    nearest text on each side (`namespace mps {`, blank, gap, blank, `} // namespace mps`)."""
    first, last = max(gap, 1), min(gap + 1, len(lines))
    while first > 1 and not lines[first - 1].strip():
        first -= 1
    while last < len(lines) and not lines[last - 1].strip():
        last += 1
    return first, last


def format_written(cs: "Changeset", snapshot: dict[str, str | None]) -> list[str]:
    """Lay out the lines of every .metal/.mm/.h file *cs* changed since *snapshot* (a new file: all of
    it); returns the notes of the files left as they were planned."""
    root = cs.checkout.root
    notes: list[str] = []
    for rel in cs.changed_since(snapshot):
        if not rel.endswith(FORMATTED_SUFFIXES):
            continue
        before = snapshot.get(rel)
        if before is None and not cs.is_new(rel):
            before = cs.original(rel)
        after = cs.current(rel)
        formatted, note = format_lines(before or "", after, root / rel, root)
        if formatted != after:
            cs.set_text(rel, formatted, "laid out by clang-format")
        notes += [note] if note else []
    return notes


def format_lines(before: str, after: str, path: Path, root: Path) -> tuple[str, str]:
    """(*after* with the lines it does not share with *before* formatted, a note when they were not)."""
    shown = path.relative_to(root) if path.is_relative_to(root) else path
    ranges = changed_ranges(before, after)
    if not ranges:
        return _close_gaps(before, after, path, root), ""
    exe = clang_format_executable()
    if exe is None:
        return after, (f"the clang-format wheel is not installed: the lines added to {shown} are not laid out "
                       "(pip install mpsgen's dependencies)")
    text, note = _run(exe, root, path, after, ranges)
    if note != _OTHERS:
        return (after, note.format(shown)) if note else (_close_gaps(before, text, path, root), "")
    # Together the ranges touch a line that was there (an include block clang-format would sort): each
    # range alone, the last first so the earlier ones keep their line numbers; those that touch others stay.
    left = 0
    for a, b in reversed(ranges):
        alone, why = _run(exe, root, path, after, [(a, b)])
        if why:
            left += 1
        else:
            after = alone
    return (_close_gaps(before, after, path, root),
            _OTHERS.format(shown) + f" ({left} of {len(ranges)} added runs)" if left else "")


def _close_gaps(before: str, after: str, path: Path, root: Path) -> str:
    """*after* with the lines around each deletion laid out, one gap at a time, the last first.  A gap
    stays as it is where those lines were not clang-format clean before the deletion (a header the
    linter does not cover, 2.7's UnaryOps.h) or where the layout would move lines beyond it (a macro
    that was never clean)."""
    exe = clang_format_executable()
    if exe is None:
        return after
    for gap, was in reversed(gap_ranges(before, after)):
        if _run(exe, root, path, before, [was]) != (before, ""):
            continue
        after = _run(exe, root, path, after, [gap])[0]
    return after


_OTHERS = "clang-format would change other lines of {}: the added lines are left as rendered"


def _run(exe: str, root: Path, path: Path, after: str, ranges: list[tuple[int, int]]) -> tuple[str, str]:
    """(*after* with *ranges* formatted, "") or (*after*, why not: a template for the file's name)."""
    text, error = run_clang_format(exe, after, style=style_option(root), assume_filename=path, lines=ranges)
    if text is None:
        return after, "clang-format failed on {}: " + error.replace("{", "{{").replace("}", "}}")
    ours = {n for a, b in ranges for n in range(a, b + 1)}  # 1-based lines mpsgen wrote (a macro it re-aligned too)
    if not _changes_only(split_lines(after), split_lines(text), ours):
        return after, _OTHERS
    return text, ""


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
