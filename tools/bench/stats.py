"""The one percentile of the benchmarks: nearest rank (the smallest value with at least
q of the values at or below it), so p100 is the maximum and every figure is a measured
value, never an interpolation between two."""

from __future__ import annotations

import math
from collections.abc import Iterable


def percentile(values: Iterable[float], q: float) -> float:
    """The nearest-rank q-quantile (q from 0 to 1) of `values`; 0.0 for none."""
    ordered = sorted(values)
    if not ordered:
        return 0.0
    if not 0.0 <= q <= 1.0:
        raise ValueError(f"quantile {q} is outside 0..1")
    return ordered[max(0, math.ceil(q * len(ordered)) - 1)]


def summary(values: Iterable[float], unit: str = "ms", digits: int = 1) -> str:
    """'p50 ... p99 ... max ... (n)' of `values`, already in `unit`."""
    ordered = sorted(values)
    if not ordered:
        return "none measured"
    p50, p99 = percentile(ordered, 0.5), percentile(ordered, 0.99)
    return (f"p50 {p50:.{digits}f} {unit}  p99 {p99:.{digits}f} {unit}  "
            f"max {ordered[-1]:.{digits}f} {unit}  (n={len(ordered)})")
