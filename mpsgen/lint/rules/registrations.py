"""Rules on the registration lines of kernels/*.metal, as a contributor edits them by hand (located
on the .metal line: a dtype line gone, a line twice, a misspelt dtype)."""

from __future__ import annotations

import functools
import re
from typing import TYPE_CHECKING, Iterator

from mpsgen.lint.finding import Basis, Finding
from mpsgen.lint.wiring import wiring
from mpsgen.lint.rules import ERROR, rule
from mpsgen.sources.metal.registration_sites import METAL_TYPES, RegistrationSite, exclusive

if TYPE_CHECKING:
    from mpsgen.lint.inventory import Inventory
    from mpsgen.sources.host.mm import KernelCall

# Where one dtype of a kernel is registered, so is the other: half wherever bfloat is (Metal has
# had half longer), float wherever half is (their vectors alike: float2 wherever half2 is): each
# implying type as a word, with its vector width (polar(half, half2) implies polar(float, float2)).
_IMPLIED = tuple((src, dst, re.compile(rf"(?<![A-Za-z0-9]){src}([234]?)(?![A-Za-z0-9])"))
                 for src, dst in (("bfloat", "half"), ("half", "float")))
_INTEGERS = ("long", "int", "short", "char", "uchar")
_LOWER_WORD = re.compile(r"[a-z_][a-z0-9_]*")
_SCALARS = sorted(t for t in METAL_TYPES if not t[-1].isdigit() or t.endswith("2"))


@rule("MPS012", "dtype-not-registered", ERROR,
      "a kernel's REGISTER_*/INSTANTIATE_* lines skip a dtype their own pattern implies (float and bfloat, "
      "not half) while a host runs the kernel (a runtime error on that dtype)")
def dtype_not_registered(inv: "Inventory") -> Iterator[Finding]:
    """A runtime error on one dtype: the host runs the kernel for it, the metallib lacks it.

    The registration lines of one kind (one macro, the same kernel name, differing only in their
    dtype arguments: `REGISTER_UNARY_OP(abs, T, T)`, 2.7's `REGISTER_BINARY_INDEXING_OP(fmax, T)`,
    `INSTANTIATE_UNARY_KERNELS2(T0, T1)`) are compared with the pattern every real tree follows:

    * half is registered wherever bfloat is, and float wherever half is (bfloat and float
      registered without half is a deleted line);
    * of the five integer dtypes long, int, short, char, uchar, a kernel registers all or at most
      three: four of them (the others of the line equal) means one line was deleted.

    Reported only when an operations/*.mm runs one of the kernels the lines register
    (exec_*_kernel, binary_mps_impl, ..., or a name it spells as a string, `"fused_sgd_" +
    scalarToMetalTypeString(...)`): PyTorch then fails with "Failed to create function state object" on tensors of
    the missing dtype.  A dtype left out on purpose (bfloat of a
    complex kernel, integers of a float-only op) breaks no pattern and is not reported.

    Fix: restore the registration line shown in the message.
    """
    called: dict[str, tuple[str, KernelCall | None]] | None = None
    every = wiring(inv).registration_sites
    leaves = {leaf for sites in every.values() for s in sites for leaf in s.leaves}
    for rel, sites in every.items():
        kinds: dict[tuple[str, ...], list[RegistrationSite]] = {}
        for s in sites:
            if s.dtype_positions:
                kinds.setdefault(s.kind, []).append(s)
        for group in kinds.values():
            missing = {t: v for t, v in _missing(group).items() if not _instantiated(v[0], t, leaves)}
            if not missing:
                continue
            called = called if called is not None else _host_calls(inv)
            host = next((_host(inv, called, n) for s in group for n in s.names if n in called), None)
            if host is None:
                continue  # no host runs these kernels: a missing dtype fails nothing
            mm, line, name = host
            for dtypes, (source, why) in missing.items():
                shown = _with_dtypes(source, dtypes)
                yield dtype_not_registered.finding(
                    rel, source.line,
                    f"{shown} is missing: {why}, and {mm}:{line} runs '{name}', so "
                    f"{' and '.join(dict.fromkeys(dtypes))} tensors fail at run time",
                    hint=f"restore `{shown};` beside line {source.line}",
                    rests_on=[Basis(mm, line)],
                )


def _host_calls(inv: "Inventory") -> dict[str, tuple[str, "KernelCall | None"]]:
    """{kernel name: (the first .mm running it, the call)}: exec_*_kernel & co., then the names
    the MPS sources spell as strings (the call is then None)."""
    called: dict[str, tuple[str, KernelCall | None]] = {}
    for mm, calls in inv.host_calls.items():
        for c in calls:
            called.setdefault(c.kernel, (mm, c))
    for mm, words in wiring(inv).host_words.items():
        for w in words:  # "fused_sgd_" + scalarToMetalTypeString(...) runs fused_sgd_<dtype>
            called.setdefault(w.rstrip("_") or w, (mm, None))
    return called


