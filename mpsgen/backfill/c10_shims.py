"""Stand-ins for c10/metal helpers an older checkout lacks (PyTorch 2.7 has no hypot, fmod, remainder,
xlogy, logaddexp, complex mul and conj, expm1f, erfcx or erfc; the sample has no zeta) or has less exactly than the
CPU (2.7's log1p), written as
member functions of the functor that needs them.

A catalog body that calls ``c10::metal::hypot(a, b)`` then calls ``hypot_(a, b)``, and the functor
carries ``hypot_``; the numeric check compiles and runs it against the checkout's own headers like any
other body.  Each stand-in follows the CPU semantics the helper has in newer c10/metal (edge cases
included); a helper with no stand-in here is refused by plan/era.py.  The stand-ins' Metal text lives in
templates/c10_shims/<name>.metal; this module decides which ones a functor carries, in which order, and why.
"""

from __future__ import annotations

import functools
import re
from typing import Callable

_WHY = "// this checkout's c10/metal has no {name}"


def _erfcx_from_catalog() -> str:
    """erfcx_ is the catalog's special_erfcx body (native/Math.h calc_erfcx, its 700-number table Y100 with
    it) as a member function: one copy of the table in the repository."""
    from mpsgen.generate.catalog import load_catalog

    body = str(load_catalog()["special_erfcx"]["expr"]).rstrip("\n").split("\n")
    return "\n".join(["inline float erfcx_(float x) {", *("  " + ln if ln else ln for ln in body), "}"])


# The stand-ins, each name's text in templates/c10_shims/<name>.metal (read only when a functor carries it),
# except those DERIVED from elsewhere.
SHIMS = frozenset({"hypot", "fmod", "remainder", "xlogy", "logaddexp", "mul", "conj", "log1p", "zeta", "expm1f",
                   "erfcx", "erfc"})
DERIVED: dict[str, Callable[[], str]] = {"erfcx": _erfcx_from_catalog}
SHIMS_DIR = "c10_shims"


def shim_text(name: str) -> str:
    """The stand-in for *name*: a member function (or several overloads) of the functor."""
    derive = DERIVED.get(name)
    return derive() if derive is not None else _packaged(name)


@functools.lru_cache(maxsize=None)
def _packaged(name: str) -> str:
    from mpsgen.generate.templating import default_templates_dir
    from mpsgen.tree.checkout import read_text_file

    text = read_text_file(default_templates_dir() / SHIMS_DIR / f"{name}.metal")
    return text[:-1] if text.endswith("\n") else text  # the file's own last newline; the functor places it


# Stand-ins that call another stand-in: the functor carries that one too, even where the checkout has it.
NEEDS = {"erfc": ("erfcx",)}
_WHY_NEEDED = "// {needer}_ calls it"

# Stand-ins for what 2.7's c10/metal does define (the sample's lacks it): not "stand-ins on 2.7".
ON_2_7 = frozenset({"zeta"})

# c10::metal helpers some checkouts define less exactly than the CPU computes them, each with the shape of
# that definition (in the headers' code, comments blanked): the functor carries its stand-in instead.
SUPERSEDED = {
    # 2.7's special_math.h: Metal's fast log of the rounded 1 + x above |x| = 1e-4, up to ~6e-4 relative off
    # there (the CPU's log1pf is exact to an ulp); mish_backward scales that error by grad_output.
    "log1p": re.compile(r"fabs\(x\)\s*>\s*1E-4\s*\)\s*\{\s*return\s+::metal::log\(\s*1\.\s*\+\s*x\s*\)"),
    # 2.13's expm1f.h (from MLX): its argument reduction f = a - j * log(2) subtracts only log(2)'s high part
    # (-6.93145752e-1f) and squares f next, where the Cody-Waite reduction it follows subtracts the low part
    # (-1.42860677e-6f * j) too: ~1.4e-6 * j relative off (783 ulp at 41.5; elu with input_scale < 0 meets it).
    "expm1f": re.compile(r"fma\(\s*j\s*,\s*-6\.93145752e-1f\s*,\s*a\s*\)\s*;\s*s\s*=\s*f\s*\*\s*f\s*;"),
}
_WHY_INEXACT = "// this checkout's c10/metal has no {name} as exact as the CPU's"

_CALL = re.compile(r"(?<![\w:])(?:::)?c10::metal::(\w+)\s*\(")


def called(body: str) -> list[str]:
    """The c10::metal functions *body* calls, in order, once each."""
    return list(dict.fromkeys(_CALL.findall(body)))


def redirect(body: str, names: set[str]) -> str:
    """*body* calling the functor's own stand-ins for *names* (``c10::metal::hypot(`` -> ``hypot_(``)."""
    return _CALL.sub(lambda m: f"{m.group(1)}_(" if m.group(1) in names else m.group(0), body)


def lacks(name: str, c10_code: str) -> bool:
    """Whether the checkout's c10/metal code (comments blanked) lacks *name*, or has it only in a form less
    exact than the CPU's (SUPERSEDED)."""
    if not re.search(rf"\b{name}\b", c10_code):
        return True
    inexact = SUPERSEDED.get(name)
    return inexact is not None and inexact.search(c10_code) is not None


def described(names: tuple[str, ...]) -> str:
    """What the checkout's c10/metal lacks, for the plan's note: "hypot, nor a log1p as exact as the CPU's"."""
    missing = ", ".join(n for n in names if n not in SUPERSEDED)
    inexact = " and ".join(n for n in names if n in SUPERSEDED)
    if not inexact:
        return missing
    return f"{missing}, nor a {inexact} as exact as the CPU's" if missing else f"{inexact} as exact as the CPU's"


def member_functions(names: tuple[str, ...]) -> list[str]:
    """The stand-ins' text, each after a comment saying why it is there; a stand-in another one calls
    (NEEDS) comes before it, once."""
    out = []
    for n in dict.fromkeys(m for name in names for m in (*NEEDS.get(name, ()), name)):
        if n in names:
            why = (_WHY_INEXACT if n in SUPERSEDED else _WHY).format(name=n)
        else:
            why = _WHY_NEEDED.format(needer=next(k for k in names if n in NEEDS.get(k, ())))
        out.append(f"{why}\n{shim_text(n)}")
    return out
