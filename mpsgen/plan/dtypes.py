"""Which dtypes a new kernel registers, what MPS served before, and the guard against losing one.

The defaults come from the op itself: the dtypes its OpInfos declare for MPS (less what Metal cannot
hold), whether its integers promote to float (the OpInfo's `promotes_int_to_float`, else the CPU meta
function's `build_*_float_op`), and whether its result is bool.  "Before" reads the MPSGraph
implementation's dtype checks and the xfail tables of common_mps.py.  A dtype MPSGraph served that the
new registrations miss is refused unless the user names it in `--drop-dtypes`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from mpsgen.errors import MpsgenError, Refusal
from mpsgen.model import KernelOptions, KernelSpec
from mpsgen.plan.kernel_choice import KernelChoice
from mpsgen.plan.dtype_facts import Facts, read_facts  # noqa: F401 (read_facts: two_outputs.py asks here)
from mpsgen.records import NamedTuple
from mpsgen.sources.testlists import dtypes as dt
from mpsgen.tree.changeset import Changeset
from mpsgen.tree.checkout import Checkout

FLOATS = ("float32", "float16", "bfloat16")
INTS = ("int64", "int32", "int16", "int8", "uint8", "bool")
METAL = FLOATS + INTS + ("complex64",)
NO_METAL = ("float64", "complex128")  # Metal has no 64-bit floating types
METAL_NAME = {"float32": "float", "float16": "half", "bfloat16": "bfloat", "int64": "long", "int32": "int",
              "int16": "short", "int8": "char", "uint8": "uchar", "bool": "bool", "complex64": "float2"}
GROUPS = ("float", "int2float", "integer", "complex")  # render.DTYPE_TOKENS
NOT_DECLARED = "not declared by the OpInfo"


class Row(NamedTuple):
    dtype: str
    before: str
    after: str
    served: bool  # MPS served it before (MPSGraph ran it and no xfail expected it to fail)
    registered: bool

    def to_json(self) -> dict[str, object]:
        return {"dtype": self.dtype, "before": self.before, "after": self.after}


# -- defaults ----------------------------------------------------------------------------------


def default_groups(facts: Facts, entry: Mapping | None, *, complex_body: bool, result: str | None) -> tuple[str, ...] | None:
    """The --dtypes groups the op's own facts ask for; None when there is no OpInfo to read."""
    declared = facts.declared
    if declared is None:
        return None
    groups: list[str] = []
    if declared & set(FLOATS):
        groups.append("float")
    catalog_groups = tuple(entry.get("dtypes", ())) if entry else ()
    # A catalog body written for floats only (softplus: the CPU kernel has no integer one) does not
    # gain integer registrations from an OpInfo that lists them xfailed; the guard still refuses to
    # drop integers MPSGraph served.
    float_only = bool(entry) and not {"int2float", "integer"} & set(catalog_groups)
    if declared & set(INTS) and not float_only:
        bool_result = result == "bool" or (entry or {}).get("result") == "bool" or facts.returns_bool_anyway
        if bool_result:
            groups.append("integer")
        elif facts.promotes or "int2float" in catalog_groups:
            groups.append("int2float")
        else:
            groups.append("integer")
    if "complex64" in declared and complex_body:
        groups.append("complex")
    return tuple(groups) or ("float",)


def parse_user_dtypes(text: str) -> tuple[tuple[str, ...], frozenset[str]]:
    """--dtypes: groups (float,int2float,...) and/or torch dtype names (float32,int64,...).

    Returns (groups, named torch dtypes); a torch name selects its family.  The int family's kind
    (int2float or integer) is settled by the caller from the op's promotion."""
    groups: list[str] = []
    named: set[str] = set()
    for token in (t.strip() for t in text.split(",")):
        if not token:
            continue
        if token in GROUPS:
            groups.append(token)
            continue
        canon = dt.canonical(token)
        if canon in NO_METAL or canon == "complex32":
            raise MpsgenError(f"--dtypes: Metal has no {canon}; MPS cannot run it",
                              hint=f"use the {', '.join(METAL)} dtypes or the groups {', '.join(GROUPS)}")
        if canon not in METAL:
            raise MpsgenError(f"--dtypes: unknown dtype {token!r}",
                              hint=f"use groups ({', '.join(GROUPS)}) or torch dtype names ({', '.join(METAL)})")
        named.add(canon)
    if not groups and not named:
        raise MpsgenError("--dtypes: unknown dtype group '(empty)'",
                          hint=f"use a comma-separated list of {', '.join(GROUPS)}, e.g. --dtypes float,int2float")
    return tuple(dict.fromkeys(groups)), frozenset(named)


