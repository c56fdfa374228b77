"""The few statistics the lab needs, written out (docs/lab.md says why not scipy).

Everything takes whole numbers (counts, sums) and returns floats, so that a report never
depends on the order in which games came back from the workers. Two-sided tests at the
95% level; the normal approximation is used where the counts are large enough for it
and an exact binomial sum where they are not.
"""

import math

__all__ = ["Z95", "wilson", "normal_two_sided_p", "binomial_two_sided_p", "mcnemar",
           "paired_difference", "summary_of", "quantile", "histogram", "kappa", "pearson"]

Z95 = 1.959963984540054  # the standard normal's 97.5% point


def wilson(successes, n, z=Z95):
    """Wilson score interval (low, high) of a proportion; (0.0, 1.0) when n is 0.

    Unlike the plain p +- z*sqrt(p(1-p)/n), it stays inside [0, 1] and keeps its coverage
    for rates near 0 or 1 (a seat that never wins, a turn limit nobody meets)."""
    if n <= 0:
        return 0.0, 1.0
    p = successes / n
    z2 = z * z
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    # Exactly 0 and 1 at the ends (the formula gives them up to rounding): an interval
    # must hold its own estimate.
    low = 0.0 if successes == 0 else max(0.0, min(p, centre - half))
    high = 1.0 if successes == n else min(1.0, max(p, centre + half))
    return low, high


def normal_two_sided_p(z):
    """P(|Z| >= |z|) for a standard normal Z."""
    return math.erfc(abs(z) / math.sqrt(2))


def binomial_two_sided_p(k, n):
    """Exact two-sided p of k successes in n fair coin flips (min(1, 2 * smaller tail))."""
    if n == 0:
        return 1.0
    k = min(k, n - k)
    tail = sum(math.comb(n, j) for j in range(k + 1)) / 2.0 ** n
    return min(1.0, 2 * tail)


def mcnemar(b, c):
    """Paired test of two proportions measured on the same games.

    `b`: games where the event happened under the first setting only, `c`: under the
    second only (games where both or neither agree tell nothing about the difference).
    Returns the two-sided p: exact binomial for fewer than 50 discordant games, else the
    normal approximation with continuity correction."""
    n = b + c
    if n == 0:
        return 1.0
    if n < 50:
        return binomial_two_sided_p(b, n)
    z = (abs(b - c) - 1) / math.sqrt(n)
    return normal_two_sided_p(max(z, 0.0))


def paired_difference(n, sum_d, sum_d2):
    """(mean difference, its 95% half-width, two-sided p) of n paired differences given by
    their sum and sum of squares (ints, so exact); the half-width is None below 2 pairs.
    The normal approximation: fine from about 30 pairs; the report marks fewer as too few."""
    if n == 0:
        return 0.0, None, 1.0
    mean = sum_d / n
    if n < 2:
        return mean, None, 1.0
    var = max(0.0, (sum_d2 - sum_d * sum_d / n) / (n - 1))
    se = math.sqrt(var / n)
    if se == 0:
        return mean, 0.0, (1.0 if mean == 0 else 0.0)
    return mean, Z95 * se, normal_two_sided_p(mean / se)


def quantile(sorted_values, q):
    """The q-quantile (0..1) of already sorted values, by linear interpolation (the
    common "type 7" definition, as numpy's default)."""
    n = len(sorted_values)
    if n == 0:
        return None
    pos = (n - 1) * q
    lo = int(math.floor(pos))
    hi = min(lo + 1, n - 1)
    return sorted_values[lo] + (sorted_values[hi] - sorted_values[lo]) * (pos - lo)


def summary_of(values):
    """{n, mean, sd, min, p5, p25, median, p75, p95, max} of whole numbers."""
    n = len(values)
    if n == 0:
        return {"n": 0}
    s = sorted(values)
    total = sum(s)
    squares = sum(v * v for v in s)
    mean = total / n
    var = (squares - total * total / n) / (n - 1) if n > 1 else 0.0
    out = {"n": n, "mean": mean, "sd": math.sqrt(max(var, 0.0)), "min": s[0]}
    for name, q in (("p5", .05), ("p25", .25), ("median", .5), ("p75", .75), ("p95", .95)):
        out[name] = round(quantile(s, q), 6)  # 74.05, not 74.05000000000001
    out["max"] = s[-1]
    return out


def histogram(values, bins=30, lo=None, hi=None):
    """(edges, counts) over whole numbers, with bins of whole widths, from `lo` to `hi`
    (default: the values' own range; give the same to histograms drawn together)."""
    if not values:
        return [], []
    lo = min(values) if lo is None else lo
    hi = max(values) if hi is None else hi
    width = max(1, int(math.ceil((hi - lo + 1) / bins)))
    count = (hi - lo) // width + 1
    counts = [0] * count
    for v in values:
        counts[(v - lo) // width] += 1
    return [lo + k * width for k in range(count + 1)], counts


def kappa(pairs):
    """Cohen's kappa of two outcomes per pair, with its 95% interval.

    `pairs` is a list of (first outcome, second outcome). Returns (observed agreement,
    agreement expected from the outcomes' frequencies alone, kappa, low, high); kappa is
    0 when the outcomes agree no more than chance would make them, 1 when always, and
    None when there is only one outcome (nothing to agree on beyond chance)."""
    n = len(pairs)
    if n == 0:
        return None
    agree = sum(1 for a, b in pairs if a == b) / n
    first, second = {}, {}
    for a, b in pairs:
        first[a] = first.get(a, 0) + 1
        second[b] = second.get(b, 0) + 1
    expected = sum(first[k] * second.get(k, 0) for k in first) / (n * n)
    if expected >= 1:
        return agree, expected, None, None, None  # one outcome only: kappa is undefined
    k = (agree - expected) / (1 - expected)
    # The large-sample standard error of kappa (Cohen 1960).
    se = math.sqrt(max(agree * (1 - agree), 0.0) / n) / (1 - expected)
    return agree, expected, k, max(-1.0, k - Z95 * se), min(1.0, k + Z95 * se)


def pearson(xs, ys):
    """Pearson correlation of two lists of whole numbers (None if one is constant)."""
    n = len(xs)
    if n < 2:
        return None
    sx, sy = sum(xs), sum(ys)
    sxx = sum(x * x for x in xs) * n - sx * sx
    syy = sum(y * y for y in ys) * n - sy * sy
    sxy = sum(x * y for x, y in zip(xs, ys)) * n - sx * sy
    if sxx <= 0 or syy <= 0:
        return None
    return sxy / math.sqrt(sxx * syy)
