"""`mpsgen sample DEST`: write the bundled sample checkout, git-initialised."""

from __future__ import annotations

from pathlib import Path

import click

from mpsgen.errors import EXIT_OK


def run_sample(*, dest: Path) -> int:
    from mpsgen.tree.sample import write_sample

    root = write_sample(dest)
    click.echo(f"sample checkout written to {root}")
    click.echo(f"try: mpsgen -C {root} status   or   mpsgen -C {root} migrate atan2")
    return EXIT_OK
