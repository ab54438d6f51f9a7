"""`mpsgen try OP`: check a generated kernel's numbers against torch's CPU op, before any build.

The functor is planned and rendered exactly as `migrate`/`new-op` would (nothing is written),
then compiled on the host against the checkout's c10/metal headers with mpsgen's Metal
emulation, or, on a Mac with MPS, compiled by torch.mps.compile_shader and run on the GPU.
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from mpsgen.emulate.plan_numerics import Subject, catalog_flags, check_plans, check_subject, planned_subject
from mpsgen.errors import EXIT_FINDINGS, EXIT_OK, MpsgenError, Refusal

if TYPE_CHECKING:
    from mpsgen.tree.checkout import Checkout
    from mpsgen.model import KernelOptions
    from mpsgen.emulate.compare import TryResult
    from mpsgen.plan.binding import Binding
    from mpsgen.plan.group import GroupPlan
    from mpsgen.plan.in_tree import InTree
    from mpsgen.plan.result import Plan


def run_try(checkout: Checkout, *, op: str, expr: str | None = None, int_expr: str | None = None,
            complex_expr: str | None = None, dtypes: str | None = None, templates_dir: str | None = None,
            emulate: bool = False, fmt: str = "text", include_root: str | Path | None = None,
            out: TextIO | None = None) -> int:
    """Plan, render, compile and compare; print the table (or JSON); 0 agree, 1 mismatch.  A family
    calling several stubs (div) has a kernel per stub: each is checked, each table printed."""
    from mpsgen.emulate.compile import CompileError

    stream = out or sys.stdout
    from mpsgen.emulate.compare import render_json, render_text

    try:
        subjects = cached_subjects(checkout, op=op, expr=expr, int_expr=int_expr, complex_expr=complex_expr,
                                   dtypes=dtypes, templates_dir=templates_dir)
    except MpsgenError:  # no functor to check: a kind with kernels of its own (fill_, sum, ...) has none
        if expr is not None or int_expr is not None or complex_expr is not None:
            raise
        filled = _try_own_kind(checkout, op, templates_dir, include_root)
        if filled is None:
            raise
        source, result = filled
        if fmt == "json":
            import json

            stream.write(render_json(result).replace("{", "{" + json.dumps({"checked": source})[1:-1] + ", ", 1))
        else:
            stream.write(f"checked: {source}\n")
            stream.write(render_text(result))
        return EXIT_OK if result.ok else EXIT_FINDINGS

    ok = True
    for subject in subjects:
        try:
            result = check_subject(subject, op=op, include_root=include_root or checkout.root, emulate=emulate,
                           flags=catalog_flags(op, expr=expr, int_expr=int_expr, complex_expr=complex_expr))
        except CompileError as err:
            if subject.source == "upstream" or subject.source.startswith(IN_TREE):  # lifted out of its file
                from mpsgen.scan.lines import plain_lines

                what = subject.source if subject.source != "upstream" else f"upstream's {subject.spec.name}_functor"
                raise MpsgenError(f"{what} does not build apart from its file: {plain_lines(err.message)[0]}",
                                  hint=f"check it on a Mac with test_mps.py -k {op}") from None
            raise
        if fmt == "json":
            import json

            stream.write(render_json(result).replace("{", "{" + json.dumps({"checked": subject.source})[1:-1] + ", ", 1))
        else:
            stream.write(f"{subject.label}:\n" if subject.label else "")
            stream.write(f"checked: {subject.source}\n" if subject.source.startswith((IN_TREE, CATALOG_INSTEAD)) else "")
            stream.write(render_text(result))
        ok = ok and result.ok
    if ok and any(subject.source == "plan" for subject in subjects):  # numbers first: a wrong body is enough
        # on stderr: stdout is the numeric table (or JSON) scripts read; the exit code says both
        ok = _compile_plan(checkout, op=op, expr=expr, int_expr=int_expr, complex_expr=complex_expr, dtypes=dtypes,
                           templates_dir=templates_dir, stream=sys.stderr) and ok
    return EXIT_OK if ok else EXIT_FINDINGS


def _compile_plan(checkout: Checkout, *, stream: TextIO, **options: str | None) -> bool:
    """The compile check of the change migrate/new-op would make (planned again: the subjects are
    cached without it; the compiler's results are cached by content); whether it found nothing new."""
    from mpsgen.compiler.change import compile_planned
    from mpsgen.model import KernelOptions

    plan = _plan_for_try(checkout, KernelOptions(**options))  # type: ignore[arg-type]
    result = compile_planned(plan.changeset)
    for d in result.findings:
        stream.write(f"{d.render()}\n")
    stream.write(f"compile check of the planned change: {result.summary()}\n")
    return result.ok


IN_TREE = "the kernel in the tree"
CATALOG_INSTEAD = "the catalog's body, not the kernel in the tree, which could not be planned again"


def cached_subjects(checkout: Checkout, **options: str | None) -> list[Subject]:
    """plan_subjects, remembered under a fingerprint of every file the planner reads (path, size,
    mtime, like ninja) and of mpsgen itself, so a re-run skips the planning."""
    import hashlib
    import json

    from mpsgen.emulate.compile import cache_dir
    from mpsgen.generate.render import default_templates_dir

    package = Path(__file__).resolve().parent.parent
    files = [checkout.yaml_path, *checkout.metal_files(), *checkout.mm_files(), *checkout.native_headers(),
             *checkout.native_sources(), checkout.common_mps_path, checkout.cmi_path,
             *checkout.opinfo_definition_files(), *default_templates_dir().glob("*"), *package.rglob("*.py")]
    if options.get("templates_dir"):
        files += Path(str(options["templates_dir"])).glob("*")
    h = hashlib.sha256(json.dumps(sorted(options.items(), key=lambda kv: kv[0])).encode())
    for f in files:
        try:
            st = f.stat()
        except OSError:
            continue
        h.update(f"{f}\0{st.st_size}\0{st.st_mtime_ns}\n".encode())
    entry = cache_dir() / f"subject-{h.hexdigest()[:32]}.json"
    if entry.is_file():
        try:
            return [_subject_from(data) for data in json.loads(entry.read_text(encoding="utf-8"))]
        except (ValueError, KeyError, TypeError, AttributeError):
            pass  # damaged entry (or one of an older layout): plan again
    subjects = plan_subjects(checkout, **options)  # type: ignore[arg-type]
    entry.parent.mkdir(parents=True, exist_ok=True)
    tmp = entry.with_suffix(f".{os.getpid()}.tmp")
    tmp.write_text(json.dumps([{"spec": s.spec._asdict(), "functor": s.functor, "source": s.source,
                                "headers": s.headers, "label": s.label,
                                "binding": None if s.binding is None else _binding_data(s.binding)}
                               for s in subjects]), encoding="utf-8")
    tmp.replace(entry)
    return subjects


def _binding_data(binding: Binding) -> list[Any]:
    return [binding.op, [list(a) for a in binding.args], list(binding.tensors), list(binding.scalars),
            [list(f) for f in binding.fixed], binding.output]


def _subject_from(data: dict[str, Any]) -> Subject:
    """A cached subject (its binding too: div_trunc's rounding mode is what torch is called with)."""
    from mpsgen.model import KernelSpec
    from mpsgen.plan.binding import Binding, SchemaArg

    fields: dict[str, Any] = {k: tuple(v) if isinstance(v, list) else v for k, v in data["spec"].items()}
    b = data.get("binding")
    binding = None if b is None else Binding(b[0], tuple(SchemaArg(*a) for a in b[1]), tuple(b[2]), tuple(b[3]),
                                             tuple((f[0], f[1]) for f in b[4]), b[5] if len(b) > 5 else None)
    return Subject(KernelSpec(**fields), data["functor"], data["source"], binding, data.get("headers") or {},
                   data.get("label", ""))


def plan_subjects(checkout: Checkout, *, op: str, expr: str | None, int_expr: str | None,
                  complex_expr: str | None, dtypes: str | None, templates_dir: str | None) -> list[Subject]:
    """The planner's spec and functor (read-only); for an op already on Metal, the catalog/--expr spec.
    A family calling several stubs: each new kernel's, labelled with its name."""
    from mpsgen.generate import catalog, render
    from mpsgen.model import KernelOptions

    opts = KernelOptions(op=op, expr=expr, int_expr=int_expr, complex_expr=complex_expr, dtypes=dtypes,
                         templates_dir=templates_dir)
    plan = _plan_for_try(checkout, opts)
    if not plan.nothing_to_do and any(p.spec is not None for p in plan.kernel_plans):
        from mpsgen.emulate.overlay import planned_headers

        headers = planned_headers(plan.changeset)
        several = bool(plan.stub_plans)
        return [planned_subject(p, headers, p.kernel if several else "") for p in plan.kernel_plans if p.spec is not None]
    source = "--expr" if expr else "catalog"
    if expr is None and int_expr is None and complex_expr is None:  # the op runs a kernel of the tree: that one
        from mpsgen.plan.in_tree import Unplannable, kernel_in_tree

        try:
            found = kernel_in_tree(checkout, opts)
        except Unplannable as why:
            found, source = (), f"{CATALOG_INSTEAD} ({why.message})"
        several = len(found) > 1  # one kernel per output: each labelled with its name
        in_tree = [Subject(k.spec, k.functor, f"{IN_TREE}, {_where(k)}", k.binding, label=k.spec.name if several else "")
                   for k in found]
        if in_tree:
            return in_tree
    arity = _arity(op, expr)
    spec = catalog.spec_for(op, arity, expr, int_expr, complex_expr, dtypes)
    return [Subject(spec, render.render_functor(spec, templates_dir), source)]


def _try_own_kind(checkout: Checkout, op: str, templates_dir: str | None,
                 include_root: str | Path | None) -> tuple[str, TryResult] | None:
    """The kernels migrate would write for *op* when they are of a kind with a check of its own (fills, indexing,
    random, reductions), checked as migrate checks them, or the fill or reduction kernels the tree already runs;
    None when *op* is none of these."""
    from mpsgen.emulate.fill_check import check_fill
    from mpsgen.model import KernelOptions
    from mpsgen.plan.nullary_route import nullary_in_tree

    try:
        plan = _plan_for_try(checkout, KernelOptions(op=op, templates_dir=templates_dir))
    except MpsgenError:
        return None
    root = include_root or checkout.root
    if plan.kind != "pointwise":  # the kernels migrate would write, checked as migrate checks them
        from mpsgen.emulate.overlay import planned_headers
        from mpsgen.emulate.plan_numerics import kind_check

        own = plan.own_kernels
        assert own is not None
        return f"plan ({own.metal_path})", kind_check(plan, plan.changeset, root, planned_headers(plan.changeset))
    found = nullary_in_tree(checkout, plan.changeset, op)
    if found is None:
        from mpsgen.emulate.reduce_check import check_reduction
        from mpsgen.plan.reduction_route import reduction_in_tree

        reduced = reduction_in_tree(checkout, plan.changeset, op)
        if reduced is None:
            return None
        name, path = reduced
        return f"{IN_TREE}, {path}", check_reduction(name, plan.changeset.current(path), root)
    kernel, path = found
    return f"{IN_TREE}, {path}", check_fill(kernel, plan.changeset.current(path), root)


def _where(kernel: InTree) -> str:
    """Where the tree's kernel is: upstream's two-output kernels by the function they apply, else the functor."""
    return kernel.at if kernel.spec.two_outputs else f"{kernel.spec.name}_functor at {kernel.at}"


def _plan_for_try(checkout: Checkout, opts: KernelOptions) -> Plan:
    """migrate's or new-op's plan; the refusal to lose SUPPORTED_COMPLEX_OPS support is migrate's
    business, so `try` checks the rest."""
    try:
        return _plan_either(checkout, opts)
    except MpsgenError as err:
        if err.kind is not Refusal.LOSES_COMPLEX:
            raise
        return _plan_either(checkout, opts._replace(drop_complex=True))


def _plan_either(checkout: Checkout, opts: KernelOptions) -> Plan:
    """migrate's plan, or new-op's for an op with no MPS kernel yet."""
    from mpsgen.plan.kernelplan import plan_kernel_command


    try:
        return plan_kernel_command("migrate", checkout, opts)
    except MpsgenError as err:
        if err.kind is not Refusal.NO_MPS_KERNEL:
            raise
        return plan_kernel_command("new-op", checkout, opts)


def _arity(op: str, expr: str | None) -> str:
    """The catalog's arity, else the one the expression's variables imply."""
    from mpsgen.generate import catalog

    entry = catalog.load_catalog().get(op)
    if expr is None:
        if entry is None:
            raise MpsgenError(f"no Metal body known for '{op}' and no --expr given",
                              hint="pass --expr with a Metal expression in x (unary) or a and b (binary)")
        return str(entry["arity"])
    uses = {v for v in ("x", "a", "b", "c", "alpha") if re.search(rf"(?<![\w.]){v}\b", expr)}
    if entry is not None:
        wanted = {"x"} if str(entry["arity"]).startswith("unary") else {"a", "b"}
        if wanted <= uses:
            return str(entry["arity"])
    base = "ternary" if "c" in uses else ("binary" if uses & {"a", "b"} else "unary")
    return f"{base}_alpha" if "alpha" in uses and base != "ternary" else base


# -- the check migrate and new-op run before writing ------------------------------------------------


def check_before_writing(group: GroupPlan, checkout: Checkout, *, kernel: KernelOptions, fmt: str) -> int:
    """0 to go on (every op agreed, or skipped for want of a compiler or torch), 1 on a mismatch.

    Progress goes to stderr in json mode, like the rest of migrate's messages."""
    from mpsgen.emulate.compare import render_text

    stream = sys.stderr if fmt == "json" else sys.stdout
    for one in check_plans(group, checkout, kernel=kernel).ops:
        if one.state == "disagreed":
            assert one.result is not None
            stream.write(render_text(one.result))
        stream.write(one.line() + "\n")
        if one.state == "disagreed":
            return EXIT_FINDINGS
    return EXIT_OK
