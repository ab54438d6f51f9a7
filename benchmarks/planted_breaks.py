"""Planted breaks: does `mpsgen check CHANGED_FILE` (what the README's pre-commit hook runs) catch
the wiring breaks a contributor makes by hand, on a real checkout?

    python benchmarks/planted_breaks.py --tree /work/trees/pt27

The tree is not written: a throwaway clone is made beside it in the temp folder (`git clone
--shared`, third_party/ and android/ left out of the work tree) and removed afterwards (--keep
keeps it).  Each break is planted by hand-style text edits, `mpsgen check FILE` runs from the
clone's root, and the file is restored with `git checkout`:

1. a dtype's registration line deleted (the `half` line of a kernel whose float and bfloat stay);
2. a registration line written twice;
3. a dtype misspelt in a registration line (`flaot`);
4. the #include of the header declaring a registered stub removed from operations/BinaryKernel.mm,
   and a c10/metal #include a .metal uses removed;
5. a host kernel's parameter type changed (`TensorIteratorBase&` to `TensorIterator&`);
6. a yaml `MPS` key removed from a shared `CPU, CUDA, MPS:` line, and the same entry left with an
   empty `dispatch:`.

Each must exit 1 with its rule's code; the pristine clone's `check FILE` must exit 0 for every file
(a tree whose pristine run already fails is judged against its own baseline).  Prints a markdown
table; exit 1 when a break is missed.  The lines planted are found by pattern in the tree's own
spelling (2.7's REGISTER_BINARY_INDEXING_OP, c10/metal's REGISTER_UNARY_OP, ...); a break with no
line to plant in is reported as such.
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

sys.path.insert(0, str(Path(__file__).resolve().parent))
from fault_injection import KERNELS, OPS, YAML, run  # noqa: E402

Edit = Callable[[str], str]


class Break(NamedTuple):
    name: str
    path: str  # the file changed ("" when the tree has no line to plant it in)
    edit: Edit | None
    expect: str  # the rule code it must raise


def first_line(root: Path, rels: list[str], patterns: list[str]) -> tuple[str, str] | None:
    """(file, line) of the first line matching one of *patterns* (tried in order) in *rels*."""
    for pattern in patterns:
        rx = re.compile(pattern, re.M)
        for rel in rels:
            p = root / rel
            m = rx.search(p.read_text(encoding="utf-8")) if p.is_file() else None
            if m:
                return rel, m.group(0)
    return None


def replacing(old: str, new: str) -> Edit:
    def edit(text: str) -> str:
        assert text.count(old) >= 1, old
        return text.replace(old, new, 1)
    return edit


def breaks_for(root: Path) -> list[Break]:
    """The breaks, each planted where the tree's own spelling allows."""
    metals = sorted(p.relative_to(root).as_posix() for p in (root / KERNELS).glob("*.metal"))
    binary_mm = f"{OPS}/BinaryKernel.mm"
    out: list[Break] = []
    # 1-3: a registration line of a kernel registered for float, half and bfloat
    half = first_line(root, metals, [r"^REGISTER_BINARY_INDEXING_OP\(fmax, half\);$",
                                     r"^REGISTER_UNARY_OP\(abs, half, half\);$",
                                     r"^INSTANTIATE_UNARY_KERNELS2\(half, half\);$"])
    if half:
        rel, line = half
        out.append(Break(f"dtype line deleted: `{line}`", rel, replacing(line + "\n", ""), "MPS012"))
        out.append(Break(f"line twice: `{line}`", rel, replacing(line + "\n", line + "\n" + line + "\n"), "MPS013"))
    else:
        out += [Break("dtype line deleted", "", None, "MPS012"), Break("line twice", "", None, "MPS013")]
    flt = first_line(root, metals, [r"^REGISTER_BINARY_INDEXING_OP\(fmax, float\);$",
                                    r"^REGISTER_UNARY_OP\(abs, float, float\);$",
                                    r"^INSTANTIATE_UNARY_KERNELS2\(float, float\);$"])
    if flt:
        rel, line = flt
        out.append(Break(f"dtype misspelt: `{line.replace('float', 'flaot')}`", rel,
                         replacing(line, line.replace("float", "flaot")), "MPS014"))
    else:
        out.append(Break("dtype misspelt", "", None, "MPS014"))
    # 4: the header declaring the binary stubs
    mm = (root / binary_mm).read_text(encoding="utf-8") if (root / binary_mm).is_file() else ""
    include = "#include <ATen/native/BinaryOps.h>\n"
    out.append(Break("stub header include removed: `#include <ATen/native/BinaryOps.h>`", binary_mm if include in mm else "",
                     replacing(include, ""), "MPS015"))
    # 4b: a c10/metal header a .metal uses (its REGISTER_* macros, c10::metal:: functions)
    metal = first_line(root, [f"{KERNELS}/BinaryKernel.metal", f"{KERNELS}/UnaryKernel.metal"],
                       [r"^#include <c10/metal/indexing\.h>$", r"^#include <c10/metal/special_math\.h>$"])
    if metal:
        out.append(Break(f"c10/metal include removed: `{metal[1]}`", metal[0], replacing(metal[1] + "\n", ""), "MPS016"))
    else:
        out.append(Break("c10/metal include removed", "", None, "MPS016"))
    # 5: the parameter of a registered host kernel
    kernel = next((m.group(1) for m in re.finditer(r"REGISTER_DISPATCH\(\w+, &?(\w+)\)", mm)
                   if f"static void {m.group(1)}(TensorIteratorBase& iter)" in mm), None)
    out.append(Break(f"host kernel parameter changed: `{kernel}(TensorIterator& iter)`", binary_mm if kernel else "",
                     replacing(f"static void {kernel}(TensorIteratorBase& iter)", f"static void {kernel}(TensorIterator& iter)"),
                     "MPS017"))
    # 6: a shared MPS line of an op BinaryKernel.mm registers the stub of, the only line of its entry
    yaml_text = (root / YAML).read_text(encoding="utf-8")
    shared = next((m for op in ("fmax", "fmin", "copysign", "nextafter", "xlog1py", "atan2", "hypot")
                   if f"REGISTER_DISPATCH({op}_stub" in mm
                   for m in [re.search(rf"^  dispatch:\n(    CPU, CUDA, MPS: ({op}_out)\n)(?!    )", yaml_text, re.M)] if m), None)
    if shared:
        line, k = shared.group(1), shared.group(2)
        out.append(Break(f"yaml MPS key removed: `CPU, CUDA: {k}`", YAML, replacing(line, f"    CPU, CUDA: {k}\n"), "MPS018"))
        out.append(Break(f"yaml entry left with an empty `dispatch:` ({k})", YAML, replacing(line, ""), "MPS019"))
    else:
        out += [Break("yaml MPS key removed", "", None, "MPS018"), Break("empty dispatch:", "", None, "MPS019")]
    return out


