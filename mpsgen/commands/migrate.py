"""What `migrate` and `new-op` do after planning: show, apply, build, test, commit.

The CLI calls `run_kernel_command`; everything user-facing is printed here, so the planning
modules stay free of output.
"""

from __future__ import annotations

import json
import sys
from typing import TYPE_CHECKING, Any, TextIO

import click

from mpsgen.tree.checkout import Checkout
from mpsgen.errors import EXIT_FINDINGS, EXIT_OK
from mpsgen.model import Command, KernelOptions, RunOptions

if TYPE_CHECKING:  # the planning modules load only for migrate/new-op, not for check/status
    from mpsgen.plan.group import GroupPlan
    from mpsgen.plan.kernelplan import Plan
    from mpsgen.tree.config import Config
    from mpsgen.verify.unittest_log import TestOutcome


class Outcome:
    """The machine-readable report of one command (printed with --format json)."""

    def __init__(self, group: GroupPlan) -> None:
        self.data: dict[str, Any] = {"plan": group.to_json(), "plans": [p.to_json() for p in group.plans],
                                     "applied": False, "build": None, "tests": None}

    def emit(self, exit_code: int, out: TextIO) -> int:
        self.data["exit_code"] = exit_code
        out.write(json.dumps(self.data, indent=2) + "\n")
        return exit_code


def _say(fmt: str, text: str = "", **style: Any) -> None:
    # In json mode stdout carries only the JSON report; progress goes to stderr.
    if fmt == "json":
        click.echo(text, err=True)
    else:
        click.secho(text, **style)


def print_rendered(plan: Plan) -> None:
    r = plan.rendered
    click.secho(f"// {r.metal_path}: functor", bold=True)
    click.echo(r.functor)
    click.secho(f"// {r.metal_path}: registrations", bold=True)
    click.echo("\n".join(r.registrations))
    click.secho(f"// {r.mm_path}: host", bold=True)
    click.echo(r.host_code or "(the stub is already registered: no host code)")
    if r.register_line:
        click.echo(r.register_line)


def print_summary(group: GroupPlan, fmt: str) -> None:
    for plan in group.plans:
        if plan.nothing_to_do:
            _say(fmt, f"nothing to do for {plan.op}: {plan.nothing_to_do}")
        else:
            print_plan_summary(plan, fmt)
    _say(fmt, f"  files     {', '.join(group.changeset.changed_paths)}")


def print_plan_summary(plan: Plan, fmt: str) -> None:
    verb = "migrate" if plan.command == "migrate" else "new-op"
    selected = f" ({', '.join(plan.overloads)} only)" if plan.overloads else ""
    _say(fmt, f"mpsgen {verb} {plan.family}{selected}:", bold=True)
    from mpsgen.plan.summary import summarize

    for line in summarize(plan).lines():
        _say(fmt, f"  {line}")


