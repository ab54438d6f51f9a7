"""`mpsgen migrate --all [--branch-per-op]`: every candidate family planned, each on its own branch.

The tree: the scalar-ops tree (the sample with the 2.13 wheel's yaml, test lists and MetalShaderLibrary.h,
and Activation/PointwiseOps/Loss sources in the real files' shapes), committed in git.  Its frontier
holds families that migrate (asinh, threshold, huber_loss, ...) and ones that are refused (addcmul: the
2.13 MetalShaderLibrary.h has no ternary alpha, and the sample no OperationUtils.mm defining the
exec_ternary_kernel to model one on), so every run shows both.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from cli_support import mpsgen, tracked_bytes


# The batch's own behaviour (branches, reruns, interrupts) needs no compile check: after_full_run's run keeps
# it, and its test reads each family's result.
COMPILED = ("migrate", "--all", "--no-build", "--no-test", "--no-try")
ALL = (*COMPILED, "--no-compile")


def git(root: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=root, check=True, capture_output=True, text=True).stdout


def state(root: Path) -> tuple[str, str, str, dict[str, bytes]]:
    """What the user's checkout is: branch, HEAD, status, and every tracked file's bytes."""
    return (git(root, "symbolic-ref", "HEAD"), git(root, "rev-parse", "HEAD"),
            git(root, "status", "--porcelain"), tracked_bytes(root))


def branches(root: Path, prefix: str = "mps-metal/") -> dict[str, str]:
    out = git(root, "for-each-ref", "--format=%(refname:strip=2) %(objectname)", f"refs/heads/{prefix}")
    return dict(line.split() for line in out.splitlines())


def branched(report: dict) -> int:
    """How many branches the run's families are on (families that share a stub share one)."""
    return sum(f["state"] in ("branch", "done earlier") for f in report["families"])


def run_all(root: Path, *flags: str, command: tuple[str, ...] = ALL) -> dict:
    result = mpsgen(*command, *flags, "--format", "json", cwd=root)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


@pytest.fixture(scope="module")
def after_full_run(pristine_scalar_tree: Path, tmp_path_factory) -> tuple[Path, tuple, dict]:
    """One complete `--all --branch-per-op` run on a fresh scalar-ops tree, which the tests below share:
    the tree, its state before the run, and the run's report (a test that changes the tree copies it)."""
    root = tmp_path_factory.mktemp("after-full-run") / "pytorch"
    shutil.copytree(pristine_scalar_tree, root, symlinks=True)
    before = state(root)
    return root, before, run_all(root, "--branch-per-op", command=COMPILED)


@pytest.fixture(scope="module")
def unbranched(pristine_scalar_tree: Path, tmp_path_factory) -> Path:
    """A scalar-ops tree the runs without --branch-per-op share: they write nothing (each test checks)."""
    root = tmp_path_factory.mktemp("unbranched") / "pytorch"
    shutil.copytree(pristine_scalar_tree, root, symlinks=True)
    return root


@pytest.mark.xdist_group("unbranched")
def test_without_branches_it_plans_every_candidate_and_writes_nothing(unbranched: Path):
    scalar_tree = unbranched
    before = state(scalar_tree)
    report = run_all(scalar_tree)
    rows = {f["family"]: f for f in report["families"]}
    assert rows["threshold"]["state"] == "planned" and rows["asinh"]["state"] == "planned"
    assert "aten/src/ATen/native/native_functions.yaml" in rows["threshold"]["files"]
    assert rows["addcmul"]["state"] == "refused"
    assert "MetalShaderLibrary.h:1: no file among aten/src/ATen/native/mps/OperationUtils.mm" in rows["addcmul"]["reason"]
    assert "exec_ternary_kernel(iter, name), the sibling to model on" in rows["addcmul"]["reason"]
    assert report["migrated"] == sum(len(f["families"]) for f in report["families"] if f["state"] == "planned") >= 5
    assert state(scalar_tree) == before and branches(scalar_tree) == {}


