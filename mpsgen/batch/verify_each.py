"""`migrate --all` with a build or tests: each family's change is applied to the work tree in turn
(journaled, as `migrate` applies), built with the checkout's build folder and tested, then undone.
HEAD and the branch never move.  Ctrl-C undoes before leaving; the change a killed run left on disk
is recognised by its journal's label and undone by the next run before anything else."""

from __future__ import annotations

from typing import TYPE_CHECKING, TextIO

from mpsgen.batch.outcome import FamilyOutcome
from mpsgen.tree.checkout import Checkout

if TYPE_CHECKING:
    from mpsgen.tree.config import Config

LABEL = "migrate --all: building and testing "


def undo_leftover(checkout: Checkout) -> list[str]:
    """The files a killed `--all` run left changed, restored; [] when there were none."""
    from mpsgen.tree.history import recover_if_interrupted, undo
    from mpsgen.tree.undostack import load_stack

    restored = recover_if_interrupted(checkout)
    stack = load_stack(checkout.root)
    if stack and stack[0].label.startswith(LABEL):
        restored += undo(checkout)
    return restored


def build_and_test(checkout: Checkout, outcome: FamilyOutcome, config: Config, *, build: bool, test: bool,
                   out: TextIO, grad: bool = False) -> bool:
    """Fill outcome.build / outcome.tests_result; True when both passed.  The files are back as
    they were on return, also on Ctrl-C."""
    from mpsgen.tree.changeset import Changeset
    from mpsgen.tree.history import undo
    from mpsgen.verify import runner

    cs = Changeset(checkout)
    for rel, text in outcome.files.items():
        cs.set_text(rel, text, "the family's change, to build and test")
    cs.apply(label=LABEL + outcome.family)
    try:
        if build:
            built = runner.run_build(checkout.root, config.build_cmds, build_dir=config.build_dir,
                                     edited_files=cs.changed_paths, out=out)
            outcome.build = "ok" if built.ok else f"failed: {len(built.errors)} error(s), log {built.log_path}"
            if not built.ok:
                return False
        if test and not outcome.tests and not outcome.grad_tests:
            outcome.tests_result = "no OpInfo tests it"
        elif test:
            tests = runner.run_tests(checkout.root, outcome.tests, grad=grad, grad_names=outcome.grad_tests,
                                     test_cmd=config.test_cmd, build_dir=config.build_dir, out=out)
            t = tests.totals
            outcome.tests_result = (f"{t.passed} passed, {t.failed} failed, {t.error} errors, "
                                    f"{t.xfail} expected failures, {t.xpass} unexpected successes")
            return tests.ok
        return True
    finally:
        undo(checkout)
