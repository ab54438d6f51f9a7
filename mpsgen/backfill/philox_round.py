"""c10/metal/random.h's Philox round as 2.7 wrote it: `single_round` takes each 64-bit product's halves
the wrong way round (`mulhilo` returns (hi, lo), and 2.7 XORs the low half into the next counter word
where Philox-4x32 XORs the high one).  Later checkouts correct it (the 2026-shaped tree, 2.13).  The
random kind draws from this round, so its change carries the correction; the numeric check compares the
emulated round with torch's own Philox4_32 bit for bit."""

from __future__ import annotations

import re

# rc0 = mulhilo(SA, ctr.x), rc1 = mulhilo(SB, ctr.z): (hi, lo) each
_SWAPPED = re.compile(r"return\s+uint4\(\s*rc1\.y\s*\^\s*ctr\.y\s*\^\s*key\.x\s*,\s*rc1\.x\s*,"
                      r"\s*rc0\.y\s*\^\s*ctr\.w\s*\^\s*key\.y\s*,\s*rc0\.x\s*\);")
_RIGHT = "return uint4(rc1.x ^ ctr.y ^ key.x, rc1.y, rc0.x ^ ctr.w ^ key.y, rc0.y);"


def corrected_round(text: str) -> str | None:
    """*text* (c10/metal/random.h) with 2.7's swapped halves corrected, or None when it has no such line."""
    found = _SWAPPED.search(text)
    if found is None:
        return None
    return text[: found.start()] + _RIGHT + text[found.end():]
