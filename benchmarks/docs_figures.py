"""The figures of docs/benchmarks.md, measured on real trees and written with their basis and date.

    python benchmarks/docs_figures.py --tree "2.7.0a0=/work/trees/pt27" --tree "2026-shaped=/work/trees/pt2026"
        [--branches] [--jobs N] [--print]

Each tree (a PyTorch git checkout; LABEL names its column) is cloned into a temporary folder first
(`git clone --shared`, its files checked out from the index; blobs missing from the original are
skipped), so the original is never written.  On the clone, with an empty mpsgen cache of its own
and this checkout's mpsgen (`python -m mpsgen`, PYTHONPATH set to the repository), it runs, in turn:

    check --format json                          twice: a first run (empty cache) and a re-run
    status --format json                         the candidates, every state, and the frontier line's count
    migrate --all --no-build --no-test --no-try  families that plan; wall time
    migrate --all --no-build --no-test           the same with the numeric checks; wall time
    new-op --all --no-build --no-test            new-op candidates that plan; wall time
    with --branches:
    migrate --all --stack --no-build --no-test   commits on the stack branch, merges among them; wall time
    migrate --all --branch-per-op --no-build --no-test, then benchmarks/lint_branches.py on its branches

The table goes between the figures markers of docs/benchmarks.md (or to stdout with --print), under
a line stating the date, the command, mpsgen's commit, the CPUs and the load average, so every figure
carries its basis.  Nothing is asserted.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import resource
import shlex
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DOC = REPO / "docs" / "benchmarks.md"
BEGIN = "<!-- figures: written by benchmarks/docs_figures.py; do not edit -->"
END = "<!-- end figures -->"
STACK_BRANCH = "figures/stack"
PREFIX = "mps-metal/"


def git(root: Path, *args: str, check: bool = True) -> str:
    return subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True, check=check).stdout


def clone(tree: Path, dest: Path) -> None:
    """A throwaway clone of *tree* with its files on disk; files whose blobs the original lacks are
    marked skip-worktree so the clone is clean."""
    subprocess.run(["git", "clone", "-q", "--shared", "--no-checkout", str(tree.resolve()), str(dest)], check=True)
    git(dest, "read-tree", "HEAD")
    subprocess.run(["git", "-C", str(dest), "checkout-index", "-a", "-f"], capture_output=True)  # absent blobs fail
    missing = [line[3:] for line in git(dest, "status", "--porcelain").splitlines() if line.startswith(" D ")]
    for start in range(0, len(missing), 500):
        git(dest, "update-index", "--skip-worktree", *missing[start:start + 500])


@dataclass
class Timing:
    """A whole process: wall time, and CPU time (user + system, its children included), which the
    machine's load moves much less."""

    wall: float
    cpu: float

    def __str__(self) -> str:
        digits = 2 if self.wall < 10 else 0
        return f"{self.wall:.{digits}f} s (CPU {self.cpu:.{digits}f} s)"


@dataclass
class Runner:
    root: Path
    cache: Path
    jobs: int
    reports: Path | None = None  # where each command's JSON is kept (--reports)

    def __call__(self, *args: str) -> tuple[Timing, subprocess.CompletedProcess[str]]:
        env = {**os.environ, "MPSGEN_CACHE_DIR": str(self.cache), "PYTHONPATH": str(REPO)}
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        done = subprocess.run([sys.executable, "-m", "mpsgen", *args], cwd=self.root, capture_output=True,
                              text=True, env=env)
        wall = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        return Timing(wall, cpu), done

    def json(self, *args: str) -> tuple[Timing, dict]:
        timing, done = self(*args, "--format", "json")
        if self.reports:
            self.reports.mkdir(parents=True, exist_ok=True)
            name = "-".join(a.lstrip("-").replace("/", "_") for a in args)
            (self.reports / f"{self.root.name}-{name}.json").write_text(done.stdout)
        try:
            return timing, json.loads(done.stdout)
        except json.JSONDecodeError:
            sys.exit(f"mpsgen {' '.join(args)} gave no JSON (exit {done.returncode}): {done.stderr[-2000:]}")

    def batch(self, command: str, *extra: str) -> tuple[Timing, dict]:
        return self.json(command, "--all", "--no-build", "--no-test", "--jobs", str(self.jobs), *extra)


@dataclass
class TreeFigures:
    label: str
    basis: str  # which tree, at which commit
    rows: dict[str, str] = field(default_factory=dict)


def planned(report: dict) -> str:
    return f"{report['migrated']} of {report['candidates']}"


def emulated_checks(report: dict) -> int:
    """Families whose numeric check ran (emulated on this machine) and agreed."""
    return sum(1 for f in report["families"] if f["state"] in ("planned", "branch") and "emulated" in f["check"])


