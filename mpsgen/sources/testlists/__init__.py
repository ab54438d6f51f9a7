"""Test lists: the op's entries in common_mps.py and its MPS DecorateInfos in OpInfos.

Readers and editors are pure functions on texts (no file I/O):

* `opinfo_keys(cmi_text, definitions, op)`: the op's OpInfos and their common_mps.py keys.
* `plan_common_mps(text, keys, supported_dtypes=, complex_action=)`: xfail/skip tables, SUPPORTED_COMPLEX_OPS.
* `plan_opinfo_decorators(text, refs, tests=)`: MPS expectedFailure/skip DecorateInfos.
* `plan_test_lists(...)`: all of the above for one op.
* `stale_keys(common_mps_text, cmi_text, definitions)`: table keys naming no OpInfo (`mpsgen check`).

The names are imported from their modules on first use: `check` reads the tables alone (tables.py),
and the editors' modules cost it ~8 M instructions to import.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mpsgen.sources.testlists.commonmps import COMPLEX_SET, ComplexAction, entries, plan_common_mps
    from mpsgen.sources.testlists.decorators import DEFAULT_TESTS, plan_opinfo_decorators
    from mpsgen.sources.testlists.opinfos import all_opinfos, backward_opinfos, name_candidates, opinfo_keys
    from mpsgen.sources.testlists.plan import TestListPlan, gradient_opinfos, plan_test_lists, stale_keys
    from mpsgen.sources.testlists.records import Change, OpInfoRef, TableEntry

__all__ = [
    "COMPLEX_SET",
    "DEFAULT_TESTS",
    "Change",
    "ComplexAction",
    "OpInfoRef",
    "TableEntry",
    "TestListPlan",
    "entries",
    "name_candidates",
    "opinfo_keys",
    "plan_common_mps",
    "plan_opinfo_decorators",
    "plan_test_lists",
    "stale_keys",
    "gradient_opinfos",
]

# Each name, and the module of this package that defines it.
_MODULE_OF = {
    **dict.fromkeys(("COMPLEX_SET", "ComplexAction", "entries", "plan_common_mps"), "commonmps"),
    **dict.fromkeys(("DEFAULT_TESTS", "plan_opinfo_decorators"), "decorators"),
    **dict.fromkeys(("all_opinfos", "backward_opinfos", "name_candidates", "opinfo_keys"), "opinfos"),
    **dict.fromkeys(("TestListPlan", "gradient_opinfos", "plan_test_lists", "stale_keys"), "plan"),
    **dict.fromkeys(("Change", "OpInfoRef", "TableEntry"), "records"),
}


def __getattr__(name: str) -> object:
    module = _MODULE_OF.get(name)
    if module is None:  # a submodule (`from mpsgen.sources.testlists import dtypes`) is then imported as usual
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value  # found directly from now on
    return value
