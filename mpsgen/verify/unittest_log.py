"""test_mps.py's results: unittest's verbose output parsed into outcomes per test, op and dtype."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path
from typing import Iterable, Literal, get_args

from mpsgen.records import NamedTuple

TestStatus = Literal["passed", "failed", "error", "skipped", "xfail", "xpass"]
STATUSES: tuple[TestStatus, ...] = get_args(TestStatus)
PASSED, FAILED, ERROR, SKIPPED, XFAIL, XPASS = STATUSES

MATCH_TEST = "test_output_match"
GRAD_TEST = "test_output_grad_match"


class TestOutcome(NamedTuple):
    name: str  # test method, e.g. test_output_match_atan2_mps_float32
    test_class: str  # e.g. TestConsistencyMPS
    status: TestStatus
    kind: str = ""  # test_output_match / test_output_grad_match, "" for other tests
    op: str = ""  # formatted op name as in the test name (dots are underscores), e.g. special_zeta
    dtype: str = ""  # e.g. float32
    detail: str = ""  # skip reason, or the last line of a failure's traceback


TestOutcome.__test__ = False  # type: ignore[attr-defined]  # not a pytest test class


class Counts(NamedTuple):
    passed: int = 0
    failed: int = 0
    error: int = 0
    skipped: int = 0
    xfail: int = 0
    xpass: int = 0

    @classmethod
    def of(cls, outcomes: Iterable[TestOutcome]) -> "Counts":
        c = Counter(o.status for o in outcomes)
        return cls(**{s: c.get(s, 0) for s in STATUSES})

    @property
    def total(self) -> int:
        return self.passed + self.failed + self.error + self.skipped + self.xfail + self.xpass


class TestResult(NamedTuple):
    returncode: int
    outcomes: tuple[TestOutcome, ...]
    log_path: Path | None = None
    command: tuple[str, ...] = ()
    ran: int | None = None  # unittest's "Ran N tests"

    @property
    def ok(self) -> bool:
        """Every matched test passed, was skipped or failed as expected (and at least one ran)."""
        c = self.totals
        return self.returncode == 0 and c.failed == 0 and c.error == 0 and c.xpass == 0 and c.total > 0

    @property
    def totals(self) -> Counts:
        return Counts.of(self.outcomes)

    def counts_by_dtype(self, kind: str | None = None) -> dict[str, Counts]:
        """Counts per dtype ("" for tests whose name has no dtype), optionally for one test kind."""
        chosen = [o for o in self.outcomes if kind is None or o.kind == kind]
        dtypes = sorted({o.dtype for o in chosen})
        return {d: Counts.of(o for o in chosen if o.dtype == d) for d in dtypes}

    @property
    def unexpected_successes(self) -> tuple[TestOutcome, ...]:
        """xfails that now pass: their common_mps.py / OpInfo entries can be removed."""
        return tuple(o for o in self.outcomes if o.status == XPASS)

    @property
    def failures(self) -> tuple[TestOutcome, ...]:
        return tuple(o for o in self.outcomes if o.status in (FAILED, ERROR))

    def summary(self) -> str:
        lines = []
        for kind in (MATCH_TEST, GRAD_TEST, ""):
            per = self.counts_by_dtype(kind)
            for dtype, c in per.items():
                label = f"{kind or 'other'} {dtype or '-'}"
                lines.append(
                    f"  {label:<40} {c.passed} passed, {c.failed} failed, {c.error} errors, "
                    f"{c.skipped} skipped, {c.xfail} expected failures, {c.xpass} unexpected successes"
                )
        t = self.totals
        head = (
            f"tests: {t.passed} passed, {t.failed} failed, {t.error} errors, {t.skipped} skipped, "
            f"{t.xfail} expected failures, {t.xpass} unexpected successes"
        )
        if t.total == 0:
            head = "tests: no test matched (check the op name)"
        lines.insert(0, head)
        for o in self.failures:
            lines.append(f"  {o.status.upper()}: {o.name}" + (f": {o.detail}" if o.detail else ""))
        for o in self.unexpected_successes:
            lines.append(f"  UNEXPECTED SUCCESS: {o.name} (the {o.dtype} xfail for {o.op} can be removed)")
        if self.log_path:
            lines.append(f"  log: {self.log_path}")
        return "\n".join(lines)


TestResult.__test__ = False  # type: ignore[attr-defined]  # not a pytest test class


# unittest -v: "name (module.Class.name) ... result" (3.11+) or "name (module.Class) ... result".
_TEST_LINE = re.compile(r"^(?P<name>test\w*) \((?P<where>[\w.]+)\)(?: \.\.\. ?(?P<rest>.*))?$")
_RESULT = re.compile(r"^(?P<r>ok|FAIL|ERROR|expected failure|unexpected success|skipped(?: (?P<reason>.*))?)$")
_BLOCK_HEAD = re.compile(r"^(?P<kind>FAIL|ERROR|UNEXPECTED SUCCESS): (?P<name>test\w*) \(")
_RAN = re.compile(r"^Ran (\d+) tests? in ")
_NAME_PARTS = re.compile(rf"^(?P<kind>{GRAD_TEST}|{MATCH_TEST})_(?P<op>.+)_(?:mps|cpu)_(?P<dtype>[a-z0-9_]+)$")

_STATUS_OF: dict[str, TestStatus] = {
    "ok": PASSED,
    "FAIL": FAILED,
    "ERROR": ERROR,
    "expected failure": XFAIL,
    "unexpected success": XPASS,
}


def _split_name(name: str) -> tuple[str, str, str]:
    m = _NAME_PARTS.match(name)
    return (m.group("kind"), m.group("op"), m.group("dtype")) if m else ("", "", "")


def _strip_quotes(reason: str | None) -> str:
    r = (reason or "").strip()
    return r[1:-1] if len(r) >= 2 and r[0] == r[-1] and r[0] in "'\"" else r


def parse_unittest_output(lines: Iterable[str]) -> tuple[tuple[TestOutcome, ...], int | None]:
    """Outcomes from unittest's verbose output, with the last traceback line of each failure."""
    results: list[tuple[str, str, TestStatus, str]] = []  # name, class, status, reason
    pending: tuple[str, str] | None = None
    details: dict[str, str] = {}
    block: str | None = None
    block_lines: list[str] = []
    ran = None
    in_blocks = False
    in_header = False

    def close_block() -> None:
        nonlocal block, block_lines
        if block is not None:
            text = [b for b in block_lines if b.strip()]
            if text:
                details[block] = text[-1].strip()
        block, block_lines = None, []

    for raw in lines:
        line = raw.rstrip("\r\n")
        m = _RAN.match(line)
        if m:
            close_block()
            ran = int(m.group(1))
            continue
        if line.startswith("=" * 20):
            close_block()
            in_blocks = True
            continue
        m = _BLOCK_HEAD.match(line)
        if in_blocks and m:
            block, in_header = m.group("name"), True
            continue
        if line.startswith("-" * 20):
            if block is not None and in_header:
                in_header = False  # the header (name, docstring) ends; the traceback starts
            else:
                close_block()  # the dashes before "Ran N tests"
            continue
        if block is not None:
            if not in_header:
                block_lines.append(line)
            continue
        m = _TEST_LINE.match(line)
        if m:
            where = m.group("where").split(".")
            cls = where[-2] if len(where) >= 2 and where[-1] == m.group("name") else where[-1]
            pending = (m.group("name"), cls)
            rest = (m.group("rest") or "").strip()
            r = _RESULT.match(rest)
            if r:
                results.append((*pending, _status(r), _strip_quotes(r.group("reason"))))
                pending = None
            continue
        if pending is not None:
            # The result follows output the test printed, or a docstring line "... result".
            text = line.strip()
            if " ... " in text:
                text = text.rsplit(" ... ", 1)[1]
            r = _RESULT.match(text)
            if r:
                results.append((*pending, _status(r), _strip_quotes(r.group("reason"))))
                pending = None
    close_block()
    outcomes = []
    for name, cls, status, reason in results:
        kind, op, dtype = _split_name(name)
        detail = reason if status == SKIPPED else details.get(name, "")
        outcomes.append(TestOutcome(name, cls, status, kind, op, dtype, detail))
    return tuple(outcomes), ran


def started_test(line: str) -> str | None:
    """The test's name when *line* is the one unittest -v prints as the test starts."""
    m = _TEST_LINE.match(line)
    return m.group("name") if m else None


def _status(m: re.Match) -> TestStatus:
    r = m.group("r")
    return SKIPPED if r.startswith("skipped") else _STATUS_OF[r]
