"""Fault injection: does `mpsgen check` catch the breakage a commit can carry, on a real checkout?

Run on a git clone you can write to (it is edited, staged and restored with `git checkout`/`git
reset`; never on a tree with work of your own in it):

    python benchmarks/fault_injection.py --tree /work/trees/pt27-clone

For each fault (a REGISTER_DISPATCH line deleted; every registration of a kernel the host runs
deleted; a yaml MPS line naming a missing function; an MPSGraph TORCH_IMPL_FUNC deleted while the
yaml names it; a stub's registration deleted while the yaml shares the kernel with MPS), the
fault is written and staged, and three gates must fail (exit 1):

* the whole-tree `mpsgen check`;
* `mpsgen check CHANGED_FILE` run from the checkout's root (what pre-commit and lintrunner run);
* the pre-commit hook as the README installs it (`repo: local`, `entry: mpsgen check`), run by
  real pre-commit on the staged change.

On the pristine tree the same three must pass.  A tree that already has findings (the
2026-shaped tree mixes 2.13 yaml with 2.7 sources) is judged against a baseline written from its
pristine state (`--baseline`, as the README advises for adopting the gate), so only what the
fault adds counts.  Prints a markdown table; exit 1 when any expectation fails.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable, NamedTuple

YAML = "aten/src/ATen/native/native_functions.yaml"
OPS = "aten/src/ATen/native/mps/operations"
KERNELS = "aten/src/ATen/native/mps/kernels"

# The hook as README.md's "Set-up: CI, pre-commit, lintrunner" section writes it (without --compile).
PRECOMMIT_CONFIG = """\
repos:
  - repo: local
    hooks:
      - id: mpsgen-check
        name: mpsgen check (MPS operator plumbing)
        entry: mpsgen check{args}
        language: system
        pass_filenames: true
        require_serial: true
        files: ^(aten/src/ATen/native/native_functions\\.yaml|aten/src/ATen/native/[^/]+\\.(h|cpp)|aten/src/ATen/native/mps/.*\\.(mm|metal|h)|torch/testing/_internal/(common_mps|common_methods_invocations)\\.py|torch/testing/_internal/opinfo/definitions/[^/]+\\.py)$
