"""The rules of `mpsgen check`, in one registry (modelled on pylint's checkers).

Each rule is a function `Inventory -> findings` in a module of this package, decorated with
`@rule(code, name, severity, summary)`; its docstring is the long description (which defect it
detects: a link error, a runtime error, or a half-done migration mpsgen can finish, and how to fix
it).  One function per code.  The modules are discovered on first use, so adding a rule is adding
a decorated function; `mpsgen rules [CODE]` and the table of docs/rules.md are generated from here.

The rules ask the Inventory only for: yaml_rel, yaml (empty_dispatch), index, mps_entries,
yaml_kernels, stub_use(), stub_declarations, legacy_definitions(), definitions, registrations,
registration_backend(), macro_arguments, native_identifiers, shared_kernels (users(), spelling(),
text()), mm_mps_identifier_counts, mm_files, mps_files, metal_files, host_calls, metal_stems(),
metal_names, functor_uses, metal_indexes, test_tables, opinfo_strings and checkout.read_text, and
lint/wiring.py's facts of the same Inventory; an index that answers these can replace it.
"""

from __future__ import annotations

import functools
import importlib
import os
from typing import TYPE_CHECKING, Callable, Iterable

from mpsgen.errors import MpsgenError
from mpsgen.lint.finding import ERROR, SEVERITIES, WARNING, Basis, Finding, bases, sort_key

if TYPE_CHECKING:
    from mpsgen.lint.inventory import Inventory

__all__ = ["ERROR", "WARNING", "Rule", "rule", "all_rules", "get", "run_checks", "markdown_table"]

Check = Callable[["Inventory"], Iterable[Finding]]


class Rule:
    """One rule: its metadata and its check function; compared and hashed by the metadata, as a
    frozen dataclass (a plain class: creating the dataclass cost ~1 ms of every run's start)."""

    __slots__ = ("code", "name", "severity", "summary", "check")

    code: str  # stable: never renumber, only append
    name: str  # symbolic name, e.g. "split-family"
    severity: str  # ERROR: the tree does not build or fails at run time; WARNING: leftovers, unfinished work
    summary: str  # one line
    check: Check  # its docstring is the rule's description

    def __init__(self, code: str, name: str, severity: str, summary: str, check: Check) -> None:
        for field, value in zip(self.__slots__, (code, name, severity, summary, check)):
            object.__setattr__(self, field, value)

    @property
    def description(self) -> str:
        """What defect it detects and how to fix it: the check function's docstring, dedented (inspect,
        with ast and tokenize, is imported only then: `mpsgen rules` asks, `check` does not)."""
        import inspect

        return inspect.cleandoc(self.check.__doc__ or "")

    def _metadata(self) -> tuple[str, ...]:
        return self.code, self.name, self.severity, self.summary, self.description

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"cannot assign to field {name!r} of a Rule")

    def __eq__(self, other: object) -> bool:
        return self._metadata() == other._metadata() if other.__class__ is self.__class__ else NotImplemented

    def __hash__(self) -> int:
        return hash(self._metadata())

    def __repr__(self) -> str:
        fields = ("code", "name", "severity", "summary", "description")
        return "Rule(" + ", ".join(f"{k}={v!r}" for k, v in zip(fields, self._metadata())) + ")"

    def __call__(self, inv: "Inventory") -> Iterable[Finding]:
        return self.check(inv)

    def finding(self, path: str, line: int, message: str, *, col: int = 1, hint: str | None = None,
                rests_on: Iterable[str | Basis] = ()) -> Finding:
        """A finding of this rule, with its code and severity; *rests_on*: the other files it rests on."""
        return Finding(path=path, line=line, col=col, code=self.code, severity=self.severity, message=message, hint=hint,
                       rests_on=tuple([b for b in bases(rests_on) if b.path != path]))


_REGISTRY: dict[str, Rule] = {}


def rule(code: str, name: str, severity: str, summary: str) -> Callable[[Check], Rule]:
    """Register the decorated check function as rule *code*; its docstring is the long description."""

    def register(fn: Check) -> Rule:
        if severity not in SEVERITIES:
            raise ValueError(f"{code}: severity must be one of {SEVERITIES}")
        if not fn.__doc__:
            raise ValueError(f"{code}: the rule function {fn.__name__} needs a docstring (its long description)")
        taken = _REGISTRY.get(code)
        if taken is not None and taken.check is not fn:
            raise ValueError(f"rule code {code} is emitted by two functions: {taken.check.__name__} and {fn.__name__}")
        r = Rule(code, name, severity, summary, fn)
        _REGISTRY[code] = r
        return r

    return register


@functools.cache  # once: a rule module imported on its own before (a test's) must not stop the others
def _discover() -> None:
    """Import each module and subpackage of this package, by file name (pkgutil.iter_modules' order;
    importing pkgutil cost ~2 M instructions of every check)."""
    for folder in __path__:
        for name in sorted(os.listdir(folder)):
            if name.endswith(".py") and name != "__init__.py":
                importlib.import_module(f"{__name__}.{name[:-3]}")
            elif "." not in name and os.path.isfile(os.path.join(folder, name, "__init__.py")):
                importlib.import_module(f"{__name__}.{name}")


def all_rules() -> tuple[Rule, ...]:
    """Every rule, by code."""
    _discover()
    return tuple(_REGISTRY[c] for c in sorted(_REGISTRY))


def get(code_or_name: str) -> Rule:
    """The rule with this code (MPS001, case-insensitive) or symbolic name (split-family)."""
    key = code_or_name.strip()
    for r in all_rules():
        if key.upper() == r.code or key.lower() == r.name:
            return r
    raise MpsgenError(f"no rule {code_or_name!r}", hint="`mpsgen rules` lists them: "
                      + ", ".join(r.code for r in all_rules()))


def run_checks(inv: "Inventory", rules: Iterable[Rule] | None = None) -> list[Finding]:
    """Every rule (or *rules*) over the whole tree, sorted by place."""
    findings = [f for r in (all_rules() if rules is None else rules) for f in r(inv)]
    return sorted(findings, key=sort_key)


def markdown_table() -> str:
    """The rule table (docs/rules.md carries it; docs/regenerate.py writes it)."""
    out = ["| code | name | severity | rule |", "|---|---|---|---|"]
    out += [f"| {r.code} | `{r.name}` | {r.severity} | {r.summary} |" for r in all_rules()]
    return "\n".join(out) + "\n"
