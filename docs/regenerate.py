"""Rewrite the generated tables of docs/: the catalog's coverage (docs/catalog.md, from
templates/catalog.yaml) and the rules of `mpsgen check` (docs/rules.md, from mpsgen/lint/rules).
Each table sits between two HTML comments; only the text between them is replaced.

    python docs/regenerate.py           # rewrite what is out of date, name each file rewritten
    python docs/regenerate.py --check   # exit 1, naming the files, when a table is out of date

tests/test_catalog_table.py and tests/test_rules.py fail when a table is out of date.  The measured
figures of docs/benchmarks.md are written by benchmarks/docs_figures.py, which needs real trees.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))  # this checkout's mpsgen, installed or not

from mpsgen.generate import catalog_table  # noqa: E402
from mpsgen.lint import rules  # noqa: E402

RULES_BEGIN = "<!-- rules: generated from mpsgen/lint/rules by docs/regenerate.py; do not edit -->"
RULES_END = "<!-- end rules -->"


def between(text: str, begin: str, end: str, body: str) -> str:
    """*text* with what lies between the *begin* and *end* lines replaced by *body*."""
    if begin not in text or end not in text:
        raise SystemExit(f"markers not found: {begin} ... {end}")
    head, _, rest = text.partition(begin)
    _, _, tail = rest.partition(end)
    return f"{head}{begin}\n{body.rstrip()}\n{end}{tail}"


def regenerated() -> dict[Path, str]:
    """Each generated file's path and its text with current tables."""
    catalog_md = REPO / "docs" / "catalog.md"
    rules_md = REPO / "docs" / "rules.md"
    return {
        catalog_md: catalog_table.with_table(catalog_md.read_text(encoding="utf-8")),
        rules_md: between(rules_md.read_text(encoding="utf-8"), RULES_BEGIN, RULES_END, rules.markdown_table()),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 when a table is out of date")
    args = parser.parse_args()
    stale = [path for path, text in regenerated().items() if path.read_text(encoding="utf-8") != text]
    for path in stale:
        rel = path.relative_to(REPO)
        if args.check:
            print(f"{rel}: out of date (python docs/regenerate.py)")
        else:
            path.write_text(regenerated()[path], encoding="utf-8")
            print(f"rewrote {rel}")
    return 1 if args.check and stale else 0


if __name__ == "__main__":
    sys.exit(main())
