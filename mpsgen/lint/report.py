"""Findings of `mpsgen check` and their output formats (text, json, github, lintrunner).

The rules and their metadata live in lint/rules/ (one registry) and the Finding shape in
lint/finding.py; this module owns path filtering (pre-commit passes file names) and rendering.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Iterable, Sequence

from mpsgen.errors import EXIT_FINDINGS, EXIT_OK, MpsgenError

from mpsgen.lint.finding import ERROR, SEVERITIES, WARNING, Finding, sort_key  # noqa: F401 (re-exported)

FORMATS = ("text", "json", "github", "lintrunner")

# lintrunner groups every message of one linter under this code; the rule goes in `name`.
LINTRUNNER_CODE = "MPSGEN"


# -- filtering -----------------------------------------------------------------------------


def _absolute(path: str | Path, base: Path) -> Path:
    p = Path(path)
    return Path(os.path.normpath(p if p.is_absolute() else base / p))


def filter_to_paths(
    findings: Iterable[Finding], paths: Sequence[str | Path], root: Path, cwd: Path | None = None
) -> list[Finding]:
    """Keep the findings in *paths* (as pre-commit passes them: relative to *cwd*), and those that
    rest on one of them (a finding located elsewhere then names that file in `via`).

    The whole tree is still analysed by the caller; this only narrows what is reported.
    An empty *paths* keeps everything.
    """
    findings = list(findings)
    if not paths:
        return findings
    root = Path(root).resolve()
    base = (cwd or Path.cwd()).resolve()
    wanted = {_absolute(p, base) for p in paths}
    named: dict[str, bool] = {}  # per distinct path (a finding rests on up to ~100 files, many findings on the same)

    def is_named(path: str) -> bool:
        hit = named.get(path)
        if hit is None:
            hit = named[path] = _absolute(path, root) in wanted
        return hit

    kept = []
    for f in findings:
        if is_named(f.path):
            kept.append(f)
            continue
        via = next((b for b in f.rests_on if is_named(b.path)), None)
        if via is not None:
            kept.append(f.with_via(via))
    return kept


# -- rendering -----------------------------------------------------------------------------


def exit_code(findings: Iterable[Finding], fmt: str) -> int:
    """1 when there are errors (warnings alone pass); lintrunner always 0, it decides itself."""
    if fmt == "lintrunner":
        return EXIT_OK
    return EXIT_FINDINGS if any(f.severity == ERROR for f in findings) else EXIT_OK


def render(findings: Iterable[Finding], fmt: str = "text", root: Path | None = None, *, color: bool = False) -> str:
    """The findings in *fmt*, sorted by place.  Ends with a newline unless empty (json always prints)."""
    ordered = sorted(findings, key=sort_key)
    if fmt == "text":
        return _render_text(ordered, color)
    if fmt == "json":
        return _render_json(ordered)
    if fmt == "github":
        return "".join(_github_line(f) + "\n" for f in ordered)
    if fmt == "lintrunner":
        import json  # only for the json formats

        return "".join(json.dumps(_lint_message(f, root), sort_keys=True) + "\n" for f in ordered)
    raise MpsgenError(f"unknown output format {fmt!r}", hint="use one of: " + ", ".join(FORMATS))


_COLORS = {ERROR: "\033[31m", WARNING: "\033[33m"}
_BOLD, _RESET = "\033[1m", "\033[0m"


def _render_text(findings: list[Finding], color: bool) -> str:
    lines = []
    for f in findings:
        where = f"{f.location}:"
        code = f.code
        if color:
            where = f"{_BOLD}{where}{_RESET}"
            code = f"{_COLORS[f.severity]}{code}{_RESET}"
        lines.append(f"{where} {code} {f.full_message()}{_via_note(f)}")
    errors = sum(f.severity == ERROR for f in findings)
    warnings = len(findings) - errors
    if findings:
        lines.append(f"Found {_plural(errors, 'error')} and {_plural(warnings, 'warning')}.")
    return "".join(line + "\n" for line in lines)


def _via_note(f: Finding) -> str:
    return f" [rests on {f.via.path}]" if f.via is not None else ""


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


def finding_to_dict(f: Finding, names: dict[str, str]) -> dict:
    """*f* as --format json shows it; *names*: each rule's name by code."""
    return {
        "path": f.path,
        "line": f.line,
        "col": f.col,
        "code": f.code,
        "name": names.get(f.code),
        "severity": f.severity,
        "message": f.message,
        "hint": f.hint,
        **({"rests_on": f.via.path} if f.via is not None else {}),
    }


