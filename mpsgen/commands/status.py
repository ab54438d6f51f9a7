"""`mpsgen status`: the migration dashboard, or one family's details."""

from __future__ import annotations

import sys

from mpsgen.errors import EXIT_OK
from mpsgen.tree.checkout import Checkout


def run_status(checkout: Checkout, *, fmt: str, op: str | None) -> int:
    """Print the migration dashboard (or one family's details with *op*)."""
    from mpsgen.lint import status
    from mpsgen.lint.inventory import Inventory

    inv = Inventory(checkout)
    if op is not None:
        sys.stdout.write(status.render_details(status.family_details(inv, op), fmt))
    else:
        sys.stdout.write(status.render_dashboard(status.dashboard(inv), fmt))
    return EXIT_OK
