"""Upstream's replay property: does a branch of `mpsgen migrate --all --branch-per-op` leave an in-place or
out variant of its family on an MPS-only kernel although that variant's shared CPU/CUDA kernel reaches
the family's stub within one call?  Upstream moved such variants with their family (2.7's
floor_divide_.Tensor, whose floor_divide_ is `return native::floor_divide_out(self, other, self);`).

Independent of mpsgen's planner (plain regexes and `git show`, no mpsgen import).  For every branch under
the prefix, the families it migrated are those whose yaml entries it changed; each of their entries that
still has an `MPS: k` line beside a different `CPU, CUDA: K` line is listed, with

* variant: in-place (`foo_`), out (a keyword-only `Tensor(a!)`), or functional;
* whether K's body in aten/src/ATen/native/*.cpp calls no stub, but calls, once, a CPU/CUDA kernel of the
  family (or its op through `at::`) whose body calls a stub: "reaches <stub> via <callee>";
* whether k is MPS-only code or a redispatch (its .mm body calls an `at::` op of the family:
  pow_Scalar_out_mps calls at::pow_out).

A family counts as leaving a variant behind when one of its in-place or out variants on an MPS-only kernel
that is not a redispatch reaches the stub in one call.

    python benchmarks/left_behind.py --tree /tmp/pt27-clone [--prefix mps-metal/]
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from dangling_names import YAML, code_only, git, show  # noqa: E402

NATIVE = "aten/src/ATen/native"
OPERATIONS = f"{NATIVE}/mps/operations"
_ENTRY = re.compile(r"^- func: ([\w.]+)\((.*)\) ->", re.M)
_DISPATCH = re.compile(r"^\s+([A-Za-z][\w ,]*):\s*([\w:]+)\s*(?:#.*)?$", re.M)
_STUB = re.compile(r"\b\w+_stub\b")


def entries(yaml: str) -> dict[str, dict]:
    """{overload name: {base, args, dispatch {key: kernel}, text}} of every entry."""
    found: dict[str, dict] = {}
    heads = list(_ENTRY.finditer(yaml))
    for k, m in enumerate(heads):
        end = heads[k + 1].start() if k + 1 < len(heads) else len(yaml)
        text = yaml[m.start() : end]
        dispatch = {}
        for d in _DISPATCH.finditer(text):
            for key in d.group(1).split(","):
                dispatch[key.strip()] = d.group(2).rsplit("::", 1)[-1]
        found[m.group(1)] = {"base": m.group(1).split(".")[0], "args": m.group(2), "dispatch": dispatch, "text": text}
    return found


def family_of(base: str) -> str:
    return base[:-1] if base.endswith("_") and not base.endswith("__") else base


def variant(e: dict) -> str:
    if e["base"].endswith("_") and not e["base"].endswith("__"):
        return "in-place"
    args = e["args"]
    if "*" in args and "!" in args.split("*", 1)[1]:
        return "out"
    return "functional"


def bodies(texts: dict[str, str], name: str) -> list[str]:
    """The bodies of the functions (or TORCH_IMPL_FUNCs) called *name* in *texts* (code only)."""
    found = []
    head = re.compile(r"(?:\bTORCH_IMPL_FUNC\s*\(\s*" + re.escape(name) + r"\s*\)\s*\(|[\w&*>]\s+"
                      + re.escape(name) + r"\s*\()")
    for text in texts.values():
        if name not in text:
            continue
        code = code_only(text)
        for m in head.finditer(code):
            k, depth = m.end() - 1, 0
            while k < len(code):  # the parameter list
                depth += {"(": 1, ")": -1}.get(code[k], 0)
                if depth == 0:
                    break
                k += 1
            brace = re.match(r"\s*(?:const\s*)?\{", code[k + 1 :])
            if not brace:
                continue
            start = k + 1 + brace.end() - 1
            depth, j = 0, start
            while j < len(code):
                depth += {"{": 1, "}": -1}.get(code[j], 0)
                if depth == 0:
                    break
                j += 1
            found.append(code[start : j + 1])
    return found


def texts_under(tree: Path, commit: str, folder: str, suffix: str) -> dict[str, str]:
    names = git(tree, "ls-tree", "--name-only", f"{commit}:{folder}").split()
    return {n: show(tree, commit, f"{folder}/{n}") for n in names if n.endswith(suffix)}


def reaches(body: str, family: list[dict], native: dict[str, str]) -> str:
    """"<stub> via <callee>" when *body* calls no stub but calls a family kernel (or op) that does."""
    if _STUB.search(body):
        return ""
    for e in family:
        kernel = e["dispatch"].get("CPU")
        if not kernel or kernel != e["dispatch"].get("CUDA"):
            continue
        spellings = [rf"(?:\bat::native::|\bnative::|(?<![\w:.>]))\b{re.escape(kernel)}\s*\("]
        names = [f"{e['base']}_out", f"{e['base']}_outf"] if variant(e) == "out" else [e["base"]]
        spellings += [rf"\bat::{re.escape(n)}\s*\(" for n in names]
        if not any(re.search(s, body) for s in spellings):
            continue
        for callee_body in bodies(native, kernel):
            stub = _STUB.search(callee_body)
            if stub:
                return f"{stub.group(0)} via {kernel}"
    return ""


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tree", type=Path, required=True)
    ap.add_argument("--prefix", default="mps-metal/")
    args = ap.parse_args()
    branches = git(args.tree, "for-each-ref", "--format=%(refname:short)", f"refs/heads/{args.prefix}").split()
    if not branches:
        print(f"no branch under {args.prefix} in {args.tree}", file=sys.stderr)
        return 2
    rows, behind = [], set()
    for branch in branches:
        before, after = entries(show(args.tree, f"{branch}^", YAML)), entries(show(args.tree, branch, YAML))
        changed = {family_of(e["base"]) for name, e in after.items() if before.get(name, {}).get("text") != e["text"]}
        family = [e for e in after.values() if family_of(e["base"]) in changed]
        native = mm = None
        for name, e in after.items():
            if family_of(e["base"]) not in changed:
                continue
            mps, cpu = e["dispatch"].get("MPS"), e["dispatch"].get("CPU")
            if not mps or not cpu or mps == cpu or cpu != e["dispatch"].get("CUDA"):
                continue
            native = native or texts_under(args.tree, branch, NATIVE, ".cpp")
            mm = mm or texts_under(args.tree, branch, OPERATIONS, ".mm")
            reach = next((r for b in bodies(native, cpu) if (r := reaches(b, family, native))), "")
            ops = "|".join(sorted({re.escape(f["base"]) for f in family}))
            redispatch = any(re.search(rf"\bat::(?:{ops})(?:_outf?)?\s*\(", b) for b in bodies(mm, mps))
            kind = variant(e)
            counts = bool(reach) and kind != "functional" and not redispatch
            behind |= {branch} if counts else set()
            rows.append((branch, name, kind, mps, "redispatch" if redispatch else "MPS-only", reach or "-", counts))
    for row in rows:
        print("  ".join(str(c) for c in row[:-1]) + ("   <- left behind" if row[-1] else ""))
    print(f"\n{len(branches)} branches, {len(rows)} entries left on an MPS-only kernel, "
          f"{len(behind)} families leaving an in-place/out variant behind that reaches the stub in one call")
    return 1 if behind else 0


if __name__ == "__main__":
    sys.exit(main())
