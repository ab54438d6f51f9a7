"""Wall time of `mpsgen check` and `mpsgen status` as whole processes, beside torchgen's parse of the same yaml.

The tree is the sample checkout with the torch wheel's real native_functions.yaml, common_mps.py,
common_methods_invocations.py and opinfo/definitions (the wheel has no .mm/.metal/.cpp sources).
Each command runs as a subprocess (python startup, imports, reading, analysis, output), the way CI
and pre-commit run it; the budget is 0.3 s per command.
"""

from __future__ import annotations

import argparse
import importlib.util
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

def console_script(source: Path) -> str:
    """`python -c` code running *source*'s console script: console.run, or cli.run in an mpsgen from before
    console.py (a --before checkout)."""
    module = "console" if (source / "mpsgen" / "console.py").is_file() else "cli"
    return f"from mpsgen.{module} import run; run()"

REPO = Path(__file__).resolve().parent.parent
SAMPLE = REPO / "fixtures" / "sample"
YAML_REL = "aten/src/ATen/native/native_functions.yaml"
TESTING_REL = "torch/testing/_internal"
BUDGET_S = 0.3


def package_dir(name: str) -> Path:
    spec = importlib.util.find_spec(name)
    if spec is None or spec.origin is None:
        sys.exit(f"{name} is not installed: pip install torch==2.13.0")
    return Path(spec.origin).parent


def build_tree(dest: Path) -> Path:
    root = dest / "pytorch"
    shutil.copytree(SAMPLE, root, symlinks=True)
    copy_wheel_files(root)
    return root


def copy_wheel_files(root: Path) -> None:
    """The real native_functions.yaml, common_mps.py, common_methods_invocations.py and OpInfo
    definitions of the installed torch wheel, over a sample-shaped tree."""
    shutil.copyfile(package_dir("torchgen") / "packaged/ATen/native/native_functions.yaml", root / YAML_REL)
    testing = package_dir("torch") / "testing" / "_internal"
    for name in ("common_mps.py", "common_methods_invocations.py"):
        shutil.copyfile(testing / name, root / TESTING_REL / name)
    defs = root / TESTING_REL / "opinfo" / "definitions"
    shutil.rmtree(defs)
    shutil.copytree(testing / "opinfo" / "definitions", defs, ignore=shutil.ignore_patterns("__pycache__"))


def wall_ms(cmd: list[str], repeat: int) -> tuple[float, float]:
    """(median, min) wall milliseconds of a subprocess, output discarded."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
        times.append((time.perf_counter() - start) * 1e3)
    return statistics.median(times), min(times)


def torchgen_ms(yaml: Path, repeat: int) -> tuple[float, float]:
    from torchgen.gen import parse_native_yaml

    tags = package_dir("torchgen") / "packaged/ATen/native/tags.yaml"
    times = []
    for k in range(repeat):
        copy = yaml.parent / f"nf_copy_{k}.yaml"  # torchgen caches by path: a fresh path parses for real
        shutil.copyfile(yaml, copy)
        start = time.perf_counter()
        parse_native_yaml(str(copy), str(tags))
        times.append((time.perf_counter() - start) * 1e3)
        copy.unlink()
    return statistics.median(times), min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=11, help="runs of each mpsgen command")
    parser.add_argument("--torchgen-repeat", type=int, default=3, help="runs of torchgen's parse")
    args = parser.parse_args()
    mpsgen = str(Path(sys.executable).parent / "mpsgen")
    with tempfile.TemporaryDirectory() as tmp:
        root = build_tree(Path(tmp))
        rows = [
            ("python -c pass (interpreter start)", wall_ms([sys.executable, "-c", "pass"], args.repeat)),
            ("mpsgen --help", wall_ms([mpsgen, "--help"], args.repeat)),
            ("mpsgen check", wall_ms([mpsgen, "-C", str(root), "check"], args.repeat)),
            ("mpsgen status", wall_ms([mpsgen, "-C", str(root), "status"], args.repeat)),
            ("mpsgen status --op atan2", wall_ms([mpsgen, "-C", str(root), "status", "--op", "atan2"], args.repeat)),
        ]
        tg = torchgen_ms(root / YAML_REL, args.torchgen_repeat)
    rows.append(("torchgen parse_native_yaml (in process)", tg))
    print("| measurement (torch 2.13.0 wheel files + sample sources) | median ms | min ms | torchgen / this |")
    print("|---|---:|---:|---:|")
    for name, (med, low) in rows:
        print(f"| {name} | {med:.0f} | {low:.0f} | {tg[0] / med:.1f} |")
    for name, (med, _) in rows:
        if name.startswith("mpsgen check") or name.startswith("mpsgen status"):
            verdict = "within" if med / 1e3 < BUDGET_S else "OVER"
            print(f"{name}: {med:.0f} ms, {verdict} the {BUDGET_S * 1e3:.0f} ms budget")


if __name__ == "__main__":
    main()
