"""Compare kernel results with the reference: tolerances, ULP errors, the per-dtype table.

Rules (one place, applied to every op):
* NaN equals NaN; an infinity must be matched exactly (same sign).
* Floating results agree when |got - expected| <= atol + rtol * |expected| (torch.testing's
  formula), with the tolerances of TOLERANCES for the *output* dtype.
* Signed zero, for unary ops with real floating outputs: where torch gives -0.0 the kernel must
  give -0.0.  For those ops the sign of a zero follows from the input (neg, trunc, ceil, sign,
  frac, asinh, expm1(-0.0) = -0.0).  torch's +0.0 is often a formula artefact, so the kernel may
  give either zero there.  Binary ops (an exact zero's sign depends on the evaluation order, as
  in a - b with a == b) and complex components compare zeros like torch.testing: sign ignored.
* torch's CPU op has a vectorised and a scalar path, which can disagree (fmod's vectorised path
  returns NaN for a subnormal divisor).  A value that differs from the vectorised result is
  checked again against the op on that one element; agreeing with either counts.
* An exact body (catalog `exact`: frexp's outputs) agrees bit for bit: equal values, zeros of the same
  sign, NaN for NaN (its payload not compared).
* Integer and bool results must be equal.  Complex results compare real and imaginary parts
  separately with the component type's tolerances.
* A dtype whose kernel crashed on the host (isolate.py) fails, naming the signal and the first
  inputs that crash it; its values are not compared.
"""

from __future__ import annotations

import json
import math
from typing import Any, Callable

from mpsgen.records import NamedTuple

# (atol, rtol) per torch output dtype.  float32/complex64: torch.testing.assert_close's defaults
# (rtol 1.3e-6, atol 1e-5); float16 and bfloat16: the looser per-dtype tolerances test_mps.py's
# test_output_match applies to reduced-precision outputs (1e-3 and 1.6e-2).
TOLERANCES = {
    "float32": (1e-5, 1.3e-6),
    "complex64": (1e-5, 1.3e-6),
    "float16": (1e-3, 1e-3),
    "complex32": (1e-3, 1e-3),
    "bfloat16": (1.6e-2, 1.6e-2),
}
# (significand bits, smallest normal exponent) for ULP errors in the output dtype.
_FORMATS = {"float32": (23, -126), "complex64": (23, -126), "float16": (10, -14), "complex32": (10, -14),
            "bfloat16": (7, -126)}
SHOWN_MISMATCHES = 3


class Mismatch(NamedTuple):
    inputs: tuple[str, ...]
    expected: str
    got: str


class DtypeResult(NamedTuple):
    """One registered dtype's comparison (one row of the table)."""

    dtype: str  # torch dtype of the inputs
    out_dtype: str
    values: int
    mismatches: int
    # The worst element (largest error relative to its tolerance): its errors and its inputs.  (Named
    # max_* for the JSON's sake: they are that one element's, not maxima over different elements.)
    max_abs_error: float
    max_ulp_error: float
    worst_input: str
    first_mismatches: tuple[Mismatch, ...]
    note: str = ""
    crash: str = ""  # the signal that killed the kernel (SIGFPE, SIGSEGV, ..., or "timeout")
    crash_reason: str = ""  # what that signal usually means for a functor body
    crash_inputs: tuple[str, ...] = ()  # the first inputs that crash it, when found

    @property
    def ok(self) -> bool:
        return self.mismatches == 0 and not self.crash


class TryResult(NamedTuple):
    op: str
    reference: str
    backend: str  # "emulated (g++ ...)" or "mps"
    rows: tuple[DtypeResult, ...]
    cached: bool = False

    @property
    def ok(self) -> bool:
        return all(r.ok for r in self.rows)

    def to_json(self) -> dict[str, object]:
        return {"op": self.op, "reference": self.reference, "backend": self.backend, "ok": self.ok,
                "dtypes": [{**r._asdict(), "first_mismatches": tuple(m._asdict() for m in r.first_mismatches),
                            "ok": r.ok} for r in self.rows]}

    @classmethod
    def from_json(cls, data: dict[str, object], *, cached: bool) -> "TryResult":
        rows = []
        for given in data["dtypes"]:  # type: ignore[attr-defined]
            r: dict[str, Any] = {k: v for k, v in dict(given).items() if k != "ok"}
            r["first_mismatches"] = tuple(Mismatch(tuple(m["inputs"]), m["expected"], m["got"])
                                          for m in r["first_mismatches"])
            r["crash_inputs"] = tuple(r.get("crash_inputs", ()))
            rows.append(DtypeResult(**r))
        return cls(str(data["op"]), str(data["reference"]), str(data["backend"]), tuple(rows), cached)


