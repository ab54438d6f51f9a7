"""`mpsgen undo`: restore the files of the last applied change exactly."""

from __future__ import annotations

import click

from mpsgen.errors import EXIT_OK
from mpsgen.tree.checkout import Checkout


def run_undo(checkout: Checkout) -> int:
    from mpsgen.tree.changeset import undo

    restored = undo(checkout)
    if not restored:
        click.echo("nothing to undo")
    for path in restored:
        click.echo(f"restored {path}")
    return EXIT_OK