@pytest.mark.xdist_group("after_full_run")
def test_each_family_becomes_one_commit_on_its_own_branch_and_the_checkout_stays_as_it_was(after_full_run):
    scalar_tree, before, report = after_full_run
    head = before[1].strip()
    made = branches(scalar_tree)
    rows = {f["family"]: f for f in report["families"]}
    moved = [f for f, row in rows.items() if row["state"] == "branch"]
    assert sorted(made) == sorted(f"mps-metal/{f}" for f in moved) and "addcmul" not in moved
    assert state(scalar_tree) == before  # branch, HEAD, index, work tree: untouched
    # threshold_backward passes threshold_stub: one branch for both, else both would add threshold's kernel.
    assert rows["threshold"]["families"] == ["threshold", "threshold_backward"] and "threshold_backward" not in rows
    for family in moved:
        branch = f"mps-metal/{family}"
        assert git(scalar_tree, "rev-list", "--parents", "-n", "1", branch).split() == [made[branch], head]
        changed = git(scalar_tree, "diff", "--name-only", head, branch).split()
        assert sorted(changed) == sorted(rows[family]["files"])
        diff = git(scalar_tree, "diff", head, branch)
        others = [f for f in moved if f != family and f"struct {f}_functor" in diff]
        assert others == [], f"{branch} carries {others}' kernels"
        # the compile check ran on the family's change: its .metal (the sample has no ATen headers for the .mm)
        assert rows[family]["compiled"].startswith("compiled 1 file: no new diagnostic; "), rows[family]["compiled"]
    message = git(scalar_tree, "log", "-1", "--format=%B", "mps-metal/threshold")
    assert message.startswith("[MPS] Migrate threshold and threshold_backward from MPSGraph to native Metal kernels\n\n")
    for part in ("### threshold\n\nDispatch (native_functions.yaml):\n- threshold.out", "### threshold_backward\n",
                 "Dtypes, before -> after:",
                 "| float16 | served by MPSGraph | registered T->T |", "Numeric check (mpsgen try, before writing): not run",
                 "    python test/test_mps.py -v -k test_output_match_nn_functional_threshold"):
        assert part in message, part

    again = run_all(scalar_tree, "--branch-per-op")
    assert {f["family"]: f["state"] for f in again["families"] if f["state"] != "refused"} == \
        {f: "done earlier" for f in moved}
    assert again["migrated"] == report["migrated"] == sum(len(rows[f]["families"]) for f in moved)
    assert branches(scalar_tree) == made and state(scalar_tree) == before


def test_an_interrupted_run_keeps_its_finished_branches_and_the_rerun_completes(scalar_tree: Path, monkeypatch, capsys):
    """Ctrl-C while the third branch is being made: two branches, an untouched checkout, exit 130."""
    from mpsgen.batch import branches as plumbing
    from mpsgen.commands.migrate_all import BatchOptions, candidate_units, run_migrate_all
    from mpsgen.tree.checkout import Checkout

    before = state(scalar_tree)
    made = []
    real = plumbing.commit_on_branch

    def interrupted_third(*args, **kwargs):
        if len(made) == 2:
            raise KeyboardInterrupt
        made.append(real(*args, **kwargs))
        return made[-1]

    monkeypatch.setattr(plumbing, "commit_on_branch", interrupted_third)
    code = run_migrate_all(Checkout(scalar_tree), BatchOptions(branch_per_op=True, jobs=1, no_try=True,
                                                               no_compile=True))
    assert code == 130 and len(branches(scalar_tree)) == 2 and state(scalar_tree) == before
    # the summary counts against every candidate, not only the families finished before Ctrl-C
    candidates = len([f for unit in candidate_units(Checkout(scalar_tree)) for f in unit])
    assert capsys.readouterr().out.rstrip().endswith(f"2 of {candidates} families migrated") and candidates > 3
    monkeypatch.setattr(plumbing, "commit_on_branch", real)
    report = run_all(scalar_tree, "--branch-per-op")
    states = [f["state"] for f in report["families"]]
    assert states.count("done earlier") == 2 and states.count("branch") == branched(report) - 2 > 0
    assert len(branches(scalar_tree)) == branched(report) and state(scalar_tree) == before