def parse_drop(text: str | None) -> frozenset[str]:
    if not text:
        return frozenset()
    out = set()
    for token in (t.strip() for t in text.split(",")):
        if not token:
            continue
        if token == "complex":
            out.add("complex64")
            continue
        canon = dt.canonical(token)
        if canon not in METAL:
            raise MpsgenError(f"--drop-dtypes: {token!r} is not a dtype MPS kernels register",
                              hint=f"name torch dtypes: {', '.join(METAL)}")
        out.add(canon)
    return frozenset(out)


def check_branches(facts: Facts, op: str, *, int_expr: str | None, complex_expr: str | None) -> None:
    """--int-expr / --complex-expr for an op whose OpInfo declares no such dtype on MPS: refuse."""
    declared = facts.declared
    if declared is None:
        return
    shown = ", ".join(d for d in METAL + NO_METAL if d in declared)
    path, _, at = facts.opinfo_at.rpartition(":")
    line = int(at) if at.isdigit() else None
    if int_expr is not None and not declared & set(INTS):
        raise MpsgenError(f"--int-expr given, but {op} takes no integer dtypes on MPS (its OpInfo declares {shown})",
                          path=path or None, line=line, hint="drop --int-expr, or add the integer dtypes to the OpInfo first")
    if complex_expr is not None and "complex64" not in declared:
        raise MpsgenError(f"--complex-expr given, but {op} takes no complex dtypes on MPS (its OpInfo declares {shown})",
                          path=path or None, line=line, hint="drop --complex-expr, or add complex64 to the OpInfo's dtypes first")


# -- before / after ----------------------------------------------------------------------------


def registered_kind(dtype: str, groups: Iterable[str], result: str, skip: Iterable[str] = ()) -> str:
    """"T->T", "T->float", "T->bool", "T->complex" or "" for a dtype under the chosen groups."""
    groups = set(groups)
    if dtype in skip:
        return ""
    if dtype in FLOATS and "float" in groups and result == "complex":  # polar(abs, angle)
        return "T->complex"
    if dtype in FLOATS and "float" in groups and result == "int32":  # frexp's exponent
        return "T->int32"
    if dtype in FLOATS and "float" in groups or dtype == "complex64" and "complex" in groups:
        return "T->bool" if result == "bool" else "T->T"
    if dtype in INTS:
        if "int2float" in groups:
            return "T->float"
        if "integer" in groups:
            return "T->bool" if result == "bool" else "T->T"
    return ""


def rows(facts: Facts, groups: Iterable[str], result: str, skip: Iterable[str] = ()) -> list[Row]:
    groups, skip = tuple(groups), frozenset(skip)
    declared = facts.declared
    shown = list(METAL) + [d for d in NO_METAL if declared and d in declared]
    out = []
    for d in shown:
        kind = registered_kind(d, groups, result, skip)
        served = False
        if d in NO_METAL:
            before, after = "declared, but Metal has none", "not registered (Metal has none)"
            out.append(Row(d, before, after, False, False))
            continue
        if declared is not None and d not in declared:
            before = NOT_DECLARED
        elif facts.command == "new-op":
            table = facts.listed.failing.get(d)
            before = f"xfailed ({table})" if table else "no MPS kernel"
        elif d == "complex64" and facts.has_lists and not facts.listed.complex_supported and not facts.listed.complex_after:
            before = "xfailed (not in SUPPORTED_COMPLEX_OPS)"
        elif d in facts.listed.failing:
            before = f"xfailed ({facts.listed.failing[d]})"
        elif d in facts.mpsgraph_refuses:
            before = f"refused by {facts.served_by} ({facts.mpsgraph_refuses[d]})"
        elif declared is None:  # nothing to compare against: trust the registrations
            before = f"{facts.served_before} (no OpInfo: assumed)" if kind else "unknown (no OpInfo)"
            served = bool(kind)
        else:
            before, served = facts.served_before, True
            if d == "complex64" and not facts.listed.complex_supported and facts.listed.complex_after:
                before += f" from {_macos(facts.listed.complex_after)} ({facts.listed.complex_after})"
        out.append(Row(d, before, f"registered {kind}" if kind else "not registered", served, bool(kind)))
    return out


