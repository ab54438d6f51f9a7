"""`mpsgen undo`: restore the files of the last applied change exactly."""

from __future__ import annotations

import click

from mpsgen.errors import EXIT_OK
from mpsgen.tree.checkout import Checkout


def run_undo(checkout: Checkout) -> int:
    from mpsgen.tree.changeset import undo
    from mpsgen.tree.history import drop_if_reverted

    dropped = drop_if_reverted(checkout)
    if dropped is not None:
        what = f"`{dropped.label}`, applied {dropped.created}," if dropped.label else f"the change applied {dropped.created}"
        click.echo(f"the files of {what} are already as they were before it (reverted by hand): "
                   "dropped it from the undo stack, nothing written")
        return EXIT_OK
    restored = undo(checkout)
    if not restored:
        click.echo("nothing to undo")
    for path in restored:
        click.echo(f"restored {path}")
    return EXIT_OK
