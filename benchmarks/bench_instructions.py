"""Instructions of a cold `mpsgen check` beside torchgen's parse of the same yaml, counted by valgrind.

    python benchmarks/bench_instructions.py --tree /work/trees/pt27 --tree /work/trees/pt2026 [--before DIR]

Instruction counts do not move with the machine's load, where CPU seconds on a shared machine move by
a third from one round to the next: one run of each is the measure (issue 40, item 5: cold `check`
<= 0.5x torchgen's parse).  Counted with callgrind, for each tree:

* torchgen's `parse_native_yaml` of the tree's yaml alone: a process importing torchgen and parsing a
  fresh copy of the yaml (torchgen caches by path), minus a process only importing it.  The tree's own
  torchgen when it parses the yaml, else the installed wheel's.
* `check --format json` and `status` of this checkout's mpsgen (and of DIR's with --before), run from its
  sources with its bytecode compiled (as an installed package runs), cold (an empty fact store) and
  warm (the store the cold run left).  A cold run forks a child that searches native/*.cpp while the
  parent reads the rest, and the parent waits for its answers (`waitpid`) when a rule first needs one:
  the parent's counts are dumped just before the fork and just before that wait
  (`--dump-before=PyOS_BeforeFork`, `--dump-before=waitpid`; a forked child starts with its parent's
  counts, so it is counted from the fork).

Two figures per cold run: the **total**, every instruction of both processes (the CPU it costs), and
the **path**, what a person waits for on two cores: before the fork, then the longer of the parent's
work up to the wait and the child's, then the parent's work after it (as if both ran at one speed).
A warm run has no child: its path is its total.

Reads the trees in place (nothing written there); needs valgrind.
"""

from __future__ import annotations

import argparse
import compileall
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import NamedTuple

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_check_status import console_script  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
YAML_REL = "aten/src/ATen/native/native_functions.yaml"
TAGS_REL = "aten/src/ATen/native/tags.yaml"
COMMANDS = ("check --format json", "status")


class Count(NamedTuple):
    """Instructions of one mpsgen run: before the fork, the parent's up to its wait for the child and
    after it (all after the fork when it never waits), the forked child."""

    prefork: int
    before_wait: int
    after_wait: int
    child: int
    stdout: str

    @property
    def parent(self) -> int:
        return self.before_wait + self.after_wait

    @property
    def total(self) -> int:
        return self.prefork + self.parent + self.child

    @property
    def path(self) -> int:
        """What the run takes on two cores: the parent waits for the child only when the child has more to do."""
        return self.prefork + max(self.before_wait, self.child) + self.after_wait


def _totals(out_dir: Path) -> dict[str, int]:
    """{callgrind file name: its total instructions}."""
    found = {}
    for f in out_dir.iterdir():
        with f.open() as fh:
            found[f.name] = next(int(line.split()[1]) for line in fh if line.startswith(("totals:", "summary:")))
    return found


def callgrind(cmd: list[str], env: dict[str, str], cwd: Path | None = None) -> tuple[dict[str, int], str]:
    """({output file: instructions}, stdout) of *cmd* under callgrind, forks followed, dumped before a fork."""
    with tempfile.TemporaryDirectory() as out:
        done = subprocess.run(["valgrind", "--tool=callgrind", "-q", "--dump-before=PyOS_BeforeFork", "--dump-before=waitpid",
                               f"--callgrind-out-file={out}/cg.%p", *cmd],
                              env=env, cwd=cwd, capture_output=True, text=True, check=False)
        return _totals(Path(out)), done.stdout


def torchgen_env(tree: Path) -> tuple[dict[str, str], str]:
    """(environment, name) of a torchgen that parses *tree*'s yaml: the tree's own, else the wheel's."""
    probe = "import sys; from torchgen.gen import parse_native_yaml; parse_native_yaml(sys.argv[1], sys.argv[2])"
    for env, name in (({**os.environ, "PYTHONPATH": str(tree)}, "the tree's own"), (dict(os.environ), "the wheel's")):
        if subprocess.run([sys.executable, "-c", probe, str(tree / YAML_REL), str(tree / TAGS_REL)], env=env,
                          capture_output=True, check=False).returncode == 0:
            return env, name
    sys.exit(f"no torchgen parses {tree / YAML_REL}")


