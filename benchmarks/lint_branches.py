"""Are the branches of `mpsgen migrate --all --branch-per-op` clang-format clean, as lintrunner's CLANGFORMAT
would judge them?

For every branch under the prefix, each .metal/.mm/.h file it changes is formatted whole (as lintrunner
formats a file) by the pinned clang-format with the checkout's .clang-format (PyTorch's bundled settings
when it has none), and two things are counted:

* added lines: lines the branch adds that formatting would change (the issue's "done when");
* introduced: any line formatting would change in the branch's file that it would not change in the
  file the branch started from (e.g. two blank lines left where code was deleted).

Exit 0 when both are 0 on every branch, 1 otherwise (each offending line is listed).

    python benchmarks/lint_branches.py --tree /work/trees/pt2026-i32 [--prefix mps-metal/]
        [--clang-format /path/to/another/clang-format]   # e.g. the 17.0.6 that PyTorch 2.7 pins
"""

from __future__ import annotations

import argparse
import difflib
import subprocess
import sys
from collections import Counter
from pathlib import Path

SUFFIXES = (".metal", ".mm", ".h")


def git(tree: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(tree), *args], capture_output=True, text=True, check=True).stdout


def show(tree: Path, commit: str, rel: str) -> str:
    done = subprocess.run(["git", "-C", str(tree), "show", f"{commit}:{rel}"], capture_output=True)
    return done.stdout.decode("utf-8") if done.returncode == 0 else ""


def formatted(exe: str, style: str, tree: Path, rel: str, text: str) -> str:
    return subprocess.run([exe, style, f"--assume-filename={tree / rel}"], input=text.encode("utf-8"),
                          capture_output=True, check=True).stdout.decode("utf-8")


def lines_formatting_changes(text: str, after: str) -> list[int]:
    """0-based lines of *text* that formatting changes (for an insertion: the line before it)."""
    old, new = text.splitlines(), after.splitlines()
    out: list[int] = []
    for tag, i1, i2, _, _ in difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
        if tag != "equal":
            out += list(range(i1, i2)) if i2 > i1 else [max(i1 - 1, 0)]
    return out


def added_lines(tree: Path, parent: str, branch: str, rel: str) -> set[int]:
    """0-based lines of the branch's *rel* that the branch adds."""
    diff = git(tree, "diff", "-U0", parent, branch, "--", rel)
    added: set[int] = set()
    for line in diff.splitlines():
        if line.startswith("@@"):
            plus = line.split("+", 1)[1].split(" ", 1)[0]
            start, _, count = plus.partition(",")
            n = int(count) if count else 1
            added |= set(range(int(start) - 1, int(start) - 1 + n))
    return added


def check_branch(tree: Path, exe: str, style: str, branch: str) -> tuple[int, list[str]]:
    """(files checked, findings) of one branch."""
    parent = git(tree, "rev-parse", f"{branch}^").strip()
    changed = [p for p in git(tree, "diff", "--name-only", parent, branch).splitlines() if p.endswith(SUFFIXES)]
    findings: list[str] = []
    for rel in changed:
        text, base = show(tree, branch, rel), show(tree, parent, rel)
        touched = lines_formatting_changes(text, formatted(exe, style, tree, rel, text))
        added = added_lines(tree, parent, branch, rel)
        text_lines = text.splitlines()
        for n in sorted(set(touched) & added):
            findings.append(f"{branch}: {rel}:{n + 1}: added line changed by clang-format: {text_lines[n][:100]}")
        before = Counter(base.splitlines()[n] for n in lines_formatting_changes(base, formatted(exe, style, tree, rel,
                                                                                                base))) if base else Counter()
        now = Counter(text_lines[n] for n in touched if n not in added)
        for line, count in (now - before).items():
            findings.append(f"{branch}: {rel}: {count} existing line(s) clang-format would now change: {line[:100]}")
    return len(changed), findings


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tree", type=Path, required=True)
    parser.add_argument("--prefix", default="mps-metal/")
    parser.add_argument("--clang-format", dest="exe", help="default: the one mpsgen runs (the pinned wheel)")
    args = parser.parse_args()
    from mpsgen.generate.clang_format import style_option
    from mpsgen.tree.formatter import clang_format_executable as executable

    exe = args.exe or executable()
    if not exe:
        print("no clang-format: install mpsgen (its clang-format wheel) or pass --clang-format", file=sys.stderr)
        return 2
    tree = args.tree.resolve()
    style = style_option(tree)
    version = subprocess.run([exe, "--version"], capture_output=True, text=True).stdout.strip()
    branches = git(tree, "for-each-ref", "--format=%(refname:strip=2)", f"refs/heads/{args.prefix}").split()
    files = 0
    findings: list[str] = []
    for branch in branches:
        n, found = check_branch(tree, exe, style, branch)
        files += n
        findings += found
    for f in findings:
        print(f)
    print(f"{len(branches)} branches, {files} .metal/.mm/.h files changed, {len(findings)} finding(s); "
          f"{version}, {style}")
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
