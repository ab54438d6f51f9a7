"""One family's result in a `migrate --all` run, and the run's summary table."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import Sequence

# What happened to a family.
BRANCHED = "branch"  # committed on its own branch in this run
DONE_EARLIER = "done earlier"  # its branch exists from an earlier run on the same HEAD
PLANNED = "planned"  # planned and checked; no branch asked for (--all without --branch-per-op)
NOTHING = "nothing to do"
REFUSED = "refused"
FAILED = "failed"  # an mpsgen bug: reported, the run goes on


@dataclass
class FamilyOutcome:
    family: str  # the first of *families*, which names the branch
    state: str = PLANNED
    reason: str = ""  # the refusal's one line (path:line: message (hint: ...)), or why nothing to do
    files: dict[str, str] = field(default_factory=dict)  # path -> new text
    dtypes: list[str] = field(default_factory=list)  # torch dtypes the kernel serves after the change
    check: str = ""  # the numeric check's one-line result
    compiled: str = ""  # the compile check's one-line result ("" when not run)
    message: str = ""  # the commit message
    # --stack: the host API the change adds, committed alone below the family's own (batch/api_commit.py)
    api_files: dict[str, str] = field(default_factory=dict)  # path -> text (the parent's, plus the API)
    api_message: str = ""
    api_commit: str = ""
    branch: str = ""
    commit: str = ""
    # Families whose stubs meet (threshold_backward passes threshold_stub) share one branch: apart,
    # both branches would add the same kernel and conflict on merge.
    families: list[str] = field(default_factory=list)
    tests: list[str] = field(default_factory=list)  # OpInfo names test_mps.py is run for
    grad_tests: list[str] = field(default_factory=list)  # OpInfos whose gradient test runs a backward op
    build: str = ""  # with --all's build: "ok" or why not
    tests_result: str = ""  # with its tests: the totals

    def __post_init__(self) -> None:
        self.families = self.families or [self.family]

    @property
    def ok(self) -> bool:
        return self.state in (BRANCHED, DONE_EARLIER, PLANNED, NOTHING)

    def to_json(self) -> dict[str, object]:
        data = asdict(self)
        data["files"] = sorted(self.files)
        data["api_files"] = sorted(self.api_files)
        data.pop("message")
        data.pop("api_message")
        return data


def _cells(o: FamilyOutcome, verified: bool) -> list[str]:
    name = " + ".join(o.families)
    checks = [o.build, o.tests_result] if verified else []
    if not o.ok or o.state == NOTHING:
        return [name, o.state, "", "", "", *["" for _ in checks], o.reason]
    return [name, o.state, o.branch, str(len(o.files)), ", ".join(o.dtypes), *checks, o.check]


HEADER = ["family", "result", "branch", "files", "dtypes", "numeric check, or why not"]
VERIFIED = ["build", "tests"]  # columns of a run that built and tested each family


def render_summary(outcomes: Sequence[FamilyOutcome], fmt: str, *, written: bool = True, candidates: int = 0) -> str:
    """*written*: the families went onto branches (else nothing was written: they "would migrate");
    *candidates*: how many families the run set out to do (an interrupted run has fewer outcomes)."""
    done = sum(len(o.families) for o in outcomes if o.state in (BRANCHED, DONE_EARLIER, PLANNED))
    candidates = max(candidates, sum(len(o.families) for o in outcomes))
    total = f"{done} of {candidates} families {'migrated' if written else 'would migrate'}"
    if fmt == "json":
        return json.dumps({"families": [o.to_json() for o in outcomes], "migrated": done,
                           "candidates": candidates}, indent=2) + "\n"
    verified = any(o.build or o.tests_result for o in outcomes)
    header = HEADER[:-1] + (VERIFIED if verified else []) + HEADER[-1:]
    rows = [_cells(o, verified) for o in outcomes]
    if fmt == "markdown":
        def md(cells: list[str]) -> str:
            return "| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |"
        lines = [md(header), "|" + "---|" * len(header)] + [md(r) for r in rows]
        return "\n".join(lines) + f"\n\n{total}\n"
    widths = [max(len(r[k]) for r in [header, *rows]) for k in range(len(header) - 1)]
    lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths)) + "  " + r[-1] for r in [header, *rows]]
    return "\n".join(line.rstrip() for line in lines) + f"\n{total}\n"
