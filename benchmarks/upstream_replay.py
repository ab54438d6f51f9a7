"""Upstream's own 2.7 -> 2.13 moves replayed: for every family PyTorch moved from an MPS-only kernel to the
CPU's shared one, does `mpsgen migrate FAMILY` on the 2.7 checkout write the MPS dispatch 2.13 ships?

The families come from the two yamls alone (torchgen's parse of each): an overload of the checkout whose MPS
kernel differs from its CPU kernel and whose 2.13 MPS kernel is 2.13's CPU kernel was moved; a family is its
op's name without the in-place `_` (fill_ and fill.out: fill).  Each family is migrated alone in the clone
(numeric check on, compile check off unless --compile; no build or tests), the edited yaml parsed by torchgen,
then undone.  A family is reproduced when every moved overload's MPS kernel is 2.13's, and wrong when any
overload the change touched got another kernel than 2.13's; otherwise it was refused (mpsgen's first line).
A family mpsgen says waits for another ("both at once: `mpsgen migrate A B`": norm and linalg_vector_norm)
is migrated together with it, as the hint says.  A wrong family is migrated again by the overloads upstream
moved (pow: `migrate pow` also moves pow.Tensor_Tensor_out, which 2.13 kept on its own kernel), and that
result is shown beside it; the count is the family's.

Upstream did not stop at 2.13.  With --later DIR (a newer checkout, e.g. the 2026-shaped tree with upstream's
newest operations/*.mm), a family whose extra overloads 2.13 kept on an MPS-only kernel is *ahead* -- upstream's
later move -- when every stub the change registers is registered for MPS by DIR's operations/*.mm too (pow:
pow_tensor_tensor_stub, moved by pytorch/pytorch#195585, 2026-09).  An ahead family counts as reproduced.

    python benchmarks/upstream_replay.py --tree /tmp/pt27-clone [--later /work/trees/pt2026] [--compile]
                                         [--only sum,fill] [--json out.json]

The clone must be clean; it is left as it was found (`mpsgen undo` after each family, checked).
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

YAML = "aten/src/ATen/native/native_functions.yaml"
TAGS = "aten/src/ATen/native/tags.yaml"
OPERATIONS = "aten/src/ATen/native/mps/operations"
_REGISTERED = re.compile(r"^\+?REGISTER_DISPATCH\((\w+),", re.MULTILINE)


def wheel_yaml() -> Path:
    import torchgen

    return Path(torchgen.__file__).parent / "packaged/ATen/native/native_functions.yaml"


# Run by the torchgen of the yaml's own era (2.13's cannot read 2.7's `Dimname` schemas): a child whose
# sys.path starts at that torchgen's parent, printing {overload: {"CPU": kernel, "MPS": kernel}}.
_PARSE = r"""
import json, sys
from torchgen.gen import parse_native_yaml
parsed = parse_native_yaml(sys.argv[1], sys.argv[2], skip_native_fns_gen=True)
indices = {str(k): i for k, i in parsed.backend_indices.items() if str(k) in ("CPU", "MPS")}
out = {}
for f in parsed.native_functions:
    out[str(f.func.name)] = {k: m.kernel for k, i in indices.items() if (m := i.get_kernel(f)) is not None}
print(json.dumps(out))
"""


def kernels(yaml_text: str, torchgen_parent: Path, tags: Path) -> dict[str, dict[str, str]]:
    """overload -> {"CPU": kernel, "MPS": kernel} as torchgen (the one under *torchgen_parent*) reads
    *yaml_text*."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "native_functions.yaml"
        path.write_text(yaml_text, encoding="utf-8")
        run = subprocess.run([sys.executable, "-c", f"import sys; sys.path.insert(0, {str(torchgen_parent)!r})\n" + _PARSE,
                              str(path), str(tags)], capture_output=True, text=True, cwd=tmp)
    if run.returncode != 0:
        raise SystemExit(f"torchgen could not parse the yaml:\n{run.stderr[-2000:]}")
    return json.loads(run.stdout)


