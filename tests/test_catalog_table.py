"""docs/catalog.md's coverage table is the one the catalog generates.  After editing
templates/catalog.yaml, regenerate it with
    python docs/regenerate.py
"""

from __future__ import annotations

from pathlib import Path

from mpsgen.generate import catalog, catalog_table

CATALOG_MD = Path(__file__).resolve().parent.parent / "docs" / "catalog.md"


def test_docs_table_is_current() -> None:
    text = CATALOG_MD.read_text(encoding="utf-8")
    assert catalog_table.BEGIN in text and catalog_table.END in text
    assert catalog_table.with_table(text) == text, "regenerate it: see this file's docstring"


def test_table_has_one_row_per_op_with_its_cpu_kernel() -> None:
    rows = catalog_table.coverage_table().splitlines()[2:]
    ops = [r.split("|")[1].strip() for r in rows]
    assert ops == sorted(catalog.load_catalog())
    row = next(r for r in rows if r.startswith("| hypot |"))  # hypot's body computes it all: no stand-in
    assert "BinaryOpsKernel.cpp hypot_kernel" in row and row.endswith("| float | - |")
    row = next(r for r in rows if r.startswith("| sgn |"))  # z / |z| through c10::metal::hypot, 2.7 has none
    assert "sgn_kernel" in row and row.endswith("| float, integer, complex | hypot |")


def test_with_table_replaces_only_between_the_markers() -> None:
    text = f"intro\n{catalog_table.BEGIN}\nstale\n{catalog_table.END}\noutro\n"
    out = catalog_table.with_table(text)
    assert out.startswith("intro\n") and out.endswith("\noutro\n") and "stale" not in out
    assert "| atan2 |" in out
