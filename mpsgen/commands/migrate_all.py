"""`mpsgen migrate --all`: every family `status` calls a candidate, planned and checked in parallel.

Without --branch-per-op it writes nothing and prints what would move.  With it, each family that
plans cleanly becomes one commit on its own branch from HEAD (mpsgen/batch/branches.py), made as
soon as its plan is done, so an interrupted run keeps the finished branches and a rerun on the same
HEAD goes on with the rest; the checkout's index, HEAD and branch are never touched.  Without
--no-build/--no-test, each family's change is then built and tested in the work tree in turn and
undone (mpsgen/batch/verify_each.py).
"""

from __future__ import annotations

import os
import sys
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from typing import TYPE_CHECKING, Callable

import click

from mpsgen.batch.outcome import BRANCHED, DONE_EARLIER, FAILED, PLANNED, FamilyOutcome, render_summary
from mpsgen.errors import EXIT_FINDINGS, EXIT_OK, MpsgenError
from mpsgen.records import NamedTuple
from mpsgen.tree.checkout import Checkout

if TYPE_CHECKING:
    from mpsgen.model import KernelOptions, RunOptions
    from mpsgen.tree.config import Config

EXIT_INTERRUPTED = 130


class BatchOptions(NamedTuple):
    branch_per_op: bool = False
    stack: str | None = None  # --stack: the branch of one commit per family, each on the previous
    prefix: str = "mps-metal/"
    jobs: int = 0  # 0: the CPU count
    no_try: bool = False
    no_compile: bool = False
    fmt: str = "text"
    build: bool = False  # build each family's change in the work tree, in turn (then undo it)
    test: bool = False  # ... and run its test_mps.py tests
    build_cmds: tuple[str, ...] = ()
    grad: bool = False  # also test_output_grad_match
    command: str = "migrate"  # or "new-op": the families with no MPS kernel that status calls new-op candidates


Unit = tuple[str, ...]  # families migrated together, on one branch


def candidate_units(checkout: Checkout, command: str = "migrate") -> list[Unit]:
    """The families `mpsgen status` lists as pointwise migration candidates (for new-op: new-op
    candidates), those whose overloads call a common stub (threshold and threshold_backward:
    threshold_stub) grouped into one unit."""
    from mpsgen.lint.inventory import NO_MPS
    from mpsgen.lint.frontier import FrontierIndex
    from mpsgen.lint.inventory import Inventory
    from mpsgen.tree.factcache import FactCache

    inv = Inventory(checkout, FactCache.for_root(checkout.root, enabled=True))
    front = FrontierIndex(inv)
    stubs: dict[str, set[str]] = {}
    for state in inv.family_states():
        if (state.state == NO_MPS) != (command == "new-op"):
            continue
        f = front.new_op(state.name) if command == "new-op" else front.family(state.name)
        if f is not None and f.candidate:
            stubs[state.name] = {s for o in f.overloads if o.candidate for s in o.stubs}
    inv.save_facts()
    units: list[set[str]] = []
    for family in sorted(stubs):
        meets = [u for u in units if any(stubs[family] & stubs[other] for other in u)]
        merged = {family}.union(*meets)
        units = [u for u in units if u not in meets] + [merged]
    return sorted(tuple(sorted(u)) for u in units)


