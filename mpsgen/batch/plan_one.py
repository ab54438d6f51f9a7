"""The worker of `migrate --all`: one family planned on the checkout as it is, its numeric check run,
and the texts it would write kept (nothing is written).  Runs in a child process: its argument and
result are plain data, and every refusal becomes the family's reason, never the run's end."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path
from typing import Any

from mpsgen.batch.outcome import FAILED, NOTHING, PLANNED, REFUSED, FamilyOutcome
from mpsgen.errors import MpsgenError


def plan_unit(root: str, families: tuple[str, ...], no_try: bool, command: str = "migrate",
              no_compile: bool = False, base_texts: dict[str, str] | None = None,
              stack: bool = False) -> list[FamilyOutcome]:
    """One outcome for the families together (one branch); refused together, each family alone.
    *command*: "migrate" (`migrate --all`) or "new-op" (`new-op --all`); *base_texts*: the texts of
    the commit the change builds on, where they differ from the checkout's; *stack*: a host API the
    change adds is kept apart, to land as its own commit below the family's (--stack)."""
    together = _plan(root, families, no_try, command, no_compile, base_texts, stack)
    if together.ok or len(families) == 1:
        return [together]
    return [_plan(root, (family,), no_try, command, no_compile, base_texts, stack) for family in families]


def _plan(root: str, families: tuple[str, ...], no_try: bool, command: str = "migrate",
          no_compile: bool = False, base_texts: dict[str, str] | None = None, stack: bool = False) -> FamilyOutcome:
    from mpsgen.batch.api_commit import api_message, safe_api_change
    from mpsgen.batch.pr_text import pr_message
    from mpsgen.compiler.change import compile_planned
    from mpsgen.emulate.plan_numerics import check_plans
    from mpsgen.model import KernelOptions
    from mpsgen.plan.group import plan_group
    from mpsgen.tree.checkout import Checkout

    checkout = Checkout(Path(root))
    kernel = KernelOptions(op=families[0])
    unit: dict[str, Any] = dict(family=families[0], families=list(families))
    try:
        group = plan_group(command, checkout, list(families), kernel, base_texts)  # type: ignore[arg-type]
        if group.nothing_to_do:
            return FamilyOutcome(state=NOTHING, reason=group.nothing_to_do, **unit)
        numeric = None if no_try else check_plans(group, checkout, kernel=kernel)
        if numeric is not None and not numeric.agreed:
            return FamilyOutcome(state=REFUSED, reason="MISMATCH: " + numeric.summary(), **unit)
        check = "" if numeric is None else numeric.summary()
        cs = group.changeset
        compiled = None if no_compile else compile_planned(cs)
        if compiled is not None and not compiled.ok:
            first = compiled.findings[0]
            more = f" (+{len(compiled.findings) - 1} more)" if len(compiled.findings) > 1 else ""
            return FamilyOutcome(state=REFUSED, reason=f"COMPILE: {first.render()}{more}", **unit)
        dtypes = dict.fromkeys(r.dtype for p in group.kernel_plans for r in p.dtype_rows if r.registered)
        compiled_line = "" if compiled is None else compiled.summary()
        api = safe_api_change(group) if stack and any(p.backfilled for p in group.kernel_plans) else None
        message = pr_message(group, check, compiled_line, api_below=bool(api and api.files),
                             **({"api_note": api.why_kept} if api else {}))
        return FamilyOutcome(state=PLANNED, files={p: cs.current(p) for p in cs.changed_paths}, dtypes=list(dtypes),
                             check=check, compiled=compiled_line, message=message, tests=group.test_names,
                             grad_tests=group.grad_test_names, api_files=api.files if api else {},
                             api_message=api_message(api, list(families), message.split("\n", 1)[0])
                             if api and api.files else "", **unit)
    except MpsgenError as err:
        return FamilyOutcome(state=REFUSED, reason=err.render(), **unit)
    except Exception as err:  # an mpsgen bug in one family must not end the run; the summary names it
        return FamilyOutcome(state=FAILED, reason=f"mpsgen failed: {type(err).__name__}: {err}", **unit)


def exit_with_parent() -> None:
    """A worker's initializer: leave when the run that started it is gone (SIGKILL leaves the pool's
    workers waiting on a queue nobody feeds); they only read the tree, so stopping is always safe."""
    parent = os.getppid()

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.5)
        os._exit(1)

    threading.Thread(target=watch, daemon=True).start()
