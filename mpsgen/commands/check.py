"""`mpsgen check`: analyse the whole tree once, report findings (for CI, pre-commit, lintrunner)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

from mpsgen.tree.checkout import Checkout, read_text_file
from mpsgen.scan.lines import plain_lines

if TYPE_CHECKING:
    from mpsgen.lint.finding import Finding


def expand_path_args(paths: tuple[str, ...] | list[str]) -> list[str]:
    """`@FILE` stands for the paths listed in FILE, one a line (lintrunner's {{PATHSFILE}})."""
    out: list[str] = []
    for p in paths:
        if p.startswith("@") and len(p) > 1:
            out += [ln.strip() for ln in plain_lines(read_text_file(Path(p[1:]))) if ln.strip()]
        else:
            out.append(p)
    return out


def run_check(checkout: Checkout, *, paths: tuple[str, ...], fmt: str, cache: bool = True,
              select: tuple[str, ...] = (), ignore: tuple[str, ...] = (),
              baseline: str | None = None, write_baseline: str | None = None, compile_files: bool = False) -> int:
    """Analyse the whole tree; print the findings in *paths* (all when empty), and those resting on
    them, in *fmt*; exit code.  With *cache*, facts of files unchanged since an earlier run are
    re-used (tree/factcache.py).  *select*/*ignore* choose rules; findings silenced inline are
    dropped; with *baseline* only findings it does not hold are reported; *write_baseline* writes one.
    With *compile_files*, the .mm/.metal files in *paths* (none: every file changed since HEAD), and those a
    changed yaml or header affects, are compiled too (compiler/change.py)."""
    from mpsgen.lint import adoption, report
    from mpsgen.lint.finding import sort_key
    from mpsgen.lint.inventory import Inventory
    from mpsgen.lint.rules import all_rules, run_checks
    from mpsgen.tree.factcache import FactCache

    wanted = expand_path_args(paths)
    codes = adoption.chosen_codes(select, ignore)
    known = adoption.read_baseline(Path(baseline)) if baseline else None
    inv = Inventory(checkout, FactCache.for_root(checkout.root, enabled=cache))
    inv.start_native_search()  # a child reads native/*.cpp on the second core while this one parses the yaml,
    inv.prefetch_stub_uses()  # then searches it for the yaml's kernels, while this one reads the other files
    inv.read_while_searching(("definitions", "registrations", "_host_facts", "metal_names", "metal_indexes",
                              "functor_uses", "test_tables", "opinfo_strings"))
    findings = run_checks(inv, None if codes is None else [r for r in all_rules() if r.code in codes])
    inv.save_facts()
    findings = adoption.unsuppressed(findings, lambda rel: checkout.read_text(checkout.root / rel))
    if compile_files and (codes is None or "MPS030" in codes):
        findings = sorted([*findings, *compile_findings(checkout, wanted if paths else None)], key=sort_key)
    if paths:
        # An empty path list from lintrunner/pre-commit means "no files": report nothing.
        findings = report.filter_to_paths(findings, wanted, checkout.root) if wanted else []
    if write_baseline:
        n = adoption.write_baseline(findings, Path(write_baseline))
        sys.stdout.write(f"Wrote {n} finding{'' if n == 1 else 's'} to the baseline {write_baseline}.\n")
        return 0
    if known is not None:
        findings = adoption.new_findings(findings, known)
    color = fmt == "text" and sys.stdout.isatty()
    sys.stdout.write(report.render(findings, fmt, checkout.root, color=color))
    if fmt == "text" and not findings:
        sys.stdout.write("No new problems (the rest are in the baseline).\n" if known else "No problems found.\n")
    return report.exit_code(findings, fmt)


def compile_findings(checkout: Checkout, paths: list[str] | None) -> list[Finding]:
    """MPS030 findings: the diagnostics compiling *paths* (None: the files changed since HEAD) adds to
    their HEAD versions.  A compiler that is missing is said on stderr, not a finding."""
    from mpsgen.compiler.change import compile_change
    from mpsgen.lint.rules import get
    from mpsgen.tree.factcache import cache_root
    from mpsgen.tree.gitops import changed_since_head, head_texts

    root = checkout.root
    rels = [_relative(root, p) for p in paths] if paths is not None else changed_since_head(root)
    rels = [r for r in dict.fromkeys(rels) if r.endswith((".mm", ".metal", ".h", ".yaml")) and (root / r).is_file()]
    after = {rel: checkout.read_text(root / rel) for rel in rels}
    before = head_texts(root, rels)

    def disk_text(rel: str) -> str | None:
        return checkout.read_text(root / rel) if (root / rel).is_file() else None

    result = compile_change(root, after, before, disk_text=disk_text, cache_dir=cache_root() / "compile")
    for line in result.skipped:
        sys.stderr.write(f"mpsgen check --compile: {line}\n")
    error = get("MPS030")
    # a file the change leaves alone (a .mm naming a removed yaml kernel) is reported with the files it
    # rests on, so a pre-commit run naming only the yaml shows it
    return [error.finding(d.path, d.line, d.message, col=d.col, rests_on=rels) for d in result.findings]


def _relative(root: Path, path: str) -> str:
    p = Path(path)
    return (p.resolve().relative_to(root.resolve()) if p.is_absolute() else p).as_posix()
