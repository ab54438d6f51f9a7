"""`mpsgen migrate --all --stack`: one branch, a commit per family on the previous one, each family
planned on its parent's tree, so the series lands in order; reruns rebuild only what HEAD lacks."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from cli_support import mpsgen
from tree27 import METAL, commit_tree27, lay_tree27

from mpsgen.batch.outcome import BRANCHED, PLANNED, FamilyOutcome
from mpsgen.batch.stack import build_stack

METAL_SAMPLE = "aten/src/ATen/native/mps/kernels/UnaryKernel.metal"  # the sample's
STACK = ("migrate", "--all", "--stack", "--no-build", "--no-test", "--no-try", "--no-compile")


def git(root: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=root, check=True, capture_output=True, text=True).stdout


def chain(root: Path, branch: str = "mps-metal/stack") -> list[tuple[str, list[str], str]]:
    """(commit, parents, subject) from the branch's tip down to HEAD, newest first."""
    out = git(root, "log", "--format=%H %P%x09%s", f"HEAD..{branch}")
    rows = []
    for line in out.splitlines():
        ids, subject = line.split("\t", 1)
        commit, *parents = ids.split()
        rows.append((commit, parents, subject))
    return rows


def test_every_family_is_one_commit_on_the_previous_and_the_tip_checks_clean(tree: Path) -> None:
    head = git(tree, "rev-parse", "HEAD").strip()
    status_before = git(tree, "status", "--porcelain")
    done = mpsgen(*STACK, "--format", "json", cwd=tree)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    stacked = [f for f in report["families"] if f["state"] == "branch"]
    rows = chain(tree)
    assert len(rows) == len(stacked) >= 4
    # one parent each, the previous commit; the oldest on HEAD
    for (commit, parents, _), (older, _, _) in zip(rows, rows[1:]):
        assert parents == [older]
    assert rows[-1][1] == [head]
    assert {f["commit"] for f in stacked} == {c for c, _, _ in rows}
    # the user's checkout is untouched
    assert git(tree, "rev-parse", "HEAD").strip() == head and git(tree, "status", "--porcelain") == status_before
    # the stack's tip is a whole migration: check finds nothing left half-done
    git(tree, "checkout", "-q", "mps-metal/stack")
    tip = mpsgen("check", cwd=tree)
    assert tip.returncode == 0, tip.stdout
    # each commit touches only its family's files, so a shared file (UnaryKernel.metal) carries every family
    metal = git(tree, "show", "mps-metal/stack:aten/src/ATen/native/mps/kernels/UnaryKernel.metal")
    assert "asinh_functor" in metal and "frac_functor" in metal


def test_after_landing_part_of_the_stack_a_rerun_rebuilds_only_the_rest(tree: Path) -> None:
    assert mpsgen(*STACK, cwd=tree).returncode == 0
    rows = chain(tree)
    landed, rest = rows[-2:], rows[:-2]  # the two oldest land (fast-forward), the rest wait
    git(tree, "merge", "-q", "--ff-only", landed[0][0])
    again = mpsgen(*STACK, cwd=tree)
    assert again.returncode == 0, again.stderr
    rebuilt = chain(tree)
    assert [s for _, _, s in rebuilt] == [s for _, _, s in rest]
    assert rebuilt[-1][1] == [landed[0][0]]
    # everything landed: nothing to do, exit 0, the branch is where HEAD is
    git(tree, "merge", "-q", "--ff-only", "mps-metal/stack")
    last = mpsgen(*STACK, cwd=tree)
    assert last.returncode == 0 and "nothing to do" in last.stdout
    assert chain(tree) == []


def test_a_commit_mpsgen_did_not_make_on_the_stack_is_never_dropped(tree: Path) -> None:
    assert mpsgen(*STACK, "--branch", "mine", cwd=tree).returncode == 0
    git(tree, "checkout", "-q", "mine")
    (tree / "NOTES.txt").write_text("review notes\n")
    git(tree, "add", "NOTES.txt")
    git(tree, "-c", "user.name=a", "-c", "user.email=a@b", "commit", "-qm", "my own work")
    own = git(tree, "rev-parse", "HEAD").strip()
    git(tree, "checkout", "-q", "-")
    refused = mpsgen(*STACK, "--branch", "mine", cwd=tree)
    assert refused.returncode == 2
    assert "mpsgen did not make" in refused.stderr and own[:12] in refused.stderr
    assert git(tree, "rev-parse", "mine").strip() == own


def test_stack_and_branch_per_op_are_refused_together(tree: Path) -> None:
    done = mpsgen("migrate", "--all", "--stack", "--branch-per-op", cwd=tree)
    assert done.returncode == 2 and "--stack and --branch-per-op" in done.stderr


def test_per_family_branches_of_an_older_head_are_made_again_after_one_landed(tree: Path) -> None:
    per_op = ("migrate", "--all", "--branch-per-op", "--no-build", "--no-test", "--no-try", "--no-compile")
    first = mpsgen(*per_op, cwd=tree)
    assert first.returncode == 0 and "conflict with each other" in first.stdout
    git(tree, "merge", "-q", "--ff-only", "mps-metal/atan2")
    head = git(tree, "rev-parse", "HEAD").strip()
    again = mpsgen(*per_op, "--format", "json", cwd=tree)
    assert again.returncode == 0, again.stderr
    rows = {f["family"]: f["state"] for f in json.loads(again.stdout)["families"]}
    assert "atan2" not in rows and set(rows.values()) == {"branch"}  # landed: no longer a candidate
    for family in rows:  # every other branch now starts from the new HEAD
        assert git(tree, "rev-parse", f"mps-metal/{family}^").strip() == head
    # a branch someone built on is never replaced: it fails the run, naming the way out
    git(tree, "checkout", "-q", "mps-metal/frac")
    (tree / "NOTES.txt").write_text("review notes\n")
    git(tree, "add", "NOTES.txt")
    git(tree, "-c", "user.name=a", "-c", "user.email=a@b", "commit", "-qm", "my own work")
    git(tree, "checkout", "-q", "-")
    git(tree, "merge", "-q", "--ff-only", "mps-metal/asinh")
    blocked = mpsgen(*per_op, cwd=tree)
    assert blocked.returncode == 1
    assert "mps-metal/frac exists and does not start from HEAD" in blocked.stdout