def throwaway_clone(tree: Path, where: Path) -> Path:
    """A --shared clone of *tree* without third_party/ and android/ (large, and partly absent in
    the checkouts this runs on), its work tree clean."""
    clone = where / "tree"
    subprocess.run(["git", "clone", "-q", "--shared", "--no-checkout", str(tree), str(clone)], check=True)
    subprocess.run(["git", "sparse-checkout", "set", "--no-cone", "/*", "!/third_party/", "!/android/"],
                   cwd=clone, capture_output=True)
    subprocess.run(["git", "checkout", "-q", "HEAD"], cwd=clone, capture_output=True)
    if not (clone / YAML).is_file():
        raise SystemExit(f"{tree}: the clone has no {YAML}")
    return clone


class Result(NamedTuple):
    code: int
    codes: str
    seconds: float


def check_file(clone: Path, rel: str, mpsgen: str, extra: list[str], env: dict[str, str]) -> Result:
    start = time.perf_counter()
    r = run([mpsgen, "check", *extra, rel], clone, env)
    seconds = time.perf_counter() - start
    if r.returncode == 2:
        sys.stderr.write(r.stdout[-2000:] + r.stderr[-2000:])
    return Result(r.returncode, ",".join(sorted(set(re.findall(r" (MPS\d{3}) ", r.stdout)))), seconds)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tree", required=True, type=Path, help="a PyTorch checkout (a git repository; not written)")
    ap.add_argument("--mpsgen", default=shutil.which("mpsgen") or "mpsgen", help="the mpsgen executable")
    ap.add_argument("--keep", action="store_true", help="keep the throwaway clone (its path is printed)")
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="mpsgen-planted-"))
    env = {**os.environ, "MPSGEN_CACHE_DIR": os.environ.get("MPSGEN_CACHE_DIR", str(work / "cache"))}
    try:
        clone = throwaway_clone(args.tree.resolve(), work)
        breaks = breaks_for(clone)
        extra: list[str] = []
        if run([args.mpsgen, "check"], clone, env).returncode == 1:  # judged against its own pristine findings
            baseline = work / "baseline.json"
            run([args.mpsgen, "check", "--write-baseline", str(baseline)], clone, env)
            extra = ["--baseline", str(baseline)]
        rows, ok = [], True
        for rel in sorted({b.path for b in breaks if b.path}):
            r = check_file(clone, rel, args.mpsgen, extra, env)
            ok &= r.code == 0
            rows.append(("pristine", rel, "-", r, "pass" if r.code == 0 else "FAIL"))
        for b in breaks:
            if not b.path or b.edit is None:
                ok = False
                rows.append((b.name, "-", b.expect, Result(-1, "", 0.0), "no line to plant it in"))
                continue
            target = clone / b.path
            try:
                target.write_text(b.edit(target.read_text(encoding="utf-8")), encoding="utf-8")
                r = check_file(clone, b.path, args.mpsgen, extra, env)
            finally:
                subprocess.run(["git", "checkout", "-q", "--", b.path], cwd=clone, check=True)
            caught = r.code == 1 and b.expect in r.codes.split(",")
            ok &= caught
            rows.append((b.name, b.path, b.expect, r, "caught" if caught else "MISSED"))
    finally:
        if args.keep:
            print(f"clone kept: {work / 'tree'}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    print(f"tree: {args.tree}" + (" (judged against its pristine baseline)" if extra else ""))
    print("| break | changed file | expected | `check FILE` exit | codes | s | verdict |")
    print("|---|---|---|---|---|---|---|")
    for name, path, expect, r, verdict in rows:
        print(f"| {name} | {path.rsplit('/', 1)[-1]} | {expect} | {r.code} | {r.codes or '-'} | {r.seconds:.2f} | {verdict} |")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
