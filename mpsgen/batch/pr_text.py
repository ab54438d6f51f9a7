"""The commit message of one family's branch: a PR description as upstream reviewers read them —
title, what moved, the dtypes before -> after, the numeric check, and the test command for a Mac."""

from __future__ import annotations

from mpsgen.plan.group import GroupPlan
from mpsgen.tree.gitops import commit_message

_HEADINGS = {"dispatch": "Dispatch (native_functions.yaml)", "stub": "Stub",
             "api": "Host API added (this checkout lacked it; modeled on its siblings here)", "added": "Added",
             "removed": "Deleted (MPSGraph)", "tests": "Test lists", "note": "Notes"}  # dtypes: a table


# What follows the "api" section's list where the API is in the family's own commit (--branch-per-op).
BRANCH_API_NOTE = ("The host API is in this commit so that the branch lands alone (each branch starts from HEAD); "
                   "`mpsgen migrate --all --stack` lands it as a commit of its own, below the first family using it.")
_API_BELOW = "Host API used (this checkout lacked it; the commit below adds it alone)"


def pr_message(group: GroupPlan, check: str, compiled: str = "", *, api_below: bool = False,
               api_note: str = BRANCH_API_NOTE) -> str:
    """*api_below*: the host API the change adds is the commit below's (--stack); else it is in this
    commit, and *api_note* says why."""
    from mpsgen.plan.summary import summarize
    from mpsgen.verify.mps_tests import grad_patterns, k_patterns

    moved = [m.entry for p in group.todo for m in p.moved]
    title, _, rest = commit_message(group.title_names(), moved).partition("\n\n")
    body: list[str] = []
    for plan in group.todo:
        summary = summarize(plan)
        if len(group.todo) > 1:
            body += [f"### {plan.family}", ""]
        for key, items in summary.sections():
            if items and key in _HEADINGS:
                heading = _API_BELOW if key == "api" and api_below else _HEADINGS[key]
                body += [f"{heading}:", *(f"- {item}" for item in items), ""]
                body += [api_note, ""] if key == "api" and not api_below and api_note else []
        rows = summary.dtype_rows
        if rows:
            whose = f" of the {summary.kernel} kernel" if summary.other_stubs and summary.kernel else ""
            body += [f"Dtypes{whose}, before -> after:", "", "| dtype | before | after |", "|---|---|---|"]
            body += [f"| {r.dtype} | {r.before} | {r.after} |" for r in rows] + [""]
        for _, kernel, other in summary.other_stubs:  # a family calling several stubs: each kernel's table
            if other:
                body += [f"Dtypes of the {kernel} kernel, before -> after:", "", "| dtype | before | after |",
                         "|---|---|---|", *(f"| {r.dtype} | {r.before} | {r.after} |" for r in other), ""]
    body += [f"Numeric check (mpsgen try, before writing): {check or 'not run (--no-try)'}", "",
             f"Compile check (no Mac, before writing): {compiled or 'not run (--no-compile)'}", ""]
    # Only tests that exist: the op's OpInfos, or a backward op's forward OpInfo's gradient test.
    patterns = k_patterns(group.test_names) + grad_patterns(group.grad_test_names)
    if patterns:
        body += ["Test plan, on a Mac with an MPS build:", "",
                 "    python test/test_mps.py -v " + " ".join(f"-k {p}" for p in patterns), ""]
    else:
        body += ["Test plan: no OpInfo tests this op, so test_mps.py has no test to select for it.", ""]
    return f"{title}\n\n" + "\n".join(body) + "\n" + rest
