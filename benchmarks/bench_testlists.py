"""Benchmark: the whole test-list edit on the real torch 2.13.0 files, beside full libcst parses.

    python benchmarks/bench_testlists.py [--repeat N] [--skip-libcst]

Reads the files once (I/O is not timed), then times `plan_test_lists` per op (median of N, in
process, after one warm-up) and, in the same run, one libcst parse of common_methods_invocations.py
(~8 s; this is what the text-span approach avoids) and of common_mps.py.
"""

from __future__ import annotations

import argparse
import importlib.util
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from mpsgen.sources.testlists import plan_test_lists  # noqa: E402

CASES = [  # (op, options): a plain xfail, a dtype list, a variant key, a complex-supported op
    ("heaviside", {}),
    ("frac", {}),
    ("native_batch_norm", {"supported_dtypes": ["uint8", "bool", "int8"]}),
    ("linalg_lstsq", {}),
    ("softmax", {"complex_action": "drop"}),
    ("frexp", {"complex_action": "add"}),
]


def testing_dir() -> Path:
    spec = importlib.util.find_spec("torch")
    assert spec is not None and spec.origin is not None, "pip install torch==2.13.0"
    return Path(spec.origin).parent / "testing" / "_internal"


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=21)
    parser.add_argument("--skip-libcst", action="store_true")
    args = parser.parse_args()

    d = testing_dir()
    cm = (d / "common_mps.py").read_text(encoding="utf-8")
    cmi = (d / "common_methods_invocations.py").read_text(encoding="utf-8")
    defs = {
        f"opinfo/definitions/{p.name}": p.read_text(encoding="utf-8")
        for p in sorted((d / "opinfo" / "definitions").glob("*.py"))
        if p.name != "__init__.py"
    }
    print(f"common_mps.py {len(cm):,} chars; common_methods_invocations.py {len(cmi):,} chars; "
          f"{len(defs)} definitions files")

    medians = {}
    for op, options in CASES:
        plan_test_lists(op, common_mps_text=cm, cmi_text=cmi, definitions=defs, **options)  # warm-up
        times = []
        for _ in range(args.repeat):
            t0 = time.perf_counter()
            plan = plan_test_lists(op, common_mps_text=cm, cmi_text=cmi, definitions=defs, **options)
            times.append(time.perf_counter() - t0)
        medians[op] = statistics.median(times)
        print(f"plan_test_lists({op!r}): median {medians[op] * 1e3:7.1f} ms of {args.repeat}, "
              f"max {max(times) * 1e3:7.1f} ms; {len(plan.changes)} changes in {sorted(plan.texts)}")
    worst = max(medians.values())
    print(f"worst median {worst * 1e3:.1f} ms (budget 100 ms): {'OK' if worst < 0.1 else 'OVER BUDGET'}")

    if not args.skip_libcst:
        import libcst

        for name, text in (("common_mps.py", cm), ("common_methods_invocations.py", cmi)):
            t0 = time.perf_counter()
            libcst.parse_module(text)
            elapsed = time.perf_counter() - t0
            print(f"libcst.parse_module({name}): {elapsed * 1e3:9.1f} ms  = {elapsed / worst:6.0f}x the worst edit")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
