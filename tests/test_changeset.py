"""Changeset: planning, diff, all-or-nothing apply, journal, recovery, undo."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from mpsgen.tree import changeset as cs
from mpsgen.tree import journal as jr
from mpsgen.tree.checkout import Checkout, newline_of
from mpsgen.errors import MpsgenError

YAML = "aten/src/ATen/native/native_functions.yaml"
UNARY = "aten/src/ATen/native/mps/kernels/UnaryKernel.metal"
OPS = "aten/src/ATen/native/mps/operations/UnaryOps.mm"
COMMON = "torch/testing/_internal/common_mps.py"
FILES = {
    YAML: "- func: abs(Tensor self) -> Tensor\n  variants: function, method\n",
    UNARY: "#include <c10/metal/indexing.h>\n\nstruct abs_functor {};\n\nREGISTER_UNARY_OP(abs, float, float);\n",
    OPS: "#include <ATen/native/mps/OperationUtils.h>\n\nnamespace at::native {\n} // namespace at::native\n",
    COMMON: "XFAILLIST = {\n    \"abs\": None,\n}\n",
}


@pytest.fixture()
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "pytorch"
    for rel, text in FILES.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(text.encode("utf-8"))
    return root


def git(root: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@t", *args],
        cwd=root,
        check=True,
        capture_output=True,
        text=True,
    ).stdout


@pytest.fixture()
def git_tree(tree: Path) -> Path:
    git(tree, "init", "-q")
    git(tree, "add", "-A")
    git(tree, "commit", "-q", "-m", "base")
    return tree



def test_a_scratch_copy_reads_the_base_texts_not_the_disk(tree: Path) -> None:
    # --stack plans a family on its parent commit's texts (base); a what-if planned on a scratch copy
    # (plan/retired.py, plan/callers.py) must see those too, not HEAD's files on the disk
    parent = FILES[UNARY] + "REGISTER_UNARY_OP(sin, float, float);\n"
    plan = cs.Changeset(Checkout(tree), {UNARY: parent})
    plan.set_text(OPS, FILES[OPS] + "// planned\n")
    scratch = plan.scratch()
    assert scratch.original(UNARY) == parent and scratch.current(UNARY) == parent
    assert scratch.base_paths == (UNARY,) and scratch.changed_paths == [OPS]
    assert scratch.current(OPS) == FILES[OPS] + "// planned\n" and scratch.original(OPS) == FILES[OPS]
    scratch.set_text(UNARY, "")  # the copy's edits stay its own
    assert plan.current(UNARY) == parent and plan.changed_paths == [OPS]

def snapshot(root: Path) -> dict[str, tuple[bytes, int]]:
    """Every file outside .git (including journals and temp files) with bytes and mode."""
    out = {}
    for p in sorted(root.rglob("*")):
        rel = p.relative_to(root).as_posix()
        if rel == ".git" or rel.startswith(".git/"):
            continue
        out[rel] = (p.read_bytes(), stat.S_IMODE(p.stat().st_mode)) if p.is_file() else (b"<dir>", 0)
    return out


def plan_four(co: Checkout) -> cs.Changeset:
    """An edit to each of the four files (written in sorted path order)."""
    ch = cs.Changeset(co)
    for rel in FILES:
        ch.set_text(rel, ch.original(rel) + "// edited\n", why="test")
    return ch


# -- planning and diff -------------------------------------------------------------------
def test_plan_and_diff(tree: Path) -> None:
    co = Checkout(tree)
    ch = cs.Changeset(co)
    assert ch.is_empty
    text = ch.original(UNARY)
    ch.set_text(UNARY, text.replace("struct abs_functor {};", "struct abs_functor {\n};"), why="split functor")
    ch.set_text("aten/src/ATen/native/mps/kernels/New.metal", "// new\n", why="new kernel")
    assert ch.current(UNARY).count("\n") == text.count("\n") + 1
    assert ch.changed_paths == ["aten/src/ATen/native/mps/kernels/New.metal", UNARY]
    assert ch.is_new("aten/src/ATen/native/mps/kernels/New.metal")
    assert ch.diff() == (
        "diff --git a/aten/src/ATen/native/mps/kernels/New.metal b/aten/src/ATen/native/mps/kernels/New.metal\n"
        "new file mode 100644\n"
        "--- /dev/null\n"
        "+++ b/aten/src/ATen/native/mps/kernels/New.metal\n"
        "@@ -0,0 +1 @@\n"
        "+// new\n"
        f"diff --git a/{UNARY} b/{UNARY}\n"
        f"--- a/{UNARY}\n"
        f"+++ b/{UNARY}\n"
        "@@ -1,5 +1,6 @@\n"
        " #include <c10/metal/indexing.h>\n"
        " \n"
        "-struct abs_functor {};\n"
        "+struct abs_functor {\n"
        "+};\n"
        " \n"
        " REGISTER_UNARY_OP(abs, float, float);\n"
    )
    assert ch.summary == [
        "created aten/src/ATen/native/mps/kernels/New.metal (+1 -0): new kernel",
        f"modified {UNARY} (+2 -1): split functor",
    ]


def test_diff_colour_only_when_asked(tree: Path) -> None:
    ch = cs.Changeset(Checkout(tree))
    ch.set_text(COMMON, ch.original(COMMON).replace("None", "[torch.float16]"))
    plain, coloured = ch.diff(), ch.diff(color=True)
    assert "\x1b[" not in plain
    assert "\x1b[31m-    \"abs\": None,\x1b[0m\n" in coloured
    assert "\x1b[32m+    \"abs\": [torch.float16],\x1b[0m\n" in coloured
    assert "\x1b[36m@@ -1,3 +1,3 @@\x1b[0m\n" in coloured


def test_diff_marks_missing_final_newline_and_keeps_formfeed_lines(tree: Path) -> None:
    (tree / OPS).write_bytes(b"a\x0cb\nlast")
    ch = cs.Changeset(Checkout(tree))
    ch.set_text(OPS, "a\x0cb\nlast!")
    assert ch.diff().endswith(" a\x0cb\n-last\n\\ No newline at end of file\n+last!\n\\ No newline at end of file\n")


def test_same_text_is_no_change_and_empty_apply_writes_nothing(tree: Path) -> None:
    before = snapshot(tree)
    ch = cs.Changeset(Checkout(tree))
    ch.set_text(OPS, ch.original(OPS))
    assert ch.is_empty and ch.diff() == "" and ch.summary == []
    result = ch.apply()
    assert result.files == () and result.path is None
    assert snapshot(tree) == before


def test_dry_run_writes_nothing(tree: Path) -> None:
    before = snapshot(tree)
    ch = plan_four(Checkout(tree))
    ch.set_text("aten/src/ATen/native/mps/kernels/sub/New.metal", "x\n")
    assert "+// edited" in ch.diff(color=True)
    assert ch.summary and ch.changed_paths
    assert snapshot(tree) == before  # no file, no journal, no folder


# -- apply ---------------------------------------------------------------------------------
def test_apply_writes_all_and_journals(tree: Path) -> None:
    co = Checkout(tree)
    ch = plan_four(co)
    ch.set_text("aten/src/ATen/native/mps/kernels/sub/New.metal", "new\n")
    result = ch.apply()
    for rel, text in FILES.items():
        assert (tree / rel).read_bytes() == (text + "// edited\n").encode()
        assert co.read_text(rel) == text + "// edited\n"  # the checkout's cache was refreshed
    assert (tree / "aten/src/ATen/native/mps/kernels/sub/New.metal").read_bytes() == b"new\n"
    assert result.path == tree / ".mpsgen" / "last.json" and result.state == jr.APPLIED
    assert sorted(result.paths) == sorted([*FILES, "aten/src/ATen/native/mps/kernels/sub/New.metal"])
    assert result.created_dirs == ("aten/src/ATen/native/mps/kernels/sub",)
    assert not (tree / ".mpsgen" / "pending.json").exists()
    assert not list(tree.rglob("*.mpsgen-tmp"))
    with pytest.raises(RuntimeError):
        ch.set_text(OPS, "again")


def test_crlf_file_keeps_crlf(tree: Path) -> None:
    (tree / OPS).write_bytes(b"#include <a.h>\r\n\r\nnamespace at::native {\r\n}\r\n")
    co = Checkout(tree)
    ch = cs.Changeset(co)
    text = ch.original(OPS)
    nl = newline_of(text)
    ch.set_text(OPS, text.replace("{" + nl, "{" + nl + "void f();" + nl))
    ch.apply()
    data = (tree / OPS).read_bytes()
    assert data == b"#include <a.h>\r\n\r\nnamespace at::native {\r\nvoid f();\r\n}\r\n"


def test_bom_round_trips_and_is_kept(tree: Path) -> None:
    (tree / COMMON).write_bytes(b"\xef\xbb\xbfX = 1\n")
    ch = cs.Changeset(Checkout(tree))
    assert ch.original(COMMON) == "\ufeffX = 1\n"
    ch.set_text(COMMON, "X = 2\n")  # an editor that dropped the BOM
    ch.apply()
    assert (tree / COMMON).read_bytes() == b"\xef\xbb\xbfX = 2\n"


def test_mode_0755_kept(tree: Path) -> None:
    os.chmod(tree / OPS, 0o755)
    ch = cs.Changeset(Checkout(tree))
    ch.set_text(OPS, "changed\n")
    ch.apply()
    assert stat.S_IMODE((tree / OPS).stat().st_mode) == 0o755
    assert (tree / OPS).read_bytes() == b"changed\n"


def test_symlink_is_written_through(tree: Path) -> None:
    (tree / "link.mm").symlink_to(tree / OPS)
    ch = cs.Changeset(Checkout(tree))
    ch.set_text(OPS, "via link\n")
    ch.apply()
    assert (tree / "link.mm").is_symlink()
    assert (tree / OPS).read_bytes() == b"via link\n"


def test_read_only_target_refused_before_anything_is_written(tree: Path) -> None:
    os.chmod(tree / UNARY, 0o444)
    before = snapshot(tree)
    ch = plan_four(Checkout(tree))
    with pytest.raises(MpsgenError) as err:
        ch.apply()
    assert err.value.path == UNARY
    assert "read-only" in err.value.render() and "chmod" in err.value.render()
    assert snapshot(tree) == before


def test_failure_on_third_of_four_writes_restores_all(tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    before = snapshot(tree)
    calls: list[Path] = []

    def failing_replace(src: Path, dst: Path) -> None:
        calls.append(Path(dst))
        if len(calls) == 3:
            raise OSError(28, "No space left on device")
        os.replace(src, dst)

    monkeypatch.setattr(cs, "_replace", failing_replace)
    ch = plan_four(Checkout(tree))
    third = ch.changed_paths[2]
    with pytest.raises(MpsgenError) as err:
        ch.apply()
    assert len(calls) == 3  # two files were really replaced before the failure
    assert err.value.path == third and "No space left" in err.value.message
    assert snapshot(tree) == before  # byte-identical, modes kept, no temp file, no journal


def test_keyboard_interrupt_between_writes_restores(tree: Path) -> None:
    before = snapshot(tree)

    def hook(index: int, path: Path) -> None:
        if index == 2:
            raise KeyboardInterrupt

    ch = plan_four(Checkout(tree))
    ch.set_text("aten/src/ATen/native/aaa/New.mm", "new\n")  # sorts first: written, then removed
    with pytest.raises(KeyboardInterrupt):
        ch.apply(_fault_hook=hook)
    assert snapshot(tree) == before


CRASH_SCRIPT = """
import os, sys
from mpsgen.tree import changeset as cs
from mpsgen.tree.checkout import Checkout
co = Checkout(sys.argv[1])
ch = cs.Changeset(co)
for rel in sys.argv[2:]:
    ch.set_text(rel, ch.original(rel) + "// edited\\n")