def run_kernel_command(command: Command, checkout: Checkout, *, kernel: KernelOptions, run: RunOptions,
                       ops: tuple[str, ...] = ()) -> int:
    """`mpsgen migrate OP [OP…]`: one plan, one diff, one changeset, one build and test run."""
    from mpsgen.tree.changeset import recover_if_interrupted
    from mpsgen.plan.group import plan_group

    fmt = run.fmt
    restored = recover_if_interrupted(checkout)
    if restored:
        _say(fmt, f"recovered from an interrupted run: restored {', '.join(restored)}", fg="yellow")
    plan = plan_group(command, checkout, list(ops or (kernel.op,)), kernel)
    outcome = Outcome(plan)
    out = sys.stdout

    if run.print_only:
        if fmt == "json":
            outcome.data["rendered"] = vars(plan.plans[0].rendered)
            outcome.data["rendered_by_op"] = {p.op: vars(p.rendered) for p in plan.plans}
            return outcome.emit(EXIT_OK, out)
        for p in plan.todo or plan.plans:
            print_rendered(p)
        return EXIT_OK
    if plan.nothing_to_do:
        _say(fmt, f"nothing to do: {plan.nothing_to_do}")
        return outcome.emit(EXIT_OK, out) if fmt == "json" else EXIT_OK

    if not run.dry_run and not run.no_try:
        # The numeric check (mpsgen try) refuses a wrong body before anything is written.
        from mpsgen.commands.try_op import check_before_writing

        code = check_before_writing(plan, checkout, kernel=kernel, fmt=fmt)
        if code != EXIT_OK:
            return outcome.emit(code, out) if fmt == "json" else code
    if not run.dry_run and not run.no_compile:
        code = compile_before_writing(plan, fmt)
        if code != EXIT_OK:
            return outcome.emit(code, out) if fmt == "json" else code

    config = None
    if not run.dry_run:
        # Everything that can refuse is checked before the first write, so exit 2 keeps meaning
        # "nothing written" (and no branch created).
        config = check_tools(checkout, run)
        plan.changeset.verify_unchanged_on_disk()
        plan.changeset.check_dirty(run.allow_dirty)
    print_summary(plan, fmt)
    if run.dry_run:
        if fmt == "json":
            outcome.data["diff"] = plan.changeset.diff()
            return outcome.emit(EXIT_OK, out)
        click.echo(plan.changeset.diff(color=out.isatty()), nl=False)
        _say(fmt, "dry run: nothing written")
        return EXIT_OK

    if run.branch:
        from mpsgen.tree.gitops import create_branch

        create_branch(checkout.root, run.branch)
        _say(fmt, f"switched to new branch {run.branch}")
    # dirtiness was checked above (git is slow to ask twice)
    moved = [m.entry for p in plan.todo for m in p.moved]
    plan.changeset.apply(allow_dirty=True, label=f"{command} {' '.join(plan.ops)}" + (f" ({', '.join(moved)})" if moved else ""))
    outcome.data["applied"] = True
    _say(fmt, f"applied: {len(plan.changeset.changed_paths)} file(s) changed (undo with `mpsgen undo`)", fg="green")

    assert config is not None  # checked above: this is no dry run
    code = _build_and_test(plan, checkout, run, outcome, config)
    if code == EXIT_OK and run.commit:
        from mpsgen.tree.gitops import commit, commit_message
        from mpsgen.tree.undostack import uncommitted_earlier_changes

        action = "migrate" if command == "migrate" else "new"
        # Earlier runs without a commit edited files this commit takes: name them too.
        earlier, earlier_files = uncommitted_earlier_changes(checkout.root)
        message = commit_message(plan.title_names(), moved, action=action,
                                 earlier=[f"mpsgen {c.label}" for c in reversed(earlier)])
        sha = commit(checkout.root, sorted({*plan.changeset.changed_paths, *earlier_files}), message)
        outcome.data["commit"] = sha
        _say(fmt, f"committed {sha[:12]}")
    return outcome.emit(code, out) if fmt == "json" else code


def compile_before_writing(group: GroupPlan, fmt: str) -> int:
    """0 to go on (nothing new, or no compiler: said), 1 when a file the change writes or affects has a
    diagnostic its current version has not: nothing is written."""
    from mpsgen.compiler.change import compile_planned

    stream = sys.stderr if fmt == "json" else sys.stdout
    result = compile_planned(group.changeset)
    for d in result.findings:
        stream.write(f"{d.render()}\n")
    stream.write(f"compile check: {result.summary()}\n")
    if not result.ok:
        stream.write("nothing written: the change would not compile (skip the check with --no-compile)\n")
        return EXIT_FINDINGS
    return EXIT_OK


def check_tools(checkout: Checkout, run: RunOptions) -> Config:
    """The build folder, the build commands' executables and test/test_mps.py exist (else MpsgenError)."""
    from mpsgen.tree.checkout import TEST_MPS_REL
    from mpsgen.tree.config import load_config
    from mpsgen.errors import MpsgenError

    config = load_config(checkout.root, cli_build_cmds=run.build_cmds)
    if run.no_build and run.no_test:
        return config
    from mpsgen.verify import runner  # its subprocess machinery only when something will run

    if not run.no_build:
        build = checkout.root / config.build_dir
        if not build.is_dir():
            raise MpsgenError("build folder not found; nothing was written", path=build,
                              hint="configure PyTorch once (python setup.py develop, or cmake -G Ninja), or pass --no-build")
        for argv in config.build_cmds:
            if argv:
                runner.check_executable(argv, checkout.root, "build")
    if not run.no_test:
        if config.test_cmd:
            runner.check_executable(config.test_cmd, checkout.root, "tests")
        elif not checkout.path(TEST_MPS_REL).is_file():
            raise MpsgenError("file not found; nothing was written", path=TEST_MPS_REL, hint="pass --no-test")
    return config


