"""Wall time of `mpsgen check`, `status` and `migrate --no-build --no-test` on a full-size tree.

The tree is either generated here, reproducibly (seeded): the sample checkout's Unary/Binary
sources, plus ~130 native/*.cpp, ~90 operations/*.mm and ~20 kernels/*.metal of realistic size and
shape (TORCH_IMPL_FUNC blocks calling DispatchStubs, MPSGraph implementations of every MPS-only
kernel of the yaml, functors with REGISTER_*_OP lines), and the torch wheel's real
native_functions.yaml, common_mps.py, common_methods_invocations.py and opinfo/definitions; or a
real checkout given with --tree DIR (copied first; the original is never written).

Each command runs as a subprocess, median of --repeat runs; migrate runs on a fresh copy each
time, with --no-try (planning and writing: the target) and without (the pre-write numeric check's
result cached after the first run); mpsgen's bytecode is compiled first, as an install would.  check and status keep per-file
facts between runs (tree/factcache.py), so each is timed three ways, with a fact store of the
benchmark's own (never ~/.cache): cold (an empty store each run: a first run, or one after
upgrading mpsgen), warm (nothing changed since the last run), and after one edit (a comment
appended to one operations/*.mm before each run: the pre-commit/lintrunner case).  Printed beside
torchgen's parse_native_yaml of the same yaml.  Targets (not asserted):
check <= 0.3 s and status <= 0.3 s cold (issue 24: as CI runs them), <= 0.15 s warm, migrate
--no-build --no-test <= 0.3 s.  A summary table puts cold and warm side by side for check and
status with torchgen's parse of the same yaml, and says whether check's output is the same cold
and warm; --no-migrate times check and status only; --migrate-all (with --tree, a git checkout) adds
`migrate --all --branch-per-op` without and with the numeric checks, cold (benchmarks/bench_migrate_all.py).

--paired TREE (repeatable; read in place, never written) times check and status cold and warm against
torchgen's parse of the same yaml in the same round, as CPU time (user + system of the process and its
children: steadier than wall time on a shared machine), median of --repeat rounds, and the ratio to
torchgen's parse as the median of each round's ratio; and cold runs' wall time beside torchgen's parse's (what a
person waits for: a cold run's child searches native/*.cpp on the second core).  torchgen is the tree's own when it parses the
tree's yaml, else the installed wheel's.  With --before DIR (a checkout of mpsgen's sources, e.g.
`git worktree add /tmp/before main`), each round runs that mpsgen too, right before this one, and
says whether the two print the same.  Target (issue 40): cold check <= 0.5x torchgen's parse.
"""

from __future__ import annotations

import argparse
import compileall
import os
import random
import resource
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import NamedTuple

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_check_status import (REPO, SAMPLE, YAML_REL, console_script, copy_wheel_files, package_dir,  # noqa: E402
                                torchgen_ms)

NATIVE = "aten/src/ATen/native"
OPS = "aten/src/ATen/native/mps/operations"
KERNELS = "aten/src/ATen/native/mps/kernels"
TARGETS = {"check": 0.3, "status": 0.3, "migrate": 0.3}
WARM_TARGET = 0.15  # issue 24: a re-run with nothing changed


# -- the generated tree ---------------------------------------------------------------------------


def _dispatch_kernels(yaml_text: str) -> tuple[list[str], list[str]]:
    """(MPS-only kernels, shared CPU/CUDA kernels also routed to MPS) named by the yaml."""
    legacy, shared = set(), set()
    for keys, kernel in re.findall(r"^ {4}([\w, ]+): (\w+)$", yaml_text, re.M):
        names = {k.strip() for k in keys.split(",")}
        if names == {"MPS"}:
            legacy.add(kernel)
        elif "MPS" in names and names & {"CPU", "CUDA"}:
            shared.add(kernel)
    return sorted(legacy), sorted(shared)


