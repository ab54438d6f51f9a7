"""`mpsgen status`: the migration dashboard, or one family's details."""

from __future__ import annotations

import sys

from mpsgen.errors import EXIT_OK
from mpsgen.tree.checkout import Checkout


def run_status(checkout: Checkout, *, fmt: str, op: str | None, cache: bool = True) -> int:
    """Print the migration dashboard (or one family's details with *op*); with *cache*, facts of
    files unchanged since an earlier run are re-used (tree/factcache.py)."""
    from mpsgen.lint import status
    from mpsgen.lint.inventory import Inventory
    from mpsgen.tree.factcache import FactCache

    inv = Inventory(checkout, FactCache.for_root(checkout.root, enabled=cache))
    if op is None:
        inv.start_native_search()  # a child reads native/*.cpp on the second core while this one parses the yaml,
        inv.prefetch_stub_uses()  # then searches it for the yaml's kernels, while the frontier's
        inv.read_while_searching(("definitions", "registrations", "stub_declarations"))  # other facts are read here
    if op is not None:
        out = status.render_details(status.family_details(inv, op), fmt)
    else:
        out = status.render_dashboard(status.dashboard(inv), fmt)
    inv.save_facts()
    sys.stdout.write(out)
    return EXIT_OK