def _rule_names() -> dict[str, str]:
    from mpsgen.lint import rules  # lazily: loading the registry imports every rule module

    return {r.code: r.name for r in rules.all_rules()}


def _render_json(findings: list[Finding]) -> str:
    errors = sum(f.severity == ERROR for f in findings)
    names = _rule_names()  # once, not per finding
    doc = {
        "findings": [finding_to_dict(f, names) for f in findings],
        "summary": {"errors": errors, "warnings": len(findings) - errors},
    }
    try:
        return _indented_json(doc) + "\n"
    except _NotScalar:  # a field of another type: json's own encoder writes it
        import json

        return json.dumps(doc, indent=2) + "\n"


class _NotScalar(Exception):
    pass


def _indented_json(doc: dict) -> str:
    """json.dumps(doc, indent=2) of {"findings": [flat dict, ...], "summary": flat dict} whose values are
    str, int or None (else _NotScalar), written with json's own C string escaper.  json.dumps with an
    indent runs json's pure-Python encoder (~16 M instructions for 250 findings) and importing json
    costs ~6 M more; tests/test_report.py compares the two."""
    try:
        from _json import encode_basestring_ascii as string  # what json.encoder uses, without importing json
    except ImportError:  # an interpreter without json's C accelerator
        from json.encoder import encode_basestring_ascii as string

    def value(v: object) -> str:
        if v is None:
            return "null"
        if type(v) is int:
            return int.__repr__(v)
        raise _NotScalar

    def fields(d: dict, indent: str) -> str:
        if not d:  # json writes an empty object as {}
            raise _NotScalar
        return ",\n".join([f"{indent}{string(k)}: {string(v) if type(v) is str else value(v)}" for k, v in d.items()])

    items = ["    {\n" + fields(f, "      ") + "\n    }" for f in doc["findings"]]
    listed = "[\n" + ",\n".join(items) + "\n  ]" if items else "[]"
    return '{\n  "findings": ' + listed + ',\n  "summary": {\n' + fields(doc["summary"], "    ") + "\n  }\n}"


def _escape_data(s: str) -> str:
    # GitHub workflow command escaping (actions/toolkit command.ts).
    return s.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(s: str) -> str:
    return _escape_data(s).replace(":", "%3A").replace(",", "%2C")


def _shown_at(f: Finding) -> tuple[str, int, int, str]:
    """(path, line, col, text) where an annotating tool shows *f*: its own place, or for a finding
    reported because it rests on a changed file, that file (those tools show only the files in the
    change), the text naming the finding's own place."""
    text = f.code + " " + f.full_message() if f.via is None else \
        f"{f.code} {f.path}:{f.line}:{f.col}: {f.full_message()}"
    return (f.path, f.line, f.col, text) if f.via is None else (f.via.path, f.via.line, 1, text)


def _github_line(f: Finding) -> str:
    path, line, col, text = _shown_at(f)
    props = ",".join(
        f"{k}={_escape_property(str(v))}"
        for k, v in (("file", path), ("line", line), ("col", col), ("title", f"mpsgen {f.code}"))
    )
    return f"::{f.severity} {props}::{_escape_data(text)}"


def _lint_message(f: Finding, root: Path | None) -> dict[str, object]:
    # lintrunner's LintMessage; it resolves relative paths against its own cwd, so send absolute ones.
    where, line, col, text = _shown_at(f)
    path = str(_absolute(where, Path(root).resolve())) if root is not None else where
    return {
        "path": path,
        "line": line,
        "char": col,  # as PyTorch's flake8/ruff adapters do: the tool's 1-based column
        "code": LINTRUNNER_CODE,
        "severity": f.severity,
        "name": f.code,
        "original": None,
        "replacement": None,
        "description": f.full_message() if f.via is None else text.partition(" ")[2],
    }