def _cpp_file(rng: random.Random, k: int, kernels: list[str]) -> tuple[str, str]:
    """A native/*.cpp of ~36 KB and its header: structured kernels calling stubs, helpers, comments."""
    body = [f"// Generated native source {k}: kernels shared by CPU and CUDA.\n",
            "#define TORCH_ASSERT_ONLY_METHOD_OPERATORS\n",
            f"#include <ATen/native/Gen{k}.h>\n#include <ATen/native/TensorIterator.h>\n\n",
            "namespace at::meta {\n"]
    for name in kernels:
        body.append(f"TORCH_META_FUNC({name})(const Tensor& self, const Tensor& other) {{\n"
                    f"  build_borrowing_binary_op(maybe_get_output(), self, other);\n}}\n\n")
    body.append("} // namespace at::meta\n\nnamespace at::native {\n\n")
    header = ["#pragma once\n#include <ATen/native/DispatchStub.h>\n\nnamespace at::native {\n"
              f"using gen{k}_fn = void (*)(TensorIteratorBase&);\n"]
    for name in kernels:
        stub = f"{name.removesuffix('_out')}_stub"
        header.append(f"DECLARE_DISPATCH(gen{k}_fn, {stub})\n")
        body.append(f"DEFINE_DISPATCH({stub});\n")
        body.append(f"TORCH_IMPL_FUNC({name})(const Tensor& self, const Tensor& other, const Tensor& result) {{\n"
                    f"  // The iterator was built in the meta function.\n"
                    f"  {stub}(device_type(), *this);\n}}\n\n")
    n = 0
    while sum(map(len, body)) < 36_000:
        n += 1
        loops = "".join(f"    acc += data[i * {j + 1}] * {rng.random():.4f}; // term {j}\n" for j in range(rng.randint(3, 12)))
        body.append(f"static double helper_{k}_{n}(const double* data, int64_t size) {{\n"
                    f"  double acc = 0;\n  for (int64_t i = 0; i < size; ++i) {{\n{loops}  }}\n"
                    f"  TORCH_CHECK(acc == acc, \"helper_{k}_{n}: nan in {{\", size, \"}}\");\n  return acc;\n}}\n\n")
    body.append("} // namespace at::native\n")
    header.append("} // namespace at::native\n")
    return "".join(body), "".join(header)


def _mm_file(rng: random.Random, k: int, kernels: list[str], stubs: list[str]) -> str:
    """An operations/*.mm of ~15 KB: MPSGraph implementations of MPS-only kernels, with helpers, and the
    MPS kernels of *stubs* (the stubs of kernels MPS shares with CPU and CUDA: a tree that links)."""
    body = ["#define TORCH_ASSERT_ONLY_METHOD_OPERATORS\n#include <ATen/native/mps/OperationUtils.h>\n\n",
            "namespace at::native {\n\n"]
    for stub in stubs:
        body.append(f"static void {stub}_mps_kernel(TensorIteratorBase& iter) {{\n"
                    f"  lib.exec_unary_kernel(iter, \"{stub.removesuffix('_stub')}\");\n}}\n\n")
    for j, name in enumerate(kernels):
        graph = "".join(f"      MPSGraphTensor* t{i} = [mpsGraph additionWithPrimaryTensor:inputTensor "
                        f"secondaryTensor:inputTensor name:nil];\n" for i in range(rng.randint(2, 8)))
        head = (f"TORCH_IMPL_FUNC({name})(const Tensor& self, const Tensor& output)" if name.endswith("_out_mps") and j % 2
                else f"Tensor& {name}(const Tensor& self, Tensor& output)")
        ret = "" if head.startswith("TORCH") else "  return output;\n"
        body.append(f"{head} {{\n  using namespace mps;\n  @autoreleasepool {{\n"
                    f"    mps::unary_op(self, output, \"{name}\", ^MPSGraphTensor*(MPSGraph* mpsGraph, MPSGraphTensor* inputTensor) {{\n"
                    f"{graph}      return inputTensor;\n    }});\n  }}\n{ret}}}\n\n")
    n = 0
    while sum(map(len, body)) < 15_000:
        n += 1
        steps = "".join(f"    newCachedGraph->t{i} = [mpsGraph multiplicationWithPrimaryTensor:newCachedGraph->t{i - 1} "
                        f"secondaryTensor:newCachedGraph->inputTensor_ name:nil]; // step {i}\n"
                        for i in range(1, rng.randint(10, 18)))
        body.append(f"static void mps_helper_{k}_{n}(const Tensor& t, const Tensor& output) {{\n"
                    f"  // keep the cache key stable: {rng.random():.6f}\n"
                    f"  std::string key = \"helper_{k}_{n}\" + getTensorsStringKey({{t}});\n"
                    f"  TORCH_CHECK(t.is_mps(), \"expected an MPS tensor\");\n"
                    f"  auto cachedGraph = LookUpOrCreateCachedGraph<CachedGraph>(key, [&](auto mpsGraph, auto newCachedGraph) {{\n"
                    f"    newCachedGraph->inputTensor_ = mpsGraphRankedPlaceHolder(mpsGraph, t);\n{steps}  }});\n"
                    f"  runMPSGraph(getCurrentMPSStream(), cachedGraph->graph(), dictionaryFromPlaceholders(t), output);\n}}\n\n")
    for stub in stubs:
        body.append(f"REGISTER_DISPATCH({stub}, &{stub}_mps_kernel)\n")
    body.append("} // namespace at::native\n")
    return "".join(body)


