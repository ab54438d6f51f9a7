"""Known Metal bodies per op (templates/catalog.yaml) and the KernelSpec for an op."""

from __future__ import annotations

import functools
import re
from pathlib import Path
from typing import Any, Iterable, TypedDict, cast

from mpsgen.errors import MpsgenError
from mpsgen.model import ARITIES, DTYPE_TOKENS, RESULTS, VARIABLES, Arity, DtypeToken, KernelSpec
from mpsgen.generate.templating import default_templates_dir  # not through render, whose c10_shims reads this catalog

CATALOG_FILE = "catalog.yaml"
PARAM_TYPES = ("scalar", "opmath")


class CannotTake(TypedDict, total=False):
    """One rule of an entry's cpu_cannot_take: the inputs *where* matches are not compared (emulate/cannot_take.py)."""

    where: str  # required
    note: str  # required: what the count of rows left out is followed by
    dtypes: list[str]  # torch dtypes the rule applies to (default: all)


class CatalogEntry(TypedDict, total=False):
    """One op's entry in templates/catalog.yaml, as validated by _validate_entry (its keys: _KEYS)."""

    arity: Arity  # required
    expr: str  # required
    int_expr: str
    complex_expr: str
    bool_expr: str
    dtypes: list[str]
    opmath: bool
    result: str
    includes: list[str]
    follows: str
    note: str
    params: list[str]
    param_type: str
    param_defaults: list[str]
    bool_inputs: list[int]
    cpu_refuses: list[str]  # torch dtypes the CPU kernel has no case for (torch raises): never registered
    unused: list[str]  # inputs the value does not depend on (prelu's grad_weight: weight), left unnamed
    cpu_cannot_take: list[CannotTake]  # inputs the CPU reference cannot take: the numeric check leaves them out
    exact: bool  # the numeric check compares bit for bit (frexp's outputs are exact)


_KEYS = frozenset(CatalogEntry.__annotations__)
# What an absent optional scalar stands for, per params entry (nan_to_num: nan -> 0, posinf -> the
# input type's max, neginf -> its lowest), as the CPU kernel's value_or / numeric_limits.
PARAM_DEFAULTS = ("none", "zero", "max", "lowest")

# The shape of an --expr per arity, for error messages: structure only, no op's own math (a hint
# must not suggest another op's body).
EXAMPLES = {
    "unary": "--expr 'x > 0 ? T(float(x) * 2.0f) : T(0)'",
    "unary_alpha": "--expr 'float(x) * float(alpha)'",
    "binary": "--expr 'T(float(a) * float(b))'",
    "binary_alpha": "--expr 'float(a) + float(alpha) * float(b)'",
    "ternary": "--expr 'float(a) + float(c) * (float(b) - float(a))'",
    "ternary_alpha": "--expr 'float(a) + float(alpha) * float(b) * float(c)'",
    "unary_params": "--expr 'float(x) > float(p0) ? x : T(p1)'",
    "binary_params": "--expr 'float(a) > float(p0) ? b : T(p1)'",
}


def how_to_write(arity: Arity, scalars: tuple[str, ...] = ()) -> str:
    """Where and how to write a body for an op the catalog does not know."""
    names = " and ".join(VARIABLES[arity])
    if arity.endswith(("_alpha", "_params")):
        names += f" (and the scalars {', '.join(scalars)})" if scalars else " (and the scalar alpha)"
    first = VARIABLES[arity][0]
    return (f"write one: {EXAMPLES[arity]}, a Metal expression in {names} of the input type T (compute in float, "
            f"e.g. float({first}); the result is cast back); use Metal's precise::/::metal:: math and the "
            "c10::metal helpers of c10/metal/utils.h and special_math.h; --int-expr and --complex-expr (float2: "
            ".x real, .y imag) give the other branches; known bodies live in templates/catalog.yaml")


def catalog_path() -> Path:
    return default_templates_dir() / CATALOG_FILE