def _host(inv: "Inventory", called: dict[str, tuple[str, "KernelCall | None"]], name: str) -> tuple[str, int, str]:
    """(.mm, line, name) of the host running kernel *name* (the line of its string when no call was read)."""
    mm, call = called[name]
    if call is not None:
        return mm, call.line, name
    text = inv.checkout.read_text(mm)
    k = text.find(f'"{name}')
    return mm, text.count("\n", 0, k) + 1 if k >= 0 else 1, name


def _missing(group: list[RegistrationSite]) -> dict[tuple[str, ...], tuple[RegistrationSite, str]]:
    """{dtypes of a line the pattern implies and the group lacks: (the line implying it, why)}.
    (What a row of dtypes implies is read once per row: a tree's ~1,500 lines hold a few dozen rows.)"""
    have = {s.dtypes for s in group}
    # A line whose dtype is misspelt (unknown-dtype's finding) stands for the one it meant.
    have |= {d for s in group if _misspelt_row(s.dtypes) for d in _meant(s.dtypes)}
    out: dict[tuple[str, ...], tuple[RegistrationSite, str]] = {}
    for s in group:
        if _misspelt_row(s.dtypes):
            continue  # a misspelt line implies nothing (unknown-dtype reports it)
        for src, dst, want in _implied(s.dtypes):
            if want not in have and want not in out:
                out[want] = (s, f"it is registered for {src} ({s.text}) but not for {dst}")
        for rows in _integer_rows(s.dtypes):
            absent = [i for i, row in rows.items() if row not in have]
            if len(absent) == 1 and rows[absent[0]] not in out:
                present = ", ".join(i for i in _INTEGERS if i not in absent)
                out[rows[absent[0]]] = (s, f"it is registered for {present} but not for {absent[0]}")
    return out


@functools.cache
def _implied(dtypes: tuple[str, ...]) -> tuple[tuple[str, str, tuple[str, ...]], ...]:
    """(type, the type it implies, the row with every spelling of it replaced) for each implying type
    the row spells: every spelling moves together, its vectors and inside compound arguments
    (NanToNumParams_half)."""
    return tuple((src, dst, tuple(word.sub(rf"{dst}\1", d) for d in dtypes))
                 for src, dst, word in _IMPLIED if any(word.search(d) for d in dtypes))


@functools.cache
def _integer_rows(dtypes: tuple[str, ...]) -> tuple[dict[str, tuple[str, ...]], ...]:
    """For each integer dtype of the row: {integer: the row with it there}."""
    return tuple({i: dtypes[:k] + (i,) + dtypes[k + 1 :] for i in _INTEGERS}
                 for k, d in enumerate(dtypes) if d in _INTEGERS)


@functools.cache
def _misspelt_row(dtypes: tuple[str, ...]) -> bool:
    return any(map(_misspelt, dtypes))


def _instantiated(site: RegistrationSite, dtypes: tuple[str, ...], leaves: set[str]) -> bool:
    """Whether another line already instantiates what *site* with *dtypes* would (a shorthand such as
    REGISTER_FLOAT_BINARY_OP(x) beside an explicit REGISTER_BINARY_OP(x, half, half))."""
    swap: dict[str, str] = {}
    for old, new in zip(site.dtypes, dtypes):
        if swap.setdefault(old, new) != new:
            return False
    word = re.compile(r"(?<![A-Za-z0-9])(" + "|".join(map(re.escape, swap)) + r")(?![A-Za-z0-9])")
    return all(word.sub(lambda m: swap[m.group(1)], leaf) in leaves for leaf in site.leaves)


def _misspelt(dtype: str) -> bool:
    """A lowercase word that is no Metal type (unknown-dtype judges it)."""
    return _LOWER_WORD.fullmatch(dtype) is not None and dtype not in METAL_TYPES


def _meant(dtypes: tuple[str, ...]) -> list[tuple[str, ...]]:
    """The dtype rows a row with unknown words may have meant (each unknown word any scalar)."""
    rows: list[tuple[str, ...]] = [()]
    for d in dtypes:
        rows = [r + (x,) for r in rows for x in ((d,) if d in METAL_TYPES else _SCALARS)]
    return rows