def test_a_killed_run_leaves_the_checkout_intact_and_the_rerun_completes(scalar_tree: Path):
    """SIGKILL as soon as the first branch exists (or after the run, if it finished first)."""
    import signal
    import time

    from cli_support import MPSGEN

    before = state(scalar_tree)
    run = subprocess.Popen([*MPSGEN, *ALL, "--branch-per-op", "--jobs", "1"], cwd=scalar_tree,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while not branches(scalar_tree) and run.poll() is None and time.monotonic() < deadline:
        time.sleep(0.01)
    run.send_signal(signal.SIGKILL)
    run.wait()
    assert state(scalar_tree) == before
    report = run_all(scalar_tree, "--branch-per-op")
    assert len(branches(scalar_tree)) == branched(report) > 5 and state(scalar_tree) == before
    git_dir = scalar_tree / ".git"
    assert list(git_dir.glob("mpsgen-batch-*")) == []  # a killed run's private index is cleaned up


def test_a_dirty_checkout_is_refused_before_any_branch(scalar_tree: Path):
    yaml = scalar_tree / "aten/src/ATen/native/native_functions.yaml"
    yaml.write_text(yaml.read_text() + "\n")
    result = mpsgen(*ALL, "--branch-per-op", cwd=scalar_tree)
    assert result.returncode == 2 and result.stdout == ""
    assert "tracked file(s) differ from HEAD, e.g. aten/src/ATen/native/native_functions.yaml" in result.stderr
    assert "commit or stash them first" in result.stderr and branches(scalar_tree) == {}


@pytest.mark.parametrize("flags, says", [
    (("asinh",), "--all migrates every candidate: name no OP with it"),
    (("--commit",), "--all makes its own branches and commits"),
    (("--expr", "x"), "--expr describe one op's kernel, not every candidate's"),
    (("--branch-per-op", "--dry-run"), "--all has no --print or --dry-run"),
])
def test_what_all_cannot_combine_with_is_refused(scalar_tree: Path, flags, says):
    result = mpsgen(*ALL, *flags, cwd=scalar_tree)
    assert result.returncode == 2 and says in result.stderr and branches(scalar_tree) == {}


@pytest.mark.xdist_group("unbranched")
def test_the_markdown_summary_is_a_table_to_paste(unbranched: Path):
    before = state(unbranched)
    result = mpsgen(*ALL, "--format", "markdown", cwd=unbranched)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == "| family | result | branch | files | dtypes | numeric check, or why not |"
    assert lines[1] == "|---|---|---|---|---|---|"
    addcmul = next(line for line in lines if line.startswith("| addcmul | refused |"))
    assert "exec_ternary_kernel(iter, name), the sibling to model on" in addcmul
    assert lines[-1].endswith("families would migrate")  # no --branch-per-op: nothing was written
    assert state(unbranched) == before and branches(unbranched) == {}


@pytest.mark.xdist_group("after_full_run")
def test_reruns_after_a_complete_run_are_no_ops_also_for_a_unit_planned_family_by_family(after_full_run, tmp_path: Path):
    """A unit refused together is planned one family at a time, and each family that plans gets a
    branch of its own: the rerun finds those, not the unit's, and must not plan them again (it used
    to end `cannot lock ref ...: reference already exists`, exit 1)."""
    from mpsgen.batch.branches import earlier_runs

    scalar_tree = tmp_path / "pytorch"  # a copy of the tree after the complete run: this test renames branches
    shutil.copytree(after_full_run[0], scalar_tree, symlinks=True)
    first = after_full_run[2]
    made = branches(scalar_tree)
    head = git(scalar_tree, "rev-parse", "HEAD").strip()
    # The shape the split leaves, on this tree: threshold_backward's branch alone, not the unit's.
    git(scalar_tree, "branch", "-m", "mps-metal/threshold", "mps-metal/threshold_backward")
    parents = {name.removeprefix("mps-metal/"): head for name in branches(scalar_tree)}
    done, todo = earlier_runs([("threshold", "threshold_backward"), ("asinh",)], {f"mps-metal/{f}": p for f, p in
                                                                                  parents.items()}, head, "mps-metal/")
    assert [(o.family, o.state, o.families) for o in done] == [("threshold_backward", "done earlier",
                                                                ["threshold_backward"]), ("asinh", "done earlier",
                                                                                          ["asinh"])]
    assert todo == [("threshold",)]
    for _ in range(2):
        result = mpsgen(*ALL, "--branch-per-op", "--format", "json", cwd=scalar_tree)
        assert result.returncode == 0, result.stdout + result.stderr
        rows = json.loads(result.stdout)["families"]
        assert "failed" not in {f["state"] for f in rows}
        on_branches = [m for f in rows if f["state"] in ("branch", "done earlier") for m in f["families"]]
        assert on_branches.count("threshold_backward") == 1 and on_branches.count("threshold") == 1
    git(scalar_tree, "branch", "-D", "mps-metal/threshold", "mps-metal/threshold_backward")
    git(scalar_tree, "branch", "mps-metal/threshold", made["mps-metal/threshold"])
    for _ in range(2):  # the second and third complete runs: every family done earlier, exit 0
        result = mpsgen(*ALL, "--branch-per-op", cwd=scalar_tree)
        assert result.returncode == 0, result.stdout + result.stderr
        states = {f["family"]: f["state"] for f in run_all(scalar_tree, "--branch-per-op")["families"]}
        assert {f: st for f, st in states.items() if st != "refused"} == \
            {f["family"]: "done earlier" for f in first["families"] if f["state"] == "branch"}
        assert result.stdout.splitlines()[-1].endswith("families migrated")
    assert branches(scalar_tree) == made


def test_a_branch_another_run_made_meanwhile_on_the_same_head_is_done_earlier(scalar_tree: Path, monkeypatch):
    from mpsgen.batch import branches as plumbing
    from mpsgen.commands.migrate_all import BatchOptions, run_migrate_all
    from mpsgen.tree.checkout import Checkout

    real = plumbing.commit_on_branch

    def raced(root, base, branch, files, message, replacing=""):  # another run commits first, then this one tries
        real(root, base, branch, files, message, replacing)
        return real(root, base, branch, files, message, replacing)

    monkeypatch.setattr(plumbing, "commit_on_branch", raced)
    code = run_migrate_all(Checkout(scalar_tree), BatchOptions(branch_per_op=True, jobs=1, no_try=True,
                                                               no_compile=True, fmt="json"))
    assert code == 0 and branches(scalar_tree)


# -- with the build and the tests (the sample's toolchain builds and tests on Linux) ----------------


@pytest.fixture()
def sample_repo(tree: Path) -> Path:
    """A fresh copy of the session's `mpsgen sample` (git-initialised), as conftest's tree fixture makes it."""
    return tree


def test_each_family_is_built_and_tested_in_the_work_tree_in_turn_then_undone(sample_repo: Path):
    before = state(sample_repo)
    report = run_all_built(sample_repo)
    rows = {f["family"]: f for f in report["families"]}
    assert {f: (r["state"], r["build"]) for f, r in rows.items()} == {f: ("branch", "ok") for f in rows}
    assert len(rows) >= 4 and all(r["tests_result"].startswith(tuple(f"{n} passed, 0 failed" for n in range(1, 20)))
                                  for r in rows.values())
    assert state(sample_repo) == before  # each change undone after its build and tests
    assert mpsgen("undo", cwd=sample_repo).stdout == "nothing to undo\n"  # and the undo stack is as it was


def run_all_built(root: Path) -> dict:
    result = mpsgen("migrate", "--all", "--branch-per-op", "--format", "json", cwd=root)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_ctrl_c_during_a_build_restores_the_files_and_the_rerun_goes_on(sample_repo: Path, monkeypatch):
    from mpsgen.commands.migrate_all import BatchOptions, run_migrate_all
    from mpsgen.tree.checkout import Checkout
    from mpsgen.verify import runner

    before = state(sample_repo)
    edited = []

    def interrupted_build(root, *args, **kwargs):
        edited.append(git(root, "status", "--porcelain"))
        raise KeyboardInterrupt

    monkeypatch.setattr(runner, "run_build", interrupted_build)
    code = run_migrate_all(Checkout(sample_repo), BatchOptions(branch_per_op=True, jobs=1, no_try=True,
                                                               build=True, test=True))
    assert code == 130 and edited and edited[0] != ""  # the family's change was on disk while it built
    assert state(sample_repo) == before
    monkeypatch.undo()
    report = run_all_built(sample_repo)
    assert all(f["state"] == "done earlier" for f in report["families"]) and state(sample_repo) == before


def test_a_change_a_killed_run_left_on_disk_is_undone_first(sample_repo: Path):
    from mpsgen.batch.verify_each import LABEL
    from mpsgen.tree.changeset import Changeset
    from mpsgen.tree.checkout import Checkout

    before = state(sample_repo)
    cs = Changeset(Checkout(sample_repo))
    yaml = "aten/src/ATen/native/native_functions.yaml"
    cs.set_text(yaml, cs.current(yaml) + "\n# left by a killed run\n", "test")
    cs.apply(label=LABEL + "asinh")  # what a SIGKILL during asinh's build leaves
    # The leftover is undone before any family is built: a build command that does nothing keeps this test to
    # that (each family really built in turn, then undone: test_each_family_is_built_and_tested_..._then_undone).
    result = mpsgen("migrate", "--all", "--no-try", "--no-test", "--build-cmd", "true", "--format", "json",
                    cwd=sample_repo)
    assert result.returncode == 0, result.stderr
    assert f"restored what an interrupted `migrate --all` left: {yaml}" in result.stderr
    assert state(sample_repo) == before


def test_a_checkout_inside_a_larger_repository_gets_its_branches_there_with_file_modes_kept(tmp_path: Path,
                                                                                            pristine_sample: Path):
    """The PyTorch tree in pt/ of a bigger repository: branch paths are pt/..., an executable file stays so."""
    outer = tmp_path / "outer"
    shutil.copytree(pristine_sample, outer / "pt", symlinks=True)  # the session's `mpsgen sample`
    subprocess.run(["rm", "-rf", str(outer / "pt" / ".git")], check=True)
    yaml = outer / "pt/aten/src/ATen/native/native_functions.yaml"
    yaml.chmod(0o755)
    (outer / "README").write_text("not PyTorch\n")
    for args in (["init", "-q"], ["add", "-A"], ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "x"]):
        subprocess.run(["git", *args], cwd=outer, check=True)
    before = state(outer)
    report = run_all(outer / "pt", "--branch-per-op")
    assert report["migrated"] >= 4 and state(outer) == before
    changed = git(outer, "diff", "--name-only", "HEAD", "mps-metal/asinh").split()
    assert "pt/aten/src/ATen/native/native_functions.yaml" in changed and all(p.startswith("pt/") for p in changed)
    entry = git(outer, "ls-tree", "mps-metal/asinh", "--", "pt/aten/src/ATen/native/native_functions.yaml")
    assert entry.startswith("100755 blob ")


