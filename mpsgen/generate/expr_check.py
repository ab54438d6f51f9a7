"""An --expr whose brackets do not close breaks the functor the planner places, and the structural
re-read would then blame the file ("the planned edit would change a statement it does not own").  Such
a functor is compiled first, so the user gets the compiler's error at its column, as any other
expression that does not compile gets it from the numeric check."""

from __future__ import annotations

from pathlib import Path

from mpsgen.errors import MpsgenError
from mpsgen.model import KernelOptions, KernelSpec

def balanced(code: str) -> bool:
    """Whether every bracket of *code* (strings and comments masked) closes, in order."""
    from mpsgen.scan.brackets import first_unbalanced
    from mpsgen.scan.mask import mask_code

    return first_unbalanced(mask_code(code)) is None


def require_compilable(spec: KernelSpec, functor: str, opts: KernelOptions, include_root: Path) -> None:
    """Raise the compiler's error for a user's expression that leaves the functor unbalanced; without a
    compiler, a one-line error naming the expression."""
    given = {flag: text for flag, text in (("--expr", opts.expr), ("--int-expr", opts.int_expr),
                                           ("--complex-expr", opts.complex_expr)) if text}
    if not given or balanced(functor):
        return
    from mpsgen.emulate.compile import ToolMissing, build

    try:
        build(spec, functor, include_root, expressions=given)
    except ToolMissing:
        pass
    except MpsgenError as err:
        err.hint = (err.hint + "; " if err.hint else "") + "nothing was written"
        raise
    flag = next((f for f, t in given.items() if not balanced(t)), next(iter(given)))
    raise MpsgenError(f"{flag} {given[flag]!r}: its brackets do not close", hint="fix the expression; nothing was written")
