"""`mpsgen check`: analyse the whole tree once, report findings (for CI, pre-commit, lintrunner)."""

from __future__ import annotations

import sys
from pathlib import Path

from mpsgen.tree.checkout import Checkout, read_text_file


def expand_path_args(paths: tuple[str, ...] | list[str]) -> list[str]:
    """`@FILE` stands for the paths listed in FILE, one a line (lintrunner's {{PATHSFILE}})."""
    out: list[str] = []
    for p in paths:
        if p.startswith("@") and len(p) > 1:
            out += [ln.strip() for ln in read_text_file(Path(p[1:])).splitlines() if ln.strip()]
        else:
            out.append(p)
    return out


def run_check(checkout: Checkout, *, paths: tuple[str, ...], fmt: str, cache: bool = True) -> int:
    """Analyse the whole tree; print the findings in *paths* (all when empty) in *fmt*; exit code.
    With *cache*, facts of files unchanged since an earlier run are re-used (tree/factcache.py)."""
    from mpsgen.lint import report
    from mpsgen.lint.inventory import Inventory
    from mpsgen.lint.rules import run_checks
    from mpsgen.tree.factcache import FactCache

    wanted = expand_path_args(paths)
    inv = Inventory(checkout, FactCache.for_root(checkout.root, enabled=cache))
    inv.start_native_search()  # a child reads native/*.cpp on the second core while this one parses the yaml,
    inv.prefetch_stub_uses()  # then searches it for the yaml's kernels, while this one reads the other files
    inv.read_while_searching(("definitions", "registrations", "_host_facts", "metal_names", "metal_kernels",
                              "functor_uses", "test_tables", "opinfo_strings"))
    findings = run_checks(inv)
    inv.save_facts()
    if paths:
        # An empty path list from lintrunner/pre-commit means "no files": report nothing.
        findings = report.filter_to_paths(findings, wanted, checkout.root) if wanted else []
    color = fmt == "text" and sys.stdout.isatty()
    sys.stdout.write(report.render(findings, fmt, checkout.root, color=color))
    if fmt == "text" and not findings:
        sys.stdout.write("No problems found.\n")
    return report.exit_code(findings, fmt)