def fmt(v: object) -> str:
    if isinstance(v, float):
        return repr(v) if math.isfinite(v) or math.isnan(v) else ("inf" if v > 0 else "-inf")
    if isinstance(v, complex):
        return f"({fmt(v.real)}{'+' if not str(fmt(v.imag)).startswith('-') else ''}{fmt(v.imag)}j)"
    return repr(v)


def _ulp(x: float, dtype: str) -> float:
    bits, emin = _FORMATS[dtype]
    e = math.frexp(abs(x))[1] - 1 if x != 0 and math.isfinite(x) else emin
    return math.ldexp(1.0, max(e, emin) - bits)


def _component(e: float, g: float, dtype: str, signed_zero: bool) -> tuple[bool, float, float, float]:
    """(agrees, abs error, ulp error, error / tolerance) of one real component."""
    atol, rtol = TOLERANCES[dtype]
    if math.isnan(e) or math.isnan(g):
        same = math.isnan(e) and math.isnan(g)
        return same, 0.0 if same else math.inf, 0.0 if same else math.inf, 0.0 if same else math.inf
    if math.isinf(e) or math.isinf(g):
        same = e == g
        return same, 0.0 if same else math.inf, 0.0 if same else math.inf, 0.0 if same else math.inf
    err = abs(g - e)
    if signed_zero and e == 0 and g == 0 and math.copysign(1, e) < 0 < math.copysign(1, g):
        return False, 0.0, 0.0, math.inf  # signed zero
    tol = atol + rtol * abs(e)
    return err <= tol, err, err / _ulp(e, dtype), err / tol


def compare(dtype: str, out_dtype: str, inputs: list[tuple[object, ...]], expected: list[object],
            got: list[object], note: str = "", *, signed_zero: bool = True,
            second_opinion: Callable[[int], object] | None = None, exact: bool = False) -> DtypeResult:
    """Element-wise comparison of one dtype's results (*exact*: bit for bit, for real outputs).

    *second_opinion(i)* gives another reference value for element *i* (torch's scalar path)."""
    floating = out_dtype in TOLERANCES and not (exact and not out_dtype.startswith("complex"))
    comp = "float16" if out_dtype == "complex32" else ("float32" if out_dtype == "complex64" else out_dtype)
    mismatches: list[Mismatch] = []
    count, max_abs, max_ulp, worst, worst_ratio = 0, 0.0, 0.0, "", -1.0
    scalar_only = 0
    for i, (args, e, g) in enumerate(zip(inputs, expected, got)):
        ok, abs_err, ulp_err, ratio = _element(e, g, out_dtype, comp, floating, signed_zero)
        if not ok and second_opinion is not None:
            other = _element(second_opinion(i), g, out_dtype, comp, floating, signed_zero)
            if other[0]:
                ok, abs_err, ulp_err, ratio = other
                scalar_only += 1
        if not ok:
            count += 1
            if len(mismatches) < SHOWN_MISMATCHES:
                mismatches.append(Mismatch(tuple(fmt(a) for a in args), fmt(e), fmt(g)))
        if ratio > worst_ratio:  # the worst element's errors and inputs, all from that one element
            worst_ratio, worst, max_abs, max_ulp = ratio, ", ".join(fmt(a) for a in args), abs_err, ulp_err
    if scalar_only:
        extra = f"{scalar_only} value(s) agree only with torch's scalar CPU path (its vectorised path differs)"
        note = f"{note}; {extra}" if note else extra
    return DtypeResult(dtype, out_dtype, len(expected), count, max_abs, max_ulp, worst, tuple(mismatches), note)


def crashed(dtype: str, out_dtype: str, values: int, signal: str, reason: str, inputs: tuple[object, ...],
            note: str = "") -> DtypeResult:
    """The row of a dtype whose kernel crashed (*inputs*: the first that crash it, or empty)."""
    return DtypeResult(dtype, out_dtype, values, 0, 0.0, 0.0, "", (), note, crash=signal, crash_reason=reason,
                       crash_inputs=tuple(fmt(a) for a in inputs))


_EXACT = (True, 0.0, 0.0, 0.0)