def _metal_file(rng: random.Random, k: int) -> str:
    """A kernels/*.metal of ~8 KB: functors and REGISTER_*_OP lines (the late-2025 layout)."""
    body = ["#include <c10/metal/indexing.h>\n#include <c10/metal/utils.h>\n#include <metal_stdlib>\n",
            "using namespace metal;\nusing namespace c10::metal;\n\n"]
    names = [f"gen{k}_op{j}" for j in range(rng.randint(12, 20))]
    for name in names:
        body.append(f"struct {name}_functor {{\n  template <typename T>\n  inline T operator()(const T x) {{\n"
                    f"    return static_cast<T>(precise::exp(float(x)) * {rng.random():.3f});\n  }}\n}};\n\n")
    for name in names:
        for dtype in ("float", "half", "bfloat"):
            body.append(f"REGISTER_UNARY_OP({name}, {dtype}, {dtype});\n")
    return "".join(body)


def generate_tree(dest: Path, seed: int = 2026) -> Path:
    rng = random.Random(seed)
    root = dest / "pytorch"
    shutil.copytree(SAMPLE, root, symlinks=True, ignore=shutil.ignore_patterns("build"))
    (root / "build").mkdir()
    copy_wheel_files(root)
    yaml_text = (root / YAML_REL).read_text()

    sample_defined = {m for p in (root / OPS).glob("*.mm") for m in re.findall(r"\b(\w+_mps)\b", p.read_text())}
    legacy, all_shared = _dispatch_kernels(yaml_text)
    legacy = [k for k in legacy if k not in sample_defined]
    sample_native = {m for p in (root / NATIVE).glob("*.cpp") for m in re.findall(r"TORCH_IMPL_FUNC\((\w+)\)", p.read_text())}
    shared = [k for k in all_shared if k not in sample_native]
    for k in range(130):
        # As in PyTorch, the kernels MPS shares sit in a few files (UnaryOps, BinaryOps, ...).
        cpp, header = _cpp_file(rng, k, shared[k::20] if k < 20 else [f"gen{k}_{j}_out" for j in range(4)])
        (root / NATIVE / f"Gen{k}.cpp").write_text(cpp)
        (root / NATIVE / f"Gen{k}.h").write_text(header)
    # Every stub a shared kernel calls gets an MPS kernel, as in a tree that links (the sample's own
    # registrations stay the only ones for their stubs).
    sample_registered = {m if m.endswith("_stub") else f"{m}_stub" for p in (root / OPS).glob("*.mm")
                         for m in re.findall(r"REGISTER_\w*DISPATCH\((\w+)", p.read_text())}
    stubs = sorted({f"{name.removesuffix('_out')}_stub" for name in all_shared} - sample_registered)
    for k in range(90):
        (root / OPS / f"GenOps{k}.mm").write_text(_mm_file(rng, k, legacy[k::90], stubs[k::90]))
    for k in range(20):
        (root / KERNELS / f"Gen{k}.metal").write_text(_metal_file(rng, k))
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    subprocess.run(["git", "add", "-A"], cwd=root, check=True)
    subprocess.run(["git", "-c", "user.name=bench", "-c", "user.email=b@b", "commit", "-qm", "tree"], cwd=root, check=True)
    return root