def torchgen_parse(tree: Path) -> tuple[int, str]:
    """(instructions of parse_native_yaml alone, which torchgen)."""
    env, which = torchgen_env(tree)
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / "native_functions.yaml"
        shutil.copyfile(tree / YAML_REL, copy)
        imports = "from torchgen.gen import parse_native_yaml"
        only, _ = callgrind([sys.executable, "-c", imports], env)
        parse, _ = callgrind([sys.executable, "-c", f"{imports}; parse_native_yaml({str(copy)!r}, {str(tree / TAGS_REL)!r})"], env)
    return sum(parse.values()) - sum(only.values()), which


def mpsgen_count(source: Path, tree: Path, command: str, store: Path) -> Count:
    """One `mpsgen -C tree <command>` of *source*'s mpsgen under callgrind, its fact store in *store*."""
    env = {**os.environ, "PYTHONPATH": str(source), "MPSGEN_CACHE_DIR": str(store)}
    # Run from *source*: `python -c` puts the working directory first on sys.path.
    parts, stdout = callgrind([sys.executable, "-c", console_script(source), "-C", str(tree),
                               *command.split()], env, cwd=source)
    by_pid: dict[int, dict[str, int]] = {}
    for name, n in parts.items():
        m = re.fullmatch(r"cg\.(\d+)(?:\.(\d+))?", name)
        if m:
            by_pid.setdefault(int(m[1]), {})[m[2] or "last"] = n
    parent, *children = sorted(by_pid)  # the child's pid is the larger
    # the parent's stretches in order: its numbered dumps (each ends at a fork or a waitpid), then the last
    ours = dict(by_pid[parent])
    last = ours.pop("last", 0)
    stretches = [ours[k] for k in sorted(ours, key=int)] + [last]
    if not children:  # no fork (a warm run): one process, whatever it waited for
        return Count(sum(stretches), 0, 0, 0, stdout)
    prefork, *after_fork = stretches
    before_wait = after_fork[0] if len(after_fork) > 1 else 0  # up to its first wait after the fork
    return Count(prefork, before_wait, sum(after_fork) - before_wait, sum(sum(by_pid[c].values()) for c in children),
                 stdout)


def millions(n: int) -> str:
    return f"{n / 1e6:,.0f} M"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tree", type=Path, action="append", required=True, help="a checkout (repeatable)")
    parser.add_argument("--before", type=Path, metavar="DIR", help="an earlier mpsgen's sources, counted too")
    args = parser.parse_args()
    if shutil.which("valgrind") is None:
        sys.exit("valgrind is not installed (apt-get install valgrind)")
    sources = {**({"before": args.before.resolve()} if args.before else {}), "after" if args.before else "mpsgen": REPO}
    for source in sources.values():
        compileall.compile_dir(str(source / "mpsgen"), quiet=1)
    for tree in (t.resolve() for t in args.tree):
        tg, which = torchgen_parse(tree)
        print(f"\n{tree}: torchgen's parse ({which}): {millions(tg)}")
        print("| command | mpsgen | cold: before the fork + parent + child = total | total / torchgen | cold path "
              "| path / torchgen | warm | warm / torchgen |")
        print("|---|---|---:|---:|---:|---:|---:|---:|")
        printed: dict[str, set[str]] = {}
        for command in COMMANDS:
            for label, source in sources.items():
                with tempfile.TemporaryDirectory() as store:
                    cold = mpsgen_count(source, tree, command, Path(store))
                    warm = mpsgen_count(source, tree, command, Path(store))
                printed.setdefault(command, set()).update((cold.stdout, warm.stdout))
                split = f"{millions(cold.prefork)} + {millions(cold.parent)} + {millions(cold.child)} = {millions(cold.total)}"
                print(f"| `{command}` | {label} | {split} | {cold.total / tg:.2f}x | {millions(cold.path)} | "
                      f"{cold.path / tg:.2f}x | {millions(warm.total)} | {warm.total / tg:.2f}x |")
        for command, outs in printed.items():
            print(f"`{command}`: {'the same output' if len(outs) == 1 else 'DIFFERENT outputs'} cold and warm"
                  + (f", {' and '.join(sources)}" if len(sources) > 1 else ""))


if __name__ == "__main__":
    main()
