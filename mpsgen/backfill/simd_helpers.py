"""c10/metal/reduction_utils.h: whether it has the simdgroup helpers the reduction kind's kernels call
(c10::metal::simd_sum/simd_max/simd_min, 2.13's names), their text (templates/reduction_simd_helpers.h.j2),
and the editor adding them to a header that lacks them (2.7's holds threadgroup_* loops only)."""

from __future__ import annotations

import re
from pathlib import Path

from mpsgen.errors import MpsgenError
from mpsgen.scan.mask import blank_comments

REL = "c10/metal/reduction_utils.h"
HELPERS = ("simd_sum", "simd_max", "simd_min")
_CLOSE = re.compile(r"^\}\s*//\s*namespace metal\s*$", re.MULTILINE)


def has_simd_helpers(text: str) -> bool:
    """Whether the header defines every helper of HELPERS in c10::metal (outside comments)."""
    code = blank_comments(text)
    return all(re.search(rf"\b{name}\s*\(\s*\w+\s+\w+\s*\)\s*\{{", code) for name in HELPERS)


def render_simd_helpers(*, bfloat_guarded: bool, templates_dir: str | Path | None) -> str:
    """The helpers' text (bfloat's overloads inside the checkout's bfloat guard when *bfloat_guarded*)."""
    from mpsgen.generate.templating import render_template

    return render_template("reduction_simd_helpers.h.j2", templates_dir, bfloat_guarded=bfloat_guarded) + "\n"


def with_simd_helpers(text: str, helpers: str, path: str = REL) -> str:
    """*text* with *helpers* before its `} // namespace metal` line, a blank line before them."""
    found = list(_CLOSE.finditer(text))
    if not found:
        raise MpsgenError("no `} // namespace metal` line to add the simdgroup helpers before", path=path,
                          hint="add c10::metal::simd_sum/simd_max/simd_min by hand (2.13's reduction_utils.h)")
    at = found[-1].start()
    nl = "\r\n" if "\r\n" in text else "\n"
    block = helpers.rstrip("\n").replace("\n", nl) + nl + nl
    return text[:at] + block + text[at:]