def copy_tree(src: Path, dest: Path) -> Path:
    root = dest / "pytorch"
    shutil.copytree(src, root, symlinks=True, ignore=shutil.ignore_patterns("build"))
    (root / "build").mkdir(exist_ok=True)
    return root


def wait_out_racy_window(root: Path) -> None:
    """Sleep until the newest file under *root* is older than mpsgen's racily-clean window.

    A file written less than RACY_NS before mpsgen reads it is never vouched for by its stamp (the
    fact store re-reads it on every run), so a tree generated a moment ago would time `check`'s
    racy path, which a checkout edited more than two seconds ago never takes."""
    from mpsgen.tree.checkout import RACY_NS

    newest = max(p.stat().st_mtime_ns for p in root.rglob("*") if p.is_file())
    time.sleep(max(0.0, (newest + RACY_NS - time.time_ns()) / 1e9 + 0.05))


# -- timing -----------------------------------------------------------------------------------------


class Run(NamedTuple):
    wall: float  # seconds, the whole process
    cpu: float  # user + system seconds of the process (less moved by other load than wall time)
    done: subprocess.CompletedProcess[str]


class Timing(NamedTuple):
    wall: float  # median
    cpu: float  # median
    last: subprocess.CompletedProcess[str]


def run(cmd: list[str], cache: Path | None = None) -> Run:
    env = {**os.environ, "MPSGEN_CACHE_DIR": str(cache)} if cache else None
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(cmd, capture_output=True, text=True, check=False, env=env)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return Run(wall, after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime, done)


def medians(runs: list[Run]) -> Timing:
    return Timing(statistics.median(r.wall for r in runs), statistics.median(r.cpu for r in runs), runs[-1].done)


def median_s(cmd: list[str], repeat: int, cache: Path | None = None) -> Timing:
    return medians([run(cmd, cache) for _ in range(repeat)])


def cold_s(cmd: list[str], repeat: int, scratch: Path) -> Timing:
    """Each run with an empty fact store."""
    return medians([run(cmd, scratch / f"cold-{cmd[-1]}-{k}") for k in range(repeat)])


def after_edit_s(cmd: list[str], root: Path, repeat: int, cache: Path) -> Timing:
    """A comment appended to one operations/*.mm before each run (the store warm otherwise)."""
    run(cmd, cache)
    mm = sorted((root / OPS).glob("*.mm"))[0]
    runs = []
    for k in range(repeat):
        with open(mm, "a") as f:
            f.write(f"// edit {k}\n")
        runs.append(run(cmd, cache))
    return medians(runs)


def migrate_s(root: Path, op: str, repeat: int, mpsgen: str, *extra: str) -> Timing:
    runs = []
    for _ in range(repeat):
        with tempfile.TemporaryDirectory() as tmp:
            work = Path(tmp) / "w"
            shutil.copytree(root, work, symlinks=True)
            runs.append(run([mpsgen, "-C", str(work), "migrate", op, "--no-build", "--no-test", "--allow-dirty", *extra]))
    return medians(runs)


# -- paired with torchgen, before and after --------------------------------------------------------

