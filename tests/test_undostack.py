"""The undo stack: several levels, book-keeping that survives a crash at any step, mpsgen's own
uncommitted edits told apart from the user's, damaged journals refused before any restore."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from mpsgen.errors import MpsgenError
from mpsgen.tree import changeset as cs
from mpsgen.tree import gitops, undostack
from mpsgen.tree import journal as jr
from mpsgen.tree.checkout import Checkout

A = "aten/a.mm"
B = "aten/b.mm"


@pytest.fixture()
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "pytorch"
    (root / "aten").mkdir(parents=True)
    (root / A).write_bytes(b"a0\n")
    (root / B).write_bytes(b"b0\n")
    return root


def git(root: Path, *args: str) -> str:
    return subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *args], cwd=root,
                          check=True, capture_output=True, text=True).stdout


@pytest.fixture()
def git_tree(tree: Path) -> Path:
    git(tree, "init", "-q")
    git(tree, "add", "-A")
    git(tree, "commit", "-q", "-m", "base")
    return tree


def apply(root: Path, **texts: str) -> jr.Journal:
    ch = cs.Changeset(Checkout(root))
    for key, text in texts.items():
        ch.set_text({"a": A, "b": B}[key], text)
    return ch.apply(label="test " + " ".join(texts))


def read(root: Path) -> tuple[bytes, bytes]:
    return (root / A).read_bytes(), (root / B).read_bytes()


def test_three_changes_undo_one_per_call(tree: Path) -> None:
    apply(tree, a="a1\n")
    apply(tree, a="a2\n", b="b1\n")
    apply(tree, b="b2\n")
    assert [j.label for j in undostack.load_stack(tree)] == ["test b", "test a b", "test a"]
    assert cs.undo(Checkout(tree)) == [B] and read(tree) == (b"a2\n", b"b1\n")
    assert sorted(cs.undo(Checkout(tree))) == [A, B] and read(tree) == (b"a1\n", b"b0\n")
    assert cs.undo(Checkout(tree)) == [A] and read(tree) == (b"a0\n", b"b0\n")
    assert cs.undo(Checkout(tree)) == [] and not (tree / ".mpsgen").exists()


def test_the_stack_keeps_the_last_stack_limit_changes(tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(jr, "STACK_LIMIT", 3)
    for n in range(1, 6):
        apply(tree, a=f"a{n}\n")
    assert len(undostack.load_stack(tree)) == 3
    for _ in range(3):
        assert cs.undo(Checkout(tree)) == [A]
    assert read(tree)[0] == b"a2\n" and cs.undo(Checkout(tree)) == []


def test_crash_after_the_undone_change_was_dropped_but_before_the_pop(tree: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    apply(tree, a="a1\n")
    apply(tree, a="a2\n")
    real = undostack.stacked_paths
    calls = {"n": 0}

    def dies_once(root: Path) -> list[Path]:
        calls["n"] += 1
        if calls["n"] == 2:  # the first call is undo reading the stack; the second is the pop
            raise KeyboardInterrupt  # the process stops between two book-keeping steps
        return real(root)

    monkeypatch.setattr(undostack, "stacked_paths", dies_once)
    with pytest.raises(KeyboardInterrupt):
        cs.undo(Checkout(tree))
    monkeypatch.setattr(undostack, "stacked_paths", real)
    assert read(tree)[0] == b"a1\n" and not jr.last_path(tree).exists()
    assert cs.recover_if_interrupted(Checkout(tree)) == []  # finishes: pops a1's change back on top
    assert [j.label for j in undostack.load_stack(tree)] == ["test a"]
    assert cs.undo(Checkout(tree)) == [A] and read(tree)[0] == b"a0\n"


def test_crash_after_the_pop_does_not_drop_the_popped_change(tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    apply(tree, a="a1\n")
    apply(tree, a="a2\n")
    real = jr.remove

    def dies_on_pending(path: Path) -> None:
        if path.name == jr.PENDING_NAME:
            raise KeyboardInterrupt
        real(path)

    monkeypatch.setattr(jr, "remove", dies_on_pending)
    with pytest.raises(KeyboardInterrupt):
        cs.undo(Checkout(tree))
    monkeypatch.setattr(jr, "remove", real)
    assert jr.pending_path(tree).exists() and jr.last_path(tree).exists()
    assert cs.recover_if_interrupted(Checkout(tree)) == []
    assert len(undostack.load_stack(tree)) == 1  # the first change is still there to undo
    assert cs.undo(Checkout(tree)) == [A] and read(tree)[0] == b"a0\n"


def test_crash_after_the_push_before_the_new_top_landed(tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    apply(tree, a="a1\n")
    real = undostack.os.replace
    seen = {"n": 0}

    def dies_after_push(src, dst) -> None:
        real(src, dst)
        seen["n"] += 1
        if Path(dst).parent.name == jr.STACK_NAME:
            raise KeyboardInterrupt

    monkeypatch.setattr(undostack.os, "replace", dies_after_push)
    with pytest.raises(KeyboardInterrupt):
        apply(tree, a="a2\n")
    monkeypatch.setattr(undostack.os, "replace", real)
    assert read(tree)[0] == b"a2\n" and not jr.last_path(tree).exists()
    assert cs.recover_if_interrupted(Checkout(tree)) == []
    assert cs.undo(Checkout(tree)) == [A] and read(tree)[0] == b"a1\n"
    assert cs.undo(Checkout(tree)) == [A] and read(tree)[0] == b"a0\n"


def test_mpsgens_own_uncommitted_edits_are_not_dirty(git_tree: Path) -> None:
    apply(git_tree, a="a1\n")
    apply(git_tree, a="a2\n", b="b1\n")  # a.mm is dirty, but only with mpsgen's edits
    dirty = sorted(gitops.dirty_paths(git_tree, [A, B]))
    ours = undostack.written_by_mpsgen(git_tree, dirty, gitops.head_blob_ids(git_tree, dirty))
    assert ours == {A, B}
    ch = cs.Changeset(Checkout(git_tree))
    ch.set_text(A, "a3\n")
    ch.check_dirty(allow_dirty=False)  # no refusal

    (git_tree / B).write_bytes(b"b1\nmine\n")  # a hand edit after mpsgen's
    ch = cs.Changeset(Checkout(git_tree))
    ch.set_text(B, "b2\n")
    with pytest.raises(MpsgenError) as err:
        ch.check_dirty(allow_dirty=False)
    assert err.value.path == B and "uncommitted changes" in err.value.message


def test_edits_made_before_mpsgen_ran_with_allow_dirty_stay_dirty(git_tree: Path) -> None:
    (git_tree / A).write_bytes(b"mine\n")
    ch = cs.Changeset(Checkout(git_tree))
    ch.set_text(A, "mine\nmpsgen\n")
    ch.apply(allow_dirty=True)
    again = cs.Changeset(Checkout(git_tree))
    again.set_text(A, "mine\nmpsgen\nmore\n")
    with pytest.raises(MpsgenError) as err:
        again.check_dirty(allow_dirty=False)
    assert err.value.path == A


def test_a_commit_between_runs_ends_the_chain_at_head(git_tree: Path) -> None:
    apply(git_tree, a="a1\n")
    git(git_tree, "commit", "-qam", "mpsgen's first change")
    apply(git_tree, a="a2\n")
    assert undostack.written_by_mpsgen(git_tree, [A], gitops.head_blob_ids(git_tree, [A])) == {A}
    assert gitops.head_blob_ids(git_tree, ["aten/none.mm"]) == {"aten/none.mm": None}


def test_a_damaged_older_journal_refuses_undo_naming_it(tree: Path) -> None:
    apply(tree, a="a1\n")
    apply(tree, a="a2\n")
    older = undostack.stacked_paths(tree)[0]
    older.write_text('{"mpsgen_journal": 1, "kind": "apply", "state": "applied", "created": "x", '
                     '"files": [{"path": "../../etc/passwd", "old": null, "old_mode": null, "new_sha256": null}]}')
    with pytest.raises(MpsgenError) as err:
        cs.undo(Checkout(tree))
    assert err.value.path == str(older) and "damaged" in err.value.message and "not inside the checkout" in err.value.message
    assert read(tree)[0] == b"a2\n"  # nothing restored


def test_more_uncommitted_runs_than_the_stack_keeps_get_their_own_refusal(git_tree: Path) -> None:
    # The stack keeps STACK_LIMIT changes: after more uncommitted mpsgen runs than that, the chain back to
    # HEAD is gone, and the refusal says so instead of calling mpsgen's own edits someone else's.
    for k in range(1, jr.STACK_LIMIT + 2):
        apply(git_tree, a=f"a{k}\n")
    ch = cs.Changeset(Checkout(git_tree))
    ch.set_text(A, "next\n")
    with pytest.raises(MpsgenError) as err:
        ch.check_dirty(allow_dirty=False)
    assert err.value.path == A
    assert f"go back further than mpsgen's last {jr.STACK_LIMIT} changes" in err.value.message
    assert "commit mpsgen's changes so far" in (err.value.hint or "")

    (git_tree / A).write_bytes(b"a21\nmine\n")  # a hand edit on top: the usual refusal
    ch = cs.Changeset(Checkout(git_tree))
    ch.set_text(A, "next\n")
    with pytest.raises(MpsgenError) as err:
        ch.check_dirty(allow_dirty=False)
    assert "has uncommitted changes and mpsgen would edit it" in err.value.message