ch.set_text("aten/src/ATen/native/aaa/b/New.mm", "new\\n")
def hook(index, path):
    if index == 3:
        os._exit(9)  # the process dies: no except, no finally
ch.apply(_fault_hook=hook)
"""


def crash_half_way(tree: Path) -> None:
    repo = Path(__file__).resolve().parent.parent
    proc = subprocess.run(
        [sys.executable, "-c", CRASH_SCRIPT, str(tree), *FILES],
        cwd=repo,
        env={**os.environ, "PYTHONPATH": str(repo)},
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 9, proc.stderr


def test_process_death_between_writes_is_recovered(tree: Path) -> None:
    before = snapshot(tree)
    crash_half_way(tree)
    # Half-written for real: the new file and two edits landed, the rest did not.
    assert (tree / "aten/src/ATen/native/aaa/b/New.mm").read_bytes() == b"new\n"
    edited = [rel for rel in FILES if (tree / rel).read_bytes().endswith(b"// edited\n")]
    assert len(edited) == 2
    pending = json.loads((tree / ".mpsgen" / "pending.json").read_text())
    assert pending["state"] == "in-progress" and len(pending["files"]) == 5
    restored = cs.recover_if_interrupted(Checkout(tree))
    assert sorted(restored) == sorted(["aten/src/ATen/native/aaa/b/New.mm", *edited])
    after = snapshot(tree)
    assert {k: v for k, v in after.items() if not k.startswith(".mpsgen")} == before
    assert not (tree / ".mpsgen" / "pending.json").exists()
    assert cs.recover_if_interrupted(Checkout(tree)) == []  # once is enough


def test_next_apply_recovers_first(tree: Path) -> None:
    crash_half_way(tree)  # wrote New.mm, UNARY and OPS; died before YAML
    ch = cs.Changeset(Checkout(tree))
    ch.set_text(YAML, "fresh\n")
    ch.apply()
    assert (tree / YAML).read_bytes() == b"fresh\n"
    assert not (tree / "aten/src/ATen/native/aaa").exists()
    for rel in (UNARY, OPS, COMMON):
        assert (tree / rel).read_bytes() == FILES[rel].encode()


def test_plan_on_half_written_text_is_refused_after_recovery(tree: Path) -> None:
    crash_half_way(tree)
    ch = cs.Changeset(Checkout(tree))
    assert ch.original(OPS).endswith("// edited\n")  # read before recovery ran
    ch.set_text(OPS, ch.original(OPS) + "more\n")
    with pytest.raises(MpsgenError) as err:
        ch.apply()
    assert err.value.path == OPS and "changed on disk" in err.value.message
    assert (tree / OPS).read_bytes() == FILES[OPS].encode()  # recovery did run


def test_recovery_refuses_a_file_edited_after_the_crash(tree: Path) -> None:
    crash_half_way(tree)
    edited = next(rel for rel in sorted(FILES) if (tree / rel).read_bytes().endswith(b"// edited\n"))
    (tree / edited).write_bytes(b"user typed this\n")
    with pytest.raises(MpsgenError) as err:
        cs.recover_if_interrupted(Checkout(tree))
    assert err.value.path == edited and "pending.json" in err.value.render()
    assert (tree / edited).read_bytes() == b"user typed this\n"
    assert (tree / "aten/src/ATen/native/aaa/b/New.mm").exists()  # nothing restored half-way


def test_recovery_finishes_bookkeeping_of_a_completed_apply(tree: Path) -> None:
    ch = cs.Changeset(Checkout(tree))
    ch.set_text(OPS, "done\n")
    done = ch.apply()
    # Simulate death after every file was written but before the journal was renamed.
    os.replace(done.path, tree / ".mpsgen" / "pending.json")
    assert cs.recover_if_interrupted(Checkout(tree)) == []
    assert (tree / OPS).read_bytes() == b"done\n"
    assert (tree / ".mpsgen" / "last.json").exists()
    assert cs.undo(Checkout(tree)) == [OPS]
    assert (tree / OPS).read_bytes() == FILES[OPS].encode()


# -- undo ----------------------------------------------------------------------------------
def test_undo_restores_exactly_then_nothing_to_undo(tree: Path) -> None:
    os.chmod(tree / OPS, 0o750)
    (tree / COMMON).write_bytes(b"a\r\nb\r\n")
    before = snapshot(tree)
    co = Checkout(tree)
    ch = plan_four(co)
    ch.set_text("aten/src/ATen/native/mps/kernels/sub/deep/New.metal", "new\n")
    ch.apply()
    assert snapshot(tree) != before
    undone = cs.undo(co)
    assert sorted(undone) == sorted([*FILES, "aten/src/ATen/native/mps/kernels/sub/deep/New.metal"])
    assert {k: v for k, v in snapshot(tree).items() if not k.startswith(".mpsgen")} == before
    assert co.read_text(OPS) == FILES[OPS]
    assert cs.undo(co) == []


def test_undo_is_a_stack_one_change_per_call(tree: Path) -> None:
    # Issue 15 changed this from one level of undo to a stack.
    co = Checkout(tree)
    for text in ("one\n", "two\n"):
        ch = cs.Changeset(co)
        ch.set_text(OPS, text)
        ch.apply()
    assert cs.undo(co) == [OPS]
    assert (tree / OPS).read_bytes() == b"one\n"
    assert cs.undo(co) == [OPS]
    assert (tree / OPS).read_bytes() == FILES[OPS].encode()
    assert cs.undo(co) == []
    assert not (tree / ".mpsgen").exists()  # an emptied stack leaves no journal folder


def test_undo_refuses_after_user_edit(tree: Path) -> None:
    co = Checkout(tree)
    ch = plan_four(co)
    ch.apply()
    (tree / YAML).write_bytes(b"user edit\n")
    applied = snapshot(tree)
    with pytest.raises(MpsgenError) as err:
        cs.undo(co)
    assert err.value.path == YAML and "edited after mpsgen applied" in err.value.message
    assert snapshot(tree) == applied


def test_undo_drops_a_change_whose_created_file_was_deleted_by_hand(tree: Path) -> None:
    # The file did not exist before the change: deleting it is reverting the change, so undo
    # forgets the change (nothing to restore, nothing lost) instead of refusing forever.
    co = Checkout(tree)
    ch = cs.Changeset(co)
    ch.set_text("aten/New.mm", "x\n")
    ch.apply()
    (tree / "aten/New.mm").unlink()
    assert cs.undo(co) == [] and not (tree / ".git/mpsgen/last.json").exists()
    assert not (tree / "aten/New.mm").exists()


def test_undo_refuses_when_a_changed_file_was_deleted(tree: Path) -> None:
    co = Checkout(tree)
    ch = cs.Changeset(co)
    rel = next(p.relative_to(tree).as_posix() for p in sorted((tree / "aten").rglob("*.mm")))
    ch.set_text(rel, "changed\n")
    ch.apply()
    (tree / rel).unlink()
    with pytest.raises(MpsgenError) as err:
        cs.undo(co)
    assert err.value.path == rel and "deleted" in err.value.message


def test_interrupted_undo_is_rolled_back_and_can_be_retried(tree: Path) -> None:
    co = Checkout(tree)
    ch = plan_four(co)
    ch.apply()
    applied = snapshot(tree)

    def hook(index: int, path: Path) -> None:
        if index == 2:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        cs.undo(co, _fault_hook=hook)
    assert snapshot(tree) == applied
    assert sorted(cs.undo(co)) == sorted(FILES)
    assert all((tree / rel).read_bytes() == text.encode() for rel, text in FILES.items())


# -- refusals ------------------------------------------------------------------------------
def test_stale_file_refused(tree: Path) -> None:
    before_text = (tree / OPS).read_bytes()
    ch = cs.Changeset(Checkout(tree))
    ch.set_text(OPS, ch.original(OPS) + "// mine\n")
    (tree / OPS).write_bytes(before_text + b"// someone else\n")
    with pytest.raises(MpsgenError) as err:
        ch.apply()
    assert err.value.path == OPS and "changed on disk after mpsgen read it" in err.value.message
    assert (tree / OPS).read_bytes() == before_text + b"// someone else\n"
    assert not (tree / ".mpsgen").exists()


def test_stale_input_that_is_not_edited_is_refused_too(tree: Path) -> None:
    ch = cs.Changeset(Checkout(tree))
    ch.original(YAML)  # the plan depends on it
    ch.set_text(OPS, "x\n")
    (tree / YAML).write_bytes(b"- func: other\n")
    with pytest.raises(MpsgenError) as err:
        ch.verify_unchanged_on_disk()
    assert err.value.path == YAML


def _age(path: Path, seconds: int = 60) -> None:
    """Date *path* back, as a checkout's files are: its stamp then vouches for its text."""
    past = os.stat(path).st_mtime_ns - seconds * 1_000_000_000
    os.utime(path, ns=(past, past))


