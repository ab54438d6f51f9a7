"""Benchmark: `mpsgen --help` and `mpsgen migrate atan2 --no-build --no-test` as whole processes.

    python benchmarks/bench_cli_startup.py [--repeat 5] [--mpsgen PATH ...]

Each `--mpsgen` is an installed entry point (default: the one on PATH); give two to compare versions,
e.g. one installed from an older commit into another venv.  Every migrate runs on a fresh
`mpsgen sample` tree (written by the same entry point, not timed).  The runs of the entry points
alternate, so that a change in the machine's load hits all of them alike.  Prints the median and the
minimum wall time of each, and the median CPU time (user + system of the process and the children it
waited for, e.g. git), which a loaded machine inflates less than the wall time.
"""

from __future__ import annotations

import argparse
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed(argv: list[str], cwd: Path) -> tuple[float, float]:
    """Wall and CPU milliseconds of one run of *argv*."""
    cpu = _children_cpu()
    start = time.perf_counter()
    result = subprocess.run(argv, cwd=cwd, capture_output=True, text=True)
    elapsed = (time.perf_counter() - start) * 1000
    if result.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} exited {result.returncode}:\n{result.stdout}{result.stderr}")
    return elapsed, (_children_cpu() - cpu) * 1000


def fresh_sample(mpsgen: str, work: Path, n: int) -> Path:
    root = work / f"sample-{n}"
    subprocess.run([mpsgen, "sample", str(root)], check=True, capture_output=True)
    return root


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--mpsgen", action="append", metavar="PATH", help="entry point to time (repeatable)")
    args = parser.parse_args()
    entries = args.mpsgen or [shutil.which("mpsgen") or ""]
    assert all(entries), "install mpsgen first (pip install -e .), or pass --mpsgen PATH"

    cases = {"--help": ["--help"], "migrate atan2 --no-build --no-test": ["migrate", "atan2", "--no-build", "--no-test"]}
    times: dict[tuple[str, str], list[tuple[float, float]]] = {(e, c): [] for e in entries for c in cases}
    with tempfile.TemporaryDirectory(prefix="mpsgen-bench-") as tmp:
        work = Path(tmp)
        n = 0
        for run in range(args.repeat + 1):  # the first round warms caches (and writes .pyc) and is dropped
            for entry in entries:
                for case, words in cases.items():
                    n += 1
                    cwd = fresh_sample(entry, work, n) if words[0] == "migrate" else work
                    wall_cpu = timed([entry, *words], cwd)
                    if run:
                        times[(entry, case)].append(wall_cpu)

    print(f"\n(median and min of {args.repeat} runs, ms; python {sys.version.split()[0]})\n")
    print("| entry point | command | median wall ms | min wall ms | median CPU ms |")
    print("|---|---|---:|---:|---:|")
    for (entry, case), values in times.items():
        wall, cpu = [v[0] for v in values], [v[1] for v in values]
        print(f"| {entry} | mpsgen {case} | {statistics.median(wall):.0f} | {min(wall):.0f} | "
              f"{statistics.median(cpu):.0f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
