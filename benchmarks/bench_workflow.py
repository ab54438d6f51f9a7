"""Benchmark: several ops in one change, a run on top of an uncommitted one, and undo, on a real-wheel tree.

    python benchmarks/bench_workflow.py [--repeat 7]

The tree is bench_migrate.py's (the sample with the wheel's native_functions.yaml, common_mps.py,
common_methods_invocations.py and opinfo/definitions, git-initialised).  Each measurement is one
process of the installed entry point, median of --repeat runs; the tree is reset between runs.
  single      migrate frac --no-build --no-test
  group       migrate frac signbit --no-build --no-test
  successive  migrate signbit --no-build --no-test, run after an uncommitted `migrate frac`:
              the dirty check reads the undo stack (journals hold whole real files) and git's HEAD blobs
  undo        undo of the second of two stacked changes
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_migrate import build_tree  # noqa: E402

MPSGEN = shutil.which("mpsgen")


def run(tree: Path, *args: str) -> float:
    start = time.perf_counter()
    done = subprocess.run([MPSGEN, "-C", str(tree), *args], capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    assert done.returncode == 0, done.stdout + done.stderr
    return elapsed * 1000


def reset(tree: Path) -> None:
    subprocess.run(["git", "checkout", "--", "."], cwd=tree, check=True, capture_output=True)
    shutil.rmtree(tree / ".git" / "mpsgen", ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    assert MPSGEN, "install mpsgen first (pip install -e .)"
    fast = ("--no-build", "--no-test")
    with tempfile.TemporaryDirectory() as tmp:
        tree = build_tree(Path(tmp) / "pytorch")
        times: dict[str, list[float]] = {"single": [], "group": [], "successive": [], "undo": []}
        for _ in range(args.repeat):
            reset(tree)
            times["single"].append(run(tree, "migrate", "frac", *fast))
            reset(tree)
            times["group"].append(run(tree, "migrate", "frac", "signbit", *fast))
            reset(tree)
            run(tree, "migrate", "frac", *fast)
            times["successive"].append(run(tree, "migrate", "signbit", *fast))
            times["undo"].append(run(tree, "undo"))
        reset(tree)
    print("| measurement (real-wheel tree) | median ms | min ms |")
    print("|---|---:|---:|")
    for name, values in times.items():
        print(f"| {name} | {statistics.median(values):.0f} | {min(values):.0f} |")


if __name__ == "__main__":
    main()