_TORCHGEN_PARSE = """
import shutil, sys, tempfile, time
from pathlib import Path
from torchgen.gen import parse_native_yaml
yaml, tags = sys.argv[1:3]
with tempfile.TemporaryDirectory() as tmp:  # torchgen caches by path: a fresh one parses for real
    copy = Path(tmp) / "native_functions.yaml"
    shutil.copyfile(yaml, copy)
    start, wall = time.process_time(), time.perf_counter()
    parse_native_yaml(str(copy), tags)
    print(time.process_time() - start, time.perf_counter() - wall)
"""


def torchgen_for(tree: Path) -> tuple[dict[str, str], str]:
    """(environment, name) of a torchgen that parses *tree*'s yaml: the tree's own, else the wheel's."""
    tags = tree / "aten/src/ATen/native/tags.yaml"
    for env, name in (({**os.environ, "PYTHONPATH": str(tree)}, "the tree's own"), (dict(os.environ), "the wheel's")):
        done = subprocess.run([sys.executable, "-c", _TORCHGEN_PARSE, str(tree / YAML_REL), str(tags)],
                              env=env, capture_output=True, text=True, check=False)
        if done.returncode == 0:
            return env, name
    sys.exit(f"no torchgen parses {tree / YAML_REL}")


def torchgen_times(tree: Path, env: dict[str, str]) -> tuple[float, float]:
    """(CPU, wall) seconds of torchgen's parse_native_yaml alone (its imports not counted), in a fresh process."""
    done = subprocess.run([sys.executable, "-c", _TORCHGEN_PARSE, str(tree / YAML_REL),
                           str(tree / "aten/src/ATen/native/tags.yaml")], env=env, capture_output=True, text=True, check=True)
    cpu, wall = map(float, done.stdout.split())
    return cpu, wall


