"""Does a branch of `mpsgen migrate --all --branch-per-op` delete a function that code it keeps still calls?

Independent of mpsgen's planner on purpose (plain regexes and `git grep`, no mpsgen import): for every
branch under the prefix, the names the branch deletes are

* functions whose definition (a plain function, TORCH_IMPL_FUNC(name) or a CREATE_MPS_*(name, ...) line)
  is in a .mm/.cpp/.h the branch changes and is nowhere in the files it changes afterwards;
* kernels of `MPS` dispatch lines the branch removes from native_functions.yaml that no dispatch line
  names afterwards (their declaration in ATen/ops/<op>_native.h goes).

Each such name is then looked for in the branch's tree (`git grep -w` on the branch commit: the C/C++/ObjC
sources under aten/ and torch/csrc/, and the yaml), comments and string literals stripped line by line, roughly.  A use left is
dangling when the name has no definition left; for a name still defined whose yaml line went, a use
outside the defining file (no declaration there any more) or the TORCH_IMPL_FUNC itself is.

    python benchmarks/dangling_names.py --tree /tmp/pt27-clone [--prefix mps-metal/]

Prints one row per branch (deleted names, dangling uses) and each dangling use; exit 1 if any.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from pathlib import Path

SOURCES = (".mm", ".cpp", ".h", ".cu", ".cuh", ".hpp", ".c")
YAML = "aten/src/ATen/native/native_functions.yaml"
# where code can call an at::native kernel (the generated code is under build/, not in git)
GREP_PATHS = tuple(f"{top}/*{ext}" for top in ("aten", "torch/csrc") for ext in SOURCES) + (YAML,)

_BLOCK_COMMENT = re.compile(r"/\*.*?\*/", re.S)
_LINE_COMMENT = re.compile(r"//[^\n]*")
_STRING = re.compile(r'"(?:\\.|[^"\\\n])*"')
_IMPL_FUNC = re.compile(r"\bTORCH_IMPL_FUNC\s*\(\s*(\w+)\s*\)")
_CREATE_MPS = re.compile(r"\bCREATE_MPS_\w+\s*\(\s*(\w+)")
_CALL_HEAD = re.compile(r"\b([A-Za-z_]\w*)\s*\(")
_RETURN_TYPE = re.compile(r"^[ \t]*(?:template\s*<[^;{}]*>\s*)?(?:(?:static|inline|TORCH_API|C10_API)\s+)*"
                          r"[A-Za-z_][\w:<>, \t*&]*[\s*&]$")
_TYPE_LINE = re.compile(r"^[ \t]*(?:(?:static|inline)\s+)*[A-Za-z_][\w:<>, \t*&]*$")
_NOT_NAMES = {"if", "for", "while", "switch", "return", "sizeof", "catch", "defined", "decltype"}
_MPS_LINE_REMOVED = re.compile(r"^-\s+([A-Za-z][\w ,]*):\s*([\w:]+)\s*(?:#.*)?$")
_DISPATCH_LINE = re.compile(r"^\s+([A-Za-z][\w ,]*):\s*([\w:]+)\s*(?:#.*)?$")


def git(tree: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(tree), *args], capture_output=True, text=True, check=True).stdout


def show(tree: Path, commit: str, rel: str) -> str:
    done = subprocess.run(["git", "-C", str(tree), "show", f"{commit}:{rel}"], capture_output=True)
    return done.stdout.decode("utf-8", "replace") if done.returncode == 0 else ""


def code_only(text: str) -> str:
    """*text* with comments and string literals blanked (newlines kept, so line numbers hold)."""
    text = _BLOCK_COMMENT.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)
    text = _LINE_COMMENT.sub("", text)
    return _STRING.sub('""', text)


def _close_paren(code: str, open_at: int) -> int:
    depth = 0
    for k in range(open_at, len(code)):
        if code[k] == "(":
            depth += 1
        elif code[k] == ")":
            depth -= 1
            if depth == 0:
                return k
    return -1


def definitions(text: str) -> dict[str, int]:
    """{name: 1-based line} of the functions *text* defines (plain, TORCH_IMPL_FUNC, CREATE_MPS_*)."""
    code = code_only(text)
    found: dict[str, int] = {}
    for pattern in (_IMPL_FUNC, _CREATE_MPS):
        for m in pattern.finditer(code):
            found.setdefault(m.group(1), code.count("\n", 0, m.start()) + 1)
    for m in _CALL_HEAD.finditer(code):
        name = m.group(1)
        if name in _NOT_NAMES or name.isupper():
            continue
        line_start = code.rfind("\n", 0, m.start()) + 1
        before = code[line_start : m.start()]
        if before.strip():
            if not _RETURN_TYPE.match(before):
                continue
        else:  # the return type on the line above: `Tensor&\nname(...)`
            prev_start = code.rfind("\n", 0, max(line_start - 1, 0)) + 1
            prev = code[prev_start : max(line_start - 1, 0)]
            if not prev.strip() or not _TYPE_LINE.match(prev) or prev.rstrip().endswith((";", "{", "}", ")")):
                continue
        close = _close_paren(code, m.end() - 1)
        if close < 0:
            continue
        after = re.match(r"\s*(?:const\s*)?(?:noexcept\s*)?(?:override\s*)?(?:->\s*[\w:<>&*\s]+)?\{", code[close + 1 :])
        if after:
            found.setdefault(name, code.count("\n", 0, m.start()) + 1)
    return found


def yaml_kernels(text: str) -> set[str]:
    """Every kernel a dispatch line of native_functions.yaml names (bare names)."""
    return {m.group(2).rsplit("::", 1)[-1] for line in text.splitlines() if (m := _DISPATCH_LINE.match(line))}


def deleted_names(tree: Path, parent: str, branch: str) -> tuple[dict[str, str], dict[str, str]]:
    """({name: where its definition was} for definitions gone, {name: yaml line} for MPS kernels whose
    dispatch lines went)."""
    changed = git(tree, "diff", "--name-only", parent, branch).splitlines()
    before: dict[str, str] = {}
    after: set[str] = set()
    for rel in changed:
        if not rel.endswith(SOURCES):
            continue
        for name, line in definitions(show(tree, parent, rel)).items():
            before.setdefault(name, f"{rel}:{line}")
        after |= set(definitions(show(tree, branch, rel)))
    gone_defs = {name: where for name, where in before.items() if name not in after}
    gone_yaml: dict[str, str] = {}
    if YAML in changed:
        still = yaml_kernels(show(tree, branch, YAML))
        for line in git(tree, "diff", "-U0", parent, branch, "--", YAML).splitlines():
            m = _MPS_LINE_REMOVED.match(line)
            if m and "MPS" in [k.strip() for k in m.group(1).split(",")]:
                name = m.group(2).rsplit("::", 1)[-1]
                if name not in still:
                    gone_yaml[name] = line[1:].strip()
    return gone_defs, gone_yaml


def uses(tree: Path, branch: str, names: list[str]) -> dict[str, list[tuple[str, int, str]]]:
    """{name: (path, line, text) of each line of the branch's tree spelling it outside comments and
    literals}, from one `git grep` of the tree for every name."""
    found: dict[str, list[tuple[str, int, str]]] = {name: [] for name in names}
    if not names:
        return found
    patterns = [arg for name in names for arg in ("-e", name)]
    done = subprocess.run(["git", "-C", str(tree), "grep", "-n", "-w", *patterns, branch, "--", *GREP_PATHS],
                          capture_output=True, text=True)
    words = {name: re.compile(r"\b" + re.escape(name) + r"\b") for name in names}
    for row in done.stdout.splitlines():
        _, rel, line, text = row.split(":", 3)
        if rel == YAML:
            code = text.split("#", 1)[0] if _DISPATCH_LINE.match(text) else ""
        else:
            code = _STRING.sub('""', _LINE_COMMENT.sub("", text))
            if code.lstrip().startswith(("*", "/*")):
                continue  # a comment block's line, roughly
        for name, word in words.items():
            if word.search(code):
                found[name].append((rel, int(line), text.strip()))
    return found


def dangling(left: list[tuple[str, int, str]], name: str, definition_gone: bool) -> list[tuple[str, int, str]]:
    """The uses in *left* that nothing declares any more."""
    defined_in = {rel for rel, line, text in left if rel != YAML and name in definitions_of_line(text)}
    if definition_gone or not defined_in:
        return [u for u in left if u[0] != YAML or definition_gone]
    # still defined, its yaml line gone: other files lost its declaration; a TORCH_IMPL_FUNC its class
    return [(rel, line, text) for rel, line, text in left
            if rel not in defined_in or _IMPL_FUNC.search(text)]


def definitions_of_line(text: str) -> set[str]:
    return set(definitions(text + "{}" if text.rstrip().endswith(")") else text))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tree", type=Path, required=True, help="the checkout holding the branches")
    ap.add_argument("--prefix", default="mps-metal/", help="branch prefix (default mps-metal/)")
    args = ap.parse_args()
    branches = git(args.tree, "for-each-ref", "--format=%(refname:short)", f"refs/heads/{args.prefix}").split()
    if not branches:
        print(f"no branch under {args.prefix} in {args.tree}", file=sys.stderr)
        return 2
    rows, details = [], []
    bad = 0
    for branch in branches:
        parent = git(args.tree, "rev-parse", f"{branch}^").strip()
        gone_defs, gone_yaml = deleted_names(args.tree, parent, branch)
        names = sorted(set(gone_defs) | set(gone_yaml))
        left = 0
        spelled = uses(args.tree, branch, names)
        for name in names:
            found = dangling(spelled[name], name, name in gone_defs)
            for rel, line, text in found:
                details.append(f"{branch}: {name} (deleted at {gone_defs.get(name) or gone_yaml[name]}) "
                               f"still used at {rel}:{line}: {text[:110]}")
            left += len(found)
        bad += left > 0
        rows.append((branch, len(gone_defs), len(gone_yaml), left))
    width = max(len(r[0]) for r in rows)
    print(f"{'branch':<{width}}  defs gone  yaml kernels gone  dangling uses")
    for branch, d, y, left in rows:
        print(f"{branch:<{width}}  {d:>9}  {y:>17}  {left:>13}")
    print(f"\n{len(rows)} branches, {bad} with a dangling name")
    for line in details:
        print(line)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
