"""Benchmark: `mpsgen migrate OP --no-build --no-test` as a whole process on a real-wheel tree.

    python benchmarks/bench_migrate.py [--repeat 11] [--skip-libcst] [--keep DIR]

Builds a tree in a temp folder: the sample checkout (the wheel has no .mm/.metal/.cpp) with the
wheel's real native_functions.yaml, common_mps.py, common_methods_invocations.py (1.4 MB) and
opinfo/definitions/, git-initialised.  Each run is a subprocess of the installed entry point
(interpreter start, imports, reading, planning, apply, journal); the tree is reset with
`git checkout -- .` between runs.  In the same run it times the naive approach: a full ruamel round
trip of the yaml and (unless --skip-libcst, ~8-20 s) a libcst parse of common_methods_invocations.py.
The budget is 0.5 s wall per migrate.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
CASES = [("asinh", ["--drop-complex"]), ("frac", []), ("atan2", [])]
BUDGET_MS = 500.0


def package_dir(name: str) -> Path:
    spec = importlib.util.find_spec(name)
    assert spec is not None and spec.origin is not None, f"{name} is not installed: pip install torch==2.13.0"
    return Path(spec.origin).parent


def build_tree(dest: Path) -> Path:
    mpsgen = shutil.which("mpsgen")
    assert mpsgen, "install mpsgen first (pip install -e .)"
    subprocess.run([mpsgen, "sample", str(dest)], check=True, capture_output=True)
    testing = package_dir("torch") / "testing" / "_internal"
    yaml = package_dir("torchgen") / "packaged" / "ATen" / "native" / "native_functions.yaml"
    shutil.copy(yaml, dest / "aten/src/ATen/native/native_functions.yaml")
    for name in ("common_mps.py", "common_methods_invocations.py"):
        shutil.copy(testing / name, dest / "torch/testing/_internal" / name)
    defs = dest / "torch/testing/_internal/opinfo/definitions"
    shutil.rmtree(defs)
    shutil.copytree(testing / "opinfo" / "definitions", defs, ignore=shutil.ignore_patterns("__pycache__"))
    git = ["git", "-c", "user.name=bench", "-c", "user.email=bench@example.invalid"]
    subprocess.run([*git, "add", "-A"], cwd=dest, check=True, capture_output=True)
    subprocess.run([*git, "commit", "-qm", "real wheel files"], cwd=dest, check=True, capture_output=True)
    return dest


def time_process(argv: list[str], cwd: Path, reset: bool, repeat: int, pyc: bool = True) -> tuple[list[float], str]:
    # pyc=True: bytecode caching allowed, as for any installed package (the first run writes it);
    # pyc=False: PYTHONDONTWRITEBYTECODE=1, so every run recompiles mpsgen's modules.
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    if not pyc:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
    times, last = [], ""
    for _ in range(repeat + 1):  # the first run warms the OS file cache and is dropped
        start = time.perf_counter()
        result = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, env=env)
        elapsed = (time.perf_counter() - start) * 1000
        last = result.stdout + result.stderr
        if result.returncode not in (0,):
            raise SystemExit(f"{' '.join(argv)} exited {result.returncode}:\n{last}")
        times.append(elapsed)
        if reset:
            subprocess.run(["git", "checkout", "--", "."], cwd=cwd, check=True)
    return times[1:], last


def time_call(fn, repeat: int) -> list[float]:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1000)
    return times


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=11)
    parser.add_argument("--slow-repeat", type=int, default=1)
    parser.add_argument("--skip-libcst", action="store_true")
    parser.add_argument("--keep", metavar="DIR", help="build the tree here and keep it (for profiling)")
    args = parser.parse_args()
    mpsgen = shutil.which("mpsgen")
    assert mpsgen

    tmp = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="mpsgen-bench-")) / "pytorch"
    root = build_tree(tmp)
    rows: list[tuple[str, list[float]]] = []
    rows.append(("python -c pass (interpreter start)", time_process([sys.executable, "-c", "pass"], root, False, args.repeat)[0]))
    rows.append(("mpsgen --help", time_process([mpsgen, "--help"], root, False, args.repeat)[0]))
    for op, extra in CASES:
        argv = [mpsgen, "migrate", op, *extra, "--no-build", "--no-test"]
        name = f"mpsgen migrate {op} {' '.join(extra)}".rstrip() + " --no-build --no-test"
        times, out = time_process(argv, root, True, args.repeat)
        rows.append((name, times))
        print(f"# {op}: {out.splitlines()[0] if out else ''}", file=sys.stderr)

    yaml_text = (root / "aten/src/ATen/native/native_functions.yaml").read_text(encoding="utf-8")

    def ruamel_round_trip() -> None:
        import io

        from ruamel.yaml import YAML

        y = YAML()
        y.preserve_quotes = True
        y.width = 4096
        data = y.load(yaml_text)
        y.dump(data, io.StringIO())

    rows.append(("naive: ruamel round trip of the yaml (in process)", time_call(ruamel_round_trip, args.slow_repeat)))
    if not args.skip_libcst:
        cmi = (root / "torch/testing/_internal/common_methods_invocations.py").read_text(encoding="utf-8")

        def libcst_parse() -> None:
            import libcst

            libcst.parse_module(cmi)

        rows.append(("naive: libcst parse of common_methods_invocations.py", time_call(libcst_parse, args.slow_repeat)))

    base = statistics.median(rows[2][1])
    print(f"\ntree: {root}  (repeat {args.repeat}; naive rows repeat {args.slow_repeat})\n")
    print("| measurement (torch 2.13.0 wheel files + sample sources) | median ms | min ms | / migrate asinh |")
    print("|---|---:|---:|---:|")
    worst = 0.0
    for name, times in rows:
        med = statistics.median(times)
        if name.startswith("mpsgen migrate"):
            worst = max(worst, med)
        print(f"| {name} | {med:.0f} | {min(times):.0f} | {med / base:.1f} |")
    naive = sum(statistics.median(t) for n, t in rows if n.startswith("naive"))
    print(f"\nslowest migrate median {worst:.0f} ms (budget {BUDGET_MS:.0f} ms: {'met' if worst < BUDGET_MS else 'MISSED'}); "
          f"naive parses alone take {naive / worst:.0f}x that")
    if not args.keep:
        shutil.rmtree(root.parent, ignore_errors=True)
    return 0 if worst < BUDGET_MS else 1


if __name__ == "__main__":
    sys.exit(main())
