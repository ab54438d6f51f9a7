"""Re-read a finished plan before anything is written: a failure here is a bug in a planner."""

from __future__ import annotations

from mpsgen.errors import MpsgenError
from mpsgen.plan.result import Plan
from mpsgen.plan.texts import folder_files, mentioning, planned_texts, yaml_index
from mpsgen.sources.host import mm as host
from mpsgen.sources.metal import index as metal_index
from mpsgen.sources.native_yaml import names as nf
from mpsgen.sources.native_yaml.roundtrip import check_entry
from mpsgen.tree.changeset import Changeset
from mpsgen.tree.checkout import YAML_REL, Checkout


def guard_edits(plan: Plan, checkout: Checkout) -> None:
    """Re-read the planned tree: nothing left on a legacy kernel, the stub registered for MPS
    exactly once, the kernel name registered in Metal.  A failure here is a bug in a planner,
    so it is reported before anything is written."""

    cs = plan.changeset
    family = nf.select_overloads(yaml_index(cs.current(YAML_REL)), plan.op)
    problems = []
    selected = set(plan.overloads) or {e.name for e in family.entries}  # kept overloads were said so
    left = [e.name for e in family.legacy_entries if e.name in selected]
    if left:
        problems.append("entries still on a legacy kernel: " + ", ".join(left))
    if any(e.duplicate_mps for e in family.entries):
        problems.append("an entry has MPS on two dispatch lines")
    yaml_text = cs.current(YAML_REL)
    by_name = {e.name: e for e in family.entries}
    for m in plan.moved:  # what torchgen and PyTorch's yaml lint will read, parsed on the entry alone
        if m.entry in by_name:
            e = by_name[m.entry]
            check_entry(yaml_text, e.line, e.end_line, path=YAML_REL, mps_kernel=m.shared_kernel,
                        original=cs.original(YAML_REL))
    assert plan.stub is not None
    mm_texts = planned_texts(cs, folder_files(cs, "mm_files"), checkout)
    regs = host.registered_stubs(mentioning(mm_texts, plan.stub.name.removesuffix("_stub"))).get(plan.stub.name, [])
    if len(regs) != 1:
        problems.append(f"{plan.stub.name} is registered for MPS {len(regs)} times")
    # Only a file that spells the kernel's name can register it.  (No spec: the stub already ran a
    # kernel, which planning did not touch.)
    own = plan.nullary or plan.random  # the nullary or random kind's own .metal (created by the plan)
    if own is not None:
        from mpsgen.sources.metal.nullary import registered_types

        types = registered_types(cs.current(own.metal_path), plan.kernel)
        missing = [t for t in own.metal_types if t not in types]
        if missing:
            problems.append(f"kernels '{plan.kernel}_dense_<T>'/'{plan.kernel}_strided_<T>' are not registered for "
                            f"{', '.join(missing)} in {own.metal_path}")
    if plan.indexing is not None:  # the indexing kind's kernel, per element size, in the host's paired .metal
        from mpsgen.sources.metal.names import names_in

        path = plan.indexing.metal_path
        have = {n.name for n in names_in(cs.current(path), path)}
        missing = [s for s in plan.indexing.instances if f"{plan.kernel}_{s}" not in have]
        if missing:
            problems.append(f"kernel '{plan.kernel}' is not registered for {', '.join(missing)} in {path}")
    if plan.reduction is not None:  # re-read the planned ReduceOps.metal (after clang-format): every type registered
        from mpsgen.generate.reduction_kernel import BY_NAME, registrations

        red = plan.reduction
        red_types = {t for op, _, t in registrations(cs.current(red.metal_path)) if op == red.name}
        missing = [t for t, _ in BY_NAME[red.name].types if t not in red_types]
        if missing:
            problems.append(f"kernels '{plan.kernel}_<T>' are not registered for {', '.join(missing)} in {red.metal_path}")
    if plan.spec is not None:
        metal_texts = mentioning(planned_texts(cs, folder_files(cs, "metal_files"), checkout), plan.kernel)
        if plan.two_outputs is not None:  # upstream's <kernel>_dense_<T>/<kernel>_strided_<T>, read again
            from mpsgen.sources.metal.two_output_kernels import find_two_output_kernels

            registered = find_two_output_kernels(metal_texts, plan.kernel) is not None
        else:
            registered = plan.kernel in metal_index.registered_kernel_names(
                metal_index.index_metal(t, p) for p, t in metal_texts.items())
        if not registered:
            problems.append(f"kernel '{plan.kernel}' is not registered in any .metal file")
    _guard_statements(cs)
    if problems:
        raise MpsgenError(
            "the planned change would leave the tree inconsistent: " + "; ".join(problems),
            path=YAML_REL, hint="nothing was written; please report this with the op name",
        )


def _guard_statements(cs: Changeset) -> None:
    """Each edited .metal/.mm keeps its statement structure outside the lines mpsgen inserted or
    deleted (text written into the middle of a statement is refused before anything is written)."""
    from mpsgen.scan.statements import first_broken_statement

    for path in cs.changed_paths:
        if not path.endswith((".metal", ".mm")) or cs.is_new(path):
            continue
        line = first_broken_statement(cs.original(path), cs.current(path))
        if line is not None:
            raise MpsgenError(
                "the planned edit would change a statement it does not own (text inserted inside it)",
                path=path, line=line,
                hint="nothing was written; the file's layout is not one mpsgen can edit, please report it",
            )