def load_catalog(path: str | Path | None = None) -> dict[str, CatalogEntry]:
    """op -> entry, validated; parsed once per process and file."""
    return _load(str(Path(path) if path else catalog_path()))


@functools.lru_cache(maxsize=4)
def _load(path: str) -> dict[str, CatalogEntry]:
    from ruamel.yaml import YAML
    from ruamel.yaml.error import MarkedYAMLError

    from mpsgen.tree.checkout import read_text_file

    file = Path(path)
    if not file.is_file():
        raise MpsgenError("catalog not found", path=file, hint="reinstall mpsgen")
    text = read_text_file(file, shown=str(file))
    try:
        data = YAML(typ="safe").load(text)  # ruamel.yaml.clib's C parser when installed (~15 ms)
    except MarkedYAMLError as err:
        mark = err.problem_mark or err.context_mark
        raise MpsgenError(f"catalog is not valid YAML: {err.problem or err.context}", path=file,
                          line=mark.line + 1 if mark else None) from None
    if not isinstance(data, dict):
        raise MpsgenError("catalog must map op names to entries", path=file)
    for op, entry in data.items():
        _validate_entry(op, entry, file)
    return data


def _validate_entry(op: str, entry: Any, file: Path) -> None:
    if not isinstance(entry, dict):
        raise MpsgenError(f"catalog entry '{op}' must be a mapping", path=file)
    unknown = set(entry) - _KEYS
    if unknown:
        raise MpsgenError(f"catalog entry '{op}' has unknown keys: {', '.join(sorted(unknown))}", path=file,
                          hint=f"known keys: {', '.join(sorted(_KEYS))}")
    for key in ("expr", "int_expr", "complex_expr", "bool_expr", "follows", "note"):
        if key in entry and not isinstance(entry[key], str):
            raise MpsgenError(f"catalog entry '{op}': {key} must be text", path=file)
    if entry.get("arity") not in ARITIES or not entry.get("expr"):
        raise MpsgenError(f"catalog entry '{op}' needs arity ({'|'.join(ARITIES)}) and expr", path=file)
    if entry.get("param_type", "scalar") not in PARAM_TYPES:
        raise MpsgenError(f"catalog entry '{op}': param_type must be one of {', '.join(PARAM_TYPES)}", path=file)
    if "params" in entry and not (isinstance(entry["params"], list) and all(
            isinstance(p, str) and re.fullmatch(r"[A-Za-z_]\w*", p) for p in entry["params"])):
        raise MpsgenError(f"catalog entry '{op}': params must be a list of names", path=file)
    defaults = entry.get("param_defaults")
    if defaults is not None and not (isinstance(defaults, list) and len(defaults) == len(entry.get("params", []))
                                     and all(d in PARAM_DEFAULTS for d in defaults)):
        raise MpsgenError(f"catalog entry '{op}': param_defaults must give one of {', '.join(PARAM_DEFAULTS)} "
                          "per params entry", path=file)
    bools = entry.get("bool_inputs", [])
    arity_inputs = {"unary": 1, "binary": 2, "ternary": 3}.get(str(entry.get("arity", "")).split("_")[0], 0)
    if not (isinstance(bools, list) and all(type(k) is int and 0 <= k < arity_inputs for k in bools)):
        raise MpsgenError(f"catalog entry '{op}': bool_inputs must list input positions (0 to {arity_inputs - 1})",
                          path=file)
    unused = entry.get("unused", [])
    if not (isinstance(unused, list) and set(unused) <= set(VARIABLES[entry["arity"]])):
        raise MpsgenError(f"catalog entry '{op}': unused must list inputs among "
                          f"{', '.join(VARIABLES[entry['arity']])}", path=file)
    if not isinstance(entry.get("exact", False), bool):
        raise MpsgenError(f"catalog entry '{op}': exact must be true or false", path=file)
    if entry.get("result", "same") not in RESULTS:
        raise MpsgenError(f"catalog entry '{op}': result must be one of {', '.join(RESULTS)}", path=file)
    parse_dtypes(entry.get("dtypes", ["float"]), where=f"catalog entry '{op}'")
    _validate_cannot_take(op, entry, file)


