"""`mpsgen undo` after the user reverted mpsgen's edits by hand (`git checkout .`): the change is
dropped from the stack and said so, instead of a refusal that lasts until .git/mpsgen is deleted."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from mpsgen.cli import main
from mpsgen.tree import changeset as cs
from mpsgen.tree.checkout import Checkout

from test_changeset import FILES, plan_four, tree  # noqa: F401 (the fixture)


def undo(root: Path):
    return CliRunner().invoke(main, ["-C", str(root), "undo"])


def test_all_files_reverted_by_hand_drops_the_change(tree: Path) -> None:  # noqa: F811
    co = Checkout(tree)
    before = {rel: (tree / rel).read_bytes() for rel in FILES}
    plan_four(co).apply()
    for rel, data in before.items():
        (tree / rel).write_bytes(data)  # what `git checkout .` does
    r = undo(tree)
    assert r.exit_code == 0 and "already as they were before it (reverted by hand)" in r.output
    assert "dropped it from the undo stack" in r.output
    assert {rel: (tree / rel).read_bytes() for rel in FILES} == before
    assert undo(tree).output == "nothing to undo\n"


def test_reverted_change_is_dropped_and_the_one_below_stays_undoable(tree: Path) -> None:  # noqa: F811
    co = Checkout(tree)
    first_rel = next(iter(FILES))
    pristine = (tree / first_rel).read_bytes()
    ch = cs.Changeset(co)
    ch.set_text(first_rel, ch.original(first_rel) + "// first\n", why="test")
    ch.apply()
    after_first = {rel: (tree / rel).read_bytes() for rel in FILES}
    plan_four(Checkout(tree)).apply()
    for rel, data in after_first.items():
        (tree / rel).write_bytes(data)  # the second change reverted by hand
    assert "dropped it" in undo(tree).output
    r = undo(tree)
    assert r.exit_code == 0 and f"restored {first_rel}" in r.output
    assert (tree / first_rel).read_bytes() == pristine


def test_partly_reverted_change_restores_the_rest(tree: Path) -> None:  # noqa: F811
    co = Checkout(tree)
    before = {rel: (tree / rel).read_bytes() for rel in FILES}
    plan_four(co).apply()
    reverted = sorted(FILES)[0]
    (tree / reverted).write_bytes(before[reverted])
    r = undo(tree)
    assert r.exit_code == 0 and f"restored {reverted}" not in r.output
    assert r.output.count("restored ") == len(FILES) - 1
    assert {rel: (tree / rel).read_bytes() for rel in FILES} == before


def test_a_file_edited_after_mpsgen_still_refuses(tree: Path) -> None:  # noqa: F811
    co = Checkout(tree)
    plan_four(co).apply()
    rel = sorted(FILES)[0]
    (tree / rel).write_text("a hand edit\n")
    r = undo(tree)
    assert r.exit_code == 2 and "was edited after mpsgen applied the last change" in r.output
