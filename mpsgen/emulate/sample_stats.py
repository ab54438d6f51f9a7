"""The statistics of the random kind's numeric check (emulate/random_check.py): per op, what a sample
drawn by the emulated kernels must satisfy against torch CPU's sample with the same parameters.

Continuous samplers (uniform_, normal_, exponential_): in range, mean and variance within Z standard
errors of the distribution's (widened by the dtype's rounding), and a two-sample Kolmogorov-Smirnov test
at p = 0.001.  Bernoulli (bernoulli_ with a scalar p, or a p per element): 0 or 1 only, p = 0 and p = 1
exact, the count of ones within Z standard errors of the expected, and a chi-square test of the two
samples' counts (per band of p) at p = 0.001.
"""

from __future__ import annotations

import math

from mpsgen.emulate.compare import Mismatch

Z = 5.0  # standard errors a moment may be off
KS_C = 1.949  # c(alpha) of the two-sample KS test at alpha = 0.001
CHI2_001 = {1: 10.828, 2: 13.816, 3: 16.266, 4: 18.467, 5: 20.515}  # chi-square's 0.999 quantile by dof
BANDS = 5  # bands of p for bernoulli_tensor's chi-square


def probabilities(n: int) -> list[float]:
    """bernoulli_tensor's p per element: 0, 0.01, ..., 1 spread over the elements (0 and 1 included)."""
    return [((i * 37) % 101) / 100 for i in range(n)]


def judge(op: str, kernel: str, params: tuple[float, ...], got: list[float], ref: list[float], spacing: float,
          shown: tuple[str, ...], probs: list[float] | None = None) -> list[Mismatch]:
    """What is wrong with *got* (the kernels' sample) beside *ref* (torch CPU's), for *op*'s *params*."""
    if kernel.startswith("bernoulli"):
        return _bernoulli(got, ref, probs if probs is not None else [params[0]] * len(got), shown)
    if kernel.startswith("random"):
        return _integers(kernel, params, got, ref, shown)
    if op == "uniform_":
        lo, hi = params
        outside = [v for v in got if not (lo <= v < hi or lo == hi == v)]
        out = [Mismatch((*shown, "range"), f"[{lo:g}, {hi:g})", f"{outside[0]!r}")] if outside else []
        out += moments(got, (lo + hi) / 2, (hi - lo) ** 2 / 12, (hi - lo) ** 4 / 80, spacing, shown)
    elif op == "exponential_":  # lambda: mean 1/lambda, variance 1/lambda^2, mu4 9/lambda^4
        lam = params[0]
        outside = [v for v in got if not 0.0 <= v < math.inf]
        out = [Mismatch((*shown, "range"), "[0, inf)", f"{outside[0]!r}")] if outside else []
        out += moments(got, 1 / lam, 1 / lam ** 2, 9 / lam ** 4, spacing, shown)
    else:  # normal_: mean, std; mu4 = 3 sigma^4
        mean, std = params
        out = [] if all(math.isfinite(v) for v in got) else [Mismatch((*shown, "range"), "finite values", "inf or nan")]
        out += moments(got, mean, std * std, 3 * std ** 4, spacing, shown)
    d = ks(got, ref)
    if d > KS_C * math.sqrt(2.0 / len(got)):
        out.append(Mismatch((*shown, "KS"), f"D <= {KS_C * math.sqrt(2.0 / len(got)):.4f}", f"D = {d:.4f}"))
    return out


def moments(got: list[float], want_mean: float, want_var: float, mu4: float, spacing: float,
            shown: tuple[str, ...]) -> list[Mismatch]:
    """Mean and variance within Z standard errors of the distribution's (*mu4*: its fourth central moment,
    uniform: width^4 / 80, normal: 3 sigma^4), widened by the dtype's rounding (*spacing*)."""
    n = len(got)
    mean = sum(got) / n
    var = sum((v - mean) ** 2 for v in got) / (n - 1)
    mean_bound = Z * math.sqrt(want_var / n) + spacing
    # Var(s^2) = mu4 / n - sigma^4 (n - 3) / (n (n - 1))
    var_bound = Z * math.sqrt(max(mu4 / n - want_var ** 2 * (n - 3) / (n * (n - 1)), 0.0)) \
        + 2 * spacing * math.sqrt(12 * want_var)
    out = []
    if abs(mean - want_mean) > mean_bound:
        out.append(Mismatch((*shown, "mean"), f"{want_mean:g} +- {mean_bound:.3g}", f"{mean:g}"))
    if abs(var - want_var) > var_bound:
        out.append(Mismatch((*shown, "variance"), f"{want_var:g} +- {var_bound:.3g}", f"{var:g}"))
    return out


