"""Wall time of `mpsgen check FILE` as the pre-commit hook runs it, on a real checkout.

    python benchmarks/bench_check_gate.py --tree /work/trees/pt27-clone [--repeat 7]

The tree is a git clone you can write to (one .mm and the yaml get a comment appended, then are
restored with `git checkout`).  With a fact store of the benchmark's own, timed (median of
--repeat runs, each a subprocess): cold (an empty store), warm (nothing changed), after one edit
of the named .mm (the hook's usual case), and after one edit of native_functions.yaml (the yaml's
facts recomputed, with its syntax check).  Target (issue 29): warm <= 0.3 s.  Not asserted.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Callable

MM = "aten/src/ATen/native/mps/operations/BinaryKernel.mm"
YAML = "aten/src/ATen/native/native_functions.yaml"


def timed(cmd: list[str], tree: Path, env: dict[str, str], before: Callable[[], None] | None = None,
          repeat: int = 5) -> float:
    runs = []
    for _ in range(repeat):
        if before is not None:
            before()
        start = time.perf_counter()
        subprocess.run(cmd, cwd=tree, env=env, capture_output=True, check=False)
        runs.append(time.perf_counter() - start)
    return statistics.median(runs)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tree", required=True, type=Path)
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--mpsgen", default=shutil.which("mpsgen") or "mpsgen")
    args = ap.parse_args()
    tree = args.tree.resolve()
    store = Path(tempfile.mkdtemp(prefix="mpsgen-bench-gate-"))
    env = {**os.environ, "MPSGEN_CACHE_DIR": str(store)}
    cmd = [args.mpsgen, "check", MM]

    def empty_store() -> None:
        shutil.rmtree(store / "facts", ignore_errors=True)

    def append(rel: str, comment: str) -> Callable[[], None]:
        def edit() -> None:
            with open(tree / rel, "a", encoding="utf-8") as f:
                f.write(comment)
        return edit

    try:
        cold = timed(cmd, tree, env, empty_store, args.repeat)
        warm = timed(cmd, tree, env, None, args.repeat)
        mm_edit = timed(cmd, tree, env, append(MM, "// bench\n"), args.repeat)
        subprocess.run(["git", "checkout", "-q", "--", MM], cwd=tree, check=True)
        timed(cmd, tree, env, None, 1)
        yaml_edit = timed(cmd, tree, env, append(YAML, "# bench\n"), args.repeat)
    finally:
        subprocess.run(["git", "checkout", "-q", "--", MM, YAML], cwd=tree, check=True)
        shutil.rmtree(store, ignore_errors=True)
    print(f"tree: {tree}; `mpsgen check {MM}`, median of {args.repeat}")
    print("| run | seconds |\n|---|---|")
    for name, t in (("cold (empty fact store)", cold), ("warm (nothing changed)", warm),
                    ("after editing the named .mm", mm_edit), ("after editing native_functions.yaml", yaml_edit)):
        print(f"| {name} | {t:.3f} |")


if __name__ == "__main__":
    main()