def _validate_cannot_take(op: str, entry: dict[str, Any], file: Path) -> None:
    rules = entry.get("cpu_cannot_take", [])
    shape = "a list of {where: <condition>, note: <text>, dtypes: [<torch dtype>, ...]}"
    if not isinstance(rules, list):
        raise MpsgenError(f"catalog entry '{op}': cpu_cannot_take must be {shape}", path=file)
    for rule in rules:
        if not (isinstance(rule, dict) and set(rule) <= {"where", "note", "dtypes"}
                and isinstance(rule.get("where"), str) and isinstance(rule.get("note"), str)
                and isinstance(rule.get("dtypes", []), list) and all(isinstance(d, str) for d in rule.get("dtypes", []))):
            raise MpsgenError(f"catalog entry '{op}': cpu_cannot_take must be {shape}", path=file)
        from mpsgen.emulate.dtype_names import TORCH_DTYPES
        from mpsgen.emulate.row_conditions import LANGUAGE, parse

        unknown = sorted(set(rule.get("dtypes", [])) - set(TORCH_DTYPES.values()))
        if unknown:
            raise MpsgenError(f"catalog entry '{op}': cpu_cannot_take names unknown dtypes: {', '.join(unknown)}",
                              path=file, hint=f"torch dtypes: {', '.join(TORCH_DTYPES.values())}")
        try:
            parse(rule["where"], VARIABLES[entry["arity"]])
        except ValueError as err:
            raise MpsgenError(f"catalog entry '{op}': cpu_cannot_take's where {rule['where']!r}: {err}", path=file,
                              hint=LANGUAGE) from None


def parse_dtypes(dtypes: str | Iterable[str], where: str = "--dtypes") -> tuple[str, ...]:
    """'float,int2float' or ['float', 'int2float'] -> ('float', 'int2float'), validated."""
    tokens = [t.strip() for t in (dtypes.split(",") if isinstance(dtypes, str) else dtypes)]
    tokens = [t for t in tokens if t]
    bad = [t for t in tokens if t not in DTYPE_TOKENS]
    if bad or not tokens:
        raise MpsgenError(
            f"{where}: unknown dtype group {', '.join(repr(t) for t in bad) or '(empty)'}",
            hint=f"use a comma-separated list of {', '.join(DTYPE_TOKENS)}, e.g. --dtypes float,int2float",
        )
    if "int2float" in tokens and "integer" in tokens:
        raise MpsgenError(f"{where}: int2float and integer both say what integer inputs return; pick one",
                          hint="int2float: ints compute in float (math ops); integer: ints keep their type")
    return tuple(dict.fromkeys(tokens))


def _uses(expr: str, var: str) -> bool:
    return re.search(rf"(?<![\w.]){var}\b", expr) is not None


def _check_variables(op: str, arity: Arity, flag: str, expr: str, unused: tuple[str, ...] = ()) -> None:
    missing = [v for v in VARIABLES[arity] if v not in unused and not _uses(expr, v)]
    if missing:
        raise MpsgenError(
            f"{flag} for {arity} op '{op}' does not use {' and '.join(missing)}",
            hint=f"write the body in {', '.join(VARIABLES[arity])}, e.g. {EXAMPLES[arity]}",
        )


