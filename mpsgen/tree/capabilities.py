"""The checkout's Capabilities (sources/capabilities) as its files on disk say: what lint, the numeric check
and the compile check read, once per run.  A plan reads them from its changeset instead
(plan/texts.capabilities), so that what the change adds counts."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from mpsgen.sources.capabilities import Capabilities, Source
from mpsgen.tree.checkout import Checkout

def of_checkout(checkout: Checkout) -> Capabilities:
    """The checkout's, its files read as the checkout reads them (strictly, once)."""
    caps = checkout.capabilities_memo
    if not isinstance(caps, Capabilities):
        source = Source(read=checkout.read_text, exists=lambda rel: checkout.path(rel).is_file(),
                        c10_headers=tuple(checkout.rel(p) for p in checkout.c10_metal_headers()))
        caps = checkout.capabilities_memo = Capabilities(source)
    return caps


@lru_cache(maxsize=None)
def of_root(root: str | Path) -> Capabilities:
    """Those of the tree at *root*, a checkout or the overlay root the emulation compiles against (its
    files linked from the checkout's), read leniently: a build setting in another encoding is no error."""
    base = Path(root)

    def read(rel: str) -> str:
        return (base / rel).read_text(encoding="utf-8", errors="replace")

    headers = tuple(str(p.relative_to(base)) for p in sorted((base / "c10/metal").glob("*.h")))
    return Capabilities(Source(read=read, exists=lambda rel: (base / rel).is_file(), c10_headers=headers))
