"""The catalog's coverage as a markdown table (docs/catalog.md carries it between markers; docs/regenerate.py
writes it, tests/test_catalog_table.py keeps it current)."""

from __future__ import annotations

from mpsgen.backfill import c10_shims
from mpsgen.generate import catalog

BEGIN = "<!-- catalog-coverage: generated from templates/catalog.yaml by docs/regenerate.py; do not edit -->"
END = "<!-- end catalog-coverage -->"


def coverage_table() -> str:
    """One row per catalog op: the CPU kernel its body follows, its dtype groups, and the c10::metal
    helpers a 2.7 checkout lacks that it carries as stand-ins."""
    rows = ["| op | follows (CPU kernel) | dtypes | stand-ins on 2.7 |", "|---|---|---|---|"]
    for op, entry in sorted(catalog.load_catalog().items()):
        bodies = (entry.get("expr"), entry.get("int_expr"), entry.get("complex_expr"), entry.get("bool_expr"))
        calls = {n for body in bodies if body for n in c10_shims.called(str(body))}
        shims = ", ".join(sorted(calls & (set(c10_shims.SHIMS) - c10_shims.ON_2_7))) or "-"
        follows = str(entry.get("follows", "")).replace("|", "\\|")
        rows.append(f"| {op} | {follows} | {', '.join(entry.get('dtypes', ['float']))} | {shims} |")
    return "\n".join(rows)


def with_table(readme: str) -> str:
    """*readme* (the text of docs/catalog.md) with the text between the markers replaced by the current table."""
    head, _, rest = readme.partition(BEGIN)
    _, _, tail = rest.partition(END)
    return f"{head}{BEGIN}\n{coverage_table()}\n{END}{tail}"

