"""Wall time of the whole frontier in one run: `mpsgen migrate --all --branch-per-op` on a full tree,
beside the naive way in the same run (one `mpsgen migrate FAMILY --commit` per family, each on its
own `git checkout -b` from the original branch, the tree reset in between).

    python benchmarks/bench_migrate_all.py --tree /work/trees/t2026 [--jobs 2] [--skip-naive]

The tree (a git checkout, e.g. the 2026-shaped full tree) is cloned into a temporary folder first
(`git clone --shared`, then checked out), so the original never gets a branch.  Each measurement is
one run of the whole process, with an empty cache of its own (MPSGEN_CACHE_DIR: no facts, no
compiled numeric checks) unless said otherwise:

    --all, --no-try              planning and branches only (target <= 60 s)
    --all, numeric checks        cold: every check compiled and run (target <= 3 min on 2 cores)
    --all, numeric checks, warm  the same again with the cache the cold run left
    naive, --no-try              one process and one branch per family, sequentially

Each run's branches are deleted before the next.  Nothing is asserted; targets are printed.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PREFIX = "bench-mps/"


def git(root: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=root, check=True, capture_output=True, text=True).stdout


def mpsgen_argv() -> list[str]:
    found = shutil.which("mpsgen")
    return [found] if found else [sys.executable, "-m", "mpsgen"]


def drop_branches(root: Path) -> None:
    names = git(root, "for-each-ref", "--format=%(refname:strip=2)", f"refs/heads/{PREFIX}").split()
    if names:
        git(root, "branch", "-D", "-q", *names)


def timed(argv: list[str], root: Path, cache: Path) -> tuple[float, subprocess.CompletedProcess[str]]:
    env = {**os.environ, "MPSGEN_CACHE_DIR": str(cache)}
    start = time.perf_counter()
    done = subprocess.run(argv, cwd=root, capture_output=True, text=True, env=env)
    return time.perf_counter() - start, done


def run_all(root: Path, cache: Path, jobs: int, *, no_try: bool) -> tuple[float, dict]:
    argv = [*mpsgen_argv(), "migrate", "--all", "--branch-per-op", "--branch-prefix", PREFIX, "--no-build",
            "--no-test", "--jobs", str(jobs), "--format", "json", *(["--no-try"] if no_try else [])]
    seconds, done = timed(argv, root, cache)
    if done.returncode != 0:
        sys.exit(f"migrate --all failed ({done.returncode}): {done.stderr[-2000:]}")
    return seconds, json.loads(done.stdout)


def run_naive(root: Path, cache: Path) -> tuple[float, int, int]:
    """One migrate process per candidate family, each committed on a branch of its own."""
    base = git(root, "symbolic-ref", "--short", "HEAD").strip()
    status = subprocess.run([*mpsgen_argv(), "status", "--format", "json"], cwd=root, capture_output=True,
                            text=True, env={**os.environ, "MPSGEN_CACHE_DIR": str(cache)}, check=True)
    families = sorted(f["family"] for f in json.loads(status.stdout)["families"] if f["frontier"] == "candidate")
    start = time.perf_counter()
    made = 0
    for family in families:
        git(root, "checkout", "-q", "-b", PREFIX + family, base)
        _, done = timed([*mpsgen_argv(), "migrate", family, "--no-build", "--no-test", "--no-try", "--commit"],
                        root, cache)
        made += done.returncode == 0
        git(root, "reset", "-q", "--hard")
        git(root, "clean", "-qfd")
        git(root, "checkout", "-q", base)
    return time.perf_counter() - start, made, len(families)


def measure(tree: Path, jobs: int, *, naive: bool = True) -> list[tuple[str, float, int, int, float | None]]:
    """(run, seconds, families migrated, candidates, target seconds) for each measurement, on a clone."""
    with tempfile.TemporaryDirectory(prefix="bench-migrate-all-") as tmp:
        root = Path(tmp) / "tree"
        subprocess.run(["git", "clone", "-q", "--shared", str(tree.resolve()), str(root)], check=True)
        rows = []
        seconds, report = run_all(root, Path(tmp) / "cache-no-try", jobs, no_try=True)
        rows.append(("migrate --all --branch-per-op --no-try (cold)", seconds, report["migrated"],
                     report["candidates"], 60.0))
        drop_branches(root)
        checks = Path(tmp) / "cache-checks"
        seconds, report = run_all(root, checks, jobs, no_try=False)
        rows.append(("migrate --all --branch-per-op, numeric checks (cold)", seconds, report["migrated"],
                     report["candidates"], 180.0))
        drop_branches(root)
        seconds, report = run_all(root, checks, jobs, no_try=False)
        rows.append(("migrate --all --branch-per-op, numeric checks (warm)", seconds, report["migrated"],
                     report["candidates"], None))
        drop_branches(root)
        if naive:
            seconds, made, total = run_naive(root, Path(tmp) / "cache-naive")
            rows.append(("naive: migrate FAMILY --commit per family, --no-try", seconds, made, total, None))
    return rows


def print_rows(rows, title: str) -> None:
    print(title)
    print(f"{'run':<56} {'seconds':>8} {'migrated':>9}  target")
    for name, seconds, made, total, target in rows:
        print(f"{name:<56} {seconds:8.1f} {made:>4}/{total:<4}  {f'<= {target:.0f} s' if target else ''}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tree", type=Path, required=True, help="a PyTorch checkout that is a git repository")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--skip-naive", action="store_true", help="leave out the one-process-per-family run")
    args = parser.parse_args()
    rows = measure(args.tree, args.jobs, naive=not args.skip_naive)
    print_rows(rows, f"tree: {args.tree}   jobs: {args.jobs}   cpus: {os.cpu_count()}")


if __name__ == "__main__":
    main()