def family_of(overload: str) -> str:
    base = overload.split(".")[0]
    return base[:-1] if base.endswith("_") and not base.endswith("__") else base


def moved_families(old: dict[str, dict[str, str]], new: dict[str, dict[str, str]]) -> dict[str, list[str]]:
    """family -> the overloads upstream moved from an MPS-only kernel to the shared CPU kernel."""
    families: dict[str, list[str]] = defaultdict(list)
    for name, was in old.items():
        now = new.get(name, {})
        if "MPS" in was and was["MPS"] != was.get("CPU") and "CPU" in now and now.get("MPS") == now["CPU"]:
            families[family_of(name)].append(name)
    return dict(sorted(families.items()))


def registered_stubs(later: Path) -> set[str]:
    """The stubs *later*'s operations/*.mm register for MPS."""
    return {m.group(1) for mm in sorted((later / OPERATIONS).glob("*.mm"))
            for m in _REGISTERED.finditer(mm.read_text(encoding="utf-8", errors="replace"))}


def stubs_added(tree: Path) -> set[str]:
    """The stubs the change in *tree*'s work tree registers (its added REGISTER_DISPATCH lines)."""
    diff = subprocess.run(["git", "diff", "-U0", "--", OPERATIONS], cwd=tree, capture_output=True, text=True).stdout
    return {m.group(1) for m in _REGISTERED.finditer("\n".join(ln for ln in diff.splitlines() if ln.startswith("+")))}


def mpsgen(tree: Path, *args: str) -> subprocess.CompletedProcess[str]:
    # run in the checkout, as a user does (`python -m` puts the working folder first on sys.path: from a
    # folder holding another mpsgen, that one would run)
    return subprocess.run([sys.executable, "-m", "mpsgen", "-C", str(tree), *args], capture_output=True, text=True,
                          cwd=tree)