def _build_and_test(plan: GroupPlan, checkout: Checkout, run: RunOptions, outcome: Outcome, config: Config) -> int:
    if run.no_build and run.no_test:
        return EXIT_OK
    from mpsgen.verify import runner

    fmt = run.fmt
    stream = sys.stderr if fmt == "json" else sys.stdout
    undo_hint = "the edits are in place so you can fix them; `mpsgen undo` restores the files"
    try:
        if not run.no_build:
            build = runner.run_build(checkout.root, config.build_cmds, build_dir=config.build_dir,
                                     edited_files=plan.changeset.changed_paths, out=stream)
            outcome.data["build"] = {"ok": build.ok, "log": str(build.log_path),
                                     "errors": [str(e) for e in build.errors]}
            _say(fmt, build.summary(), fg=None if build.ok else "red")
            if not build.ok:
                _say(fmt, undo_hint)
                return EXIT_FINDINGS
        if not run.no_test and not plan.test_names and not plan.grad_test_names:
            _say(fmt, "no OpInfo tests this change: test_mps.py has no test to select (tests skipped)")
        elif not run.no_test:
            tests = runner.run_tests(checkout.root, plan.test_names, grad=run.grad_tests,
                                     grad_names=plan.grad_test_names, test_cmd=config.test_cmd,
                                     build_dir=config.build_dir, out=stream)
            outcome.data["tests"] = {
                "ok": tests.ok, "totals": tests.totals._asdict(),
                "by_dtype": {d: c._asdict() for d, c in tests.counts_by_dtype().items()},
                "unexpected_successes": [o.name for o in tests.unexpected_successes],
            }
            _say(fmt, tests.summary(), fg=None if tests.ok else "red")
            if tests.unexpected_successes:
                outcome.data["xfail_removal_diff"] = offer_xfail_removal(plan, checkout, tests.unexpected_successes, fmt)
            if not tests.ok:
                _say(fmt, undo_hint)
                return EXIT_FINDINGS
    except runner.Interrupted as stop:
        _say(fmt, stop.describe(), fg="red")
        _say(fmt, "the edits were applied before the interruption and are still in place; "
                  "`mpsgen undo` restores the files")
        return EXIT_FINDINGS
    return EXIT_OK


def offer_xfail_removal(group: GroupPlan, checkout: Checkout, outcomes: tuple[TestOutcome, ...], fmt: str) -> str:
    """An xfail that now passes: show the edit that removes it (not applied); returns its diff.

    The xfail may live in common_mps.py or in a DecorateInfo of the op's OpInfo, so both are
    planned, on the tree as it is now (after the apply)."""
    from mpsgen.sources import testlists
    from mpsgen.tree.capabilities import of_checkout
    from mpsgen.tree.changeset import Changeset
    from mpsgen.tree.checkout import CMI_REL
    from mpsgen.errors import MpsgenError

    cs = Changeset(checkout)
    lists_rel = of_checkout(checkout).test_lists_rel  # common_mps.py, or 2.7's test_mps.py
    if lists_rel is None or not checkout.path(CMI_REL).is_file():
        return ""
    definitions = {checkout.rel(p): cs.original(checkout.rel(p)) for p in checkout.opinfo_definition_files()}
    texts = {lists_rel: cs.original(lists_rel), CMI_REL: cs.original(CMI_REL), **definitions}
    try:
        for o in outcomes:
            plan = group.plan_for_test(o.op)
            key = plan.test_keys.get(o.op, o.op)
            texts[lists_rel], _ = testlists.plan_common_mps(
                texts[lists_rel], [key], supported_dtypes=(o.dtype,), complex_action="keep", path=lists_rel)
            # Re-read the OpInfos each time: an earlier edit moves the offsets of later calls.
            defs = {p: texts[p] for p in definitions}
            refs = [r for r in testlists.opinfo_keys(texts[CMI_REL], defs, plan.family, cmi_path=CMI_REL) if r.key == key]
            # A DecorateInfo without a test name covers every test of its class, the one that passed included.
            tests = (o.kind, None) if o.kind else None
            for path in dict.fromkeys(r.path for r in refs):
                texts[path], _ = testlists.plan_opinfo_decorators(
                    texts[path], refs, tests=tests, supported_dtypes=(o.dtype,), path=path)  # type: ignore[arg-type]
    except MpsgenError as err:
        _say(fmt, f"these expected failures now pass, but mpsgen cannot plan their removal: {err.render()}")
        return ""
    for path, text in texts.items():
        if text != cs.original(path):
            cs.set_text(path, text, "xfails that now pass")
    if cs.is_empty:
        _say(fmt, "these expected failures now pass; remove their xfail entries by hand")
        return ""
    diff = cs.diff()
    _say(fmt, "these expected failures now pass; this edit removes them (not applied):")
    _say(fmt, diff.rstrip("\n"))
    return diff