def test_an_old_unchanged_input_is_verified_by_its_stamp_without_reading_it(tree: Path, monkeypatch) -> None:
    _age(tree / YAML)
    ch = cs.Changeset(Checkout(tree))
    ch.original(YAML)
    ch.set_text(OPS, ch.original(OPS) + "// mine\n")
    reads = []
    monkeypatch.setattr(cs, "open", lambda path, *a: reads.append(Path(path).name) or open(path, *a), raising=False)
    ch.verify_unchanged_on_disk()
    assert reads == ["UnaryOps.mm"]  # the target, byte for byte; the yaml by its stamp


def test_an_input_rewritten_with_the_same_size_and_mtime_is_still_refused(tree: Path) -> None:
    # An old input (stamp trusted) rewritten in place, its mtime put back: ctime moves, so the
    # stamp differs and the bytes are compared.
    _age(tree / YAML)
    ch = cs.Changeset(Checkout(tree))
    ch.original(YAML)
    ch.set_text(OPS, "x\n")
    st = os.stat(tree / YAML)
    (tree / YAML).write_bytes(FILES[YAML].replace("abs", "neg").encode())
    os.utime(tree / YAML, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert os.stat(tree / YAML).st_size == st.st_size
    with pytest.raises(MpsgenError) as err:
        ch.verify_unchanged_on_disk()
    assert err.value.path == YAML and "changed on disk" in err.value.message


def test_a_racy_input_is_compared_byte_for_byte(tree: Path, monkeypatch) -> None:
    # Written just before it was read: a same-size rewrite within the clock tick could keep every
    # stamp field (simulated: stat answers as at the read), so only the bytes can tell.
    ch = cs.Changeset(Checkout(tree))
    ch.original(YAML)
    ch.set_text(OPS, "x\n")
    frozen = os.stat(tree / YAML)
    (tree / YAML).write_bytes(FILES[YAML].replace("abs", "neg").encode())
    real_stat = os.stat
    monkeypatch.setattr(cs.os, "stat", lambda p, *a, **k: frozen if Path(p).name == Path(YAML).name else real_stat(p, *a, **k))
    with pytest.raises(MpsgenError) as err:
        ch.verify_unchanged_on_disk()
    assert err.value.path == YAML


def test_apply_after_a_verification_still_rereads_targets_and_inputs_read_since(tree: Path) -> None:
    # The caller verifies every input once (migrate does, before printing); apply then re-reads the
    # files it writes and any input read after that verification, not the hundreds verified already.
    ch = cs.Changeset(Checkout(tree))
    ch.original(YAML)
    ch.set_text(OPS, ch.original(OPS) + "// mine\n")
    ch.verify_unchanged_on_disk()
    (tree / OPS).write_bytes(FILES[OPS].encode() + b"// someone else\n")
    with pytest.raises(MpsgenError) as err:
        ch.apply()
    assert err.value.path == OPS and "changed on disk after mpsgen read it" in err.value.message

    ch = cs.Changeset(Checkout(tree))
    ch.set_text(UNARY, "mine\n")
    ch.verify_unchanged_on_disk()
    ch.original(COMMON)  # read after the verification
    (tree / COMMON).write_bytes(b"XFAILLIST = {}\n")
    with pytest.raises(MpsgenError) as err:
        ch.apply()
    assert err.value.path == COMMON
    assert (tree / UNARY).read_bytes() == FILES[UNARY].encode()


def test_paths_name_the_same_entry_however_they_are_spelled(tree: Path) -> None:
    ch = cs.Changeset(Checkout(tree))
    assert ch.rel(tree / OPS) == ch.rel(OPS) == ch.rel(str(tree / OPS)) == OPS
    ch.set_text(tree / OPS, "x\n")
    assert ch.current(OPS) == "x\n" and ch.changed_paths == [OPS]


def test_new_file_that_appeared_meanwhile_refused(tree: Path) -> None:
    ch = cs.Changeset(Checkout(tree))
    ch.set_text("aten/New.mm", "mine\n")
    (tree / "aten/New.mm").write_bytes(b"theirs\n")
    with pytest.raises(MpsgenError) as err:
        ch.apply()
    assert err.value.path == "aten/New.mm"
    assert (tree / "aten/New.mm").read_bytes() == b"theirs\n"


def test_dirty_git_file_refused_unless_allowed(git_tree: Path) -> None:
    (git_tree / UNARY).write_bytes(b"uncommitted\n")
    co = Checkout(git_tree)
    ch = cs.Changeset(co)
    ch.set_text(UNARY, "mpsgen\n")
    ch.set_text(OPS, "mpsgen\n")  # clean: not listed
    ch.set_text("aten/New.mm", "new\n")  # new: nothing to lose
    with pytest.raises(MpsgenError) as err:
        ch.apply()
    assert err.value.path == UNARY and "--allow-dirty" in err.value.render()
    assert (git_tree / UNARY).read_bytes() == b"uncommitted\n"
    assert (git_tree / OPS).read_bytes() == FILES[OPS].encode()
    result = ch.apply(allow_dirty=True)
    assert (git_tree / UNARY).read_bytes() == b"mpsgen\n"
    # The journal lives in the git dir, so the work tree shows only mpsgen's edits.
    assert result.path == git_tree / ".git" / "mpsgen" / "last.json"
    status = git(git_tree, "status", "--porcelain", "--untracked-files=all").splitlines()
    assert sorted(status) == sorted([f" M {UNARY}", f" M {OPS}", "?? aten/New.mm"])


def test_dirty_lists_every_file(git_tree: Path) -> None:
    (git_tree / UNARY).write_bytes(b"u\n")
    (git_tree / COMMON).write_bytes(b"u\n")
    ch = plan_four(Checkout(git_tree))
    with pytest.raises(MpsgenError) as err:
        ch.check_dirty(allow_dirty=False)
    rendered = err.value.render()
    assert err.value.path == UNARY and COMMON in rendered and "1 more" in rendered
    ch.check_dirty(allow_dirty=True)  # no error


def test_not_a_git_repo_has_no_dirty_check(tree: Path) -> None:
    assert cs.dirty_paths(tree, [OPS]) == []


def test_missing_and_non_utf8_files_are_one_line_errors(tree: Path) -> None:
    (tree / OPS).write_bytes(b"ok\n\xff\xfe\n")
    ch = cs.Changeset(Checkout(tree))
    with pytest.raises(MpsgenError) as err:
        ch.original(OPS)
    assert err.value.path == OPS and err.value.line == 2 and "UTF-8" in err.value.render()
    with pytest.raises(MpsgenError) as err:
        ch.original("aten/src/ATen/native/mps/operations/Missing.mm")
    assert "not found" in err.value.message and "\n" not in err.value.render()
    with pytest.raises(MpsgenError) as err:
        ch.set_text(tree.parent / "outside.txt", "x")
    assert "outside the PyTorch checkout" in err.value.message


def test_read_only_folder_refused_via_access(tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Root may write into any folder, so os.access stands in for a real read-only folder.
    folder = (tree / "aten/src/ATen/native/mps/kernels").resolve()
    real_access = os.access
    monkeypatch.setattr(cs.os, "access", lambda p, m: False if Path(p) == folder else real_access(p, m))
    before = snapshot(tree)
    ch = cs.Changeset(Checkout(tree))
    ch.set_text("aten/src/ATen/native/mps/kernels/New.metal", "x\n")
    with pytest.raises(MpsgenError) as err:
        ch.apply()
    assert err.value.path == "aten/src/ATen/native/mps/kernels" and "not writable" in err.value.message
    assert snapshot(tree) == before


def test_damaged_journal_is_refused_clearly(tree: Path) -> None:
    (tree / ".mpsgen").mkdir()
    (tree / ".mpsgen" / "last.json").write_text("{not json")
    with pytest.raises(MpsgenError) as err:
        cs.undo(Checkout(tree))
    assert err.value.path.endswith("last.json") and "delete this journal" in err.value.render()


def test_journal_in_worktree_git_file(tmp_path: Path) -> None:
    gitdir = tmp_path / "real.git" / "worktrees" / "w"
    gitdir.mkdir(parents=True)
    root = tmp_path / "w"
    root.mkdir()
    (root / ".git").write_text(f"gitdir: {gitdir}\n")
    assert jr.journal_dir(root) == gitdir / "mpsgen"
    assert jr.journal_dir(tmp_path / "w" / "x") == gitdir / "mpsgen"
    plain = tmp_path / "plain"
    plain.mkdir()
    assert jr.find_git_dir(plain) is None and jr.journal_dir(plain) == plain / ".mpsgen"


def test_module_has_no_heavy_imports() -> None:
    code = textwrap.dedent(
        """
        import sys, mpsgen.tree.changeset, mpsgen.tree.journal
        print(sorted(m for m in ("git", "libcst", "jinja2", "ruamel") if m in sys.modules))
        """
    )
    repo = Path(__file__).resolve().parent.parent
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=repo).stdout
    assert out.strip() == "[]"


def test_colour_tells_removed_dash_lines_from_headers(tree: Path) -> None:
    (tree / OPS).write_bytes(b"-- a\nkeep\n")
    ch = cs.Changeset(Checkout(tree))
    ch.set_text(OPS, "++ b\nkeep\n")
    coloured = ch.diff(color=True)
    assert f"\x1b[1m--- a/{OPS}\x1b[0m\n" in coloured
    assert "\x1b[31m--- a\x1b[0m\n" in coloured  # the removed line "-- a"
    assert "\x1b[32m+++ b\x1b[0m\n" in coloured
    assert ch.summary == [f"modified {OPS} (+1 -1)"]


def test_real_cmi_edit_diff_and_round_trip(tmp_path: Path, real_cmi_path: Path, real_yaml_path: Path) -> None:
    root = tmp_path / "pt"
    for rel, src in ((YAML, real_yaml_path), ("torch/testing/_internal/common_methods_invocations.py", real_cmi_path)):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_bytes(src.read_bytes())
    cmi = "torch/testing/_internal/common_methods_invocations.py"
    co = Checkout(root)
    ch = cs.Changeset(co)
    text = ch.original(cmi)
    lines = text.split("\n")
    middle = len(lines) // 2
    ch.set_text(cmi, "\n".join([*lines[:middle], "# mpsgen was here", *lines[middle:]]))
    ch.set_text(YAML, ch.original(YAML) + "# end\n")
    assert ch.summary == [f"modified {YAML} (+1 -0)", f"modified {cmi} (+1 -0)"]
    assert f"@@ -{middle - 2},6 +{middle - 2},7 @@" in ch.diff()
    ch.apply()
    assert cs.undo(co) == [YAML, cmi]
    assert (root / cmi).read_bytes() == real_cmi_path.read_bytes()
    assert (root / YAML).read_bytes() == real_yaml_path.read_bytes()


def test_dirty_check_in_a_checkout_nested_inside_a_repository(tmp_path: Path) -> None:
    outer = tmp_path / "outer"
    root = outer / "third_party" / "pytorch"
    for rel, text in FILES.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_bytes(text.encode())
    git(outer, "init", "-q")
    git(outer, "add", "-A")
    git(outer, "commit", "-q", "-m", "base")
    (root / OPS).write_bytes(b"dirty\n")
    assert cs.dirty_paths(root.resolve(), [OPS, UNARY]) == [OPS]
    assert jr.journal_dir(root) == outer / ".git" / "mpsgen"


def test_a_saved_journal_is_the_json_of_the_record(tmp_path: Path) -> None:
    # Each file's part is encoded once and spliced in: the text must still be exactly that JSON.
    files = (jr.JournalFile("a/x.mm", b"old \xe2\x82\xac bytes\n", 0o644, (1, 2), jr.sha256(b"new"), 0o644),
             jr.JournalFile("b/new.metal", None, None, None, jr.sha256(b"n")))
    record = jr.Journal(None, jr.KIND_APPLY, jr.IN_PROGRESS, "2026-01-01T00:00:00+00:00", files, ("b",),
                        id="abc", label='migrate "x"')
    path = tmp_path / "j" / "pending.json"
    jr.save(record, path)
    assert json.loads(path.read_text()) == record.to_json()
    assert jr.load(path) == record.with_state(jr.IN_PROGRESS, path)