def run_migrate_all(checkout: Checkout, opts: BatchOptions) -> int:
    from mpsgen.batch import branches

    root = checkout.root
    base = ""
    stale: dict[str, str] = {}  # branch -> commit of an earlier run on an older HEAD, made again
    outcomes: dict[str, FamilyOutcome] = {}
    config = _verify_config(checkout, opts) if opts.build or opts.test else None
    units = candidate_units(checkout, opts.command)
    candidates = sum(len(unit) for unit in units)
    if not units:
        sys.stdout.write(f"nothing to do: `mpsgen status` lists no {opts.command} candidate\n" if opts.fmt == "text"
                         else render_summary([], opts.fmt))
        return EXIT_OK
    if opts.build or opts.test or opts.branch_per_op or opts.stack:  # the branches and the builds start from HEAD
        branches.require_clean(root)
    if opts.branch_per_op:
        base = branches.head_commit(root)
        branches.remove_stale_indexes(root)
        for family in (f for unit in units for f in unit):
            branches.check_branch_name(root, opts.prefix + family)
        # Branches of earlier runs on this HEAD are kept: a rerun goes on with the rest.  Those made on an
        # older HEAD holding only mpsgen's commit are made again from this one.
        made = branches.existing_branches(root, opts.prefix)
        stale = branches.stale_branches(root, made, base)
        done, units = branches.earlier_runs(units, made, base, opts.prefix, rebuilt=tuple(stale))
        outcomes.update((o.family, o) for o in done)
    todo = units

    def finished(o: FamilyOutcome) -> None:
        if opts.branch_per_op and o.state == PLANNED:
            name = opts.prefix + o.family
            try:
                o.commit = branches.commit_on_branch(root, base, name, o.files, o.message, stale.get(name, ""))
                o.branch, o.state = name, BRANCHED
            except MpsgenError as err:
                if branches.branch_base(root, name) == base:  # another run made it meanwhile, on this HEAD
                    o.branch, o.state = name, DONE_EARLIER
                else:
                    o.state, o.reason = FAILED, err.render()
        outcomes[o.family] = o

    code = EXIT_OK
    verified_ok = True
    try:
        if opts.stack:
            from mpsgen.batch.stack import build_stack

            build_stack(root, todo, branch=opts.stack, no_try=opts.no_try, no_compile=opts.no_compile,
                        command=opts.command, finished=finished)
        else:
            _plan_all(str(root), todo, opts, finished)
        if config is not None:
            verified_ok = _verify_each(checkout, sorted(outcomes.values(), key=lambda o: o.family), config, opts)
    except KeyboardInterrupt:
        code = EXIT_INTERRUPTED
        click.echo("interrupted: the branches finished so far are kept, the work tree is as it was; run the same "
                   "command again to go on", err=True)
    shown = sorted(outcomes.values(), key=lambda o: o.family)
    if opts.branch_per_op and opts.fmt == "text" and sum(o.state == BRANCHED for o in shown) > 1:
        sys.stdout.write("Each branch starts from HEAD, so branches that edit the same files conflict with each other "
                         "once one is merged: review them apart, land them as one series with --stack.\n")
    apis = [o for o in shown if o.api_commit]
    if apis and opts.fmt == "text":
        sys.stdout.write("Host API commits, each below the first family using it: "
                         + ", ".join(f"{o.api_commit[:12]} (below {o.family})" for o in apis) + "\n")
    sys.stdout.write(render_summary(shown, "table" if opts.fmt == "text" else opts.fmt,
                                    written=opts.branch_per_op or bool(opts.stack), candidates=candidates))
    if code == EXIT_OK and (any(o.state == FAILED for o in shown) or not verified_ok):
        code = EXIT_FINDINGS
    return code


def _verify_config(checkout: Checkout, opts: BatchOptions) -> Config:
    """The build and test commands, checked before anything runs; a killed run's change undone."""
    from mpsgen.batch.verify_each import undo_leftover
    from mpsgen.commands.migrate import check_tools
    from mpsgen.model import RunOptions

    restored = undo_leftover(checkout)
    if restored:
        click.echo(f"restored what an interrupted `migrate --all` left: {', '.join(restored)}", err=True)
    return check_tools(checkout, RunOptions(no_build=not opts.build, no_test=not opts.test,
                                             build_cmds=opts.build_cmds))