def ks(a: list[float], b: list[float]) -> float:
    """The two-sample Kolmogorov-Smirnov statistic: the largest gap between the empirical CDFs."""
    xs, ys = sorted(a), sorted(b)
    i = j = 0
    d = 0.0
    while i < len(xs) and j < len(ys):
        x = min(xs[i], ys[j])
        while i < len(xs) and xs[i] == x:
            i += 1
        while j < len(ys) and ys[j] == x:
            j += 1
        d = max(d, abs(i / len(xs) - j / len(ys)))
    return d


def _bernoulli(got: list[float], ref: list[float], probs: list[float], shown: tuple[str, ...]) -> list[Mismatch]:
    out = []
    odd = [v for v in got if v not in (0.0, 1.0)]
    if odd:
        out.append(Mismatch((*shown, "range"), "0 or 1", f"{odd[0]!r}"))
    wrong = [(p, v) for p, v in zip(probs, got) if p in (0.0, 1.0) and v != p]
    if wrong:
        out.append(Mismatch((*shown, "p = 0 or 1"), f"{wrong[0][0]:g}", f"{wrong[0][1]:g}"))
    ones, want = sum(got), sum(probs)
    bound = Z * math.sqrt(sum(p * (1 - p) for p in probs)) + 0.5
    if abs(ones - want) > bound:
        out.append(Mismatch((*shown, "mean"), f"{want / len(got):g} +- {bound / len(got):.3g}", f"{ones / len(got):g}"))
    chi2, dof = 0.0, 0
    for band in range(BANDS):  # a 2x2 table per band of p: this sample's and the CPU's ones and zeros
        members = [k for k, p in enumerate(probs) if 0 < p < 1 and min(int(p * BANDS), BANDS - 1) == band]
        if not members:
            continue
        a, b = sum(got[k] for k in members), sum(ref[k] for k in members)
        n = len(members)
        total = a + b
        if total in (0, 2 * n):
            continue
        for observed, expected in ((a, total / 2), (n - a, n - total / 2), (b, total / 2), (n - b, n - total / 2)):
            chi2 += (observed - expected) ** 2 / expected
        dof += 1
    if dof and chi2 > CHI2_001[dof]:
        out.append(Mismatch((*shown, "chi-square"), f"<= {CHI2_001[dof]:g} ({dof} dof)", f"{chi2:.2f}"))
    return out


def chi2_limit(dof: int) -> float:
    """Chi-square's 0.999 quantile (the table to 5 degrees of freedom, Wilson-Hilferty above)."""
    if dof in CHI2_001:
        return CHI2_001[dof]
    return dof * (1 - 2 / (9 * dof) + 3.0902 * math.sqrt(2 / (9 * dof))) ** 3


def two_sample_chi2(a: list[float], b: list[float]) -> tuple[float, int]:
    """Chi-square of two equal-size samples' counts over their values (at most 32 of them) or over 16 equal
    bands of their joint range; (statistic, degrees of freedom)."""
    values = sorted(set(a) | set(b))
    if len(values) <= 32:
        key = {v: k for k, v in enumerate(values)}
        bins = len(values)
        where = key.__getitem__
    else:
        low, high = values[0], values[-1]
        bins = 16
        where = lambda v: min(int((v - low) / (high - low) * bins), bins - 1)  # noqa: E731
    ca, cb = [0] * bins, [0] * bins
    for v in a:
        ca[where(v)] += 1
    for v in b:
        cb[where(v)] += 1
    chi2, used = 0.0, 0
    for x, y in zip(ca, cb):
        if x + y:
            chi2 += (x - y) ** 2 / (x + y)  # both samples of one size: expected (x + y) / 2 each
            used += 1
    return chi2, max(used - 1, 0)


def _integers(kernel: str, params: tuple, got: list[float], ref: list[float], shown: tuple[str, ...]) -> list[Mismatch]:
    out = []
    if kernel == "random_from_to":
        low, high = params
        outside = [v for v in got if not (low <= v < high and v == int(v))]
        if outside:
            out.append(Mismatch((*shown, "range"), f"integers in [{low}, {high})", f"{outside[0]!r}"))
        n = high - low  # a discrete uniform of n values: mean (low + high - 1) / 2, variance (n^2 - 1) / 12
        out += moments(got, (low + high - 1) / 2, (n * n - 1) / 12, (n * n - 1) * (3 * n * n - 7) / 240, 0.0, shown)
    elif kernel == "random":  # params: (0, the count of values the dtype takes from 0)
        low, high = params
        outside = [v for v in got if not (low <= v < high and v == int(v))]
        if outside:
            out.append(Mismatch((*shown, "range"), f"integers in [{low}, {high})", f"{outside[0]!r}"))
    chi2, dof = two_sample_chi2(got, ref)
    if dof and chi2 > chi2_limit(dof):
        out.append(Mismatch((*shown, "chi-square"), f"<= {chi2_limit(dof):.2f} ({dof} dof)", f"{chi2:.2f}"))
    return out