def _element(e: object, g: object, out_dtype: str, comp: str, floating: bool,
             signed_zero: bool) -> tuple[bool, float, float, float]:
    """(agrees, abs error, ULP error, error / tolerance) of one element."""
    if not floating and isinstance(e, float) and isinstance(g, float):  # an exact real output: bit for bit
        ok = (math.isnan(e) and math.isnan(g)) or (e == g and math.copysign(1, e) == math.copysign(1, g))
        err = 0.0 if ok else abs(g - e)
        return ok, err, err, 0.0 if ok else math.inf
    if not floating:
        ok = e == g
        abs_err = 0.0 if ok else abs(float(e) - float(g))  # type: ignore[arg-type]
        return ok, abs_err, abs_err, 0.0 if ok else math.inf
    if out_dtype.startswith("complex"):
        ce, cg = complex(e), complex(g)  # type: ignore[call-overload]
        if ce == cg:  # most elements: equal parts agree with no error (NaN is never equal; +-0 is no signed zero here)
            return _EXACT
        parts = [_component(ce.real, cg.real, comp, False), _component(ce.imag, cg.imag, comp, False)]
    else:
        fe, fg = float(e), float(g)  # type: ignore[arg-type]
        if fe == fg and (fe != 0 or math.copysign(1, fe) == math.copysign(1, fg)):
            return _EXACT  # what _component says of equal values (a -0 for +0 aside)
        parts = [_component(fe, fg, comp, signed_zero)]
    return (all(p[0] for p in parts), max(p[1] for p in parts), max(p[2] for p in parts),
            max(p[3] for p in parts))


# -- output --------------------------------------------------------------------------------------


def _num(v: float) -> str:
    return "inf" if math.isinf(v) else f"{v:.3g}"


def render_text(result: TryResult) -> str:
    head = ("dtype", "values", "mismatches", "worst: abs err", "ULP", "input")  # one element's
    rows = [head]
    for r in result.rows:
        name = r.dtype if r.dtype == r.out_dtype else f"{r.dtype}->{r.out_dtype}"
        if r.crash:
            rows.append((name, str(r.values), f"crash ({r.crash})", "-", "-", ", ".join(r.crash_inputs)))
            continue
        rows.append((name, str(r.values), str(r.mismatches), _num(r.max_abs_error), _num(r.max_ulp_error),
                     r.worst_input))
    widths = [max(len(row[i]) for row in rows) for i in range(len(head))]
    lines = [f"mpsgen try {result.op}: {result.backend} vs {result.reference} (CPU)"
             + (" [cached]" if result.cached else "")]
    lines += ["  " + "  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip() for row in rows]
    explained: set[str] = set()
    for r in result.rows:
        if r.note:
            lines.append(f"  note ({r.dtype}): {r.note}")
        if r.crash:
            lines.append("  " + crash_message(result.op, r, explain=r.crash not in explained))
            explained.add(r.crash)
        for m in r.first_mismatches:
            lines.append(f"  MISMATCH {r.dtype}: {result.op}({', '.join(m.inputs)}) expected {m.expected}, got {m.got}")
    wrong = [r.dtype for r in result.rows if not r.ok and not r.crash]
    crashes = [f"{r.dtype} ({r.crash})" for r in result.rows if r.crash]
    summary = ([f"mismatches in {', '.join(wrong)}"] if wrong else []) + \
        ([f"the kernel crashed in {', '.join(crashes)}"] if crashes else [])
    lines.append("; ".join(summary) if summary else "all dtypes agree")
    return "\n".join(lines) + "\n"


def crash_message(op: str, row: DtypeResult, *, explain: bool = True) -> str:
    """One line: the signal, the op, the dtype and the first inputs that crash the kernel (and what
    the signal usually means, unless a line above already said it)."""
    at = f"{op}({', '.join(row.crash_inputs)})" if row.crash_inputs else f"{op} (the crashing input was not found)"
    killed = "never returned" if row.crash == "timeout" else f"killed the kernel with {row.crash}"
    return f"CRASH {row.dtype}: {at} {killed}" + (f" ({row.crash_reason})" if explain else "")


def _finite(v: object) -> object:
    """JSON has no inf/NaN: non-finite numbers become the strings "inf", "-inf", "nan"."""
    if isinstance(v, float) and not math.isfinite(v):
        return fmt(v)
    if isinstance(v, dict):
        return {k: _finite(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_finite(x) for x in v]
    return v


def render_json(result: TryResult) -> str:
    return json.dumps(_finite(result.to_json()), indent=2, allow_nan=False) + "\n"