def measure(label: str, tree: Path, jobs: int, branches: bool, reports: Path | None) -> TreeFigures:
    head = git(tree, "log", "-1", "--format=%h %cs").split()
    figures = TreeFigures(label, f"`{tree}` at {head[0]} ({head[1]})")
    rows = figures.rows
    with tempfile.TemporaryDirectory(prefix="docs-figures-") as tmp:
        root = Path(tmp) / "tree"
        clone(tree, root)
        run = Runner(root, Path(tmp) / "cache", jobs, reports / label if reports else None)
        cold, report = run.json("check")
        warm, _ = run.json("check")
        summary = report["summary"]
        rows["`check` on the pristine tree: errors, warnings"] = f"{summary['errors']}, {summary['warnings']}"
        rows["`check`: first run (empty cache), re-run"] = f"{cold}, {warm}"
        _, status = run.json("status")
        listed = sum(1 for f in status["families"] if f["frontier"] == "candidate")
        rows["`status`: migration candidates listed (every state)"] = str(listed)
        rows["`status`: its `frontier:` line (MPSGraph families only)"] = str(status["frontier"]["candidate"])
        rows["`status`: new-op candidates"] = str(status["frontier"]["new-op candidate"])
        timing, report = run.batch("migrate", "--no-try")
        rows["`migrate --all --no-build --no-test --no-try`: families that plan"] = f"{planned(report)} in {timing}"
        timing, report = run.batch("migrate")
        rows["`migrate --all --no-build --no-test`: families that plan, numbers checked"] = (
            f"{planned(report)} in {timing}; {emulated_checks(report)} checks emulated")
        timing, report = run.batch("new-op")
        rows["`new-op --all --no-build --no-test`: families that plan"] = f"{planned(report)} in {timing}"
        if branches:
            base = git(root, "rev-parse", "HEAD").strip()
            timing, report = run.batch("migrate", "--stack", "--branch", STACK_BRANCH)
            commits = git(root, "rev-list", "--count", f"{base}..{STACK_BRANCH}", check=False).strip() or "0"
            merges = git(root, "rev-list", "--count", "--min-parents=2", f"{base}..{STACK_BRANCH}", check=False).strip()
            rows["`migrate --all --stack --no-build --no-test`: families on the stack, commits (merges among them)"] = (
                f"{planned(report)}, {commits} ({merges or 0}) in {timing}")
            timing, report = run.batch("migrate", "--branch-per-op", "--branch-prefix", PREFIX)
            made = git(root, "for-each-ref", "--format=%(refname)", f"refs/heads/{PREFIX}").split()
            rows["`migrate --all --branch-per-op --no-build --no-test`: families on branches, branches"] = (
                f"{planned(report)}, {len(made)} in {timing}")
            lint = subprocess.run([sys.executable, str(REPO / "benchmarks" / "lint_branches.py"), "--tree", str(root),
                                   "--prefix", PREFIX], capture_output=True, text=True,
                                  env={**os.environ, "PYTHONPATH": str(REPO)})
            last = (lint.stdout.strip().splitlines() or ["(no output)"])[-1]
            counts, _, tool = last.partition("; ")  # "N branches, M files changed, K finding(s); clang-format version V, --style=..."
            rows["`benchmarks/lint_branches.py` on those branches"] = f"{counts}; {tool.split(',')[0]}"
    return figures


def mpsgen_commit() -> str:
    commit = git(REPO, "rev-parse", "--short", "HEAD").strip()
    dirty = git(REPO, "status", "--porcelain", "--untracked-files=no", "--", "mpsgen", "templates").strip()
    return f"{commit}{' with uncommitted changes' if dirty else ''}"


def render(trees: list[TreeFigures], command: str, loads: tuple[float, float]) -> str:
    today = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d")
    lines = [
        f"Measured {today} (UTC) by `{command}`, mpsgen at {mpsgen_commit()}, on {os.cpu_count()} CPUs with a "
        f"1-minute load average of {loads[0]:.1f} at the start and {loads[1]:.1f} at the end (wall times grow with "
        "the load; CPU times, user + system of the process and its children, much less). Each tree was a fresh clone with an empty mpsgen cache, the commands run in the order of the "
        "rows; numeric checks ran emulated with the system C++ compiler (no Mac), the compile check on.",
        "",
        "| figure | " + " | ".join(f"{t.label}: {t.basis}" for t in trees) + " |",
        "|---|" + "---|" * len(trees),
    ]
    for name in trees[0].rows:
        lines.append(f"| {name} | " + " | ".join(t.rows.get(name, "") for t in trees) + " |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tree", action="append", required=True, metavar="LABEL=PATH",
                        help="a PyTorch git checkout and its column's label (repeatable)")
    parser.add_argument("--branches", action="store_true", help="also time --stack and --branch-per-op (on the clone)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--print", action="store_true", help="print the block instead of writing docs/benchmarks.md")
    parser.add_argument("--reports", type=Path, help="keep each command's JSON report in this folder")
    args = parser.parse_args()
    start_load = os.getloadavg()[0]
    trees = []
    for spec in args.tree:
        label, _, path = spec.partition("=")
        if not path:
            parser.error(f"--tree {spec!r}: expected LABEL=PATH")
        trees.append(measure(label, Path(path), args.jobs, args.branches, args.reports))
    command = "python benchmarks/docs_figures.py " + " ".join(shlex.quote(a) for a in sys.argv[1:])
    block = render(trees, command, (start_load, os.getloadavg()[0]))
    if args.print:
        print(block)
        return
    text = DOC.read_text(encoding="utf-8")
    if BEGIN not in text or END not in text:
        sys.exit(f"{DOC}: the figures markers are missing")
    head, _, rest = text.partition(BEGIN)
    _, _, tail = rest.partition(END)
    DOC.write_text(f"{head}{BEGIN}\n{block}\n{END}{tail}", encoding="utf-8")
    print(f"rewrote {DOC.relative_to(REPO)}")


if __name__ == "__main__":
    main()
