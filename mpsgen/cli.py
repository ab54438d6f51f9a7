"""Command line: parse options, call one function, print, exit code.

Heavy modules (ruamel.yaml, jinja2, git) are imported inside the commands so that
`mpsgen --help` starts instantly.  The console script is console.run(), which reads the plain
forms of `check` and `status` itself (without importing click) and hands every other argument
list to run() here.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

import click

from mpsgen import __version__
from mpsgen.process import (CHECK_FORMATS, STATUS_FORMATS, as_console_script, check_command, locate, reports_errors,
                            status_command)
from mpsgen.errors import MpsgenError

if TYPE_CHECKING:
    from mpsgen.model import Command, KernelOptions, RunOptions
    from mpsgen.tree.checkout import Checkout


def run() -> None:
    """main() as the console script (console.run's way for every argument list it does not read itself;
    what console scripts installed before console.py call)."""
    as_console_script()
    main()


class Context:
    def __init__(self, checkout_dir: str | None) -> None:
        self.checkout_dir = checkout_dir

    def checkout(self) -> Checkout:
        return locate(self.checkout_dir)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="mpsgen")
@click.option(
    "-C",
    "--checkout",
    "checkout_dir",
    metavar="DIR",
    default=None,
    help="PyTorch checkout (default: walk up from the current folder to the one holding "
    "aten/src/ATen/native/native_functions.yaml).",
)
@click.pass_context
def main(ctx: click.Context, checkout_dir: str | None) -> None:
    """Scaffold native Metal (MPS) operators into a PyTorch checkout.

    \b
    Exit codes: 0 done or nothing to do; 1 findings, build or test failure;
    2 usage or input error (nothing written).
    """
    ctx.obj = Context(checkout_dir)


def kernel_options(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Options shared by `migrate` and `new-op`."""
    options = [
        click.argument("ops", nargs=-1, metavar="OP [OP]..."),
        click.option("--expr", help="Metal expression of the functor: in x (unary) or a, b (binary)."),
        click.option("--int-expr", help="Expression for integral inputs (default: the float expression on float(x))."),
        click.option("--complex-expr", help="Expression for complex (float2/half2) inputs; adds complex kernels."),
        click.option("--dtypes", help="Registrations (default: read from the op's OpInfo): groups float, int2float, integer, complex, or torch dtypes such as float32,int64."),
        click.option("--stub", "stub_override", metavar="NAME", help="DispatchStub to register when it cannot be inferred."),
        click.option("--templates", "templates_dir", type=click.Path(file_okay=False), help="Folder of *.j2 templates overriding the built-in ones."),
        click.option("--print", "print_only", is_flag=True, help="Show the rendered functor, registrations and host code; touch nothing."),
        click.option("--dry-run", is_flag=True, help="Print the combined diff; write nothing."),
        click.option("--no-build", is_flag=True, help="Skip the build."),
        click.option("--no-test", is_flag=True, help="Skip the tests."),
        click.option("--grad", "grad_tests", is_flag=True, help="Also run test_output_grad_match_<op>."),
        click.option("--build-cmd", "build_cmds", multiple=True, metavar="CMD", help="Build command (repeatable); default `ninja -C build torch_cpu` then `ninja -C build install`."),
        click.option("--allow-dirty", is_flag=True, help="Edit files that have uncommitted changes."),
        click.option("--branch", metavar="NAME", help="Create and switch to this git branch first."),
        click.option("--commit", is_flag=True, help="Commit the change (git)."),
        click.option("--format", "fmt", type=click.Choice(["text", "json", "markdown"]), default="text",
                     show_default=True, help="markdown: the --all summary, to paste into a tracking issue."),
        click.option("--no-try", is_flag=True, help="Skip the numeric check (mpsgen try) that runs before writing."),
        click.option("--no-compile", is_flag=True, help="Skip the compile check (every .mm/.metal the change writes, "
                     "compiled without a Mac) that runs before writing."),
    ]
    for option in reversed(options):
        fn = option(fn)
    return fn


