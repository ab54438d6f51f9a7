"""Wall time of the no-Mac compile check (`mpsgen check --compile FILE`), on a real checkout.

    python benchmarks/bench_compile.py --tree /tmp/pt27-clone [--repeat 5]

The tree is a git clone you can write to (the named files get a line appended, then are restored
with `git checkout`).  With a cache folder of the benchmark's own ($MPSGEN_CACHE_DIR), timed as whole
processes of the entry point, wall and CPU (user + sys, children included: on a shared machine the
CPU figure is the one that holds), median of --repeat:

* once, with an empty cache: `check --compile` of an edited .mm, which generates the ATen headers
  from the yaml (torchgen), builds the PCH of the file's #include block and compiles the file and its
  HEAD version;
* a .mm after another edit (the pre-commit case: the generated headers, the PCH and the HEAD version's
  result cached, the edited text compiled behind the PCH);
* a .metal after an edit;
* warm: nothing changed since the last run (every result cached);
* beside each, plain `check FILE` (the lint alone), the floor a person already waits for.

Not asserted anywhere; the figures go to benchmarks/README.md.
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


MM = "aten/src/ATen/native/mps/operations/BinaryKernel.mm"
METAL = "aten/src/ATen/native/mps/kernels/UnaryKernel.metal"


def run(cmd: list[str], tree: Path, env: dict[str, str]) -> tuple[float, float, subprocess.CompletedProcess[str]]:
    """Wall and CPU (user + sys of the process and its children) seconds of one run."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(cmd, cwd=tree, env=env, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), done


def timed(cmd: list[str], tree: Path, env: dict[str, str], before=None, repeat: int = 5) -> tuple[float, float]:
    """Medians of wall and CPU seconds over *repeat* runs, *before* called ahead of each."""
    walls, cpus = [], []
    for _ in range(repeat):
        if before is not None:
            before()
        wall, cpu, _ = run(cmd, tree, env)
        walls.append(wall)
        cpus.append(cpu)
    return statistics.median(walls), statistics.median(cpus)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tree", required=True, type=Path)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--mpsgen", default=shutil.which("mpsgen") or "mpsgen")
    args = ap.parse_args()
    tree = args.tree.resolve()
    cache = Path(tempfile.mkdtemp(prefix="mpsgen-bench-compile-"))
    env = {**os.environ, "MPSGEN_CACHE_DIR": str(cache)}
    mpsgen = args.mpsgen

    def edit(rel: str):
        def append() -> None:  # a new comment each run: the text, so the result, is new each time
            subprocess.run(["git", "checkout", "-q", "--", rel], cwd=tree, check=True)
            with open(tree / rel, "a", encoding="utf-8") as f:
                f.write(f"\n// bench_compile edit {time.time_ns()}\n")
        return append

    rows: list[tuple[str, tuple[float, float]]] = []
    try:
        edit(MM)()
        wall, cpu, done = run([mpsgen, "check", "--compile", MM], tree, env)
        if done.returncode not in (0, 1):
            raise SystemExit(f"mpsgen check --compile failed: {done.stderr.strip()[-400:]}")
        rows.append(("cold: empty cache, a .mm edited (headers generated, #include block's PCH built, "
                     "the file and its HEAD version compiled)", (wall, cpu)))
        rows.append((".mm edited again (pre-commit's case: headers and PCH cached)",
                     timed([mpsgen, "check", "--compile", MM], tree, env, edit(MM), args.repeat)))
        rows.append((".mm edited, lint alone (check FILE)",
                     timed([mpsgen, "check", MM], tree, env, edit(MM), args.repeat)))
        subprocess.run(["git", "checkout", "-q", "--", MM], cwd=tree, check=True)
        rows.append((".metal edited",
                     timed([mpsgen, "check", "--compile", METAL], tree, env, edit(METAL), args.repeat)))
        rows.append(("warm: nothing changed since the last run",
                     timed([mpsgen, "check", "--compile", METAL], tree, env, repeat=args.repeat)))
    finally:
        subprocess.run(["git", "checkout", "-q", "--", MM, METAL], cwd=tree, check=False)
        shutil.rmtree(cache, ignore_errors=True)
    print(f"| {tree.name}: measurement | wall s | CPU s |\n|---|---|---|")
    for label, (wall, cpu) in rows:
        print(f"| {label} | {wall:.2f} | {cpu:.2f} |")


if __name__ == "__main__":
    main()
