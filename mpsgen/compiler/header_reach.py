"""Which headers a change's header edits reach, and what each carries: the names the edit declares
(scan/declared.py; None for an edit that reaches every includer).

A header that includes an edited one passes the edit on to its own includers (an operations/*.mm
sees MetalShaderLibrary.h through OperationUtils.h), so the reach is followed through the
checkout's MPS and c10/metal headers until it stops growing; a header reached through several
edited ones carries all their names, None if one of them does.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable, Mapping

from mpsgen.scan.declared import changed_declarations
from mpsgen.scan.includes import included_names

MPS_DIR = "aten/src/ATen/native/mps"
# the headers an operations/*.mm or kernels/*.metal file reaches the edited ones through
_HEADER_DIRS = (MPS_DIR, f"{MPS_DIR}/kernels", "c10/metal")


def reached_headers(root: Path, after: Mapping[str, str], before: Mapping[str, str | None],
                    disk_text: Callable[[str], str | None],
                    beyond_disk: tuple[str, ...] = ()) -> dict[str, frozenset[str] | None]:
    """File name -> what reaches it, for each header *after* edits and each header including one."""
    reach: dict[str, frozenset[str] | None] = {
        Path(rel).name: changed_declarations(before.get(rel) or "", text)
        for rel, text in after.items() if rel.endswith(".h")}
    if not reach:
        return reach
    others = {rel for d in _HEADER_DIRS for rel in (p.relative_to(root).as_posix() for p in (root / d).glob("*.h"))}
    others |= {rel for rel in beyond_disk if rel.endswith(".h") and Path(rel).parent.as_posix() in _HEADER_DIRS}
    texts = {rel: after[rel] if rel in after else disk_text(rel) or "" for rel in sorted(others)}
    grown = True
    while grown:  # each round adds the headers including one reached in the rounds before
        grown = False
        for rel, text in texts.items():
            name = Path(rel).name
            via = [reach[h] for h in sorted(included_names(text) & reach.keys())] if name not in reach else []
            if via:
                reach[name] = None if any(v is None for v in via) else frozenset(n for v in via for n in v or ())
                grown = True
    return reach
