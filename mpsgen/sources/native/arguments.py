"""What a shared kernel passes a stub, as C++ argument text (StubCall.extra_args): a plain name, a number,
or an argument read through an optional (`min.get()`, `*rounding_mode`)."""

from __future__ import annotations

import re


def is_name(arg: str) -> bool:
    """`threshold`, not `-alpha` nor `Scalar(eps)`."""
    return re.fullmatch(r"[A-Za-z_]\w*", arg) is not None


def is_number(arg: str) -> bool:
    """`0`, `-1`, `2.` or `0.5` (a literal the kernel always gets)."""
    return re.fullmatch(r"-?\d+(?:\.\d*)?", arg) is not None


def argument_read(arg: str) -> str:
    """The argument an expression reads as it is: clamp_out passes `min.get()`, div `*rounding_mode`;
    else *arg* itself."""
    m = re.fullmatch(r"\*?\s*([A-Za-z_]\w*)(?:\s*\.\s*(?:get|value)\s*\(\s*\))?", arg)
    return m.group(1) if m else arg