def _macos(table: str) -> str:
    """AFTER_MACOS_14_0_SUPPORTED_COMPLEX_OPS -> "macOS 14.0"."""
    m = re.search(r"MACOS_(\d+)_(\d+)", table)
    return f"macOS {m.group(1)}.{m.group(2)}" if m else "some macOS"


def guard(table: list[Row], op: str, drop: frozenset[str], facts: Facts, *, user_dtypes: bool = False) -> None:
    """Refuse when a dtype MPS served before is neither registered nor explicitly dropped."""
    lost = [r.dtype for r in table if r.served and not r.registered and r.dtype not in drop]
    if not lost:
        return
    ways = [f"a --dtypes that covers {', '.join(lost)}"] if user_dtypes else []
    if set(lost) & set(INTS):
        ways.append("--int-expr BODY (with --dtypes float,integer or float,int2float)")
    if "complex64" in lost:
        ways.append("--complex-expr BODY")
    if set(lost) & set(FLOATS) and not user_dtypes:
        ways.append("--dtypes including float")
    accept = "to leave them out" if facts.stub_unregistered else "to accept the loss"
    ways.append(f"--drop-dtypes {','.join(lost)} {accept} (keeps them xfailed in common_mps.py)")
    where = facts.mpsgraph_at or facts.opinfo_at
    path, _, line = where.rpartition(":")
    if facts.stub_unregistered:  # a half-done family: nothing serves it today, its OpInfo still asks for these
        why = (f"the new kernel for {op} would not serve {', '.join(lost)} on MPS, which its OpInfo declares; nothing "
               f"serves {op} on MPS today ({facts.stub_unregistered} is unregistered: MPS raises at run time)")
    else:
        why = f"the new kernel for {op} would stop serving {', '.join(lost)} on MPS, which {facts.served_by} serves today"
    raise MpsgenError(
        why,
        path=path or None, line=int(line) if line.isdigit() else None,
        hint="give " + "; or ".join(ways), kind=Refusal.LOSES_COMPLEX if "complex64" in lost else Refusal.OTHER,
    )


def format_rows(table: list[Row]) -> list[str]:
    width = max((len(r.before) for r in table), default=0)
    return [f"{r.dtype:<10} {r.before:<{width}}  ->  {r.after}" for r in table]


# -- the planner's entry point -----------------------------------------------------------------


@dataclass(frozen=True)
class DtypeChoice:
    """The kernel's registrations (in its spec), the table of what MPS served before and after, and the
    dtypes the user agreed to lose."""

    spec: KernelSpec
    rows: tuple[Row, ...]
    dropped: tuple[str, ...]  # --drop-dtypes (torch names)
    notes: tuple[str, ...] = ()
    unregistered: str = ""  # a half-done family's stub no MPS source registers (Facts.stub_unregistered)