def _with_dtypes(site: RegistrationSite, dtypes: tuple[str, ...]) -> str:
    args = list(site.args)
    for k, d in zip(site.dtype_positions, dtypes):
        args[k] = d
    return f"{site.macro}({', '.join(args)})"


@rule("MPS013", "kernel-registered-twice", ERROR,
      "two registration lines of the .metal files instantiate the same kernel (a compile error)")
def kernel_registered_twice(inv: "Inventory") -> Iterator[Finding]:
    """A compile error: one kernel instantiated twice (a duplicated `REGISTER_UNARY_OP(abs, half,
    half);`, `INSTANTIATE_UNARY_KERNELS2(half, half);`, a shorthand such as
    REGISTER_FLOAT_BINARY_OP(x) beside REGISTER_BINARY_OP(x, half, half)): the metallib would hold
    two functions of one host_name.

    Each line is expanded through the file's own macros to what it instantiates (a c10/metal
    REGISTER_* call with its dtypes, or a host_name string).  Lines in different branches of one
    #if/#else are never both compiled and are not reported.  The finding is on the later line.

    Fix: delete the repeated line.
    """
    first: dict[str, tuple[str, RegistrationSite]] = {}
    repeats: dict[tuple[str, int], tuple[RegistrationSite, list[str], str, RegistrationSite]] = {}
    for rel in sorted(wiring(inv).registration_sites):
        for s in wiring(inv).registration_sites[rel]:
            for leaf in s.leaves:
                held = first.get(leaf)
                if held is None:
                    first[leaf] = (rel, s)
                    continue
                other_rel, other = held
                if other_rel == rel and (other.line == s.line or exclusive(other, s)):
                    continue
                repeats.setdefault((rel, s.line), (s, [], other_rel, other))[1].append(leaf)
    for (rel, line), (s, leaves, other_rel, other) in repeats.items():
        where = f"line {other.line}" if other_rel == rel else f"{other_rel}:{other.line}"
        shown = ", ".join(leaves[:3]) + (f" and {len(leaves) - 3} more" if len(leaves) > 3 else "")
        yield kernel_registered_twice.finding(
            rel, line,
            f"{s.text} instantiates what {other.text} ({where}) already does ({shown}): the metallib would "
            "hold two kernels of one name, a compile error",
            hint=f"delete line {line}" + (f" (or the one at {where})" if other_rel != rel else ""),
            rests_on=[Basis(other_rel, other.line)],
        )


@rule("MPS014", "unknown-dtype", ERROR,
      "a registration line names a dtype that is not a Metal type (a misspelling such as `flaot`: a compile error)")
def unknown_dtype(inv: "Inventory") -> Iterator[Finding]:
    """A compile error: a dtype argument of a registration line (`REGISTER_UNARY_OP(abs, flaot,
    flaot)`, `INSTANTIATE_UNARY_KERNELS2(float, hafl)`) that is no Metal type the macros accept.

    The dtype arguments are a c10/metal REGISTER_* macro's arguments after the kernel name, and
    the arguments of a file's own macro whose parameter is named like one (DTYPE, DTYPE0, T).  An
    argument counts as a dtype when it is a Metal scalar or vector type (float, half, bfloat, long,
    int, short, char, uchar, bool, uint, float2, ...) or a type the .metal files or the c10/metal
    and kernels/*.h headers declare; one spelt with capitals or template arguments (a params struct,
    `opmath_t<T>`) is not judged.  Reported only when the word is close to a Metal type: a typo.

    Fix: spell the dtype as the hint suggests.
    """
    for rel, sites in wiring(inv).registration_sites.items():
        for s in sites:
            odd = [a for a in s.dtypes if a not in METAL_TYPES and _LOWER_WORD.fullmatch(a)]
            if not odd:
                continue
            import difflib  # only for a line with a word that is no Metal type

            known = wiring(inv).declared_types
            bad = [(a, close[0]) for a in odd
                   if a not in known and (close := difflib.get_close_matches(a, _SCALARS, n=1, cutoff=0.6))]
            if not bad:
                continue
            text = inv.checkout.read_text(rel).split("\n")
            row = text[s.line - 1] if s.line <= len(text) else ""
            m = re.search(r"\b" + re.escape(bad[0][0]) + r"\b", row)
            names = " and ".join(f"'{a}'" for a, _ in dict.fromkeys(bad))
            yield unknown_dtype.finding(
                rel, s.line,
                f"{names} in {s.text} {'is not a Metal type' if len(bad) == 1 else 'are not Metal types'}: "
                "the .metal does not compile",
                col=m.start() + 1 if m else 1,
                hint="; ".join(f"did you mean '{c}' for '{a}'?" for a, c in dict.fromkeys(bad)),
            )
