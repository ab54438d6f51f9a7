"""Benchmark: `mpsgen try OP` as a whole process on a fresh sample checkout.

    python benchmarks/bench_try.py [--repeat 5] [--ops atan2,asinh]

For each op: the first run on a cold cache (MPSGEN_CACHE_DIR emptied before every run: planning,
the compile, torch's import, the comparison) and the cached re-run (same cache: planning skipped by
the file fingerprint, build and result found by hash; no compiler run, no torch import).  Each is a
subprocess of the installed entry point; wall time (median and min of --repeat) and the CPU time of
the process and its children (so a loaded machine's waiting shows as wall - CPU).
Budgets: first run 5 s, cached re-run 0.5 s.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

BUDGETS_MS = {"first run (cold cache)": 5000.0, "cached re-run": 500.0}


def run_once(argv: list[str], env: dict[str, str]) -> tuple[float, float]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    result = subprocess.run(argv, capture_output=True, text=True, env=env)
    wall = (time.perf_counter() - start) * 1000
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if result.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} exited {result.returncode}:\n{result.stdout}{result.stderr}")
    cpu = (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000
    return wall, cpu


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--ops", default="atan2,asinh")
    args = ap.parse_args()
    mpsgen = shutil.which("mpsgen")
    assert mpsgen, "install mpsgen first (pip install -e .)"
    rows = []
    with tempfile.TemporaryDirectory(prefix="bench-try-") as tmp:
        tree = Path(tmp) / "pytorch"
        subprocess.run([mpsgen, "sample", str(tree)], check=True, capture_output=True)
        cache = Path(tmp) / "cache"
        env = {**os.environ, "MPSGEN_CACHE_DIR": str(cache)}
        subprocess.run([mpsgen, "-C", str(tree), "try", "atan2"], env=env, capture_output=True)  # warm OS caches
        for op in args.ops.split(","):
            argv = [mpsgen, "-C", str(tree), "try", op]
            cold, warm = [], []
            for _ in range(args.repeat):
                shutil.rmtree(cache, ignore_errors=True)
                cold.append(run_once(argv, env))
            for _ in range(args.repeat):
                warm.append(run_once(argv, env))
            for label, samples in (("first run (cold cache)", cold), ("cached re-run", warm)):
                walls = [w for w, _ in samples]
                rows.append((f"mpsgen try {op}: {label}", statistics.median(walls), min(walls),
                             statistics.median(c for _, c in samples), BUDGETS_MS[label]))
    print(f"| measurement (sample checkout, median of {args.repeat}) | wall median ms | wall min ms | CPU ms | budget ms |")
    print("|---|---:|---:|---:|---:|")
    for name, med, low, cpu, budget in rows:
        print(f"| {name} | {med:.0f} | {low:.0f} | {cpu:.0f} | {budget:.0f} |")
    print(f"\nload average: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")


if __name__ == "__main__":
    main()
