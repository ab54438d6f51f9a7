"""Adopting `mpsgen check` gradually, as ruff, mypy and clang-tidy users expect: choosing rules
(--select/--ignore), silencing one finding where it is (an inline comment), and a baseline file
of the findings a tree already has, so only new ones fail.

Inline suppression: `// mpsgen: ignore[MPS004]` in .mm/.metal/.cpp/.h, `# mpsgen: ignore[MPS003]`
in yaml and .py, on the finding's line or the line above it (codes or rule names, comma-separated;
`ignore` without brackets silences every rule there).

A baseline keys each finding by code, file and its message with line numbers taken out, counted,
so moving code or editing elsewhere in a file does not make an old finding new.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path
from typing import Callable, Iterable

from mpsgen.errors import MpsgenError
from mpsgen.lint.finding import Finding

BASELINE_VERSION = 1
# Patterns read only when a file has a suppression comment or a baseline is used: compiled then (by
# re's own cache), not when every check starts.
_SUPPRESSION = r"(?://|#)\s*mpsgen:\s*ignore(?:\[([^\]]*)\])?"


# -- choosing rules ------------------------------------------------------------------------
def chosen_codes(select: Iterable[str], ignore: Iterable[str]) -> frozenset[str] | None:
    """The rule codes to run (None: all), from --select and --ignore values (codes or names,
    comma-separated; unknown ones are a usage error)."""
    from mpsgen.lint import rules

    picked = _codes(select)
    dropped = _codes(ignore)
    if not picked and not dropped:
        return None
    codes = picked or {r.code for r in rules.all_rules()}
    return frozenset(codes - dropped)


def _codes(values: Iterable[str]) -> set[str]:
    from mpsgen.lint import rules

    return {rules.get(v).code for value in values for v in value.split(",") if v.strip()}


# -- inline suppression --------------------------------------------------------------------
def unsuppressed(findings: list[Finding], read: Callable[[str], str]) -> list[Finding]:
    """The findings not silenced by an `mpsgen: ignore[...]` comment on their line or the one above
    (*read* gives a finding's file text; only files with findings are read)."""
    lines: dict[str, list[str]] = {}
    kept = []
    for f in findings:
        if f.path not in lines:
            try:
                text = read(f.path)
            except MpsgenError:
                text = ""
            lines[f.path] = text.split("\n") if "mpsgen:" in text else []
        if not _silenced(f, lines[f.path]):
            kept.append(f)
    return kept


def _silenced(f: Finding, lines: list[str]) -> bool:
    from mpsgen.lint import rules

    for k in (f.line - 1, f.line - 2):
        m = re.search(_SUPPRESSION, lines[k]) if 0 <= k < len(lines) else None
        if m is None:
            continue
        if m.group(1) is None:
            return True
        wanted = {w.strip() for w in m.group(1).split(",")}
        if f.code in {w.upper() for w in wanted} or rules.get(f.code).name in wanted:
            return True
    return False


# -- baseline ------------------------------------------------------------------------------
_LINE_REFS = r"(?<=\S):\d+(?::\d+)?|\blines? \d+(?:\s*[-,]\s*\d+)*"


def baseline_key(f: Finding) -> str:
    """code, file and the message without line numbers (`path:123`, `line 12`, `lines 4-9`)."""
    return f"{f.code}\t{f.path}\t{re.sub(_LINE_REFS, '', f.message)}"


def write_baseline(findings: Iterable[Finding], path: Path) -> int:
    """Write the baseline of *findings* to *path*; how many it holds."""
    keys = sorted(baseline_key(f) for f in findings)
    entries = [dict(zip(("code", "path", "message"), k.split("\t", 2))) for k in keys]
    doc = {"mpsgen-baseline": BASELINE_VERSION, "findings": entries}
    import json  # only with a baseline (json's import is ~5 M instructions of a text-format check)

    try:
        path.write_text(json.dumps(doc, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    except OSError as e:
        raise MpsgenError(f"cannot write the baseline: {e.strerror}", path=str(path)) from None
    return len(entries)


def read_baseline(path: Path) -> Counter[str]:
    """The baseline's finding keys, counted."""
    import json

    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise MpsgenError("baseline file not found", path=str(path),
                          hint="write one with `mpsgen check --write-baseline FILE`") from None
    except (OSError, UnicodeDecodeError) as e:
        raise MpsgenError(f"cannot read the baseline: {e}", path=str(path)) from None
    except json.JSONDecodeError as e:
        raise MpsgenError(f"the baseline is not JSON: {e.msg}", path=str(path), line=e.lineno) from None
    entries = doc.get("findings") if isinstance(doc, dict) and doc.get("mpsgen-baseline") == BASELINE_VERSION else None
    if not isinstance(entries, list) or not all(isinstance(e, dict) for e in entries):
        raise MpsgenError("not an mpsgen baseline", path=str(path),
                          hint="write one with `mpsgen check --write-baseline FILE`")
    return Counter(f"{e.get('code')}\t{e.get('path')}\t{e.get('message')}" for e in entries)


def new_findings(findings: Iterable[Finding], known: Counter[str]) -> list[Finding]:
    """The findings beyond those the baseline counts (per key, the first ones are taken as known)."""
    left = Counter(known)
    out = []
    for f in findings:
        key = baseline_key(f)
        if left[key] > 0:
            left[key] -= 1
        else:
            out.append(f)
    return out