@pytest.mark.xdist_group("after_full_run")
def test_every_branchs_test_plan_selects_tests_of_opinfos_that_exist(after_full_run):
    """A backward op without an OpInfo of its own is tested through its forward op's gradient test
    (`-k test_output_grad_match_…`), never by a test_output_match name no OpInfo has."""
    import re

    from mpsgen.sources.testlists.opinfos import all_opinfos

    scalar_tree, _, report = after_full_run
    testing = scalar_tree / "torch/testing/_internal"
    files = [testing / "common_methods_invocations.py", *sorted((testing / "opinfo/definitions").glob("*.py"))]
    known = {r.name.replace(".", "_") for f in files if f.is_file() for r in all_opinfos(f.read_text(), str(f))}
    plans, grad = 0, []
    for row in report["families"]:
        if row["state"] != "branch":
            continue
        message = git(scalar_tree, "log", "-1", "--format=%B", row["branch"])
        for pattern in re.findall(r"-k (\S+)", message):
            plans += 1
            kind, _, name = pattern.partition("_match_")
            assert name in known, f"{row['branch']}: {pattern} names no OpInfo"
            if kind == "test_output_grad":
                grad.append((row["family"], name))
    assert plans > 5
    assert ("softplus_backward", "nn_functional_softplus") in grad
