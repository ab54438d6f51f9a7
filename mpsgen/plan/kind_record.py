"""The record every kind writing its own .metal and host kernel returns from its code phase (the nullary,
indexing, random and reduction kinds): the fields the Plan, `--print` and the checks read alike.  Each kind's
record (plan/<kind>_record.py) adds what only it has."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mpsgen.plan.dtypes import Row
    from mpsgen.plan.texts import TextEdit


@dataclass(frozen=True)
class KindCode:
    """What a kind's code phase planned (kept: the stub already runs a kernel that is not MPSGraph)."""

    kernel: str = ""  # the kernels' name or prefix: fill -> fill_dense_<T>, reduce_sum -> reduce_sum_<T>
    metal_path: str = ""
    mm_path: str = ""
    metal_text: str = ""  # the kernels as rendered (the numeric check compiles the planned file)
    host_code: str = ""
    register_line: str = ""
    rows: tuple[Row, ...] = ()
    edits: tuple[TextEdit, ...] = ()
    added: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    kept: str = ""  # why nothing was written: the stub's registration