def mpsgen_run(source: Path, tree: Path, command: str, store: Path) -> Run:
    """`mpsgen -C tree <command>` with *source*'s mpsgen, its fact store in *store*."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(source), os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep),
           "MPSGEN_CACHE_DIR": str(store)}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    # Run from *source*: `python -c` puts the working directory first on sys.path, so another
    # checkout's mpsgen there would be the one imported.
    done = subprocess.run([sys.executable, "-c", console_script(source), "-C", str(tree), *command.split()],
                          capture_output=True, text=True, check=False, env=env, cwd=source)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return Run(wall, after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime, done)


def paired(trees: list[Path], sources: dict[str, Path], repeat: int) -> None:
    """Cold and warm check/status of each source beside torchgen's parse, round by round."""
    for source in sources.values():
        compileall.compile_dir(str(source / "mpsgen"), quiet=1)
    commands = ("check --format json", "status")
    for tree in trees:
        env, which = torchgen_for(tree)
        tg: list[float] = []
        tg_wall: list[float] = []
        cpu: dict[tuple[str, str, str], list[float]] = {}
        wall: dict[tuple[str, str], list[float]] = {}  # cold runs' wall time (the child on the second core)
        outputs: dict[tuple[str, str, str], set[str]] = {}
        with tempfile.TemporaryDirectory() as tmp:
            for k in range(repeat):
                tg_cpu, tg_w = torchgen_times(tree, env)
                tg.append(tg_cpu)
                tg_wall.append(tg_w)
                for label, source in sources.items():
                    for command in commands:
                        store = Path(tmp) / f"{label}-{command.split()[0]}-{k}"
                        for state in ("cold", "warm"):  # the warm run re-uses what the cold one stored
                            r = mpsgen_run(source, tree, command, store)
                            cpu.setdefault((label, command, state), []).append(r.cpu)
                            if state == "cold":
                                wall.setdefault((label, command), []).append(r.wall)
                            outputs.setdefault((label, command, state), set()).add(r.done.stdout)
        print(f"\n{tree}: torchgen ({which}) parse_native_yaml, CPU s median of {repeat}: {statistics.median(tg):.3f}")
        print(f"torchgen's parse, wall s median: {statistics.median(tg_wall):.3f}")
        print("| command | mpsgen | cold CPU s | cold / torchgen | warm CPU s | warm / torchgen | cold wall s "
              "| cold wall / torchgen's wall |")
        print("|---|---|---:|---:|---:|---:|---:|---:|")
        for command in commands:
            for label in sources:
                cells = []
                for state in ("cold", "warm"):
                    xs = cpu[(label, command, state)]
                    cells += [f"{statistics.median(xs):.3f}", f"{statistics.median(x / t for x, t in zip(xs, tg)):.2f}x"]
                ws = wall[(label, command)]
                cells += [f"{statistics.median(ws):.3f}", f"{statistics.median(w / t for w, t in zip(ws, tg_wall)):.2f}x"]
                print(f"| `{command}` | {label} | " + " | ".join(cells) + " |")
        print(f"rounds (CPU s): torchgen {' '.join(f'{t:.2f}' for t in tg)}; " + "; ".join(
            f"{label} cold {command.split()[0]} {' '.join(f'{x:.2f}' for x in cpu[(label, command, 'cold')])}"
            for command in commands for label in sources))
        for command in commands:
            printed = set().union(*(outputs[(label, command, state)] for label in sources for state in ("cold", "warm")))
            print(f"`{command}`: {'the same output' if len(printed) == 1 else 'DIFFERENT outputs'} from every run"
                  + (f" of {', '.join(sources)}" if len(sources) > 1 else ""))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tree", type=Path, help="a real checkout to measure (copied first)")
    parser.add_argument("--op", default=None, help="op for migrate (default: frac, or sigmoid with --tree)")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--torchgen-repeat", type=int, default=3)
    parser.add_argument("--no-migrate", action="store_true", help="time check and status only")
    parser.add_argument("--migrate-all", action="store_true",
                        help="with --tree (a git checkout): also time `migrate --all --branch-per-op` (bench_migrate_all.py)")
    parser.add_argument("--paired", type=Path, action="append", metavar="TREE",
                        help="time cold and warm check/status beside torchgen's parse on TREE (repeatable), CPU time")
    parser.add_argument("--before", type=Path, metavar="DIR", help="with --paired: also an earlier mpsgen's sources")
    args = parser.parse_args()
    if args.paired:
        sources = {"before": args.before.resolve()} if args.before else {}
        paired([t.resolve() for t in args.paired], {**sources, "after" if args.before else "mpsgen": REPO}, args.repeat)
        return
    mpsgen = str(Path(sys.executable).parent / "mpsgen")
    # An installed package has its bytecode; an editable one under PYTHONDONTWRITEBYTECODE=1 would
    # recompile every module on every run (~0.1 s), which no user pays.
    compileall.compile_dir(str(package_dir("mpsgen")), quiet=1)
    op = args.op or ("sigmoid" if args.tree else "frac")
    with tempfile.TemporaryDirectory() as tmp:
        root = copy_tree(args.tree, Path(tmp)) if args.tree else generate_tree(Path(tmp))
        wait_out_racy_window(root)
        sizes = {ext: sum(1 for _ in root.rglob(f"*.{ext}")) for ext in ("cpp", "mm", "metal")}
        scratch, store = Path(tmp) / "cold-stores", Path(tmp) / "store"
        check_cmd, status_cmd = [mpsgen, "-C", str(root), "check"], [mpsgen, "-C", str(root), "status"]
        rows = [
            ("python -c pass", median_s([sys.executable, "-c", "pass"], args.repeat)),
            ("mpsgen check (warm)", (run(check_cmd, store), median_s(check_cmd, args.repeat, store))[1]),
            ("mpsgen status (warm)", (run(status_cmd, store), median_s(status_cmd, args.repeat, store))[1]),
            ("mpsgen check (cold: empty fact store)", cold_s(check_cmd, args.repeat, scratch)),
            ("mpsgen status (cold: empty fact store)", cold_s(status_cmd, args.repeat, scratch)),
            ("mpsgen check (one .mm edited)", after_edit_s(check_cmd, root, args.repeat, store)),
            ("mpsgen status (one .mm edited)", after_edit_s(status_cmd, root, args.repeat, store)),
        ]
        if not args.no_migrate:
            rows += [
                (f"mpsgen migrate {op} --no-build --no-test --no-try", migrate_s(root, op, args.repeat, mpsgen, "--no-try")),
                # The default runs `mpsgen try` first: its result is cached by content after the first run
                # (a first run compiles and imports torch: bench_try.py), its plan re-read in each new copy.
                (f"mpsgen migrate {op} --no-build --no-test (numeric check cached)", migrate_s(root, op, args.repeat, mpsgen)),
            ]
        tg_yaml, tg_note = root / YAML_REL, "same yaml"
        try:
            tg = torchgen_ms(tg_yaml, args.torchgen_repeat)[0] / 1e3
        except Exception as e:  # the wheel's torchgen may not read an older checkout's yaml
            tg_note = f"wheel's yaml: the installed torchgen cannot parse this tree's ({type(e).__name__})"
            wheel_yaml = Path(tmp) / "wheel_nf.yaml"
            shutil.copyfile(package_dir("torchgen") / "packaged/ATen/native/native_functions.yaml", wheel_yaml)
            tg = torchgen_ms(wheel_yaml, args.torchgen_repeat)[0] / 1e3
    what = f"--tree {args.tree}" if args.tree else "generated tree (seed 2026)"
    print(f"{what}: {sizes['cpp']} .cpp, {sizes['mm']} .mm, {sizes['metal']} .metal")
    print("| command | median s | CPU s | exit | torchgen parse / this |")
    print("|---|---:|---:|---:|---:|")
    for name, t in rows:
        print(f"| {name} | {t.wall:.3f} | {t.cpu:.3f} | {t.last.returncode} | {tg / t.wall:.1f} |")
    print(f"| torchgen parse_native_yaml (in process; {tg_note}) | {tg:.3f} | | | 1.0 |")
    t = dict(rows)
    print(f"\nSide by side (median of {args.repeat}, whole process, wall s; CPU s in parentheses):")
    print("| command | cold (empty fact store) | warm | one .mm edited | torchgen parse of the same yaml |")
    print("|---|---:|---:|---:|---:|")
    for cmd in ("check", "status"):
        cold, warm, edit = (t[f"mpsgen {cmd} ({k})"] for k in ("cold: empty fact store", "warm", "one .mm edited"))
        print(f"| mpsgen {cmd} | {cold.wall:.3f} ({cold.cpu:.3f}) | {warm.wall:.3f} ({warm.cpu:.3f}) "
              f"| {edit.wall:.3f} ({edit.cpu:.3f}) | {tg:.3f} |")
    same = t["mpsgen check (cold: empty fact store)"].last.stdout == t["mpsgen check (warm)"].last.stdout
    print("check's output cold and warm:", "identical" if same else "DIFFERENT")
    check = t["mpsgen check (warm)"].last.stdout.strip().splitlines()
    print("check:", check[-1] if check else "(no output)")
    migrate = rows[-2][1].last if not args.no_migrate else None
    if migrate is not None:
        print("migrate:", (migrate.stderr.strip().splitlines() or migrate.stdout.strip().splitlines() or ["?"])[-1][:300])
    for name, t_ in rows[1:]:
        target = next((v for k, v in TARGETS.items() if name.startswith(f"mpsgen {k}")), None)
        if target is not None and "(warm)" in name:
            target = WARM_TARGET
        if target is not None and "edited" not in name and "cached" not in name:
            print(f"{name}: {t_.wall:.3f} s ({'within' if t_.wall <= target else 'OVER'} the {target} s target)")
    if args.migrate_all and args.tree:
        from bench_migrate_all import measure, print_rows

        print_rows(measure(args.tree, os.cpu_count() or 1, naive=False),
                   f"\nThe whole frontier (whole process, cold = an empty cache; {os.cpu_count()} CPUs):")


if __name__ == "__main__":
    main()
