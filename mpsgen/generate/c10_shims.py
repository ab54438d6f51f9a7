"""Stand-ins for c10/metal helpers an older checkout lacks (PyTorch 2.7 has no hypot, fmod, remainder,
xlogy, logaddexp, complex mul and conj, expm1f, erfcx or erfc; the sample has no zeta) or has less exactly than the
CPU (2.7's log1p), written as
member functions of the functor that needs them.

A catalog body that calls ``c10::metal::hypot(a, b)`` then calls ``hypot_(a, b)``, and the functor
carries ``hypot_``; the numeric check compiles and runs it against the checkout's own headers like any
other body.  Each stand-in follows the CPU semantics the helper has in newer c10/metal (edge cases
included); a helper with no stand-in here is refused by plan/era.py.
"""

from __future__ import annotations

import re
from typing import Callable

_WHY = "// this checkout's c10/metal has no {name}"


def _erfcx_from_catalog() -> str:
    """erfcx_ is the catalog's special_erfcx body (native/Math.h calc_erfcx, its 700-number table Y100 with
    it) as a member function: one copy of the table in the repository."""
    from mpsgen.generate.catalog import load_catalog

    body = str(load_catalog()["special_erfcx"]["expr"]).rstrip("\n").split("\n")
    return "\n".join(["inline float erfcx_(float x) {", *("  " + ln if ln else ln for ln in body), "}"])