def test_a_2_7_family_stacked_on_its_neighbour_keeps_the_neighbours_instantiations(tree: Path) -> None:
    # 2.7's UnaryKernel.metal instantiates each op by a `template [[host_name(...)]]` entry of
    # INSTANTIATE_UNARY_KERNELS2/_VEC2; acosh's entries go right next to those asinh's commit added.
    # acosh's what-if of its legacy code's removal (plan/retired.py) once ran on HEAD's files, not the
    # parent commit's: asinh's kernels looked like ones only the removed code ran, were retired, and
    # the statement check refused acosh ("text inserted inside" a statement).
    lay_tree27(tree)
    commit_tree27(tree)
    outcomes: list[FamilyOutcome] = []
    build_stack(tree, [("asinh",), ("acosh",)], branch="mps-metal/stack", no_try=True, no_compile=True,
                command="migrate", finished=outcomes.append)
    assert [(o.family, o.state) for o in outcomes] == [("asinh", BRANCHED), ("acosh", BRANCHED)], \
        [o.reason for o in outcomes]
    (acosh, parents, _), (asinh, _, _) = chain(tree)
    assert parents == [asinh]
    metal = git(tree, "show", f"{acosh}:{METAL}")
    for op in ("asinh", "acosh"):
        assert f'host_name("{op}_" #DTYPE0' in metal and f'host_name("{op}_complex_" #DTYPE0' in metal
        assert f"struct {op}_functor {{" in metal
    removed = [ln for ln in git(tree, "diff", asinh, acosh, "--", METAL).splitlines()
               if ln.startswith("-") and not ln.startswith("---")]
    assert not [ln for ln in removed if "asinh" in ln]  # acosh's commit takes nothing of asinh's away


# A .metal an earlier family's commit created (what build_stack passes the next family as its base text):
# it registers `frac` with a functor of its own, for float and half only.
EXTRA_METAL = "aten/src/ATen/native/mps/kernels/Extra.metal"
EXTRA = """#include <c10/metal/utils.h>
#include <metal_stdlib>
using namespace metal;
using namespace c10::metal;

struct frac_functor {
  template <typename T>
  inline T operator()(const T x) {
    return x - floor(x);
  }
};

REGISTER_UNARY_OP(frac, float, float);
REGISTER_UNARY_OP(frac, half, half);
"""


def test_a_family_sees_the_files_an_earlier_commit_of_the_stack_created(tree: Path) -> None:
    # Kernel names are global across the .metal files.  The plan once listed kernels/*.metal from the disk
    # (HEAD's tree), so a file only the stack's parent commit holds was invisible: frac was written again
    # into UnaryKernel.metal beside Extra.metal's `frac`, two kernels of one name in the metallib.
    from mpsgen.batch.plan_one import plan_unit

    assert not (tree / EXTRA_METAL).exists()
    [outcome] = plan_unit(str(tree), ("frac",), True, "migrate", True, base_texts={EXTRA_METAL: EXTRA}, stack=True)
    assert outcome.state == "refused" and not outcome.files
    assert outcome.reason.startswith(f"{EXTRA_METAL}:13: kernel name 'frac' is already registered"), outcome.reason
    # on HEAD's own tree (no such commit below it) frac is planned as before
    [alone] = plan_unit(str(tree), ("frac",), True, "migrate", True, stack=True)
    assert alone.state == PLANNED and "struct frac_functor" in alone.files[METAL_SAMPLE]


def test_the_plans_tree_lists_and_holds_the_files_the_disk_lacks(tree: Path) -> None:
    from mpsgen.plan.texts import Draft, folder_files, original_texts
    from mpsgen.tree.changeset import Changeset
    from mpsgen.tree.checkout import Checkout

    kernels = "aten/src/ATen/native/mps/kernels"
    cs = Changeset(Checkout(tree), base={EXTRA_METAL: EXTRA})
    cs.set_text(f"{kernels}/New.metal", "// planned\n", "a kernel file of its own")
    cs.set_text(f"{kernels}/New.h", "// planned\n", "a params header")
    listed = [cs.rel(p) for p in folder_files(cs, "metal_files")]
    assert listed == sorted(listed) and {EXTRA_METAL, f"{kernels}/New.metal", METAL_SAMPLE} <= set(listed)
    assert f"{kernels}/New.h" in [cs.rel(p) for p in folder_files(cs, "kernel_headers")]
    assert f"{kernels}/New.h" not in listed
    assert cs.exists(EXTRA_METAL) and cs.exists(f"{kernels}/New.metal") and cs.exists(METAL_SAMPLE)
    assert not cs.exists(f"{kernels}/Missing.metal")
    assert Draft(cs).exists(EXTRA_METAL)
    # a file the plan creates has no original text; the stack's parent holds one
    originals = original_texts(cs, folder_files(cs, "metal_files"))
    assert originals[EXTRA_METAL] == EXTRA and f"{kernels}/New.metal" not in originals