def batch_options(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Options of `--all`, shared by `migrate` and `new-op`."""
    options = [
        click.option("--branch-per-op", is_flag=True, help="With --all: each family as one commit on its own branch from HEAD."),
        click.option("--branch-prefix", default="mps-metal/", show_default=True, metavar="PREFIX", help="With --branch-per-op: branch names are PREFIX<family>."),
        click.option("--stack", is_flag=True, help="With --all: one branch (--branch, default mps-metal/stack) of a commit per family, each on the previous, so they land in order."),
        click.option("--jobs", "-j", type=click.IntRange(min=0), default=0, metavar="N", help="With --all: families planned at once (0: the CPU count)."),
    ]
    for option in reversed(options):
        fn = option(fn)
    return fn


BATCH_OPTIONS = ("all_families", "branch_per_op", "branch_prefix", "stack", "jobs")


@main.command()
@kernel_options
@click.option("--shared-kernel", metavar="NAME", help="Shared CPU/CUDA kernel to route MPS to when it is ambiguous.")
@click.option("--drop-complex", is_flag=True, help="Accept losing complex support of an op in SUPPORTED_COMPLEX_OPS.")
@click.option("--drop-dtypes", metavar="DTYPES", help="Accept losing these dtypes MPSGraph served (e.g. int64,bool); they stay xfailed.")
@click.option("--all", "all_families", is_flag=True, help="Every family `mpsgen status` calls a candidate; writes nothing without --branch-per-op.")
@batch_options
@click.pass_obj
@reports_errors
def migrate(obj: Context, **options: Any) -> None:
    """Move each OP from MPSGraph to a native Metal kernel in one change, then build and test.

    OP.OVERLOAD (pow.Tensor_Tensor_out) moves that overload only.

    \b
    Example:  mpsgen migrate atan2
              mpsgen migrate atan2 frac --dry-run
              mpsgen migrate pow.Tensor_Tensor_out
    """
    batch = {k: options.pop(k) for k in BATCH_OPTIONS}
    if batch["all_families"]:
        sys.exit(_run_migrate_all(obj, options, batch))
    if batch["branch_per_op"] or batch["stack"]:
        raise MpsgenError("--branch-per-op and --stack go with --all", hint="add --all, or use --branch NAME for one change")
    sys.exit(_run_kernel_command("migrate", obj, options))


def _run_migrate_all(obj: Context, options: dict[str, Any], batch: dict[str, Any], command: str = "migrate") -> int:
    from mpsgen.batch.stack import DEFAULT_BRANCH as STACK_BRANCH
    from mpsgen.commands.migrate_all import BatchOptions, refuse_unsupported, run_migrate_all

    ops = tuple(options.pop("ops"))
    kernel, run = _typed({**options, "op": "--all"})
    refuse_unsupported(ops, kernel, run, stack=batch["stack"], branch_per_op=batch["branch_per_op"])
    stack = (run.branch or STACK_BRANCH) if batch["stack"] else None
    return run_migrate_all(obj.checkout(), BatchOptions(
        branch_per_op=batch["branch_per_op"], prefix=batch["branch_prefix"], jobs=batch["jobs"], stack=stack,
        no_try=run.no_try, no_compile=run.no_compile, fmt=run.fmt, build=not run.no_build, test=not run.no_test,
        build_cmds=tuple(run.build_cmds), grad=run.grad_tests, command=command))


@main.command("new-op")
@kernel_options
@click.option("--all", "all_families", is_flag=True, help="Every family `mpsgen status` calls a new-op candidate; writes nothing without --branch-per-op.")
@batch_options
@click.pass_obj
@reports_errors
def new_op(obj: Context, **options: Any) -> None:
    """Give each OP, which has a shared CPU/CUDA kernel but no MPS one, a native Metal kernel.

    \b
    Example:  mpsgen new-op heaviside --expr 'a == 0 ? b : T(a > 0)'
              mpsgen new-op --all
    """
    batch = {k: options.pop(k) for k in BATCH_OPTIONS}
    if batch["all_families"]:
        sys.exit(_run_migrate_all(obj, options, batch, "new-op"))
    if batch["branch_per_op"] or batch["stack"]:
        raise MpsgenError("--branch-per-op and --stack go with --all", hint="add --all, or use --branch NAME for one change")
    sys.exit(_run_kernel_command("new-op", obj, options))


def _run_kernel_command(command: Command, obj: Context, options: dict[str, Any]) -> int:
    """Split click's keyword arguments into the two typed option sets, once, here."""
    from mpsgen.commands.migrate import run_kernel_command

    ops = tuple(options.pop("ops"))
    if not ops:
        raise MpsgenError(f"`mpsgen {command}` needs at least one OP", hint=f"mpsgen {command} OP [OP]..."
                          + ", or --all")
    if options["fmt"] == "markdown":
        raise MpsgenError("--format markdown is the --all summary's", hint="use text or json for named ops")
    kernel, run = _typed({**options, "op": ops[0]})
    return run_kernel_command(command, obj.checkout(), kernel=kernel, run=run, ops=ops)


def _typed(options: dict[str, Any]) -> tuple[KernelOptions, RunOptions]:
    """click's keyword arguments as the two typed option sets (KernelOptions, RunOptions)."""
    from mpsgen.model import KernelOptions, RunOptions

    known = {f for cls in (KernelOptions, RunOptions) for f in cls._fields}
    assert options.keys() <= known, f"CLI options without a typed home: {options.keys() - known}"
    return (KernelOptions(**{f: options[f] for f in KernelOptions._fields if f in options}),
            RunOptions(**{f: options[f] for f in RunOptions._fields if f in options}))


@main.command("try")
@click.argument("op")
@click.option("--expr", help="Metal expression of the functor: in x (unary) or a, b (binary).")
@click.option("--int-expr", help="Expression for integral inputs.")
@click.option("--complex-expr", help="Expression for complex (float2/half2) inputs; adds complex kernels.")
@click.option("--dtypes", help="Registrations, e.g. float | float,int2float | float,integer | float,complex.")
@click.option("--templates", "templates_dir", type=click.Path(file_okay=False), help="Folder of *.j2 templates overriding the built-in ones.")
@click.option("--emulate", is_flag=True, help="Run on the host emulation even where MPS is available.")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@click.pass_obj
@reports_errors
def try_(obj: Context, op: str, **options: Any) -> None:
    """Check OP's generated kernel against torch's CPU op, per dtype, before any build.

    \b
    Compiles the functor migrate/new-op would write (on the host against the checkout's
    c10/metal headers, or with torch.mps.compile_shader on a Mac) and compares edge cases and
    random inputs with torch.  Writes nothing.  Exit 0 all dtypes agree, 1 a mismatch, 2 usage.
    Example:  mpsgen try atan2
              mpsgen try atan2 --expr 'precise::atan2(float(a), float(b))'
    """
    from mpsgen.commands.try_op import run_try

    sys.exit(run_try(obj.checkout(), op=op, **options))


@main.command()
@click.argument("paths", nargs=-1, type=click.Path())
@click.option("--format", "fmt", type=click.Choice(CHECK_FORMATS), default="text", show_default=True)
@click.option("--no-cache", is_flag=True, help="Index every file afresh instead of re-using the facts of files "
              "unchanged since the last run (kept in ~/.cache/mpsgen/facts, or $MPSGEN_CACHE_DIR/facts).")
@click.option("--select", multiple=True, metavar="CODES", help="Run only these rules (codes or names, comma-separated).")
@click.option("--ignore", multiple=True, metavar="CODES", help="Do not run these rules (codes or names, comma-separated).")
@click.option("--baseline", metavar="FILE", help="Report only findings this baseline does not hold.")
@click.option("--write-baseline", metavar="FILE", help="Write the findings to FILE as a baseline and exit 0.")
@click.option("--compile", "compile_", is_flag=True, help="Also compile the .mm/.metal files among PATHS (none: every "
              "file changed since HEAD) and those a changed yaml or header affects; report what HEAD's versions lack.")
@click.pass_obj
def check(obj: Context, paths: tuple[str, ...], fmt: str, no_cache: bool, select: tuple[str, ...],
          ignore: tuple[str, ...], baseline: str | None, write_baseline: str | None, compile_: bool) -> None:
    """Report broken or half-done MPS wiring (for CI and pre-commit).

    With PATHS (as pre-commit passes them) the whole tree is analysed and the findings in those
    files are reported, and every finding resting on one of them (a yaml line whose stub a
    deleted REGISTER_DISPATCH in a named .mm registered).  Silence one finding with
    `// mpsgen: ignore[MPS004]` (`#` in yaml/.py) on its line or the line above.
    """
    check_command(obj.checkout_dir, paths, fmt, no_cache, select, ignore, baseline, write_baseline, compile_)


@main.command()
@click.option("--format", "fmt", type=click.Choice(STATUS_FORMATS), default="table", show_default=True)
@click.option("--op", metavar="NAME", help="One family's details: entries, kernels, stub, where each piece lives.")
@click.option("--no-cache", is_flag=True, help="Index every file afresh instead of re-using the facts of files "
              "unchanged since the last run (kept in ~/.cache/mpsgen/facts, or $MPSGEN_CACHE_DIR/facts).")
@click.pass_obj
def status(obj: Context, fmt: str, op: str | None, no_cache: bool) -> None:
    """The migration dashboard: every op family and where its MPS support stands."""
    status_command(obj.checkout_dir, fmt, op, no_cache)


@main.command()
@click.argument("code", required=False, metavar="[CODE]")
@click.option("--format", "fmt", type=click.Choice(["text", "json", "markdown"]), default="text", show_default=True)
@reports_errors
def rules(code: str | None, fmt: str) -> None:
    """List the rules of `mpsgen check`, or explain one (MPS001 or split-family)."""
    from mpsgen.commands.rules import run_rules

    sys.exit(run_rules(code=code, fmt=fmt))


@main.command()
@click.pass_obj
@reports_errors
def undo(obj: Context) -> None:
    """Restore the files of the last applied change exactly."""
    from mpsgen.commands.undo import run_undo

    sys.exit(run_undo(obj.checkout()))


@main.command()
@click.argument("dest", type=click.Path(file_okay=False))
@reports_errors
def sample(dest: str) -> None:
    """Write a fresh, git-initialised sample PyTorch-shaped checkout to DEST."""
    from mpsgen.commands.sample import run_sample

    sys.exit(run_sample(dest=Path(dest)))