# name -> the stand-in's text, or what derives it (read only when a functor carries it)
SHIMS: dict[str, str | Callable[[], str]] = {
    "hypot": """inline float hypot_(float a, float b) {
  // |(a, b)| without overflow; an infinity wins over NaN, as in C's hypot
  a = ::metal::fabs(a);
  b = ::metal::fabs(b);
  if (::metal::isinf(a) || ::metal::isinf(b)) {
    return INFINITY;
  }
  const float hi = ::metal::fmax(a, b), lo = ::metal::fmin(a, b);
  if (::metal::isnan(a) || ::metal::isnan(b) || hi == 0.0f) {
    return a + b;
  }
  const float r = lo / hi;
  return hi * precise::sqrt(1.0f + r * r);
}""",
    "fmod": """template <typename T>
inline T fmod_(T a, T b) {
  return a % b; // integers: C's truncated remainder
}""",
    "remainder": """template <typename T>
inline T remainder_(T a, T b) {
  const T r = a % b; // integers: Python's modulo, the remainder takes the divisor's sign
  return r != 0 && (r < 0) != (b < 0) ? T(r + b) : r;
}""",
    "xlogy": """inline float xlogy_(float x, float y) {
  // x * log(y), 0 where x is 0 unless y is NaN
  return ::metal::isnan(y) ? NAN : x == 0.0f ? x : x * precise::log(y);
}""",
    "logaddexp": """inline float logaddexp_(float a, float b) {
  // log(exp(a) + exp(b)) without overflow; equal infinities return themselves
  if (::metal::isinf(a) && a == b) {
    return a;
  }
  const float t = precise::exp(-::metal::fabs(a - b)), u = 1.0f + t;
  return ::metal::fmax(a, b) + (u == 1.0f ? t : precise::log(u) * (t / (u - 1.0f))); // Kahan's log1p
}
inline float2 logaddexp_(float2 a, float2 b) {
  // complex: max + log1p(exp(min - max)), ordered by real part (cpu/LogAddExp.h); equal real parts
  // and infinities are the catalog body's to handle before it calls this
  const float2 hi = a.x < b.x ? b : a, lo = a.x < b.x ? a : b;
  const float2 d = lo - hi;
  const float e = precise::exp(d.x);
  const float2 z = e == 0.0f ? float2(0.0f, 0.0f) : float2(e * precise::cos(d.y), e * precise::sin(d.y)); // cexp(-inf + iy) = 0
  const float2 u = float2(z.x + 1.0f, z.y);
  if (u.x == 1.0f && u.y == 0.0f) {
    return hi + z;
  }
  // log1p(z) = log(u) * (z / (u - 1)) as c10/util/complex_math.h's CPU path, |u| without squaring, and
  // c10::complex's division (numpy's): the scale 1 / den first, so a subnormal den overflows it to inf and
  // the product to NaN as on the CPU (log1p(4.3e-40 - 1.2e-40i) is NaN there)
  const float2 w = float2(u.x - 1.0f, u.y);
  const float M = ::metal::fmax(::metal::fabs(u.x), ::metal::fabs(u.y)), N = ::metal::fmin(::metal::fabs(u.x), ::metal::fabs(u.y));
  const float Q = M == N ? 1.0f : N / M;
  const float lr = precise::log(M) + 0.5f * precise::log(1.0f + Q * Q), li = precise::atan2(u.y, u.x);
  if (w.x == z.x && w.y == z.y) {
    return hi + float2(lr, li);
  }
  const bool wide = ::metal::fabs(w.x) >= ::metal::fabs(w.y);
  const float r = wide ? w.y / w.x : w.x / w.y, scl = 1.0f / (wide ? w.x + w.y * r : w.y + w.x * r);
  const float2 q = wide ? float2((z.x + z.y * r) * scl, (z.y - z.x * r) * scl) : float2((z.x * r + z.y) * scl, (z.y * r - z.x) * scl);
  return hi + float2(lr * q.x - li * q.y, lr * q.y + li * q.x);
}""",
    "mul": """inline float2 mul_(float2 a, float2 b) {
  return float2(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x); // complex product
}""",
    "conj": """inline float2 conj_(float2 a) {
  return float2(a.x, -a.y);
}""",
    "log1p": """inline float log1p_(float x) {
  // log(1 + x) to float precision: log(u) * (x / (u - 1)) cancels the rounding of u = 1 + x (Kahan), as
  // newer c10/metal's log1p and the CPU's log1pf
  const float u = 1.0f + x;
  if (u == 1.0f) {
    return x;
  }
  const float l = precise::log(u);
  return x > -0.5f && x < 0.5f ? l * (x / (u - 1.0f)) : l;
}""",
    "zeta": """inline float zeta_(float x, float q) {
  // Hurwitz zeta(x, q) as native/Math.h's zeta (Cephes): inf at x == 1 and at non-positive integer q,
  // NaN for x < 1 and for negative q with x not an integer; a direct sum while its terms matter, then
  // the Euler-Maclaurin tail with the Bernoulli coefficients (2k)! / B_2k
  constexpr float MACHEP = 1.11022302462515654042E-16f;
  constexpr float B[12] = {12.0f, -720.0f, 30240.0f, -1209600.0f, 47900160.0f, -1.8924375803183791606e9f,
                           7.47242496e10f, -2.950130727918164224e12f, 1.1646782814350067249e14f,
                           -4.5979787224074726105e15f, 1.8152105401943546773e17f, -7.1661652561756670113e18f};
  if (x == 1.0f) {
    return INFINITY;
  }
  if (x < 1.0f) {
    return NAN;
  }
  if (q <= 0.0f) {
    if (q == ::metal::floor(q)) {
      return INFINITY;
    }
    if (x != ::metal::floor(x)) {
      return NAN;
    }
  }
  float s = precise::pow(q, -x);
  float a = q;
  float b = 0.0f;
  for (int i = 0; i < 9 || a <= 9.0f;) {
    ++i;
    a += 1.0f;
    b = precise::pow(a, -x);
    s += b;
    if (-MACHEP * s < b && b < MACHEP * s) {
      return s;
    }
  }
  const float w = a;
  s += b * w / (x - 1.0f);
  s -= 0.5f * b;
  float f = 1.0f;
  float k = 0.0f;
  for (int i = 0; i < 12; ++i) {
    f *= x + k;
    b /= w;
    const float t = f * b / B[i];
    s += t;
    if (::metal::fabs(t / s) < MACHEP) {
      return s;
    }
    k += 1.0f;
    f *= x + k;
    b /= w;
    k += 1.0f;
  }
  return s;
}""",
    "expm1f": """inline float expm1f_(float x) {
  // Kahan's expm1: exp's rounding error cancels in (u - 1) * (x / log(u))
  const float u = precise::exp(x);
  if (u == 1.0f || ::metal::isinf(u) || ::metal::isnan(u)) {
    return u == 1.0f ? x : u - 1.0f;
  }
  return u - 1.0f == -1.0f ? -1.0f : (u - 1.0f) * (x / precise::log(u));
}""",
    "erfcx": _erfcx_from_catalog,
    "erfc": """inline float erfc_(float x) {
  // libm's erfc as the catalog's erfc body: exp(-x^2) erfcx(|x|) with x^2 split exactly (fma) so exp(-x^2)
  // keeps float accuracy, 2 - erfc(-x) below 0, 0 (2 below 0) past 50
  const float a = ::metal::fabs(x);
  if (::metal::isnan(x)) {
    return x;
  }
  float r = 0.0f;
  if (a <= 50.0f) {
    const float hi = a * a, lo = ::metal::fma(a, a, -hi);  // a^2 = hi + lo exactly
    r = precise::exp(-hi) * (1.0f - lo) * erfcx_(a);
  }
  return x < 0.0f ? 2.0f - r : r;
}""",
}

