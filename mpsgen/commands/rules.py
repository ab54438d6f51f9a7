"""`mpsgen rules [CODE]`: the rules of `mpsgen check`, from the registry."""

from __future__ import annotations

import json
import sys
import textwrap

from mpsgen.errors import EXIT_OK


ADOPTION = """\
Choose rules with `mpsgen check --select CODES` / `--ignore CODES` (codes or names, comma-separated).
Silence one finding with `// mpsgen: ignore[CODE]` in .mm/.metal/.cpp/.h, `# mpsgen: ignore[CODE]` in yaml/.py,
on the finding's line or the line above.  `mpsgen check --write-baseline FILE` records today's findings;
`mpsgen check --baseline FILE` then fails only on new ones (keyed by code, file and message, not line).
"""


def run_rules(*, code: str | None, fmt: str) -> int:
    """Print every rule (one line each), or one rule's long description, in *fmt* (text, json, markdown)."""
    from mpsgen.lint import rules

    chosen = (rules.get(code),) if code else rules.all_rules()
    if fmt == "json":
        docs = [{"code": r.code, "name": r.name, "severity": r.severity, "summary": r.summary,
                 "description": r.description} for r in chosen]
        sys.stdout.write(json.dumps(docs[0] if code else docs, indent=2) + "\n")
    elif fmt == "markdown" and not code:
        sys.stdout.write(rules.markdown_table())
    elif code:
        (r,) = chosen
        head = f"{r.code} {r.name} ({r.severity})"
        if fmt == "markdown":
            sys.stdout.write(f"## {head}\n\n{r.summary}.\n\n{r.description}\n")
        else:
            summary = textwrap.fill(r.summary + ".", 100)
            sys.stdout.write(f"{head}\n{summary}\n\n{r.description}\n\n"
                             f"Silence one finding: `// mpsgen: ignore[{r.code}]` (`# mpsgen: ignore[{r.code}]` in "
                             f"yaml/.py) on its line or the line above; skip the rule: `mpsgen check --ignore {r.code}`.\n")
    else:
        width = max(len(r.name) for r in chosen)
        for r in chosen:
            sys.stdout.write(f"{r.code}  {r.name:<{width}}  {r.severity:<7}  {r.summary}\n")
        sys.stdout.write("`mpsgen rules CODE` explains one.\n" + ADOPTION)
    return EXIT_OK