def spec_for(
    op: str,
    arity: str,
    expr: str | None = None,
    int_expr: str | None = None,
    complex_expr: str | None = None,
    dtypes: str | Iterable[str] | None = None,
    *,
    bool_expr: str | None = None,
    opmath: bool | None = None,
    result: str | None = None,
    name: str | None = None,
    catalog: str | None = None,
    scalars: tuple[str, ...] = (),
) -> KernelSpec:
    """The KernelSpec for *op*: user options first, catalog defaults for the rest.

    *name* is the kernel name (functor prefix), default *op*; the catalog entry is looked up under
    *name* first (a stub another op owns: threshold_backward gets threshold's kernel).  *scalars*
    are the names the functor gives the stub's scalars (plan/shape.py).
    """
    if arity not in ARITIES:
        raise MpsgenError(f"unknown arity '{arity}'", hint=f"one of {', '.join(ARITIES)}")
    kernel = name or op
    if not re.fullmatch(r"[A-Za-z_]\w*", kernel):
        raise MpsgenError(f"'{kernel}' is not a valid kernel name", hint="use letters, digits and _ (e.g. atan2)")
    known = load_catalog(catalog)
    entry = known.get(kernel, known.get(op))
    if entry is not None and entry["arity"] != arity:
        if expr is None:
            raise MpsgenError(
                f"the catalog's body for '{op}' is {entry['arity']}, but its stub is {arity}",
                hint=how_to_write(arity, scalars),
            )
        entry = None  # the user's own body for another arity; catalog defaults do not apply
    if expr is None and entry is None:
        raise MpsgenError(f"no Metal body known for '{op}' ({arity}) and no --expr given",
                          hint=how_to_write(arity, scalars))
    e = entry or {}
    chosen = parse_dtypes(dtypes) if dtypes is not None else parse_dtypes(e.get("dtypes", ["float"]))
    if complex_expr is not None and "complex" not in chosen:
        chosen += ("complex",)  # --complex-expr promises complex kernels (else it would be dropped silently)
    body = expr if expr is not None else e["expr"]
    # A user --expr replaces the whole body; other branches fall back to the catalog only with it.
    ie = int_expr if int_expr is not None else (e.get("int_expr") if expr is None else None)
    ce = complex_expr if complex_expr is not None else (e.get("complex_expr") if expr is None else None)
    be = bool_expr if bool_expr is not None else (e.get("bool_expr") if expr is None else None)
    res = result or e.get("result") or ("float" if "int2float" in chosen else "same")
    if res not in RESULTS:
        raise MpsgenError(f"unknown result kind '{res}'", hint=f"one of {', '.join(RESULTS)}")
    if res == "int32" and set(chosen) != {"float"}:  # frexp's exponent: a body of floating inputs only
        raise MpsgenError(f"'{op}' returns int32, which mpsgen writes for floating inputs only",
                          hint="use --dtypes float")
    if res == "bool" and "int2float" in chosen:
        raise MpsgenError(f"'{op}' returns bool, so integer inputs cannot return float",
                          hint="use --dtypes float,integer")
    if "complex" in chosen and not ce:
        raise MpsgenError(
            f"--dtypes has complex but '{op}' has no complex body",
            hint="pass --complex-expr with a float2/half2 expression, e.g. --complex-expr 'c10::metal::logaddexp(a, b)'",
        )
    unused = tuple(e.get("unused", ())) if expr is None else ()
    _check_variables(op, arity, "--expr", body, unused)
    if int_expr is not None:
        _check_variables(op, arity, "--int-expr", int_expr)
    return KernelSpec(
        name=kernel,
        arity=arity,
        expr=body,
        int_expr=ie,
        complex_expr=ce if "complex" in chosen else None,
        bool_expr=be,
        dtypes=cast("tuple[DtypeToken, ...]", chosen),
        opmath=bool(e.get("opmath", False)) if opmath is None else opmath,
        result=res,
        includes=tuple(e.get("includes", ())),
        note=str(e.get("note", "")),
        scalars=tuple(scalars),
        param_type=str(e.get("param_type", "scalar")),
        param_defaults=tuple(e.get("param_defaults", ())),
        bool_inputs=tuple(int(k) for k in e.get("bool_inputs", ())),
        unused=unused,
        skip=("bfloat",) if res == "complex" else (),  # the complex output: torch has no complex bfloat16
    )