def _verify_each(checkout: Checkout, outcomes: list[FamilyOutcome], config: Config, opts: BatchOptions) -> bool:
    """Build and test each planned family in turn, in the work tree; True when every one passed."""
    from mpsgen.batch.verify_each import build_and_test
    from mpsgen.verify.runner import Interrupted

    ok = True
    for o in outcomes:
        if o.files and o.state in (PLANNED, BRANCHED):
            click.echo(f"building and testing {' + '.join(o.families)}", err=True)
            try:
                ok &= build_and_test(checkout, o, config, build=opts.build, test=opts.test, grad=opts.grad,
                                     out=sys.stderr)
            except Interrupted as stop:
                click.echo(stop.describe(), err=True)
                raise KeyboardInterrupt from None
    if opts.build and any(o.build for o in outcomes):  # build/ back in step with the files as they are
        from mpsgen.verify.runner import run_build

        click.echo("rebuilding the checkout as it is", err=True)
        ok &= run_build(checkout.root, config.build_cmds, build_dir=config.build_dir, edited_files=[],
                        out=sys.stderr).ok
    return ok


def _plan_all(root: str, units: list[Unit], opts: BatchOptions,
              finished: Callable[[FamilyOutcome], None]) -> None:
    """plan_unit for each unit, --jobs at a time, one progress bar; *finished* gets each result in
    the parent process as it arrives."""
    from mpsgen.batch.plan_one import exit_with_parent, plan_unit

    jobs = opts.jobs or os.cpu_count() or 1
    with click.progressbar(length=len(units), label=f"{opts.command} --all", file=sys.stderr,
                           item_show_func=lambda name: name) as bar:
        if jobs == 1 or len(units) <= 1:
            for unit in units:
                for outcome in plan_unit(root, unit, opts.no_try, opts.command, opts.no_compile):
                    finished(outcome)
                bar.update(1, unit[0])
            return
        pool = ProcessPoolExecutor(max_workers=min(jobs, len(units)), initializer=exit_with_parent)
        try:
            pending = {pool.submit(plan_unit, root, unit, opts.no_try, opts.command, opts.no_compile) for unit in units}
            while pending:
                done, pending = wait(pending, return_when=FIRST_COMPLETED)
                for future in done:
                    results = future.result()
                    for outcome in results:
                        finished(outcome)
                    bar.update(1, results[0].family)
        except BaseException:  # Ctrl-C: drop what has not started, end what has; the workers only read the tree
            _stop_workers(pool)
            raise
        pool.shutdown(wait=True)


def _stop_workers(pool: ProcessPoolExecutor) -> None:
    """End the pool at once: a worker in the middle of a family's checks would otherwise hold the
    prompt until its family is done (the interpreter joins the pool's processes at exit)."""
    workers = list((getattr(pool, "_processes", None) or {}).values())  # no public kill; shutdown forgets them
    for process in workers:
        process.kill()
    pool.shutdown(wait=False, cancel_futures=True)


# KernelOptions fields that describe one op's kernel: meaningless for every family at once.
PER_OP = ("expr", "int_expr", "complex_expr", "dtypes", "stub_override", "shared_kernel", "drop_dtypes",
          "drop_complex")


def refuse_unsupported(ops: tuple[str, ...], kernel: "KernelOptions", run: "RunOptions", *, stack: bool = False,
                       branch_per_op: bool = False) -> None:
    """What --all cannot be combined with, refused before anything runs."""
    if ops:
        raise MpsgenError("--all migrates every candidate: name no OP with it",
                          hint="drop the OP names, or drop --all")
    given = [f"--{name.replace('_override', '').replace('_', '-')}" for name in PER_OP if getattr(kernel, name)]
    if given:
        raise MpsgenError(f"{', '.join(given)} describe one op's kernel, not every candidate's",
                          hint="run `mpsgen migrate OP` with them for that op, then --all for the rest")
    if run.print_only or run.dry_run:
        raise MpsgenError("--all has no --print or --dry-run", hint="without --branch-per-op, --all writes nothing")
    if run.commit:
        raise MpsgenError("--all makes its own branches and commits", hint="use --stack, or --branch-per-op")
    if stack and branch_per_op:
        raise MpsgenError("--stack and --branch-per-op make different branches", hint="choose one: --stack lands in "
                          "order, --branch-per-op gives each family a branch of its own from HEAD")
    if run.branch and not stack:
        raise MpsgenError("--branch names the --stack branch with --all", hint="add --stack, or use --branch-per-op "
                          "[--branch-prefix P]")