# Stand-ins that call another stand-in: the functor carries that one too, even where the checkout has it.
NEEDS = {"erfc": ("erfcx",)}
_WHY_NEEDED = "// {needer}_ calls it"

# Stand-ins for what 2.7's c10/metal does define (the sample's lacks it): not "stand-ins on 2.7".
ON_2_7 = frozenset({"zeta"})

# c10::metal helpers some checkouts define less exactly than the CPU computes them, each with the shape of
# that definition (in the headers' code, comments blanked): the functor carries its stand-in instead.
SUPERSEDED = {
    # 2.7's special_math.h: Metal's fast log of the rounded 1 + x above |x| = 1e-4, up to ~6e-4 relative off
    # there (the CPU's log1pf is exact to an ulp); mish_backward scales that error by grad_output.
    "log1p": re.compile(r"fabs\(x\)\s*>\s*1E-4\s*\)\s*\{\s*return\s+::metal::log\(\s*1\.\s*\+\s*x\s*\)"),
}
_WHY_INEXACT = "// this checkout's c10/metal has no {name} as exact as the CPU's"

_CALL = re.compile(r"(?<![\w:])(?:::)?c10::metal::(\w+)\s*\(")


def called(body: str) -> list[str]:
    """The c10::metal functions *body* calls, in order, once each."""
    return list(dict.fromkeys(_CALL.findall(body)))


def redirect(body: str, names: set[str]) -> str:
    """*body* calling the functor's own stand-ins for *names* (``c10::metal::hypot(`` -> ``hypot_(``)."""
    return _CALL.sub(lambda m: f"{m.group(1)}_(" if m.group(1) in names else m.group(0), body)


def lacks(name: str, c10_code: str) -> bool:
    """Whether the checkout's c10/metal code (comments blanked) lacks *name*, or has it only in a form less
    exact than the CPU's (SUPERSEDED)."""
    if not re.search(rf"\b{name}\b", c10_code):
        return True
    inexact = SUPERSEDED.get(name)
    return inexact is not None and inexact.search(c10_code) is not None


def described(names: tuple[str, ...]) -> str:
    """What the checkout's c10/metal lacks, for the plan's note: "hypot, nor a log1p as exact as the CPU's"."""
    missing = ", ".join(n for n in names if n not in SUPERSEDED)
    inexact = " and ".join(n for n in names if n in SUPERSEDED)
    if not inexact:
        return missing
    return f"{missing}, nor a {inexact} as exact as the CPU's" if missing else f"{inexact} as exact as the CPU's"


def member_functions(names: tuple[str, ...]) -> list[str]:
    """The stand-ins' text, each after a comment saying why it is there; a stand-in another one calls
    (NEEDS) comes before it, once."""
    out = []
    for n in dict.fromkeys(m for name in names for m in (*NEEDS.get(name, ()), name)):
        if n in names:
            why = (_WHY_INEXACT if n in SUPERSEDED else _WHY).format(name=n)
        else:
            why = _WHY_NEEDED.format(needer=next(k for k in names if n in NEEDS.get(k, ())))
        text = SHIMS[n]
        out.append(f"{why}\n{text if isinstance(text, str) else text()}")
    return out
