"""The compile check's findings (`mpsgen check --compile`): diagnostics a change adds to a .mm or .metal."""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterator

from mpsgen.lint.finding import Finding
from mpsgen.lint.rules import ERROR, rule

if TYPE_CHECKING:
    from mpsgen.lint.inventory import Inventory


@rule("MPS030", "compile-error", ERROR,
      "with --compile: a changed .mm or .metal file has a compiler error its HEAD version has not")
def compile_error(inv: "Inventory") -> Iterator[Finding]:
    """A compile error only a compiler sees: a call to a function the change deleted (or whose yaml line
    it removed, so its generated `ATen/ops/*_native.h` declaration is gone), an include the file still
    needs, a host kernel whose parameters no longer match its stub's `DECLARE_DISPATCH` type, a
    misspelled function in a functor or dtype in a registration.

    Runs only with `mpsgen check --compile [FILE…]`, without a Mac: each changed `operations/*.mm` is
    compiled as Objective-C++ (libclang, `-fsyntax-only`) against the checkout's headers, the ATen
    headers torchgen generates from its yaml and a stub of the Apple frameworks; each changed
    `kernels/*.metal` as a whole under mpsgen's Metal emulation with the checkout's c10/metal headers,
    every REGISTER_* macro expanded.  A changed yaml or header brings in the files it affects.  Only a
    diagnostic the file's HEAD version does not have is reported, at the file's line (a REGISTER_*
    line for an error inside its macro; the include or instantiation for one inside a header).

    Fix: what the compiler says; `git diff` shows the lines that brought it.
    """
    return iter(())