def replay(tree: Path, family: str, moved: list[str], before: dict[str, dict[str, str]],
           upstream: dict[str, dict[str, str]], compile_check: bool, later: set[str] | None = None,
           overloads: list[str] | None = None) -> dict:
    """*family* migrated alone (or, with *overloads*, those overloads by name), compared with 2.13, undone.
    *later*: the stubs a newer upstream registers for MPS (--later)."""
    checks = [] if compile_check else ["--no-compile"]
    run = None
    for names in ([overloads] if overloads else [[family], [f"{family}_"]]):  # fill is known by its in-place op only
        run = mpsgen(tree, "migrate", *names, "--no-build", "--no-test", *checks)
        if "unknown op" not in run.stderr:
            break
    assert run is not None
    together = re.search(r"both at once: `mpsgen migrate ([\w. ]+)`", run.stderr)
    if run.returncode == 2 and together:  # norm waits for linalg_vector_norm: migrated together, as the hint says
        run = mpsgen(tree, "migrate", *together.group(1).split(), "--no-build", "--no-test", *checks)
    out = {"family": family, "moved": moved, "exit": run.returncode,
           "with": together.group(1).split() if together else []}
    changed = subprocess.run(["git", "status", "--porcelain"], cwd=tree, capture_output=True, text=True).stdout
    if run.returncode != 0 or not changed.strip():
        lines = [ln for ln in (run.stderr + run.stdout).splitlines() if ln.strip()]
        out.update(result="refused", why=next((ln for ln in lines if "error" in ln), lines[-1] if lines else ""))
        return out
    after = kernels((tree / YAML).read_text(encoding="utf-8"), tree, tree / TAGS)
    stubs = stubs_added(tree)
    mpsgen(tree, "undo")
    left = subprocess.run(["git", "status", "--porcelain"], cwd=tree, capture_output=True, text=True).stdout
    if left.strip():
        raise SystemExit(f"{tree}: `mpsgen undo` left changes after {family}:\n{left}")
    touched = {name for name in after if after[name].get("MPS") != before.get(name, {}).get("MPS")}
    wrong = sorted(name for name in touched
                   if name in upstream and after[name].get("MPS") != upstream[name].get("MPS"))
    missing = sorted(name for name in moved if after.get(name, {}).get("MPS") != upstream[name].get("MPS"))
    # an overload 2.13 kept MPS-only that the change shares with the CPU: upstream's later move, when the newer
    # upstream registers every stub the change registers
    ahead = (bool(wrong) and later is not None and stubs <= later
             and all(upstream[name].get("MPS") != upstream[name].get("CPU") for name in wrong))
    out.update(touched=sorted(touched), wrong=wrong, missing=missing, stubs=sorted(stubs),
               result="partial" if missing else "ahead" if ahead else "wrong" if wrong else "reproduced")
    if wrong and not family.endswith("_overloads"):  # the family moved more than upstream: asked for upstream's only
        again = replay(tree, f"{family}_overloads", moved, before, upstream, compile_check, later, overloads=moved)
        out["overloads"] = {k: again[k] for k in ("result", "wrong", "missing", "why") if k in again}
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tree", type=Path, required=True, help="a clean clone of the 2.7 checkout (written, undone)")
    parser.add_argument("--upstream", type=Path, default=None, help="2.13's native_functions.yaml (the wheel's)")
    parser.add_argument("--compile", action="store_true", help="also run mpsgen's compile check")
    parser.add_argument("--only", default="", help="comma-separated families")
    parser.add_argument("--json", type=Path, help="write every family's result here")
    parser.add_argument("--later", type=Path, default=None,
                        help="a newer checkout whose operations/*.mm show upstream's moves after 2.13")
    args = parser.parse_args()
    tree = args.tree.resolve()
    if subprocess.run(["git", "status", "--porcelain"], cwd=tree, capture_output=True, text=True).stdout.strip():
        raise SystemExit(f"{tree}: not clean")
    before = kernels((tree / YAML).read_text(encoding="utf-8"), tree, tree / TAGS)
    wheel = wheel_yaml()
    upstream = kernels((args.upstream or wheel).read_text(encoding="utf-8"), wheel.parents[4], wheel.parent / "tags.yaml")
    families = moved_families(before, upstream)
    later = registered_stubs(args.later) if args.later else None
    wanted = [f for f in args.only.split(",") if f] or list(families)
    unknown = [f for f in wanted if f not in families]
    if unknown:
        raise SystemExit(f"not among the families upstream moved: {', '.join(unknown)}")
    results = []
    start = time.monotonic()
    for family in wanted:
        result = replay(tree, family, families[family], before, upstream, args.compile, later)
        results.append(result)
        also = f"(with {' '.join(result['with'])}) " if result.get("with") else ""
        why = result.get("why", ", ".join(result.get("wrong") or result.get("missing") or []))
        if result["result"] == "ahead":
            why = (f"also {why}, which 2.13 kept MPS-only and {args.later} registers "
                   f"({', '.join(result['stubs'])}): upstream's later move")
        if "overloads" in result:
            why += f"; `migrate {' '.join(result['moved'])}` (upstream's move only): {result['overloads']['result']}"
        print(f"{result['result']:<10} {family:<28} {also}{why}", flush=True)
    counts = defaultdict(int)
    for r in results:
        counts[r["result"]] += 1
    ahead = f" (of them {counts['ahead']} ahead of 2.13, as upstream later)" if counts["ahead"] else ""
    print(f"\n{counts['reproduced'] + counts['ahead']} of {len(results)} families reproduced (2.13's MPS dispatch)"
          f"{ahead}, {counts['wrong']} with another dispatch, {counts['partial']} partly, {counts['refused']} refused; "
          f"{time.monotonic() - start:.0f} s")
    if args.json:
        args.json.write_text(json.dumps(results, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