"""


class Fault(NamedTuple):
    name: str
    path: str  # the file changed
    edit: Callable[[str], str]  # its text -> the broken text
    expect: str  # the rule code the fault must raise


def delete_lines(pattern: str) -> Callable[[str], str]:
    """Delete every line matching *pattern* (a regex searched in the line); refuse when none does."""
    rx = re.compile(pattern)

    def edit(text: str) -> str:
        lines = text.split("\n")
        kept = [ln for ln in lines if not rx.search(ln)]
        if len(kept) == len(lines):
            raise SystemExit(f"fault setup: no line matches {pattern!r}")
        return "\n".join(kept)

    return edit


def delete_statement(start: str) -> Callable[[str], str]:
    """Delete the statement whose first line matches *start*, through the line holding its `);`."""
    rx = re.compile(start)

    def edit(text: str) -> str:
        lines = text.split("\n")
        first = next((k for k, ln in enumerate(lines) if rx.search(ln)), None)
        if first is None:
            raise SystemExit(f"fault setup: no line matches {start!r}")
        last = next(k for k in range(first, len(lines)) if ");" in lines[k])
        return "\n".join(lines[:first] + lines[last + 1:])

    return edit


def rename_first_mps_kernel(text: str) -> str:
    """A yaml `MPS: x_mps` line now names `x_mps_missing`, which nothing defines."""
    m = re.search(r"^([ \t]+MPS:[ \t]+)(\w+_mps\w*)[ \t]*$", text, re.M)
    if m is None:
        raise SystemExit("fault setup: no `MPS: x_mps` line in the yaml")
    return text[: m.start(2)] + m.group(2) + "_missing" + text[m.end(2):]


def delete_impl_func(tree: Path) -> tuple[str, Callable[[str], str]]:
    """The first operations/*.mm TORCH_IMPL_FUNC(x) whose x a yaml MPS line names: (file, deleter)."""
    yaml_text = (tree / YAML).read_text(encoding="utf-8")
    named = set(re.findall(r"^[ \t]+MPS:[ \t]+(\w+)[ \t]*$", yaml_text, re.M))
    for mm in sorted((tree / OPS).glob("*.mm")):
        text = mm.read_text(encoding="utf-8")
        for m in re.finditer(r"^TORCH_IMPL_FUNC\((\w+)\)", text, re.M):
            if m.group(1) in named and len(re.findall(r"\b" + m.group(1) + r"\b", text)) == 1:
                end = text.find("\n}\n", m.start())
                if end < 0:
                    continue

                def edit(t: str, start: int = m.start(), stop: int = end + 3) -> str:
                    return t[:start] + t[stop:]

                return mm.relative_to(tree).as_posix(), edit
    raise SystemExit("fault setup: no TORCH_IMPL_FUNC the yaml names")


def faults_for(tree: Path) -> list[Fault]:
    """The faults, in the spelling of the tree's era."""
    unary_mm = (tree / OPS / "UnaryKernel.mm").read_text(encoding="utf-8")
    binary_metal = (tree / KERNELS / "BinaryKernel.metal").read_text(encoding="utf-8")
    impl_file, impl_edit = delete_impl_func(tree)
    faults = [
        Fault("REGISTER_DISPATCH line deleted (copysign_stub)", f"{OPS}/BinaryKernel.mm",
              delete_lines(r"REGISTER_DISPATCH\(copysign_stub\b"), "MPS005"),
    ]
    if "REGISTER_BINARY_INDEXING_OP(fmax," in binary_metal:  # 2.6-2.7: binary_mps_impl(iter, "fmax")
        faults.append(Fault("every registration of a kernel the host runs deleted (fmax)", f"{KERNELS}/BinaryKernel.metal",
                            delete_lines(r"REGISTER_BINARY_INDEXING_OP\(fmax,"), "MPS007"))
        # 2.7's unary kernels are templates instantiated by host_name inside INSTANTIATE_UNARY_KERNELS2
        faults.append(Fault("every registration of a kernel the host runs deleted (exp, host_name)",
                            f"{KERNELS}/UnaryKernel.metal", delete_statement(r'host_name\("exp_" #'), "MPS007"))
    else:  # 2026: REGISTER_UNARY_TI_DISPATCH(neg) runs exec_unary_kernel(iter, #NAME)
        faults.append(Fault("every registration of a kernel the host runs deleted (neg)", f"{KERNELS}/UnaryKernel.metal",
                            delete_lines(r"REGISTER_\w+\(neg,"), "MPS007"))
        faults.append(Fault("the top-level REGISTER_UNARY_OP(neg, …) lines deleted (float2/half2 left)",
                            f"{KERNELS}/UnaryKernel.metal", delete_lines(r"^REGISTER_UNARY_OP\(neg,"), "MPS007"))
    faults += [
        Fault("yaml MPS line naming a missing function", YAML, rename_first_mps_kernel, "MPS003"),
        Fault("MPSGraph TORCH_IMPL_FUNC deleted while the yaml names it", impl_file, impl_edit, "MPS003"),
    ]
    if "REGISTER_UNARY_TI_DISPATCH(reciprocal)" in unary_mm:
        faults.append(Fault("stub registration deleted, yaml shares the kernel (REGISTER_UNARY_TI_DISPATCH(reciprocal))",
                            f"{OPS}/UnaryKernel.mm", delete_lines(r"^REGISTER_UNARY_TI_DISPATCH\(reciprocal\)"), "MPS005"))
    else:
        faults.append(Fault("stub registration deleted, yaml shares the kernel (erfinv_stub)", f"{OPS}/UnaryKernel.mm",
                            delete_lines(r"REGISTER_DISPATCH\(erfinv_stub\b"), "MPS005"))
    return faults


class Gates(NamedTuple):
    whole: int
    filtered: int
    hook: int
    codes: str  # codes the filtered run reported
    seconds: float  # the filtered run's wall time


def run(cmd: list[str], tree: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, cwd=tree, env=env, capture_output=True, text=True, timeout=900)


def gates(tree: Path, changed: str, mpsgen: str, extra: list[str], config: Path, env: dict[str, str]) -> Gates:
    whole = run([mpsgen, "check", *extra], tree, env)
    start = time.perf_counter()
    filtered = run([mpsgen, "check", *extra, changed], tree, env)
    seconds = time.perf_counter() - start
    hook = run([sys.executable, "-m", "pre_commit", "run", "--config", str(config), "--files", changed]
               if not _staged(tree) else [sys.executable, "-m", "pre_commit", "run", "--config", str(config)], tree, env)
    codes = sorted(set(re.findall(r" (MPS\d{3}) ", filtered.stdout)))
    if whole.returncode == 2 or filtered.returncode == 2 or "Traceback" in hook.stdout + hook.stderr:
        sys.stderr.write(whole.stdout[-2000:] + whole.stderr[-2000:] + filtered.stderr[-2000:] + hook.stdout[-2000:])
    return Gates(whole.returncode, filtered.returncode, hook.returncode, ",".join(codes), seconds)


def _staged(tree: Path) -> bool:
    return subprocess.run(["git", "diff", "--cached", "--quiet"], cwd=tree).returncode != 0


def restore(tree: Path) -> None:
    subprocess.run(["git", "reset", "-q"], cwd=tree, check=True)
    subprocess.run(["git", "checkout", "-q", "--", "."], cwd=tree, check=True)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tree", required=True, type=Path, help="a git clone of a PyTorch checkout (written, then restored)")
    ap.add_argument("--mpsgen", default=shutil.which("mpsgen") or "mpsgen", help="the mpsgen executable")
    args = ap.parse_args()
    tree = args.tree.resolve()
    if subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=tree,
                      capture_output=True, text=True).stdout.strip():
        raise SystemExit(f"{tree}: has uncommitted changes; use a clean clone")
    work = Path(tempfile.mkdtemp(prefix="mpsgen-faults-"))
    bindir = str(Path(args.mpsgen).resolve().parent)
    env = {**os.environ, "PATH": bindir + os.pathsep + os.environ["PATH"], "PRE_COMMIT_HOME": str(work / "pre-commit"),
           "MPSGEN_CACHE_DIR": os.environ.get("MPSGEN_CACHE_DIR", str(work / "cache"))}
    faults = faults_for(tree)
    # A tree that already has errors is judged against its own baseline (README: adopting the gate).
    extra: list[str] = []
    first = run([args.mpsgen, "check"], tree, env)
    if first.returncode == 1:
        baseline = work / "baseline.json"
        run([args.mpsgen, "check", "--write-baseline", str(baseline)], tree, env)
        extra = ["--baseline", str(baseline)]
    config = work / "pre-commit-config.yaml"
    config.write_text(PRECOMMIT_CONFIG.format(args="".join(f" {a}" for a in extra)), encoding="utf-8")

    rows = []
    ok = True
    for f in faults:  # the pristine tree: the same gates over each file a fault will change
        g = gates(tree, f.path, args.mpsgen, extra, config, env)
        passed = (g.whole, g.filtered, g.hook) == (0, 0, 0)
        ok &= passed
        rows.append(("pristine", f.path, "-", g, "pass" if passed else "FAIL"))
    for f in faults:
        target = tree / f.path
        try:
            target.write_text(f.edit(target.read_text(encoding="utf-8")), encoding="utf-8")
            subprocess.run(["git", "add", f.path], cwd=tree, check=True)
            g = gates(tree, f.path, args.mpsgen, extra, config, env)
        finally:
            restore(tree)
        caught = (g.whole, g.filtered, g.hook) == (1, 1, 1) and f.expect in g.codes.split(",")
        ok &= caught
        rows.append((f.name, f.path, f.expect, g, "caught" if caught else "MISSED"))
    shutil.rmtree(work, ignore_errors=True)

    print(f"tree: {tree}" + (" (judged against its pristine baseline)" if extra else ""))
    print("| fault | changed file | expected | whole-tree check | check FILE | pre-commit hook | codes (check FILE) | check FILE s | verdict |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name, path, expect, g, verdict in rows:
        print(f"| {name} | {path.rsplit('/', 1)[-1]} | {expect} | {g.whole} | {g.filtered} | {g.hook} | {g.codes or '-'} "
              f"| {g.seconds:.2f} | {verdict} |")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
