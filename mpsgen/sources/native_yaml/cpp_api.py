"""The `at::` function torchgen generates for a native_functions.yaml entry, and what kind of variant it is.

An out variant (a keyword-only `Tensor(a!)` argument: `logical_not.out`) gets `at::<base>_out(out...,
args...)` and `at::<base>_outf(args..., out...)`; the latter takes the schema's order, which is also the
order of the native kernel's parameters (`logical_not_out_mps(self, out)`), so a call of the kernel
becomes a call of `at::<base>_outf` with the same arguments.  Any other entry gets `at::<base>(...)`
when its `variants:` name `function` (the default), and no free function when they name only
`method` (`floor_divide_.Tensor`).
"""

from __future__ import annotations

import re

from mpsgen.scan.brackets import split_top_level
from mpsgen.scan.lines import split_lines
from mpsgen.sources.native_yaml.facts import Entry, family_key

_VARIANTS = re.compile(r"^\s+variants:\s*([\w, ]+?)\s*(?:#.*)?$")


def _arguments(entry: Entry) -> list[str]:
    func = entry.func
    end = func.rindex(") ->") if ") ->" in func else func.rindex(")")
    return [p.strip() for p in split_top_level(func[func.index("(") + 1 : end]) if p.strip()]


def argument_count(entry: Entry) -> int:
    """How many parameters the entry's native kernel (and its `at::` function) takes: the schema's
    arguments, out arguments included."""
    return sum(1 for part in _arguments(entry) if part != "*")


def is_out_variant(entry: Entry) -> bool:
    """A keyword-only argument it writes (`*, Tensor(a!) out`)."""
    parts = _arguments(entry)
    return "*" in parts and any("!" in p.split()[0] for p in parts[parts.index("*") + 1 :])


def has_function_variant(entry: Entry, yaml_text: str) -> bool:
    """Whether torchgen writes a free `at::` function for the entry (its `variants:` name `function`)."""
    for line in split_lines(yaml_text)[entry.line - 1 : entry.end_line]:
        m = _VARIANTS.match(line.rstrip("\r\n"))
        if m:
            return "function" in [v.strip() for v in m.group(1).split(",")]
    return True


def at_function(entry: Entry, yaml_text: str) -> str | None:
    """The `at::` function taking the native kernel's arguments in their order, or None when there is none."""
    if is_out_variant(entry):
        return f"at::{entry.base}_outf"
    return f"at::{entry.base}" if has_function_variant(entry, yaml_text) else None


def at_spellings(entry: Entry) -> tuple[str, ...]:
    """The names (without `at::`) code calls the entry's op by through the dispatcher."""
    if is_out_variant(entry):
        return (f"{entry.base}_out", f"{entry.base}_outf")
    return (entry.base,)


def op_header(entry: Entry) -> str:
    """The per-operator header declaring the entry's `at::` functions."""
    return f"ATen/ops/{family_key(entry.base)}.h"