def kernel_spec(choice: KernelChoice, cs: Changeset, checkout: Checkout, opts: KernelOptions) -> DtypeChoice:
    """The KernelSpec with registrations read from the op, the before/after table, and the guard."""
    from mpsgen.generate import catalog

    family, arity, name = choice.family, choice.arity, choice.kernel
    facts = read_facts(choice, cs, checkout)
    check_branches(facts, family, int_expr=opts.int_expr, complex_expr=opts.complex_expr)
    known = catalog.load_catalog()
    entry = known.get(name, known.get(family))
    if entry is not None and entry["arity"] != arity:
        entry = None
    if choice.other_stub and "integer" in (entry or {}).get("dtypes", ()):
        from dataclasses import replace  # another stub's kernel (div_trunc): div's promotion is div_true's

        facts = replace(facts, promotes=False)
    drop = parse_drop(getattr(opts, "drop_dtypes", None))
    if opts.drop_complex:
        drop |= {"complex64"}
    complex_body = opts.complex_expr is not None or (opts.expr is None and entry is not None and bool(entry.get("complex_expr")))
    result = entry.get("result") if entry and opts.expr is None else None
    if result is None and facts.returns_bool_anyway:
        result = "bool"
    skip: set[str] = set()
    groups: tuple[str, ...] | None
    if opts.dtypes is not None:
        groups, named = parse_user_dtypes(opts.dtypes)
        groups = _groups_for_named(groups, named, facts, entry, result, skip)
    else:
        groups = default_groups(facts, entry, complex_body=complex_body, result=result)
        if groups is None and "complex64" in drop and entry is not None and opts.expr is None:
            groups = tuple(entry.get("dtypes", ["float"]))  # no OpInfo: the catalog's, complex dropped below
        if groups is not None:
            groups = tuple(g for g in groups if not (g == "complex" and "complex64" in drop))
            if not (set(INTS) - drop) & (facts.declared or set()):
                groups = tuple(g for g in groups if g not in ("int2float", "integer")) or groups
    skip |= {d for d in drop if d != "complex64"}
    if choice.command == "new-op" and opts.dtypes is None and facts.declared is not None:
        skip |= set(FLOATS + INTS) - set(facts.declared)  # nothing served them before: only what the OpInfo declares
    kept_from_stub = _diverted_dtypes(choice.diverted)
    skip |= kept_from_stub | ({"bfloat16"} if result == "complex" else set())  # torch has no complex bfloat16
    # The catalog's result kind stands for its own body; a user body on a bool op returns bool.
    scalars = choice.shape.scalar_names
    # another stub's kernel (div_trunc) has a body of its own, never the family's first stub's
    spec = catalog.spec_for(name if choice.other_stub else family, arity, opts.expr, opts.int_expr, opts.complex_expr,
                            groups, result=result if entry is None else None, name=name,
                            scalars=scalars)
    if spec.has_params and {"int2float", "complex"} & set(spec.dtypes):
        lost = sorted({"int2float", "complex"} & set(spec.dtypes))
        raise MpsgenError(f"{family}'s kernel takes a params struct, which mpsgen fills for inputs that keep "
                          f"their type; the registrations asked for {', '.join(lost)}",
                          hint="pass --dtypes float (or float,integer), or write the kernel by hand")
    if opts.int_expr is not None and not {"int2float", "integer"} & set(spec.dtypes):
        raise MpsgenError(f"--int-expr given, but the registrations for {family} ({','.join(spec.dtypes)}) "
                          "have no integer types", hint="add integer or int2float to --dtypes, or drop --int-expr")
    # The catalog's dtype table: torch's CPU kernel raises for these (threshold, addcmul: no bool case), so
    # MPS registers them only where its OpInfo tests them (the 2026 threshold's bool: its dtypesIfMPS has it).
    refused = set((entry or {}).get("cpu_refuses", ())) - set(facts.declared or METAL) if opts.dtypes is None else set()
    unserved = sorted(r.dtype for r in rows(facts, spec.dtypes, spec.result, skip)
                      if r.dtype in refused and r.registered and not r.served and r.dtype not in kept_from_stub)
    skip |= set(unserved)
    spec = spec._replace(skip=tuple(METAL_NAME[d] for d in METAL if d in skip))
    diverted_by = choice.diverted[1] if choice.diverted else ""
    table = [r._replace(after=f"handled by {diverted_by}, never reaches the stub", registered=True)
             if r.dtype in kept_from_stub else r for r in rows(facts, spec.dtypes, spec.result, skip)]
    guard(table, family, drop, facts, user_dtypes=opts.dtypes is not None)
    notes = [f"integer inputs return float: {facts.promotes_source}"] if "int2float" in spec.dtypes and facts.promotes_source else []
    notes += [f"the CPU kernel has no {d} case (torch raises) and the OpInfo runs none: not registered" for d in unserved]
    return DtypeChoice(spec, tuple(table), tuple(sorted(drop)), tuple(notes), facts.stub_unregistered)


def _diverted_dtypes(diverted: tuple[str, str] | None) -> set[str]:
    """Dtypes the shared kernel handles before calling the stub (ceil_out copies integers)."""
    kind = diverted[0] if diverted else ""
    return {d for d in INTS if d != "bool" or kind == "integral+bool"} if kind else set()


def _groups_for_named(groups: tuple[str, ...], named: frozenset[str], facts: Facts, entry: Mapping | None,
                      result: str | None, skip: set[str]) -> tuple[str, ...]:
    out = list(groups)
    for members, group in ((FLOATS, "float"), (INTS, None), (("complex64",), "complex")):
        chosen = named & set(members)
        if not chosen:
            continue
        if group is None:
            promotes = facts.promotes or "int2float" in ((entry or {}).get("dtypes", ()))
            group = "integer" if result == "bool" or not promotes else "int2float"
        if group not in out:
            out.append(group)
            skip.update(set(members) - chosen)
    return tuple(out)
